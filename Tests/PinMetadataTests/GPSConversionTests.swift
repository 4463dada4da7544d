@testable import PinCore
@testable import PinMetadata
import XCTest

/// Hand-worked coordinates from docs/formats.md sections 1.4 and 1.5.
final class GPSConversionTests: XCTestCase {
    private func position(lat: [ExifRational]?, latRef: String? = "N", lon: [ExifRational]?,
                          lonRef: String? = "E", status: String? = nil,
                          altitude: ExifRational? = nil, altitudeRef: UInt8? = nil) -> GPSPosition {
        GPSConversion.position(from: ExifValues(latitude: lat, latitudeRef: latRef, longitude: lon,
                                                longitudeRef: lonRef, altitude: altitude,
                                                altitudeRef: altitudeRef, gpsStatus: status))
    }

    func testDegreesMinutesSeconds() throws {
        // 48 + 51/60 + 29.99/3600 = 48 + 0.85 + 0.0083305555… = 48.8583305555…
        let p = position(lat: [r(48, 1), r(51, 1), r(2999, 100)], lon: [r(2, 1), r(17, 1), r(4020, 100)])
        let c = try XCTUnwrap(p.coordinate)
        XCTAssertEqual(c.latitude, 48.858330555555, accuracy: 1e-9)
        // 2 + 17/60 + 40.2/3600 = 2 + 0.2833333… + 0.0111666… = 2.2945
        XCTAssertEqual(c.longitude, 2.2945, accuracy: 1e-9)
        XCTAssertNil(p.issue)
        XCTAssertEqual(p.warnings, [])
    }

    func testDecimalMinutesAndDecimalDegrees() throws {
        // dd/1, mmmm/100, 0/1: 2 + 17.67/60 = 2.2945
        let a = position(lat: [r(48, 1), r(5150, 100), r(0, 1)], lon: [r(2, 1), r(1767, 100), r(0, 1)])
        XCTAssertEqual(try XCTUnwrap(a.coordinate).latitude, 48.858333333333, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(a.coordinate).longitude, 2.2945, accuracy: 1e-9)
        // ddddddd/100000, 0/1, 0/1
        let b = position(lat: [r(4_885_770, 100_000), r(0, 1), r(0, 1)], lon: [r(229_450, 100_000), r(0, 1), r(0, 1)])
        XCTAssertEqual(try XCTUnwrap(b.coordinate).latitude, 48.8577, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(b.coordinate).longitude, 2.2945, accuracy: 1e-12)
    }

    func testSouthWestNegate() throws {
        // Sydney Opera House 33°51'24.6"S 151°12'54.0"E and Rio 22°57'6"S 43°12'37"W.
        let p = position(lat: [r(33, 1), r(51, 1), r(246, 10)], latRef: "S",
                         lon: [r(43, 1), r(12, 1), r(37, 1)], lonRef: "W")
        let c = try XCTUnwrap(p.coordinate)
        XCTAssertEqual(c.latitude, -(33 + 51.0 / 60 + 24.6 / 3600), accuracy: 1e-12)   // −33.8568333…
        XCTAssertEqual(c.longitude, -(43 + 12.0 / 60 + 37.0 / 3600), accuracy: 1e-12)  // −43.2102777…
    }

    func testSecondsEqualSixtyRollOver() throws {
        // 10° 0' 60" = 10° 1' = 10.0166666…
        let p = position(lat: [r(10, 1), r(0, 1), r(60, 1)], lon: [r(20, 1), r(59, 1), r(60, 1)])
        XCTAssertEqual(try XCTUnwrap(p.coordinate).latitude, 10.016666666667, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(p.coordinate).longitude, 21.0, accuracy: 1e-12)
    }

    func testZeroDenominatorIsNoPosition() {
        let p = position(lat: [r(48, 1), r(51, 0), r(0, 1)], lon: [r(2, 1), r(17, 1), r(0, 1)])
        XCTAssertNil(p.coordinate)
        XCTAssertEqual(p.issue, "zero denominator")
        let q = position(lat: [r(48, 1), r(51, 1), r(0, 1)], lon: [r(0, 0), r(17, 1), r(0, 1)])
        XCTAssertEqual(q.issue, "zero denominator")
    }

    func testAllZeroIsNoFix() {
        let p = position(lat: [r(0, 1), r(0, 1), r(0, 1)], lon: [r(0, 1), r(0, 1), r(0, 1)])
        XCTAssertNil(p.coordinate)
        XCTAssertEqual(p.issue, "0,0 (no GPS fix)")
    }

