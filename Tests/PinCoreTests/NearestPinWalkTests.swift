import XCTest
@testable import PinCore

final class NearestPinWalkTests: XCTestCase {
    func c(_ lat: Double, _ lon: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }
    /// Degrees of latitude per kilometre on a 6,371 km sphere.
    let degreesPerKm = 180 / Double.pi / 6371

    func testAPointNearTheAnchorTakesItsPinAndAPointHalfwayIsLookedUp() {
        // Alpha at 45 N 7 E, Bravo 4 km north of it (0.000628 rad, less than the threshold).
        var index = PinSpatialIndex()
        index.insert(c(45, 7), tag: 1)
        index.insert(c(45 + 4 * degreesPerKm, 7), tag: 2)
        var walk = NearestPinWalk()
        // 0.5 km north of Alpha: looked up (the first point). r1 = 0.5 km, r2 = 3.5 km (Bravo).
        XCTAssertEqual(walk.nearest(to: c(45 + 0.5 * degreesPerKm, 7), in: index)?.tag, 1)
        XCTAssertEqual([walk.answered, walk.lookedUp], [0, 1])
        // 0.9 km north of Alpha, d = 0.4 km: r1 + 2d = 1.3 km < 3.5 km and r1 + d = 0.9 km < 5 km:
        // Alpha, from the anchor.
        XCTAssertEqual(walk.nearest(to: c(45 + 0.9 * degreesPerKm, 7), in: index)?.tag, 1)
        XCTAssertEqual([walk.answered, walk.lookedUp], [1, 1])
        // 2.1 km north of Alpha (1.9 km from Bravo), d = 1.6 km from the anchor: r1 + 2d = 3.7 km,
        // not below 3.5 km: looked up, and it is Bravo's.
        XCTAssertEqual(walk.nearest(to: c(45 + 2.1 * degreesPerKm, 7), in: index)?.tag, 2)
        XCTAssertEqual([walk.answered, walk.lookedUp], [1, 2])
        // The very same position again: its answer without a lookup.
        XCTAssertEqual(walk.nearest(to: c(45 + 2.1 * degreesPerKm, 7), in: index)?.tag, 2)
        XCTAssertEqual([walk.answered, walk.lookedUp], [2, 2])
    }

    func testAPointThatMayBeBeyondTheThresholdIsLookedUp() {
        // One pin; the anchor 4.5 km east of it on the equator (r1 = 4.5 km, r2 = the threshold,
        // 5.0000 km). A point 0.2 km farther east: r1 + 2d = 4.9 km < 5 km and r1 + d = 4.7 km:
        // the pin, from the anchor. 0.6 km farther than the anchor (5.1 km from the pin):
        // looked up, and nil.
        var index = PinSpatialIndex()
        index.insert(c(0, 30), tag: 9)
        var walk = NearestPinWalk()
        XCTAssertEqual(walk.nearest(to: c(0, 30 + 4.5 * degreesPerKm), in: index)?.tag, 9)
        XCTAssertEqual(walk.nearest(to: c(0, 30 + 4.7 * degreesPerKm), in: index)?.tag, 9)
        XCTAssertEqual([walk.answered, walk.lookedUp], [1, 1])
        // 0.3 km farther than the anchor (4.8 km from the pin, below the threshold): r1 + 2d =
        // 5.1 km is not below 5 km, so it is looked up (and is the pin's).
        XCTAssertEqual(walk.nearest(to: c(0, 30 + 4.8 * degreesPerKm), in: index)?.tag, 9)
        XCTAssertEqual([walk.answered, walk.lookedUp], [1, 2])
        XCTAssertNil(walk.nearest(to: c(0, 30 + 5.1 * degreesPerKm), in: index))
        XCTAssertEqual([walk.answered, walk.lookedUp], [1, 3])
        // No pin at the anchor: a point near it is looked up too (nothing bounds the pins beyond).
        XCTAssertNil(walk.nearest(to: c(0, 30 + 5.2 * degreesPerKm), in: index))
        XCTAssertEqual([walk.answered, walk.lookedUp], [1, 4])
    }

