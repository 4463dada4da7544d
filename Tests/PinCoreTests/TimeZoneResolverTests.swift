import Foundation
import TestSupport
import XCTest
@testable import PinCore

final class TimeZoneResolverTests: XCTestCase {
    static let repo = Repository.root
    func resolver() throws -> TimeZoneResolver { try ShippedData.timeZones() }

    func zone(_ lat: Double, _ lon: Double) throws -> String? {
        try resolver().identifier(at: Coordinate(latitude: lat, longitude: lon))
    }

    func testCitiesGetTheirZone() throws {
        XCTAssertEqual(try zone(48.8566, 2.3522), "Europe/Paris")
        XCTAssertEqual(try zone(21.3069, -157.8583), "Pacific/Honolulu")
        XCTAssertEqual(try zone(27.7172, 85.3240), "Asia/Kathmandu")
        XCTAssertEqual(try zone(38.7223, -9.1393), "Europe/Lisbon")
        XCTAssertEqual(try zone(40.4168, -3.7038), "Europe/Madrid")
        XCTAssertEqual(try zone(54.7104, 20.4522), "Europe/Kaliningrad")
        XCTAssertEqual(try zone(-33.8688, 151.2093), "Australia/Sydney")
        XCTAssertEqual(try zone(35.6762, 139.6503), "Asia/Tokyo")
        // Corsica (an island ring of Europe/Paris) and the tip of Cap Corse.
        XCTAssertEqual(try zone(42.0, 9.0), "Europe/Paris")
    }

    /// The open sea has the nautical zone: 15° strips centred on multiples of 15°, signs
    /// inverted as POSIX has them (Etc/GMT+2 is UTC−2).
    func testOpenSeaIsTheNauticalZone() throws {
        XCTAssertEqual(try zone(40, -30), "Etc/GMT+2")     // mid-Atlantic, UTC−2
        XCTAssertEqual(try zone(-30, 80), "Etc/GMT-5")     // Indian Ocean, UTC+5
        XCTAssertEqual(try zone(0, -179.9), "Etc/GMT+12")
        XCTAssertEqual(try zone(0, 179.9), "Etc/GMT-12")
        XCTAssertEqual(TimeZoneResolver.nauticalIdentifier(longitude: 7.49), "Etc/GMT")
        XCTAssertEqual(TimeZoneResolver.nauticalIdentifier(longitude: 7.5), "Etc/GMT-1")
        XCTAssertEqual(TimeZoneResolver.nauticalIdentifier(longitude: -7.5), "Etc/GMT+1")
        XCTAssertEqual(TimeZoneResolver.nauticalIdentifier(longitude: -172.5), "Etc/GMT+12")
        XCTAssertEqual(TimeZoneResolver.nauticalIdentifier(longitude: 180), "Etc/GMT-12")
        XCTAssertEqual(TimeZoneResolver.nauticalIdentifier(longitude: -180), "Etc/GMT+12")
        // Foundation knows them, with the inverted sign.
        XCTAssertEqual(TimeZone(identifier: "Etc/GMT+2")?.secondsFromGMT(), -7_200)
        XCTAssertEqual(try resolver().timeZone(at: Coordinate(latitude: 40, longitude: -30)).secondsFromGMT(), -7_200)
        XCTAssertNil(try resolver().identifier(at: Coordinate(latitude: 91, longitude: 0)))
    }

    /// Against timezonefinder itself (unsimplified outlines) at 3000 random points made by
    /// scripts/build-timezones. Simplification may move a border by up to ~220 m, so a point that
    /// close to one can differ. Three do (Resources/TIMEZONES.md): 38.28388,13.79691 (Tyrrhenian
    /// Sea, on the edge of Italy's waters), -46.54331,-75.86603 (Chilean coast), both at the
    /// 12-mile line, and 43.237,40.04756 in Abkhazia (ours Europe/Moscow, timezonefinder
    /// Asia/Tbilisi).
    func testAgreesWithTimezonefinder() throws {
        let text = try String(contentsOf: Self.repo.appendingPathComponent("Fixtures/timezones/timezonefinder-points.tsv"), encoding: .utf8)
        var total = 0
        var differ: [String] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 3, let lat = Double(f[0]), let lon = Double(f[1]) else { XCTFail("bad line \(line)"); continue }
            total += 1
            let ours = try zone(lat, lon)
            // Foundation has the same offsets under either name (tzdata links).
            if ours != f[2] { differ.append("\(lat),\(lon): ours \(ours ?? "nil"), timezonefinder \(f[2])") }
        }
        XCTAssertEqual(total, 3_000)
        XCTAssertLessThanOrEqual(differ.count, 3, differ.joined(separator: "\n"))
    }

    func testMalformedDataIsAnErrorNotACrash() {
        XCTAssertThrowsError(try TimeZonePolygons.parse(Array("PINSTZ0\n".utf8)))
        var data = Array("PINSTZ1\n".utf8) + [1, 0, 0, 0, 3] + Array("UTC".utf8)
        XCTAssertThrowsError(try TimeZonePolygons.parse(data)) // no ring count
        // One ring claiming 1,000,000 vertices in a few bytes.
        data += [1, 0, 0, 0, 0, 0, 0x40, 0x42, 0x0F, 0, 2, 2]
        XCTAssertThrowsError(try TimeZonePolygons.parse(data)) { error in
            XCTAssertTrue("\(error)".contains("ring of 1000000 vertices"), "\(error)")
        }
        // A zone index past the names.
        let badZone = Array("PINSTZ1\n".utf8) + [1, 0, 0, 0, 3] + Array("UTC".utf8) + [1, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 0, 2, 0, 0, 2]
        XCTAssertThrowsError(try TimeZonePolygons.parse(badZone))
        // A good one: the triangle (0,0) (2e-5,0) (0,2e-5) in "UTC".
        let good = Array("PINSTZ1\n".utf8) + [1, 0, 0, 0, 3] + Array("UTC".utf8) + [1, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 4, 0, 3, 4]
        XCTAssertEqual(try TimeZonePolygons.parse(good).codes, ["UTC"])
        XCTAssertEqual(try TimeZonePolygons.parse(good).xs, [0, 0.00002, 0, 0])
    }
}
