import XCTest
@testable import PinCore

/// Hand-worked values: the law of cosines evaluated with Python's math module, R = 6371 km.
final class AngularDistanceTests: XCTestCase {
    func c(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }

    func testParisLondon() {
        // Paris 48.8566 N 2.3522 E, London 51.5074 N 0.1278 W: 343.556 km.
        let km = AngularDistance.radians(c(48.8566, 2.3522), c(51.5074, -0.1278)) * 6371
        XCTAssertEqual(km, 343.556, accuracy: 0.01)
        XCTAssertEqual(AngularDistance.kilometres(c(48.8566, 2.3522), c(51.5074, -0.1278)), 343.556, accuracy: 0.01)
    }

    func testSamePointIsZeroNotNaN() {
        // For identical points the cosine sum can exceed 1 by an ulp; acos would give NaN.
        for lat in stride(from: -89.0, through: 89.0, by: 7.3) {
            for lon in stride(from: -179.0, through: 179.0, by: 13.7) {
                let angle = AngularDistance.radians(c(lat, lon), c(lat, lon))
                XCTAssertFalse(angle.isNaN)
                XCTAssertLessThan(angle, 3e-8) // √(2ε): the smallest angle the cosine form resolves
            }
        }
    }

    func testAntipodes() {
        XCTAssertEqual(AngularDistance.radians(c(10, 20), c(-10, -160)), .pi, accuracy: 1e-7)
        XCTAssertEqual(AngularDistance.radians(c(90, 0), c(-90, 0)), .pi, accuracy: 1e-7)
    }

    func testAcrossTheAntimeridian() {
        // 179.99 E and 179.99 W on the equator: 0.02 degrees of arc = 2.2239 km, not 40,000 km.
        XCTAssertEqual(AngularDistance.radians(c(0, 179.99), c(0, -179.99)) * 6371, 2.2239, accuracy: 0.001)
    }

    func testNearThePole() {
        // 89.99 N at longitudes 0 and 180: 0.02 degrees over the pole = 2.2239 km.
        XCTAssertEqual(AngularDistance.radians(c(89.99, 0), c(89.99, 180)) * 6371, 2.2239, accuracy: 0.001)
    }

    func testAppThresholdIsTheAppsConstant() {
        XCTAssertEqual(AngularDistance.appThreshold, 0.0007848)
        XCTAssertNotEqual(AngularDistance.appThreshold, 5.0 / 6371.0)
        // 0.0007848 rad = 0.0449657 degrees of arc = 4.99996 km on the app's sphere.
        XCTAssertEqual(AngularDistance.appThreshold * 180 / .pi, 0.0449657, accuracy: 1e-7)
        XCTAssertEqual(AngularDistance.appThreshold * 6371, 4.99996, accuracy: 1e-5)
        XCTAssertEqual(AngularDistance.angle(forKilometres: 5), 0.00078480615, accuracy: 1e-11)
    }

    func testAngleAlongAMeridianEqualsLatitudeDifference() {
        // Along a meridian the angle is exactly the latitude difference.
        let a = c(45, 7), b = c(45 + 0.0007847 * 180 / .pi, 7)
        XCTAssertEqual(AngularDistance.radians(a, b), 0.0007847, accuracy: 1e-10)
    }
}

final class PinSpatialIndexTests: XCTestCase {
    func c(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }
    let radToDeg = 180 / Double.pi

    func testThresholdBoundaryAlongAMeridian() {
        var index = PinSpatialIndex()
        index.insert(c(45, 7), tag: 1)
        // 0.0007847 rad north: closer than the threshold, blocked.
        XCTAssertEqual(index.nearest(to: c(45 + 0.0007847 * radToDeg, 7))?.entry.tag, 1)
        // 0.0007849 rad north: beyond, free.
        XCTAssertNil(index.nearest(to: c(45 + 0.0007849 * radToDeg, 7)))
    }