    func testPinsAtTheSameAngleFromTheAnchorAreLookedUpEachTime() {
        // Two pins 2 km west and east of the anchor's meridian: the anchor is at the same angle
        // from both (runner-up = nearest); the index names the first inserted, and a point 1 m
        // east of the anchor, nearer the east pin, is looked up and is the east pin's.
        var index = PinSpatialIndex()
        let east = 2 * degreesPerKm
        index.insert(c(10, 20 - east), tag: 1)
        index.insert(c(10, 20 + east), tag: 2)
        var walk = NearestPinWalk()
        XCTAssertEqual(walk.nearest(to: c(10, 20), in: index)?.tag, index.nearest(to: c(10, 20))?.entry.tag)
        XCTAssertEqual(walk.nearest(to: c(10, 20 + 0.001 * degreesPerKm), in: index)?.tag, 2)
        XCTAssertEqual([walk.answered, walk.lookedUp], [0, 2])
    }

    func testResetForgetsTheAnchor() {
        var index = PinSpatialIndex()
        index.insert(c(45, 7), tag: 1)
        var walk = NearestPinWalk()
        XCTAssertEqual(walk.nearest(to: c(45, 7.001), in: index)?.tag, 1)
        // A pin made nearer than the one the anchor knew: without the reset the anchor's answer
        // would stand.
        index.insert(c(45, 7.0011), tag: 2)
        walk.reset()
        XCTAssertEqual(walk.nearest(to: c(45, 7.001), in: index)?.tag, 2)
    }

    func testWalksGiveTheIndexsAnswers() {
        // Random walks among dense pins (0.5 to 6 km apart), near the date line and the poles
        // too, with steps of metres to kilometres: every answer is the index's.
        var generator = SplitMix(seed: 7)
        for centre in [c(45, 7), c(0, 179.98), c(-33.9, 151.2), c(89.95, 40), c(-89.97, -120), c(70, -180)] {
            var index = PinSpatialIndex()
            for tag in 0..<300 {
                index.insert(c(max(-90, min(90, centre.latitude + generator.uniform(-0.2, 0.2))),
                               wrap(centre.longitude + generator.uniform(-0.3, 0.3))), tag: tag)
            }
            // Two pins at the very same place, and one 1 m from a third.
            index.insert(c(centre.latitude * 0.9999, centre.longitude), tag: 300)
            index.insert(c(centre.latitude * 0.9999, centre.longitude), tag: 301)
            var walk = NearestPinWalk()
            var point = centre
            for step in 0..<4000 {
                let size = [0.00001, 0.0001, 0.001, 0.01, 0.05][step % 5]
                point = c(max(-90, min(90, point.latitude + generator.uniform(-size, size))),
                          wrap(point.longitude + generator.uniform(-size, size)))
                if abs(point.latitude - centre.latitude) > 0.3 { point = centre }
                XCTAssertEqual(walk.nearest(to: point, in: index)?.tag, index.nearest(to: point)?.entry.tag, "\(point)")
            }
            XCTAssertGreaterThan(walk.answered, 0, "\(centre)")
            XCTAssertGreaterThan(walk.lookedUp, 0, "\(centre)")
        }
    }

    func testRunnerUpIsTheSecondSmallestAngleOrTheThreshold() {
        var index = PinSpatialIndex()
        index.insert(c(45, 7), tag: 1)
        index.insert(c(45 + 3 * degreesPerKm, 7), tag: 2)
        index.insert(c(45 + 20 * degreesPerKm, 7), tag: 3)
        // 1 km north of the first: 1 km to it, 2 km to the second, 19 km to the third.
        let (match, runnerUp) = index.nearestAndRunnerUp(to: c(45 + 1 * degreesPerKm, 7))
        XCTAssertEqual(match?.entry.tag, 1)
        XCTAssertEqual(match!.radians * 6371, 1, accuracy: 1e-6)
        XCTAssertEqual(runnerUp * 6371, 2, accuracy: 1e-6)
        // 18 km north: only the third is below the threshold; the bound is the threshold.
        let (far, bound) = index.nearestAndRunnerUp(to: c(45 + 18 * degreesPerKm, 7))
        XCTAssertEqual(far?.entry.tag, 3)
        XCTAssertEqual(bound, AngularDistance.appThreshold)
        XCTAssertEqual(far!.radians * 6371, 2, accuracy: 1e-6, "20 km less 18")
    }

    private func wrap(_ longitude: Double) -> Double {
        var l = longitude
        if l > 180 { l -= 360 }
        if l < -180 { l += 360 }
        return l
    }
}
