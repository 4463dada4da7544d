import XCTest
@testable import PinCore
@testable import PinGrammar

/// The rule of `TrackTimeline.match`, on hand-worked values (exiftool's SetGeoValues, 12.57).
final class TrackTimelineTests: XCTestCase {
    private func timeline(_ files: [[TrackPoint]]) -> TrackTimeline {
        var t = TrackTimeline()
        for (i, f) in files.enumerated() { t.add(f, track: i) }
        t.seal()
        return t
    }

    private func position(_ m: TrackMatch, file: StaticString = #filePath, line: UInt = #line) -> (Double, Double, Double)? {
        guard case let .position(c, d, _, _) = m else { return nil }
        return (c.latitude, c.longitude, d)
    }

    private func assertPosition(_ m: TrackMatch, _ lat: Double, _ lon: Double, nearest: Double,
                                file: StaticString = #filePath, line: UInt = #line) {
        guard let (la, lo, d) = position(m) else { return XCTFail("no position: \(m)", file: file, line: line) }
        XCTAssertEqual(la, lat, accuracy: 1e-12, file: file, line: line)
        XCTAssertEqual(lo, lon, accuracy: 1e-12, file: file, line: line)
        XCTAssertEqual(d, nearest, accuracy: 1e-9, file: file, line: line)
    }

    let two = [TrackPoint(time: 1000, latitude: 0, longitude: 0), TrackPoint(time: 2000, latitude: 10, longitude: 20)]

    func testBetweenTwoFixesThePositionIsInterpolatedInTime() {
        let t = timeline([two])
        // A quarter of the way: 0 + 10 * 0.25, 0 + 20 * 0.25; the nearer fix is 250 s away.
        assertPosition(t.match(1250), 2.5, 5, nearest: 250)
        assertPosition(t.match(1900), 9, 18, nearest: 100)
    }

    func testOnAFixItsPosition() {
        let t = timeline([two])
        assertPosition(t.match(1000), 0, 0, nearest: 0)
        assertPosition(t.match(2000), 10, 20, nearest: 0)
        assertPosition(timeline([[TrackPoint(time: 5, latitude: 1, longitude: 2)]]).match(5), 1, 2, nearest: 0)
    }

    func testAGapOfExactlyTheLimitIsInterpolatedOneSecondMoreIsNot() {
        let t = timeline([[TrackPoint(time: 0, latitude: 0, longitude: 0), TrackPoint(time: 1800, latitude: 18, longitude: 0)]])
        assertPosition(t.match(900), 9, 0, nearest: 900)
        let u = timeline([[TrackPoint(time: 0, latitude: 0, longitude: 0), TrackPoint(time: 1801, latitude: 18, longitude: 0)]])
        // 900 s after the first fix, 901 s before the second: the first fix's position.
        assertPosition(u.match(900), 0, 0, nearest: 900)
        // 900.5 s from both: a tie takes the later fix.
        assertPosition(u.match(900.5), 18, 0, nearest: 900.5)
    }

    func testInsideAWideGapTooFarFromBothFixesThereIsNoPosition() {
        let t = timeline([[TrackPoint(time: 0, latitude: 0, longitude: 0), TrackPoint(time: 10_000, latitude: 1, longitude: 1)]])
        XCTAssertEqual(t.match(5000), .tooFar(secondsToNearestFix: 5000, where: .inGap))
        assertPosition(t.match(1800), 0, 0, nearest: 1800)
        XCTAssertEqual(t.match(1801), .tooFar(secondsToNearestFix: 1801, where: .inGap))
        assertPosition(t.match(8200), 1, 1, nearest: 1800)
    }

