import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

/// The one comparison of fixture files with ExifTool's recorded reading (`exiftool -j -n -G1 -a`),
/// used by `ContainerFixtureTests`, `StillFixtureTests` and `VideoContainerTests`: what each
/// file must give is said per file (`Expected`), the values come from ExifTool.
enum ExifToolComparison {
    /// What the fixture scripts set as every file's modification time (2024-12-31 12:00:00Z).
    static let mtime = epoch(1_735_646_400)

    /// Where the expected capture time comes from, in ExifTool's reading.
    enum Time {
        /// This tag's value, with the offset it carries (none: read in UTC, the tests' zone).
        case tag(String)
        /// The wall clock of the first tag with the offset written in the second.
        case wallWithOffsetOf(String, String)
        /// No capture time: the file's mtime.
        case modificationTime
    }

    struct Expected {
        var format: String
        var time: Time
        var timeSource: TimeSource
        /// Our `timeTag`: which value gave the time.
        var timeTag: String?
        /// A position ExifTool shows only as text (Matroska's ISO 6709 LOCATION): its tag, which
        /// ExifTool must show, and the hand-worked degrees. Used when ExifTool decodes no GPS.
        var locationText: (tag: String, latitude: Double, longitude: Double)?
        /// nil: no position (ExifTool has none either).
        var positionSource: String?
        var warnings: [String] = []
        /// The file must be refused with this message.
        var error: String?
        /// Compare with ExifTool's reading of this file instead (one ExifTool cannot read).
        var sameAs: String?
    }

    /// Every file ExifTool read (under `dir`) has an expectation and agrees with its reading.
    static func assertEveryFileAgrees(_ expected: [String: Expected], readings: [String: [String: Any]], dir: URL) throws {
        XCTAssertEqual(Set(readings.keys), Set(expected.keys), "fixtures and expectations differ")
        for name in readings.keys.sorted() {
            let want = try XCTUnwrap(expected[name], name)
            try assertAgreesWithExifTool(name, want, readings: readings, path: dir.appendingPathComponent(name).path)
        }
    }

    /// Reads the file at `path` and compares it with ExifTool's reading `readings[name]` (or of
    /// `want.sameAs`): format, warnings, position and its source, time and its source.
    static func assertAgreesWithExifTool(_ name: String, _ want: Expected, readings: [String: [String: Any]],
                                         path: String) throws {
        let entry = try XCTUnwrap(readings[want.sameAs ?? name])
        if let error = want.error {
            XCTAssertThrowsError(try MetadataReader.read(path: RawPath(path), modificationTime: mtime, options: optionsUTC)) {
                XCTAssertEqual("\($0)", error, name)
            }
            return
        }
        let m = try XCTUnwrap(try MetadataReader.read(path: RawPath(path), modificationTime: mtime, options: optionsUTC),
                              "\(name): read as not media")
        XCTAssertEqual(m.format.rawValue, want.format, name)
        XCTAssertEqual(m.warnings, want.warnings, name)

        // Position: ExifTool's (signed, -n), from EXIF GPS (Composite) or XMP; else a text
        // position ExifTool shows as it is, with hand-worked degrees.
        let lat = (entry["Composite:GPSLatitude"] ?? entry["XMP-exif:GPSLatitude"]) as? Double
        let lon = (entry["Composite:GPSLongitude"] ?? entry["XMP-exif:GPSLongitude"]) as? Double
        if let lat, let lon {
            let c = try XCTUnwrap(m.coordinate, "\(name): ExifTool has \(lat),\(lon); issue \(m.locationIssue ?? "-")")
            XCTAssertEqual(c.latitude, lat, accuracy: 1e-6, name)
            XCTAssertEqual(c.longitude, lon, accuracy: 1e-6, name)
            XCTAssertEqual(m.positionSource?.rawValue, want.positionSource, name)
        } else if let text = want.locationText {
            XCTAssertNotNil(entry[text.tag] as? String, "\(name): ExifTool shows no \(text.tag)")
            let c = try XCTUnwrap(m.coordinate, "\(name): \(entry[text.tag] ?? "-")")
            XCTAssertEqual(c.latitude, text.latitude, accuracy: 1e-9, name)
            XCTAssertEqual(c.longitude, text.longitude, accuracy: 1e-9, name)
            XCTAssertEqual(m.positionSource?.rawValue, want.positionSource, name)
        } else {
            XCTAssertNil(want.positionSource, "\(name): ExifTool has no position")
            XCTAssertNil(m.coordinate, name)
        }

        // Time.
        XCTAssertEqual(m.timeSource, want.timeSource, name)
        XCTAssertEqual(m.timeTag, want.timeTag, name)
        switch want.time {
        case .modificationTime:
            XCTAssertEqual(m.takenAt, mtime, name)
        case .tag(let tag):
            let text = try XCTUnwrap(entry[tag] as? String, "\(name): ExifTool has no \(tag)")
            let (wall, offset) = try XCTUnwrap(parseExifToolDate(text), "\(name): \(text)")
            XCTAssertEqual(try XCTUnwrap(m.takenAt, name).timeIntervalSince1970, wall - Double(offset ?? 0),
                           accuracy: 1e-3, name)
            // A UTC value (mvhd, Matroska DateUTC) carries no offset of the wall clock.
            XCTAssertEqual(m.utcOffsetSeconds, want.timeSource == .containerUTC ? nil : offset ?? 0, name)
        case .wallWithOffsetOf(let wallTag, let offsetTag):
            let wallText = try XCTUnwrap(entry[wallTag] as? String, "\(name): ExifTool has no \(wallTag)")
            let offsetText = try XCTUnwrap(entry[offsetTag] as? String, "\(name): ExifTool has no \(offsetTag)")
            let wall = try XCTUnwrap(parseExifToolDate(wallText)).wall
            let offset = try XCTUnwrap(parseExifToolDate(offsetText)?.offset, "\(name): \(offsetText)")
            XCTAssertEqual(try XCTUnwrap(m.takenAt, name).timeIntervalSince1970, wall - Double(offset),
                           accuracy: 1e-3, name)
            XCTAssertEqual(m.utcOffsetSeconds, offset, name)
        }
    }

    /// ExifTool's `YYYY:MM:DD HH:MM:SS[.ss][±H:MM|Z]` (its -n form of EXIF, XMP and QuickTime
    /// dates; a Matroska tag keeps its `T`: `YYYY:MM:DDTHH:MM:SS`) → (seconds if the wall clock
    /// were UTC, offset or nil). Worked with Foundation's Gregorian calendar, independently of
    /// the reader's arithmetic.
    static func parseExifToolDate(_ text: String) -> (wall: Double, offset: Int?)? {
        let pattern = #"^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{1,2}:\d{2})?$"#
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
        func group(_ i: Int) -> String? {
            Range(match.range(at: i), in: text).map { String(text[$0]) }
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = (1...6).map { Int(group($0)!)! }
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: parts[3],
                                        minute: parts[4], second: parts[5])
        guard let date = calendar.date(from: components) else { return nil }
        let fraction = group(7).flatMap { Double("0" + $0) } ?? 0
        var offset: Int?
        if let zone = group(8) {
            if zone == "Z" {
                offset = 0
            } else {
                let sign = zone.hasPrefix("-") ? -1 : 1
                let hm = zone.dropFirst().split(separator: ":").map { Int($0)! }
                offset = sign * (hm[0] * 3_600 + hm[1] * 60)
            }
        }
        return (date.timeIntervalSince1970 + fraction, offset)
    }
}
