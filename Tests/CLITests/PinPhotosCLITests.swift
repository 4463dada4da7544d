import Foundation
import XCTest

/// Issue 39 as a person sees it: the photos of a place belong to its pin, a return a year later
/// is a second visit, and the counts reach `show`, `list`, `stats` and the exports. The photos
/// are one fixture JPEG without GPS, given a position and a time by exiftool.
final class PinPhotosCLITests: XCTestCase {
    struct Shot {
        let name: String
        let latitude: Double, longitude: Double
        let time: String // exiftool's "YYYY:MM:DD hh:mm:ss", at +02:00
    }

    // Florence: the Duomo makes the pin; the Ponte Vecchio (0.9 km), Santa Croce the next day
    // (0.9 km) and the Duomo again a year later are skipped for distance and belong to it.
    // Pisa (69 km) makes its own pin.
    let shots = [
        Shot(name: "a-duomo.jpg", latitude: 43.7731, longitude: 11.2560, time: "2024:05:01 14:00:00"),
        Shot(name: "b-ponte.jpg", latitude: 43.7680, longitude: 11.2531, time: "2024:05:01 16:30:00"),
        Shot(name: "c-croce.jpg", latitude: 43.7686, longitude: 11.2623, time: "2024:05:02 10:00:00"),
        Shot(name: "d-pisa.jpg", latitude: 43.7230, longitude: 10.3966, time: "2024:05:03 11:00:00"),
        Shot(name: "e-duomo.jpg", latitude: 43.7732, longitude: 11.2561, time: "2025:06:10 11:00:00"),
    ]

    func library() throws -> (root: String, db: String) {
        let dir = try CLI.temporaryDirectory(self)
        let root = dir.appendingPathComponent("photos").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let source = CLI.repo.appendingPathComponent("Fixtures/formats/sidecars/xmp/IMG_0001.jpg").path
        for shot in shots {
            let path = root + "/" + shot.name
            try FileManager.default.copyItem(atPath: source, toPath: path)
            let tool = Process()
            tool.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
            tool.arguments = ["-q", "-overwrite_original", "-GPSLatitude=\(shot.latitude)", "-GPSLatitudeRef=N",
                              "-GPSLongitude=\(shot.longitude)", "-GPSLongitudeRef=E", "-DateTimeOriginal=\(shot.time)",
                              "-OffsetTimeOriginal=+02:00", path]
            try tool.run()
            tool.waitUntilExit()
            XCTAssertEqual(tool.terminationStatus, 0, "exiftool on \(shot.name)")
        }
        return (root, dir.appendingPathComponent("pins.sqlite").path)
    }

    func pins(_ db: String, _ extra: [String] = []) throws -> [[String: Any]] {
        let run = try CLI.run(["list", "--json", "--db", db] + extra)
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(try CLI.json(run.stdout) as? [[String: Any]])
    }

    func testAPlacesPhotosAndVisitsReachShowListStatsAndExports() throws {
        let (root, db) = try library()
        let run = try CLI.run(["import", root, "--quiet", "--db", db])
        XCTAssertEqual(run.status, 0, run.stderr)
        let byVisits = try pins(db, ["--sort", "visits"])
        XCTAssertEqual(byVisits.count, 2)
        let florence = byVisits[0], pisa = byVisits[1]
        XCTAssertEqual(florence["photoCount"] as? Int, 4)
        XCTAssertEqual(florence["visitCount"] as? Int, 2, "1-2 May 2024 is one stay, June 2025 another")
        XCTAssertEqual(pisa["photoCount"] as? Int, 1)
        XCTAssertNil(pisa["visitCount"], "one visit: absent")
        let id = try XCTUnwrap(florence["id"] as? String)

        let show = try CLI.run(["show", id, "--db", db])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("photos    4, 2024-05-01T14:00:00+02:00 to 2025-06-10T11:00:00+02:00\n"), show.stdout)
        let listed = show.stdout.split(separator: "\n").filter { $0.hasPrefix("photo ") }.map { String($0.split(separator: "/").last ?? "") }
        XCTAssertEqual(listed.count, 4)
        XCTAssertTrue(listed[0].hasPrefix("a-duomo.jpg"), "\(listed)")
        XCTAssertTrue(listed[3].hasPrefix("e-duomo.jpg"), "\(listed)")
        let json = try XCTUnwrap(try CLI.json(try CLI.run(["show", id, "--json", "--db", db]).stdout) as? [String: Any])
        XCTAssertEqual(json["photoCount"] as? Int, 4)
        XCTAssertEqual((json["photos"] as? [[String: Any]])?.compactMap { ($0["path"] as? String)?.split(separator: "/").last.map(String.init) },
                       ["a-duomo.jpg", "b-ponte.jpg", "c-croce.jpg", "e-duomo.jpg"])