    func testBeforeTheFirstAndAfterTheLastFixTheNearestWithinTheLimit() {
        let t = timeline([two])
        assertPosition(t.match(1000 - 1800), 0, 0, nearest: 1800)
        XCTAssertEqual(t.match(1000 - 1801), .tooFar(secondsToNearestFix: 1801, where: .beforeTrack))
        assertPosition(t.match(2000 + 1800), 10, 20, nearest: 1800)
        XCTAssertEqual(t.match(2000 + 7800), .tooFar(secondsToNearestFix: 7800, where: .afterTrack))
        XCTAssertEqual(t.match(2000 + 7800).reason, "nearest track fix 2 h 10 min away (after the track)")
        XCTAssertEqual(TrackTimeline().match(0), .tooFar(secondsToNearestFix: nil, where: .noFix))
    }

    func testGapAndExtrapolationLimitsOtherThanTheDefaultsAreHeld() {
        let t = timeline([two])
        let limits = TrackLimits(maxGap: 999, maxExtrapolation: 60)
        // The 1000 s gap is wider than 999: the nearest fix, when within 60 s.
        assertPosition(t.match(1050, limits: limits), 0, 0, nearest: 50)
        XCTAssertEqual(t.match(1500, limits: limits), .tooFar(secondsToNearestFix: 500, where: .inGap))
        assertPosition(t.match(939, limits: TrackLimits(maxGap: 1800, maxExtrapolation: 61)), 0, 0, nearest: 61)
    }

    func testLongitudeAcrossTheAntimeridianGoesTheShortWay() {
        let t = timeline([[TrackPoint(time: 0, latitude: 0, longitude: 179), TrackPoint(time: 100, latitude: 0, longitude: -179)]])
        assertPosition(t.match(25), 0, 179.5, nearest: 25)
        // Halfway is 180, written as -180 (exiftool: subtract 360 at or above 180).
        assertPosition(t.match(50), 0, -180, nearest: 50)
        assertPosition(t.match(75), 0, -179.5, nearest: 25)
        let back = timeline([[TrackPoint(time: 0, latitude: 0, longitude: -170), TrackPoint(time: 100, latitude: 0, longitude: 170)]])
        assertPosition(back.match(25), 0, -175, nearest: 25)
    }

    func testFixesOutOfOrderAreSortedAndTheLastOfEqualInstantsWins() {
        let t = timeline([[TrackPoint(time: 2000, latitude: 10, longitude: 20), TrackPoint(time: 1000, latitude: 5, longitude: 5),
                           TrackPoint(time: 1000, latitude: 0, longitude: 0)]])
        XCTAssertEqual(t.count, 2)
        assertPosition(t.match(1500), 5, 10, nearest: 500)
    }

    func testFixesOfOneTimeSpanAreAlwaysInterpolated() {
        let t = timeline([[TrackPoint(time: 0, latitude: 0, longitude: 0, span: 1), TrackPoint(time: 100_000, latitude: 10, longitude: 0, span: 1)]])
        assertPosition(t.match(50_000), 5, 0, nearest: 50_000)
    }

    func testTheFirstFixOfATrackFileTakesTheExtrapolationLimitAsItsGap() {
        // exiftool marks each file's first fix; a gap ending there is allowed GeoMaxExtSecs.
        let a = [TrackPoint(time: 0, latitude: 0, longitude: 0)]
        let b = [TrackPoint(time: 500, latitude: 10, longitude: 0), TrackPoint(time: 600, latitude: 11, longitude: 0)]
        let limits = TrackLimits(maxGap: 100, maxExtrapolation: 1000)
        assertPosition(timeline([a, b]).match(250, limits: limits), 5, 0, nearest: 250)
        // One file: the 500 s gap is wider than 100, so the nearest fix.
        assertPosition(timeline([a + b]).match(250, limits: limits), 10, 0, nearest: 250)
    }

    func testTheTrackOfTheNearestFixIsNamed() {
        let t = timeline([[TrackPoint(time: 0, latitude: 0, longitude: 0)], [TrackPoint(time: 100, latitude: 1, longitude: 0)]])
        guard case let .position(_, _, track, interpolated) = t.match(80) else { return XCTFail() }
        XCTAssertEqual(track, 1)
        XCTAssertTrue(interpolated)
    }

