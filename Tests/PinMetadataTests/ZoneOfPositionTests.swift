import Foundation
@testable import PinCore
@testable import PinMetadata
import TestSupport
import XCTest

/// Issue 14: a wall-clock time with no offset and no GPS time, on a photo with a position, is
/// read in the time zone of that position on that date. Fixtures by scripts/fixtures-timezones
/// (ImageMagick + ExifTool: DateTimeOriginal without OffsetTimeOriginal, GPS position without
/// GPSDateStamp/GPSTimeStamp); expected instants worked by hand (and checked with GNU date).
final class ZoneOfPositionTests: XCTestCase {
    static let repo = Repository.root
    func zones() throws -> TimeZoneResolver { try ShippedData.timeZones() }

    /// `--timezone` is New York in every case, so a result in the photo's own zone cannot be it.
    func read(_ name: String, timeZones: (any TimeZoneLocating)?) throws -> PhotoMetadata {
        let path = Self.repo.appendingPathComponent("Fixtures/timezones/\(name).jpg").path
        let options = MetadataOptions(defaultTimeZone: TimeZone(identifier: "America/New_York")!, timeZones: timeZones)
        return try XCTUnwrap(MetadataReader.read(path: RawPath(path), modificationTime: Date(timeIntervalSince1970: 0), options: options))
    }

    func check(_ name: String, utc: Double, offset: Int, source: TimeSource = .localTimeZoneOfPosition,
               file: StaticString = #filePath, line: UInt = #line) throws {
        let m = try read(name, timeZones: try zones())
        XCTAssertEqual(m.takenAt, Date(timeIntervalSince1970: utc), name, file: file, line: line)
        XCTAssertEqual(m.utcOffsetSeconds, offset, name, file: file, line: line)
        XCTAssertEqual(m.timeSource, source, name, file: file, line: line)
        XCTAssertEqual(m.timeTag, "DateTimeOriginal", name, file: file, line: line)
    }

    func testParisInJulyIsSummerTime() throws {
        // 2024-07-14 12:00 CEST (+02:00) = 10:00Z.
        try check("paris-july", utc: 1_720_951_200, offset: 7_200)
    }

    func testParisInJanuaryIsWinterTime() throws {
        // 2024-01-15 12:00 CET (+01:00) = 11:00Z.
        try check("paris-january", utc: 1_705_316_400, offset: 3_600)
    }

    func testHonolulu() throws {
        // 2024-07-14 12:00 HST (−10:00) = 22:00Z.
        try check("honolulu", utc: 1_720_994_400, offset: -36_000)
    }

    func testOpenSeaUsesTheNauticalZone() throws {
        // 40° N 30° W is open Atlantic: Etc/GMT+2, UTC−2: 12:00 = 14:00Z.
        try check("atlantic", utc: 1_720_965_600, offset: -7_200)
    }

    func testDSTGapInTheZoneOfThePositionShiftsForward() throws {
        // 2024-03-31 02:30 never happens in Paris (02:00 → 03:00): read with the offset before
        // the gap, +01:00 → 01:30Z, which is 03:30 CEST (+02:00).
        try check("paris-dst-gap", utc: 1_711_848_600, offset: 7_200)
    }

    func testDSTOverlapInTheZoneOfThePositionTakesTheEarlierInstant() throws {
        // 2024-10-27 02:30 happens twice in Paris: the first, CEST +02:00 → 00:30Z.
        try check("paris-dst-overlap", utc: 1_729_989_000, offset: 7_200)
    }

    func testWithoutAPositionTheTimezoneOptionStillApplies() throws {
        // 2024-07-14 12:00 in New York (EDT, −04:00) = 16:00Z.
        let m = try read("no-position", timeZones: try zones())
        XCTAssertEqual(m.takenAt, Date(timeIntervalSince1970: 1_720_972_800))
        XCTAssertEqual(m.utcOffsetSeconds, -14_400)
        XCTAssertEqual(m.timeSource, .assumedZone)
    }

    func testWithoutZoneDataTheOldRuleAppliesWithAWarning() throws {
        struct Missing: TimeZoneLocating {
            func timeZone(at point: Coordinate) throws -> TimeZone { throw TimeZoneUnavailable("no time-zone outlines (test)") }
        }
        let m = try read("paris-july", timeZones: Missing())
        XCTAssertEqual(m.takenAt, Date(timeIntervalSince1970: 1_720_972_800), "12:00 EDT")
        XCTAssertEqual(m.timeSource, .assumedZone)
        XCTAssertEqual(m.warnings, ["no time-zone outlines (test): the time is read in America/New_York"])
        // And without a locator at all (as before this change), silently.
        let plain = try read("paris-july", timeZones: nil)
        XCTAssertEqual(plain.timeSource, .assumedZone)
        XCTAssertEqual(plain.warnings, [])
    }

    /// A zone the outlines name but Foundation's zone data lacks (a zone newer than the
    /// toolchain, say): old rule, with a warning.
    func testAZoneUnknownToTheSystemFallsBack() throws {
        XCTAssertNil(TimeZone(identifier: "Europe/Atlantis"))
        var polygons = CountryPolygons()
        polygons.add(code: "Europe/Atlantis", name: "Europe/Atlantis", rings: [[(2, 48), (3, 48), (3, 49), (2, 49)]])
        let m = try read("paris-july", timeZones: TimeZoneResolver(polygons: polygons))
        XCTAssertEqual(m.timeSource, .assumedZone)
        XCTAssertEqual(m.warnings, ["the time zone Europe/Atlantis of the position is unknown to this build's zone data: the time is read in America/New_York"])
    }

    /// A position from a sidecar counts: the zone is taken after the sidecars are merged.
    func testThePositionThatWinsDecides() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-zone-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = dir.appendingPathComponent("IMG.jpg")
        try FileManager.default.copyItem(at: Self.repo.appendingPathComponent("Fixtures/timezones/paris-july.jpg"), to: photo)
        let sidecar = dir.appendingPathComponent("IMG.xmp")
        // Honolulu, written by hand in XMP's GPS form.
        try Data("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/"
             exif:GPSLatitude="21,18.414N" exif:GPSLongitude="157,51.498W"/></rdf:RDF></x:xmpmeta>
            """.utf8).write(to: sidecar)
        let options = MetadataOptions(defaultTimeZone: TimeZone(identifier: "America/New_York")!, timeZones: try zones())
        let m = try XCTUnwrap(MetadataReader.read(path: RawPath(photo.path), modificationTime: Date(timeIntervalSince1970: 0),
                                                  options: options, sidecars: [RawPath(sidecar.path)]))
        XCTAssertEqual(m.positionSource?.rawValue, "xmp-sidecar")
        XCTAssertEqual(m.takenAt, Date(timeIntervalSince1970: 1_720_994_400), "12:00 HST")
        XCTAssertEqual(m.timeSource, .localTimeZoneOfPosition)
    }

    func testWallTimeRoundTrips() {
        for (seconds, text) in [(0.0, "1970:01:01 00:00:00"), (1_720_951_200.25, "2024:07:14 10:00:00"),
                                (-1.5, "1969:12:31 23:59:58"), (951_782_400, "2000:02:29 00:00:00")] {
            let local = LocalDateTime(secondsIfUTC: seconds)
            XCTAssertEqual(local.description, text)
            XCTAssertEqual(local.secondsIfUTC, seconds)
        }
    }
}