    func testEquatorAloneIsAPosition() throws {
        let p = position(lat: [r(0, 1), r(0, 1), r(0, 1)], lon: [r(32, 1), r(30, 1), r(0, 1)])
        XCTAssertEqual(try XCTUnwrap(p.coordinate), Coordinate(latitude: 0, longitude: 32.5))
    }

    func testOutOfRange() {
        XCTAssertEqual(position(lat: [r(91, 1), r(0, 1), r(0, 1)], lon: [r(2, 1), r(0, 1), r(0, 1)]).issue,
                       "latitude out of range")
        // 89° 60' 1" = 90.000277…
        XCTAssertEqual(position(lat: [r(89, 1), r(60, 1), r(1, 1)], lon: [r(2, 1), r(0, 1), r(0, 1)]).issue,
                       "latitude out of range")
        XCTAssertEqual(position(lat: [r(10, 1), r(0, 1), r(0, 1)], lon: [r(180, 1), r(0, 1), r(1, 10)]).issue,
                       "longitude out of range")
        // Exactly 90 and 180 are valid.
        XCTAssertNotNil(position(lat: [r(90, 1), r(0, 1), r(0, 1)], lon: [r(180, 1), r(0, 1), r(0, 1)]).coordinate)
    }

    func testMissingRefTakesTheSignFromTheValueAndWarns() throws {
        let p = position(lat: [sr(-33, 1), sr(30, 1), sr(0, 1)], latRef: nil,
                         lon: [r(151, 1), r(12, 1), r(0, 1)], lonRef: nil)
        let c = try XCTUnwrap(p.coordinate)
        // −33 + 30/60 = −32.5: the arithmetic is done as written, the sign is the value's.
        XCTAssertEqual(c.latitude, -32.5, accuracy: 1e-12)
        XCTAssertEqual(c.longitude, 151.2, accuracy: 1e-12)
        XCTAssertEqual(p.warnings.count, 2)
        XCTAssertTrue(p.warnings[0].contains("GPSLatitudeRef missing"))
        XCTAssertTrue(p.warnings[1].contains("GPSLongitudeRef missing"))
    }

    func testBadRefLetterWarns() throws {
        let p = position(lat: [r(10, 1), r(0, 1), r(0, 1)], latRef: "X", lon: [r(20, 1), r(0, 1), r(0, 1)])
        XCTAssertEqual(try XCTUnwrap(p.coordinate).latitude, 10)
        XCTAssertTrue(p.warnings[0].contains("'X' is not N or S"))
    }

    func testRefPaddingAndLowercaseAccepted() throws {
        let p = position(lat: [r(10, 1), r(0, 1), r(0, 1)], latRef: "s\0", lon: [r(20, 1), r(0, 1), r(0, 1)],
                         lonRef: " W ")
        XCTAssertEqual(try XCTUnwrap(p.coordinate), Coordinate(latitude: -10, longitude: -20))
        XCTAssertEqual(p.warnings, [])
    }

    func testSignedRationalWithRefIsNotNegatedTwice() throws {
        let p = position(lat: [sr(-33, 1), sr(-30, 1), sr(0, 1)], latRef: "S",
                         lon: [sr(-70, 1), sr(-30, 1), sr(0, 1)], lonRef: "W")
        XCTAssertEqual(try XCTUnwrap(p.coordinate), Coordinate(latitude: -33.5, longitude: -70.5))
    }

    func testUnsignedNumeratorAboveTwoToThe31IsReadAsSigned() throws {
        // −48 written as u32: 2^32 − 48 = 4294967248; 4294967248/1 > 360 → reinterpreted.
        let p = position(lat: [r(4_294_967_248, 1), r(0, 1), r(0, 1)], latRef: nil,
                         lon: [r(4_294_967_295 - 122_419_400 + 1, 1_000_000), r(0, 1), r(0, 1)], lonRef: "W")
        let c = try XCTUnwrap(p.coordinate)
        XCTAssertEqual(c.latitude, -48)
        XCTAssertEqual(c.longitude, -122.4194, accuracy: 1e-9)
        XCTAssertTrue(p.warnings.contains { $0.contains("read as signed") })
        // 3000000000/100000000 = 30: an honest unsigned value, not reinterpreted.
        let q = position(lat: [r(3_000_000_000, 100_000_000), r(0, 1), r(0, 1)], lon: [r(1, 1), r(0, 1), r(0, 1)])
        XCTAssertEqual(try XCTUnwrap(q.coordinate).latitude, 30, accuracy: 1e-12)
    }