    /// The marks of each file's first fix follow the sort: a first fix added after a later one
    /// still marks its gap; a first fix replaced by a later-added fix at its instant does not.
    func testTheFirstFixMarksFollowTheSortAndTheFixesKept() {
        let limits = TrackLimits(maxGap: 100, maxExtrapolation: 1000)
        let sorted = timeline([[TrackPoint(time: 500, latitude: 10, longitude: 0), TrackPoint(time: 600, latitude: 11, longitude: 0)],
                               [TrackPoint(time: 0, latitude: 0, longitude: 0)]])
        assertPosition(sorted.match(250, limits: limits), 5, 0, nearest: 250)
        let replaced = timeline([[TrackPoint(time: 1000, latitude: 10, longitude: 0)],
                                 [TrackPoint(time: 0, latitude: 0, longitude: 0), TrackPoint(time: 1000, latitude: 20, longitude: 0)]])
        XCTAssertEqual(replaced.count, 2)
        // 1000 s > 100 s and the fix at 1000 is no file's first: the nearest (a tie: the later).
        assertPosition(replaced.match(500, limits: limits), 20, 0, nearest: 500)
    }

    /// Spans and track numbers that differ only from the third fix on.
    func testSpansAndTracksThatAppearLate() {
        let t = timeline([[TrackPoint(time: 0, latitude: 0, longitude: 0), TrackPoint(time: 100, latitude: 1, longitude: 0)],
                          [TrackPoint(time: 1000, latitude: 10, longitude: 0, span: 7), TrackPoint(time: 100_000, latitude: 20, longitude: 0, span: 7)]])
        assertPosition(t.match(50_000), 10 + 10 * 49_000 / 99_000, 0, nearest: 49_000)
        guard case let .position(_, _, late, _) = t.match(50_000), case let .position(_, _, early, _) = t.match(50) else { return XCTFail() }
        XCTAssertEqual([early, late], [0, 1])
        // Between the files: 900 s, interpolated (1 + 9 * 300 / 900).
        assertPosition(t.match(400), 4, 0, nearest: 300)
        // Wider than both limits (a first fix: 800 s), span 0 shared is no span: the nearest fix.
        assertPosition(t.match(400, limits: TrackLimits(maxGap: 100, maxExtrapolation: 800)), 1, 0, nearest: 300)
    }

    func testDurationsAreWrittenInAtMostTheirTwoLargestUnits() {
        XCTAssertEqual(TrackMatch.duration(45), "45 s")
        XCTAssertEqual(TrackMatch.duration(725), "12 min 5 s")
        XCTAssertEqual(TrackMatch.duration(1860), "31 min")
        XCTAssertEqual(TrackMatch.duration(7800), "2 h 10 min")
        XCTAssertEqual(TrackMatch.duration(3 * 86_400 + 4 * 3600 + 59), "3 d 4 h")
    }

    /// Issue 40 item 7: `Int(seconds.rounded())` trapped on 1e300 and NaN. Int.max seconds is
    /// 106,751,991,167,300 days and 15 hours (9,223,372,036,854,775,807 / 86,400, remainder
    /// 55,807 s); NaN counts as 0.
    func testADurationOfAnyDoubleIsWrittenNotATrap() {
        XCTAssertEqual(TrackMatch.duration(1e300), "106751991167300 d 15 h")
        XCTAssertEqual(TrackMatch.duration(.infinity), "106751991167300 d 15 h")
        XCTAssertEqual(TrackMatch.duration(.nan), "0 s")
        XCTAssertEqual(Int(saturating: -1e300), Int.min)
        XCTAssertEqual(Int(saturating: 9_223_372_036_854_774_784.0), 9_223_372_036_854_774_784)  // the largest Double below 2^63
        XCTAssertEqual(Int(saturating: -2.9), -2)
    }
}
