import Foundation
import XCTest
@testable import PinCore

/// The built binary on Fixtures/library against the hand-worked Fixtures/library-expected.json.
final class ImportEndToEndTests: XCTestCase {
    struct Expected: Decodable {
        struct Decision: Decodable {
            let photo: String
            let takenAt: String?
            let decision: String
            let country: String?
            let why: String
        }
        let files: Int
        let photos: Int
        let created: Int
        let skipped: [String: Int]
        let decisions: [Decision]
    }

    var library: String { CLI.repo.appendingPathComponent("Fixtures/library").path }

    func expected() throws -> Expected {
        try JSONDecoder().decode(Expected.self, from: Data(contentsOf: CLI.repo.appendingPathComponent("Fixtures/library-expected.json")))
    }

    func importJSON(_ extra: [String], db: String) throws -> [String: Any] {
        let run = try CLI.run(["import", library, "--timezone", "UTC", "--json", "--db", db] + extra)
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(CLI.json(run.stdout) as? [String: Any], run.stdout)
    }

    func testDryRunMatchesTheHandWorkedReport() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        let report = try importJSON(["--dry-run"], db: db)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "a dry run must not create the database")
        let want = try expected()
        XCTAssertEqual(report["dryRun"] as? Bool, true)
        let counts = try XCTUnwrap(report["counts"] as? [String: Any])
        XCTAssertEqual(counts["files"] as? Int, want.files)
        XCTAssertEqual(counts["photos"] as? Int, want.photos)
        XCTAssertEqual(counts["created"] as? Int, want.created)
        XCTAssertEqual(counts["skipped"] as? [String: Int], want.skipped)

        // Every photo: the same decision, country and capture instant, in the same order.
        let pins = try XCTUnwrap(report["pins"] as? [[String: Any]])
        let skipped = try XCTUnwrap(report["skipped"] as? [[String: Any]])
        var got: [String: [String: Any]] = [:]
        for pin in pins { got[pin["photo"] as! String] = pin.merging(["reason": "accepted"]) { a, _ in a } }
        for skip in skipped { got[skip["photo"] as! String] = skip }
        XCTAssertEqual(Set(got.keys), Set(want.decisions.map(\.photo)))
        for decision in want.decisions {
            guard let ours = got[decision.photo] else { continue }
            XCTAssertEqual(ours["reason"] as? String, decision.decision, "\(decision.photo): \(decision.why); ours: \(ours["detail"] ?? "")")
            if decision.decision == "accepted" {
                XCTAssertEqual(ours["country"] as? String, decision.country, decision.photo)
            }
            if let wantTime = decision.takenAt, ours["timeSource"] as? String != "fileModification" {
                let a = try XCTUnwrap(ISO8601.parse(wantTime)), b = try XCTUnwrap(ISO8601.parse(ours["takenAt"] as! String), "\(ours)")
                XCTAssertEqual(a.date.timeIntervalSince1970, b.date.timeIntervalSince1970, accuracy: 0.0005, decision.photo)
                XCTAssertEqual(a.offsetSeconds ?? 0, b.offsetSeconds ?? 0, decision.photo)
            }
        }
        // Pins are listed in capture order, as the expected report orders its decisions.
        let wantPins = want.decisions.filter { $0.decision == "accepted" }.map(\.photo)
        XCTAssertEqual(pins.map { $0["photo"] as! String }, wantPins)
        // Skips name what they were near or after.
        let distance = try XCTUnwrap(skipped.first { $0["reason"] as? String == "distance" })
        XCTAssertTrue((distance["detail"] as? String ?? "").contains("km from pin"), "\(distance)")
    }

    func testRealRunThenListAndStatsShowExactlyThosePins() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let want = try expected()
        let report = try importJSON([], db: db)
        XCTAssertEqual((report["counts"] as? [String: Any])?["created"] as? Int, want.created)

        let list = try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as? [[String: Any]])
        XCTAssertEqual(list.count, want.created)
        let madeFrom = list.map { (($0["photoIDs"] as? [String])?.first ?? "") }
        for photo in want.decisions.filter({ $0.decision == "accepted" }).map(\.photo) {
            XCTAssertEqual(madeFrom.filter { $0.hasSuffix("/Fixtures/library/" + photo) }.count, 1, photo)
        }
        // Points (no type key: README "A pin as JSON") in the default colour.
        XCTAssertTrue(list.allSatisfy { $0["type"] == nil && $0["color"] as? String == Settings.defaultPinColor })

        var perCountry: [String: Int] = [:]
        for d in want.decisions where d.decision == "accepted" { if let c = d.country { perCountry[c, default: 0] += 1 } }
        let stats = try XCTUnwrap(CLI.json(CLI.run(["stats", "--json", "--db", db]).stdout) as? [String: Any])
        var statCountries: [String: Int] = [:]
        for c in stats["countries"] as! [[String: Any]] { statCountries[c["id"] as! String] = c["pinCount"] as? Int }
        XCTAssertEqual(statCountries, perCountry)
        XCTAssertEqual((stats["totals"] as? [String: Int])?["pins"], want.created)

        // A second identical run creates nothing and opens nothing it decided before.
        let second = try importJSON([], db: db)
        let counts = try XCTUnwrap(second["counts"] as? [String: Any])
        XCTAssertEqual(counts["created"] as? Int, 0)
        XCTAssertEqual(counts["unchanged"] as? Int, want.files)
        XCTAssertEqual(try (CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as? [Any])?.count, want.created)
    }

    func testDryRunLeavesAnExistingDatabaseByteForByte() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--db", db]).status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let listing = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        let report = try importJSON(["--dry-run"], db: db)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), listing)
        // ...and it took the existing hand-made pin into account: the Eiffel Tower photo is
        // 0.0 km from it.
        let skipped = try XCTUnwrap(report["skipped"] as? [[String: Any]])
        let first = try XCTUnwrap(skipped.first { $0["photo"] as? String == "2023/07-paris/IMG_0001.jpg" })
        XCTAssertEqual(first["reason"] as? String, "distance")
    }

    /// The run's files go through a scratch file in TMPDIR that has no name: nothing is left
    /// there, and a TMPDIR that cannot hold one stops the run with a message naming it.
    func testTheScratchFileIsInTMPDIRAndLeavesNothing() throws {
        let dir = try CLI.temporaryDirectory(self)
        let scratch = dir.appendingPathComponent("scratch").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let run = try CLI.run(["import", library, "--timezone", "UTC", "--db", db, "--quiet"], environment: ["TMPDIR": scratch])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch), [])
        let missing = dir.appendingPathComponent("absent").path
        // (On a fresh database: the one above has nothing new to read, and needs no scratch file.)
        let fresh = dir.appendingPathComponent("absent.sqlite").path
        let refused = try CLI.run(["import", library, "--dry-run", "--db", fresh], environment: ["TMPDIR": missing])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("cannot make a scratch file in \(missing): No such file or directory (TMPDIR chooses the folder)"),
                      refused.stderr)
    }

    func testHumanSummaryAndReportFile() throws {
        let dir = try CLI.temporaryDirectory(self)
        let reportPath = dir.appendingPathComponent("report.json").path
        let run = try CLI.run(["import", library, "--dry-run", "--timezone", "UTC", "--db", dir.appendingPathComponent("x").path,
                               "--report", reportPath])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("22 would be created"), run.stdout)
        XCTAssertTrue(run.stdout.contains("Pins that would be created:"), run.stdout)
        // ...and why every other photo would not make one.
        XCTAssertTrue(run.stdout.contains("Photos that would be skipped (a few of each reason; --verbose lists all):\n  no location (4 photos)\n"),
                      run.stdout)
        let line = run.stdout.split(separator: "\n").first { $0.contains("2023/07-paris/IMG_0002.jpg") } ?? ""
        XCTAssertEqual(line, "    2023/07-paris/IMG_0002.jpg   20 s after 2023/07-paris/IMG_0001.jpg (accepted)")
        XCTAssertTrue(run.stdout.contains("PXL_20230903_101500123.jpg"), "unreadable files are named")
        let report = try XCTUnwrap(CLI.json(String(contentsOfFile: reportPath, encoding: .utf8)) as? [String: Any])
        XCTAssertEqual((report["counts"] as? [String: Any])?["created"] as? Int, 22)
    }

    /// --min-interval 0 --min-distance-km 0.001: no photo of Fixtures/library with a position lies
    /// within 1 m of another's pin, so every one the default rules accept or skip for interval or
    /// distance in Fixtures/library-expected.json (29) is created.
    func testWithNoIntervalAndA1MetreRadiusEveryPhotoWithAPositionBecomesAPin() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("x").path
        // With no interval rule and a 1 m distance rule, every photo with a position and a
        // distinct place becomes a pin: the two bursts' near-duplicates are then within 1 m?
        // No: they are metres apart, so only exact duplicates are skipped.
        let loose = try importJSON(["--dry-run", "--min-interval", "0", "--min-distance-km", "0.001"], db: db)
        let counts = try XCTUnwrap(loose["counts"] as? [String: Any])
        let expectedWithPosition = try expected().decisions.filter { ["accepted", "interval", "distance"].contains($0.decision) }.count
        XCTAssertEqual(counts["created"] as? Int, expectedWithPosition)
    }
}