    func testStatusVoidKeepsThePositionAndWarns() throws {
        let p = position(lat: [r(10, 1), r(0, 1), r(0, 1)], lon: [r(20, 1), r(0, 1), r(0, 1)], status: "V\0")
        XCTAssertNotNil(p.coordinate)
        XCTAssertNil(p.issue)
        XCTAssertTrue(p.warnings.contains { $0.contains("GPSStatus is V") })
        let a = position(lat: [r(10, 1), r(0, 1), r(0, 1)], lon: [r(20, 1), r(0, 1), r(0, 1)], status: "A")
        XCTAssertEqual(a.warnings, [])
    }

    func testMissingPartsGiveAnIssueButNoGPSGivesNone() {
        XCTAssertEqual(position(lat: nil, lon: [r(20, 1), r(0, 1), r(0, 1)]).issue, "latitude missing")
        XCTAssertEqual(position(lat: [r(20, 1), r(0, 1), r(0, 1)], lon: nil).issue, "longitude missing")
        // Refs without values: the 64 KiB straddle case of section 2.8.
        XCTAssertEqual(position(lat: nil, latRef: "N", lon: nil, lonRef: "E").issue, "latitude missing")
        let none = GPSConversion.position(from: ExifValues())
        XCTAssertNil(none.coordinate)
        XCTAssertNil(none.issue)
        var malformed = ExifValues(longitude: [r(1, 1), r(0, 1), r(0, 1)])
        malformed.malformed["GPSLatitude"] = "format SHORT × 3 in 6 bytes, expected RATIONAL × 3"
        XCTAssertEqual(GPSConversion.position(from: malformed).issue,
                       "malformed GPSLatitude: format SHORT × 3 in 6 bytes, expected RATIONAL × 3")
    }

    func testAltitudeRefs1And3AreBelowSeaLevelAndNoDenominatorOrPositionGivesNone() {
        let lat = [r(10, 1), r(0, 1), r(0, 1)], lon = [r(20, 1), r(0, 1), r(0, 1)]
        XCTAssertEqual(position(lat: lat, lon: lon, altitude: r(1234, 10), altitudeRef: 0).altitude, 123.4)
        XCTAssertEqual(position(lat: lat, lon: lon, altitude: r(1234, 10), altitudeRef: nil).altitude, 123.4)
        XCTAssertEqual(position(lat: lat, lon: lon, altitude: r(1234, 10), altitudeRef: 1).altitude, -123.4)
        XCTAssertEqual(position(lat: lat, lon: lon, altitude: r(1234, 10), altitudeRef: 2).altitude, 123.4)
        XCTAssertEqual(position(lat: lat, lon: lon, altitude: r(1234, 10), altitudeRef: 3).altitude, -123.4)
        XCTAssertNil(position(lat: lat, lon: lon, altitude: r(1234, 0), altitudeRef: 0).altitude)
        // Signed altitude with "below" ref: magnitude, then the ref's sign.
        XCTAssertEqual(position(lat: lat, lon: lon, altitude: sr(-50, 1), altitudeRef: 1).altitude, -50)
        // No coordinate → no altitude reported.
        XCTAssertNil(position(lat: [r(0, 1), r(0, 1), r(0, 1)], lon: [r(0, 1), r(0, 1), r(0, 1)],
                              altitude: r(5, 1), altitudeRef: 0).altitude)
    }

    // MARK: Coordinates written as text (docs/formats.md 9.15)

    func testTextCoordinatesInDMSDecimalOrRationalFormGiveTheSameDegreesAndJunkIsRefused() throws {
        func degrees(_ text: String) -> (Double?, Character?)? {
            guard let parsed = GPSConversion.textRationals(text) else { return nil }
            var w: [String] = []
            return (GPSConversion.degrees(parsed.parts, name: "t", warnings: &w), parsed.hemisphere)
        }
        // 48 + 51/60 + 30.24/3600 = 48.8584
        for text in ["48 51 30.24", "48.8584", "48,51.504N", "48/1,51/1,3024/100", " 48 51 30.24\0"] {
            let (value, _) = try XCTUnwrap(degrees(text), text)
            XCTAssertEqual(try XCTUnwrap(value, text), 48.8584, accuracy: 1e-9, text)
        }
        XCTAssertEqual(degrees("48,51.504N")?.1, "N")
        XCTAssertEqual(degrees("2,17.67w")?.1, "W")
        let (negative, hemisphere) = try XCTUnwrap(degrees("-33.856784"))
        XCTAssertEqual(try XCTUnwrap(negative), -33.856784, accuracy: 1e-12)
        XCTAssertNil(hemisphere)
        // A zero denominator is kept, so the position is refused as for rationals.
        XCTAssertNil(try XCTUnwrap(degrees("48/0 51/1 0/1")).0)
        for text in ["", "abc", "1 2 3 4", "48.1.2", "-48N", "4e1", "/", "."] {
            XCTAssertNil(GPSConversion.textRationals(text), text)
        }
    }
}
