import Foundation
import XCTest

/// Issue 36 items 2 and 3: the capture time before the file's. After DateTimeOriginal and
/// CreateDate (and their XMP and QuickTime forms) comes the GPS date and time stamp, then IFD0
/// DateTime (ModifyDate, read as the others), and only then the file's modification time; a
/// photo dated by its file takes no part in the interval rule. A UTC-only time on a photo with
/// a position gets the offset of the zone there, the instant unchanged.
///
/// Fixtures/dates is made by scripts/fixtures-dates (exiftool); Fixtures/dates/exiftool.json
/// holds exiftool's readings of the same files, which the instants are checked against.
final class CaptureOrderTests: XCTestCase {
    static let dates = CLI.repo.appendingPathComponent("Fixtures/dates")

    /// `pins inspect` of Fixtures/dates under TZ=UTC, by file name, the mtimes set as the
    /// fixture script sets them (git keeps none).
    private func inspectDates(_ extra: [String] = []) throws -> [String: [String: Any]] {
        let dir = try CLI.temporaryDirectory(self)
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.dates.path) where !name.hasSuffix(".json") {
            let copy = dir.appendingPathComponent(name).path
            try FileManager.default.copyItem(atPath: Self.dates.appendingPathComponent(name).path, toPath: copy)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_735_646_400)], ofItemAtPath: copy)
        }
        let r = try CLI.run(["inspect", dir.path] + extra, environment: ["TZ": "UTC"])
        XCTAssertEqual(r.status, 0, r.stderr)
        var out: [String: [String: Any]] = [:]
        for line in r.stdout.split(separator: "\n") {
            let o = try XCTUnwrap(CLI.json(String(line)) as? [String: Any])
            out[URL(fileURLWithPath: try XCTUnwrap(o["path"] as? String)).lastPathComponent] = o
        }
        return out
    }

    /// exiftool's reading of `tag` ("Composite:GPSDateTime") in `file`, from exiftool.json.
    private func exiftool(_ file: String, _ tag: String) throws -> String {
        let data = try Data(contentsOf: Self.dates.appendingPathComponent("exiftool.json"))
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        let entry = try XCTUnwrap(entries.first { ($0["SourceFile"] as? String)?.hasSuffix("/" + file) == true }, file)
        return try XCTUnwrap(entry[tag] as? String, "\(file) \(tag)")
    }

    /// An exiftool date ("2022:02:03 14:44:09Z", "2023:07:14 10:11:12-03:30") as seconds since 1970.
    private func instant(ofExiftool text: String) throws -> Double {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy:MM:dd HH:mm:ssXXXXX"
        return try XCTUnwrap(f.date(from: text), text).timeIntervalSince1970
    }

    private func instant(ofISO text: Any?) throws -> Double {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        let string = try XCTUnwrap(text as? String)
        return try XCTUnwrap(f.date(from: string) ?? {
            f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return f.date(from: string)
        }(), string).timeIntervalSince1970
    }

    func testEachTimeSourceInTheNewOrderAgainstExiftool() throws {
        let photos = try inspectDates()
        // The GPS stamp alone: 2022-02-03 14:44:09 UTC, in Melbourne (AEDT, UTC+11, item 3).
        let gps = try XCTUnwrap(photos["gps-stamp-only.jpg"])
        XCTAssertEqual(gps["takenAt"] as? String, "2022-02-04T01:44:09+11:00")
        XCTAssertEqual(gps["timeSource"] as? String, "gpsTime")
        XCTAssertEqual(gps["timeTag"] as? String, "GPSDateStamp + GPSTimeStamp + offset of Australia/Melbourne at the position")
        XCTAssertEqual(try instant(ofISO: gps["takenAt"]), try instant(ofExiftool: exiftool("gps-stamp-only.jpg", "Composite:GPSDateTime")))
        // The HEIF: ModifyDate a week later and the GPS stamp: the GPS stamp wins.
        let heif = try XCTUnwrap(photos["heif-modify-date-and-gps-stamp.heic"])
        XCTAssertEqual(heif["takenAt"] as? String, "2022-02-04T01:44:09+11:00")
        XCTAssertEqual(heif["timeSource"] as? String, "gpsTime")
        XCTAssertEqual(try exiftool("heif-modify-date-and-gps-stamp.heic", "IFD0:ModifyDate"), "2022:02:10 09:00:00")
        XCTAssertEqual(try instant(ofISO: heif["takenAt"]),
                       try instant(ofExiftool: exiftool("heif-modify-date-and-gps-stamp.heic", "Composite:GPSDateTime")))
        // ModifyDate alone: read in --timezone (UTC here).
        let modify = try XCTUnwrap(photos["modify-date-only.jpg"])
        XCTAssertEqual(modify["takenAt"] as? String, "2023-07-14T10:11:12Z")
        XCTAssertEqual(modify["timeSource"] as? String, "modifyDate")
        XCTAssertEqual(try exiftool("modify-date-only.jpg", "IFD0:ModifyDate"), "2023:07:14 10:11:12")
        // With its OffsetTime -03:30: 13:41:12Z.
        let offset = try XCTUnwrap(photos["modify-date-with-offset.jpg"])
        XCTAssertEqual(offset["takenAt"] as? String, "2023-07-14T10:11:12-03:30")
        XCTAssertEqual(offset["timeTag"] as? String, "ModifyDate + OffsetTime")
        XCTAssertEqual(try instant(ofISO: offset["takenAt"]),
                       try instant(ofExiftool: exiftool("modify-date-with-offset.jpg", "Composite:SubSecModifyDate")))
        XCTAssertEqual(try instant(ofISO: offset["takenAt"]), 1_689_342_072)  // 2023-07-14T13:41:12Z
        // With a position in Paris: read in Europe/Paris (CEST), 08:11:12Z.
        let paris = try XCTUnwrap(photos["modify-date-with-position.jpg"])
        XCTAssertEqual(paris["takenAt"] as? String, "2023-07-14T10:11:12+02:00")
        XCTAssertEqual(paris["timeSource"] as? String, "modifyDate")
        XCTAssertEqual(paris["timeTag"] as? String, "ModifyDate + zone of the position")
        // CreateDate (DateTimeDigitized) before ModifyDate.
        let create = try XCTUnwrap(photos["create-date-and-modify-date.jpg"])
        XCTAssertEqual(create["takenAt"] as? String, "2023-07-14T09:00:00+02:00")
        XCTAssertEqual(create["timeTag"] as? String, "DateTimeDigitized")
        XCTAssertEqual(try instant(ofISO: create["takenAt"]),
                       try instant(ofExiftool: exiftool("create-date-and-modify-date.jpg", "Composite:SubSecCreateDate")))
        // The XMP CreateDate before the GPS stamp (12:00:00Z, not 08:11:12Z).
        let xmp = try XCTUnwrap(photos["xmp-create-date-and-gps-stamp.jpg"])
        XCTAssertEqual(xmp["takenAt"] as? String, "2023-07-14T10:11:12+02:00")
        XCTAssertEqual(xmp["timeTag"] as? String, "XMP xmp:CreateDate")
        XCTAssertEqual(try instant(ofISO: xmp["takenAt"]),
                       try instant(ofExiftool: exiftool("xmp-create-date-and-gps-stamp.jpg", "XMP-xmp:CreateDate")))
        // Nothing: the file's time, last.
        let none = try XCTUnwrap(photos["no-date.jpg"])
        XCTAssertEqual(none["takenAt"] as? String, "2024-12-31T12:00:00Z")
        XCTAssertEqual(none["timeSource"] as? String, "fileModification")
    }

    /// --timezone reads a ModifyDate without an offset, as it reads a DateTimeOriginal.
    func testModifyDateIsReadInTheZoneAsTheCaptureDatesAre() throws {
        let photos = try inspectDates(["--timezone", "America/New_York"])
        XCTAssertEqual(photos["modify-date-only.jpg"]?["takenAt"] as? String, "2023-07-14T10:11:12-04:00")
        // The GPS stamp is an instant: the zone of the machine does not move it.
        XCTAssertEqual(photos["gps-stamp-only.jpg"]?["takenAt"] as? String, "2022-02-04T01:44:09+11:00")
    }

    /// Item 3: a UTC-only time on a video with a position of its own gets the offset of the
    /// zone there at that instant; the instant is the one exiftool reads (`-api QuickTimeUTC`:
    /// 2023:07:14 08:11:12+00:00; Matroska DateUTC 2021:06:01 10:34:56Z).
    func testAUTCOnlyTimeGetsTheOffsetOfItsPositionsZone() throws {
        func inspect(_ path: String) throws -> [String: Any] {
            let r = try CLI.run(["inspect", CLI.repo.appendingPathComponent(path).path], environment: ["TZ": "UTC"])
            XCTAssertEqual(r.status, 0, r.stderr)
            return try XCTUnwrap(CLI.json(r.stdout) as? [String: Any])
        }
        // mvhd 08:11:12Z, ©xyz in California (PDT, UTC-7).
        let android = try inspect("Fixtures/formats/video/xyz-android.mov")
        XCTAssertEqual(android["takenAt"] as? String, "2023-07-14T01:11:12-07:00")
        XCTAssertEqual(android["timeSource"] as? String, "containerUTC")
        XCTAssertEqual(android["timeTag"] as? String, "QuickTime mvhd + offset of America/Los_Angeles at the position")
        // DateUTC 10:34:56Z, LOCATION in Paris (CEST, UTC+2).
        let mkv = try inspect("Fixtures/formats/video-containers/mkv-location-tag-and-dateutc.mkv")
        XCTAssertEqual(mkv["takenAt"] as? String, "2021-06-01T12:34:56+02:00")
        // Without a position, UTC it stays.
        let alone = try inspect("Fixtures/formats/video/mvhd-1970-epoch.mov")
        XCTAssertEqual(alone["takenAt"] as? String, "2023-07-14T08:11:12Z")
    }

    func script(_ name: String, _ args: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", CLI.repo.appendingPathComponent("scripts/\(name)").path] + args
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(name) \(args)")
        return String(decoding: data, as: UTF8.self)
    }

    /// A copied folder: 30 % of the photos carry no date, their files copied within seconds of
    /// each other. The rules (scripts/reference-rules, which shares no code with pins) leave
    /// them out of the interval rule: pins selects the same pins and skips the same photos.
    /// Under the old rule (the file's time compared like a capture time) 358 of these 1,500
    /// were skipped for interval; under this one 70, and no photo dated by its file is among
    /// them (both rules run by scripts/reference-rules, before and after this change).
    func testACopiedFolderWhereFileTimesCoincideGivesThePinsTheRulesSelect() throws {
        let dir = try CLI.temporaryDirectory(self)
        let root = dir.appendingPathComponent("photos").path, manifest = dir.appendingPathComponent("manifest.jsonl").path
        _ = try script("gen-library", [root, "--files", "1500", "--seed", "11", "--small", "--manifest", manifest, "--file-dated", "0.3"])
        let reference = try XCTUnwrap(CLI.json(try script("reference-rules", [manifest])) as? [String: [String]])
        let fileDated = Set(try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n").compactMap { line -> String? in
            let o = try? CLI.json(String(line)) as? [String: Any]
            return o?["fileTime"] as? Bool == true ? o?["photo"] as? String : nil
        })
        XCTAssertGreaterThan(fileDated.count, 300)
        let run = try CLI.run(["import", root, "--json", "--dry-run", "--timezone", "UTC", "--db", dir.appendingPathComponent("none.db").path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try XCTUnwrap(CLI.json(run.stdout) as? [String: Any])
        let pins = try XCTUnwrap(json["pins"] as? [[String: Any]])
        XCTAssertEqual(pins.map { $0["photo"] as! String }, reference["accepted"])
        let skipped = try XCTUnwrap(json["skipped"] as? [[String: Any]])
        for reason in ["interval", "distance", "noLocation"] {
            XCTAssertEqual(Set(skipped.filter { $0["reason"] as? String == reason }.map { $0["photo"] as! String }),
                           Set(reference[reason] ?? []), reason)
        }
        let interval = Set(reference["interval"] ?? [])
        XCTAssertTrue(interval.isDisjoint(with: fileDated), "a photo dated by its file is never skipped for interval")
        XCTAssertGreaterThan(Set(reference["accepted"] ?? []).intersection(fileDated).count, 10, "some are pins")
        XCTAssertGreaterThan(interval.count, 20, "the rule still works between dated photos")
        // The reports say how many took no part (those with a position).
        let counts = try XCTUnwrap(json["counts"] as? [String: Any])
        let withPosition = pins.filter { fileDated.contains($0["photo"] as! String) }.count
            + skipped.filter { fileDated.contains($0["photo"] as! String) && $0["reason"] as? String != "noLocation" }.count
        XCTAssertEqual(counts["datedByFile"] as? Int, withPosition)
        let text = try CLI.run(["import", root, "--dry-run", "--timezone", "UTC", "--db", dir.appendingPathComponent("none.db").path])
        XCTAssertTrue(text.stdout.contains("with a position; \(withPosition) of these dated only by the file's time (no date inside): "
                                           + "left out of the interval rule"), text.stdout)
    }
}