/// Every container contributes: an import of the mixed formats fixtures (HEIC, AVIF, PNG, WebP,
/// TIFF and raws, MOV/MP4, XMP and Takeout sidecars, JPEG).
final class MixedLibraryTests: XCTestCase {
    func testEveryFormatAndSourceContributesPins() throws {
        let dir = try CLI.temporaryDirectory(self)
        // Loose thresholds: the fixtures share places and times on purpose; here every distinct
        // position should become a pin, whatever file it came from.
        let run = try CLI.run(["import", CLI.repo.appendingPathComponent("Fixtures/formats").path, "--dry-run", "--json",
                               "--timezone", "UTC", "--min-interval", "0", "--min-distance-km", "0.001",
                               "--db", dir.appendingPathComponent("x.sqlite").path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try XCTUnwrap(CLI.json(run.stdout) as? [String: Any])
        let pins = try XCTUnwrap(report["pins"] as? [[String: Any]])
        let formats = Set(pins.compactMap { $0["format"] as? String })
        XCTAssertTrue(formats.isSuperset(of: ["jpeg", "heif", "png", "webp", "tiff", "quicktime"]), "\(formats)")
        let sources = Set(pins.compactMap { $0["positionSource"] as? String })
        XCTAssertTrue(sources.isSuperset(of: ["exif", "xmp", "xmp-sidecar", "takeout", "quicktime"]), "\(sources)")
        // Sidecar files are files, not photos.
        let skipped = try XCTUnwrap(report["skipped"] as? [[String: Any]])
        XCTAssertFalse((pins + skipped).contains { ($0["photo"] as? String ?? "").hasSuffix(".json") || ($0["photo"] as? String ?? "").hasSuffix(".xmp") })
        // --no-videos leaves every video out.
        let noVideos = try CLI.run(["import", CLI.repo.appendingPathComponent("Fixtures/formats").path, "--dry-run", "--json",
                                    "--no-videos", "--timezone", "UTC", "--db", dir.appendingPathComponent("x.sqlite").path])
        let noVideoPins = try XCTUnwrap((CLI.json(noVideos.stdout) as? [String: Any])?["pins"] as? [[String: Any]])
        XCTAssertFalse(noVideoPins.contains { $0["format"] as? String == "quicktime" })
    }
}

final class AwkwardNameTests: XCTestCase {
    /// Quotes, tabs, newlines and bytes that are not UTF-8 in file names: the JSON report stays
    /// valid and names them; nothing is lost.
    func testReportNamesAwkwardFiles() throws {
        let dir = try CLI.temporaryDirectory(self)
        let source = CLI.repo.appendingPathComponent("Fixtures/library/2023/07-paris/IMG_0001.jpg").path
        let quoted = dir.path + "/we\"ird\nna\tme\\.jpg"
        try FileManager.default.copyItem(atPath: source, toPath: quoted)
        // "caf\xE9.jpg" (Latin-1), a different photo far away so both become pins.
        let latin1 = Array(dir.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".jpg".utf8) + [0]
        let other = try Data(contentsOf: CLI.repo.appendingPathComponent("Fixtures/library/2024/06-roma/IMG_7001.jpg"))
        let fd = latin1.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = other.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        close(fd)
        let run = try CLI.run(["import", dir.path, "--dry-run", "--json", "--timezone", "UTC", "--db", dir.path + "/x.sqlite"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try XCTUnwrap(CLI.json(run.stdout) as? [String: Any], run.stdout)
        let photos = Set(((report["pins"] as? [[String: Any]]) ?? []).compactMap { $0["photo"] as? String })
        // A backslash is written twice, a byte that is not UTF-8 as \xNN (RawPath.description).
        XCTAssertEqual(photos, ["we\"ird\nna\tme\\\\.jpg", "caf\\xE9.jpg"])
    }
}
