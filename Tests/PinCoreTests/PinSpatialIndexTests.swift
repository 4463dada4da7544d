import XCTest
@testable import PinCore

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


extension PinSpatialIndexTests {
    func testPinsAtTheSameAngleReportTheFirstInserted() {
        // Three pins in one cell, two of them at the same place: the query is at the same
        // angle from both, and the first inserted is named, also after the cell table has
        // grown (rehashed) several times.
        var index = PinSpatialIndex()
        index.insert(c(48.0, 2.0), tag: 10)
        index.insert(c(48.001, 2.001), tag: 11)
        index.insert(c(48.0, 2.0), tag: 12)
        XCTAssertEqual(index.nearest(to: c(48.0, 2.0))?.entry.tag, 10)
        XCTAssertEqual(index.nearest(to: c(48.0, 2.0))!.radians, 0, accuracy: 1e-7, "0, up to the law of cosines' rounding")
        for i in 0..<500 { index.insert(c(-60 + Double(i) * 0.2, 100), tag: 1000 + i) }
        XCTAssertEqual(index.count, 503)
        XCTAssertEqual(index.nearest(to: c(48.0, 2.0))?.entry.tag, 10)
        XCTAssertEqual(index.nearest(to: c(48.0011, 2.001))?.entry.tag, 11)
        XCTAssertEqual(index.nearest(to: c(-60 + 77 * 0.2, 100.01))?.entry.tag, 1077)
        XCTAssertEqual(index.entry(1).coordinate, c(48.001, 2.001))
    }

    func testLongitudeReachAcrossTheAntimeridianAt60North() {
        // At 60 N a degree of longitude is 55.6 km: 0.07 degree east across ±180 is 3.89 km
        // (haversine), 0.1 degree is 5.56 km.
        var index = PinSpatialIndex()
        index.insert(c(60, 179.97), tag: 1)
        XCTAssertEqual(index.nearest(to: c(60, -179.96))?.entry.tag, 1)
        XCTAssertEqual(index.nearest(to: c(60, -179.96))!.radians * 6371, 3.892, accuracy: 0.002)
        XCTAssertNil(index.nearest(to: c(60, -179.93)))
    }

    func testPinsJustInsideTheThresholdAreNeverSkipped() {
        // One pin at 1 - 10⁻⁹ thresholds from the query and one at 1 + 10⁻⁹, along the four
        // axes and random bearings, at every latitude band: the skips before the full
        // computation (latitude, longitude, cosine bound) must keep exactly what a scan of all
        // pins finds below the threshold.
        var generator = SplitMix(seed: 7)
        let theta = AngularDistance.appThreshold
        func destination(_ q: Coordinate, _ d: Double, _ b: Double) -> Coordinate {
            let phi1 = q.latitude * .pi / 180, lambda1 = q.longitude * .pi / 180
            let phi2 = asin(sin(phi1) * cos(d) + cos(phi1) * sin(d) * cos(b))
            let lambda2 = lambda1 + atan2(sin(b) * sin(d) * cos(phi1), cos(d) - sin(phi1) * sin(phi2))
            var lon = lambda2 * 180 / .pi
            if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
            return c(phi2 * 180 / .pi, lon)
        }
        var found = 0
        for latitude in [-89.9, -75.0, -30.0, 0.0, 45.0, 80.0, 89.95] {
            for trial in 0..<60 {
                let q = c(latitude, trial < 4 ? 179.99 : generator.uniform(-180, 180))
                let bearing = trial < 8 ? Double(trial % 4) * .pi / 2 : generator.uniform(0, 2 * .pi)
                let pins = [destination(q, theta * (1 - 1e-9), bearing), destination(q, theta * (1 + 1e-9), bearing + 1)]
                var index = PinSpatialIndex()
                for (k, p) in pins.enumerated() { index.insert(p, tag: k) }
                let brute = pins.map { AngularDistance.radians(q, $0) }.filter { $0 < theta }.min()
                if brute != nil { found += 1 }
                XCTAssertEqual(index.nearest(to: q)?.radians, brute, "query \(q) bearing \(bearing)")
            }
        }
        XCTAssertGreaterThan(found, 300, "most pins at 1 - 10⁻⁹ thresholds are below it, computed")
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