    func testFindsNeighboursAcrossTheAntimeridianAndPole() {
        var index = PinSpatialIndex()
        index.insert(c(0, 179.99), tag: 1)
        index.insert(c(89.99, 0), tag: 2)
        XCTAssertEqual(index.nearest(to: c(0, -179.99))?.entry.tag, 1)   // 2.22 km away
        XCTAssertEqual(index.nearest(to: c(89.99, 180))?.entry.tag, 2)   // 2.22 km over the pole
        XCTAssertEqual(index.nearest(to: c(89.99, 180))!.radians * 6371, 2.2239, accuracy: 0.001)
    }

    func testLongitudeWindowWidensTowardsThePoles() {
        // At 80 N, 4.9 km east is 0.2533 degrees of longitude: beyond a naive θ-wide box.
        var index = PinSpatialIndex()
        index.insert(c(80, 10), tag: 7)
        let lonOffset = 4.9 / 6371 / cos(80 * Double.pi / 180) * radToDeg
        XCTAssertEqual(index.nearest(to: c(80, 10 + lonOffset))?.entry.tag, 7)
        XCTAssertNil(index.nearest(to: c(80, 10 + 5.2 / 6371 / cos(80 * Double.pi / 180) * radToDeg)))
    }

    func testReturnsTheNearestOfSeveral() {
        var index = PinSpatialIndex()
        index.insert(c(48.0, 2.0), tag: 1)
        index.insert(c(48.02, 2.0), tag: 2)
        XCTAssertEqual(index.nearest(to: c(48.015, 2.0))?.entry.tag, 2)
    }

    func testMatchesABruteForceScan() {
        // Random pins and queries: the grid must find exactly what a scan of every pin finds.
        var generator = SplitMix(seed: 42)
        var index = PinSpatialIndex(threshold: 0.002)
        var pins: [Coordinate] = []
        for i in 0..<1500 {
            let p = c(generator.uniform(-89.9, 89.9), generator.uniform(-180, 180))
            pins.append(p)
            index.insert(p, tag: i)
            // Clusters so that many queries have close neighbours.
            let q = c(min(90, max(-90, p.latitude + generator.uniform(-0.1, 0.1))), p.longitude)
            pins.append(q)
            index.insert(q, tag: 100_000 + i)
        }
        for _ in 0..<800 {
            let base = pins[Int(generator.next() % UInt64(pins.count))]
            let q = c(max(-90, min(90, base.latitude + generator.uniform(-0.15, 0.15))),
                      ((base.longitude + generator.uniform(-0.15, 0.15) + 540).truncatingRemainder(dividingBy: 360)) - 180)
            let brute = pins.map { AngularDistance.radians(q, $0) }.filter { $0 < 0.002 }.min()
            XCTAssertEqual(index.nearest(to: q)?.radians, brute, "query \(q)")
        }
    }
}

/// A small deterministic generator for tests.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform(_ lo: Double, _ hi: Double) -> Double {
        lo + (hi - lo) * Double(next() >> 11) / Double(1 << 53)
    }
}

final class ISO8601Tests: XCTestCase {
    func testFormatsWithOffsetsAndFractions() {
        // 2023-07-14T08:11:12.390Z = 1689322272.39 s (date -d @1689322272).
        let date = Date(timeIntervalSince1970: 1_689_322_272.39)
        XCTAssertEqual(ISO8601.format(date, offsetSeconds: 7200), "2023-07-14T10:11:12.390+02:00")
        XCTAssertEqual(ISO8601.format(date, offsetSeconds: -12600), "2023-07-14T04:41:12.390-03:30")
        XCTAssertEqual(ISO8601.format(date), "2023-07-14T08:11:12.390Z")
        XCTAssertEqual(ISO8601.parse("2023-07-14T10:11:12.390+02:00")?.date.timeIntervalSince1970 ?? 0, date.timeIntervalSince1970, accuracy: 1e-6)
        XCTAssertEqual(ISO8601.parse("2023-07-14T10:11:12+0200")?.offsetSeconds, 7200)
        XCTAssertNil(ISO8601.parse("2023-02-30"))
    }

    func testDatesBeyondAnyCalendarDoNotCrash() {
        for seconds in [1e19, -1e19, .infinity, .nan] {
            XCTAssertTrue(ISO8601.format(Date(timeIntervalSince1970: seconds)).hasPrefix("invalid date"))
        }
    }
}