        let stats = try CLI.run(["stats", "--db", db])
        XCTAssertTrue(stats.stdout.contains("Most visited places:\n  VISITS  PHOTOS  ID        TITLE\n  2       4       \(id.prefix(8))  "), stats.stdout)
        let statsJSON = try XCTUnwrap(try CLI.json(try CLI.run(["stats", "--json", "--db", db]).stdout) as? [String: Any])
        XCTAssertEqual((statsJSON["mostVisited"] as? [[String: Any]])?.map { $0["id"] as? String }, [id])

        let csv = dirOf(db) + "/pins.csv"
        XCTAssertEqual(try CLI.run(["export", "--format", "csv", "--out", csv, "--db", db, "--sort", "visits"]).status, 0)
        let rows = try String(contentsOfFile: csv, encoding: .utf8).components(separatedBy: "\r\n")
        XCTAssertTrue(rows[0].hasSuffix(",photo_count,wanted"))
        XCTAssertTrue(rows[1].hasPrefix(id) && rows[1].hasSuffix(",4,false"), rows[1])
        XCTAssertTrue(rows[2].hasSuffix(",1,false"), rows[2])

        // Deleted, Florence's photos have no pin within 5 km (Pisa is 69 km away): none.
        XCTAssertEqual(try CLI.run(["delete", id, "--db", db]).status, 0)
        XCTAssertEqual(try pins(db).map { $0["photoCount"] as? Int }, [1])
    }

    func dirOf(_ path: String) -> String { (path as NSString).deletingLastPathComponent }

    func testEditVisitsStandsAndAReturnInALaterRunIsCounted() throws {
        let (root, db) = try library()
        // The first run without the return of 2025: one visit.
        let later = root + "-later"
        try FileManager.default.createDirectory(atPath: later, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: root + "/e-duomo.jpg", toPath: later + "/e-duomo.jpg")
        XCTAssertEqual(try CLI.run(["import", root, "--quiet", "--db", db]).status, 0)
        let florence = try XCTUnwrap(try pins(db, ["--sort", "-date"]).last)
        let id = try XCTUnwrap(florence["id"] as? String)
        XCTAssertNil(florence["visitCount"])
        XCTAssertEqual(florence["photoCount"] as? Int, 3)
        // The return, imported from another folder: a second visit of the same pin.
        XCTAssertEqual(try CLI.run(["import", later, "--quiet", "--db", db]).status, 0)
        var after = try XCTUnwrap(try pins(db).first { $0["id"] as? String == id })
        XCTAssertEqual(after["visitCount"] as? Int, 2)
        XCTAssertEqual(after["photoCount"] as? Int, 4)
        // Undone, that run's photo leaves: one visit again.
        XCTAssertEqual(try CLI.run(["runs", "undo", "2", "--db", db]).status, 0)
        after = try XCTUnwrap(try pins(db).first { $0["id"] as? String == id })
        XCTAssertNil(after["visitCount"])
        XCTAssertEqual(after["photoCount"] as? Int, 3)
        // A count given by hand stands through the next import.
        XCTAssertEqual(try CLI.run(["edit", id, "--visits", "5", "--db", db]).status, 0)
        XCTAssertEqual(try CLI.run(["import", later, "--quiet", "--db", db]).status, 0)
        after = try XCTUnwrap(try pins(db).first { $0["id"] as? String == id })
        XCTAssertEqual(after["visitCount"] as? Int, 5)
        XCTAssertEqual(after["photoCount"] as? Int, 4)
        XCTAssertTrue(try CLI.run(["show", id, "--db", db]).stdout.contains("visits    5 (set by hand)\n"))
    }
}
