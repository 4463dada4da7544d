import XCTest
@testable import PinCore

/// The four rules at and around their boundaries, with hand-worked numbers.
/// Along a meridian the angle between two points is exactly their latitude difference, so
/// positions are placed at chosen angles from each other: 0.0007848 rad = 0.044965727 degrees.
final class ImportRulesTests: XCTestCase {
    let radToDeg = 180 / Double.pi

    func candidate(_ i: Int, _ t: Double, _ lat: Double?, _ lon: Double = 7, path: String? = nil) -> ImportRules.Candidate {
        .init(index: i, instant: t, path: RawPath(path ?? String(format: "p%03d.jpg", i)),
              coordinate: lat.map { Coordinate(latitude: $0, longitude: lon) })
    }

    func decide(_ candidates: [ImportRules.Candidate], filters: ImportRules = ImportRules()) -> [String] {
        var f = filters
        return ImportRules.ordered(candidates).map { c -> String in
            switch f.decide(c, label: c.path.description) {
            case .accepted: return "accepted"
            case .noLocation: return "noLocation"
            case .interval: return "interval"
            case .distance: return "distance"
            case .visits: return "visits"
            }
        }
    }

    func testNoLocationComesFirst() {
        // No position, and also 10 s after an accepted photo: the location rule decides.
        XCTAssertEqual(decide([candidate(0, 0, 45), candidate(1, 10, nil)]), ["accepted", "noLocation"])
    }

    func testAPhotoUnder60SecondsAfterTheLastAcceptedIsSkippedAndOneAt60SecondsIsNot() {
        // Far apart (1 degree = 111 km), 59.999 s / 60 s / 60.001 s after the accepted one.
        XCTAssertEqual(decide([candidate(0, 0, 45), candidate(1, 59.999, 46)]), ["accepted", "interval"])
        XCTAssertEqual(decide([candidate(0, 0, 45), candidate(1, 60, 46)]), ["accepted", "accepted"])
        XCTAssertEqual(decide([candidate(0, 0, 45), candidate(1, 60.001, 46)]), ["accepted", "accepted"])
    }

    func testIntervalIsMeasuredFromTheLastAcceptedPhoto() {
        // t=0 accepted; t=40 skipped (interval); t=90 is 50 s after the skipped one but 90 s
        // after the accepted one: accepted.
        XCTAssertEqual(decide([candidate(0, 0, 45), candidate(1, 40, 46), candidate(2, 90, 47)]),
                       ["accepted", "interval", "accepted"])
        // A skipped-by-distance photo does not restart the clock either.
        XCTAssertEqual(decide([candidate(0, 0, 45), candidate(1, 100, 45.001), candidate(2, 130, 47)]),
                       ["accepted", "distance", "accepted"])
    }

    func testAPhotoJustInsideThe5KmAngleOfAPinIsSkippedAndOneJustOutsideIsNot() {
        let inside = 0.0007847 * radToDeg, outside = 0.0007849 * radToDeg
        XCTAssertEqual(decide([candidate(0, 0, 45), candidate(1, 100, 45 + inside)]), ["accepted", "distance"])
        XCTAssertEqual(decide([candidate(0, 0, 45), candidate(1, 100, 45 + outside)]), ["accepted", "accepted"])
    }

    func testAnEarlierPinOfThisRunBlocksAMuchLaterPhoto() {
        // A return visit weeks later, 1 km away.
        XCTAssertEqual(decide([candidate(0, 0, 45), candidate(1, 3_000_000, 45 + 1.0 / 111.195)]), ["accepted", "distance"])
    }

    func testExistingAndHandMadePinsBlock() {
        let filters = ImportRules(existingPins: [.init(title: "hand-made", coordinate: Coordinate(latitude: 45, longitude: 7))])
        var f = filters
        let verdict = f.decide(candidate(0, 0, 45.01), label: "x") // 1.11 km from the pin
        guard case let .distance(km, radians, pin, _) = verdict else { return XCTFail("\(verdict)") }
        XCTAssertEqual(pin, "hand-made")
        XCTAssertEqual(km, 1.11195, accuracy: 0.0001)                     // 0.01 degrees on R = 6371 km
        XCTAssertEqual(radians, 0.01 / radToDeg, accuracy: 1e-9)
    }

    func testEarlierRunsCountForTheInterval() {
        // A photo accepted last week at t=1000; a new photo at t=1050 is 50 s after it.
        let earlier = [AcceptedPhoto(instant: 1000, path: RawPath("/old.jpg"))]
        XCTAssertEqual(decide([candidate(0, 1050, 10)], filters: ImportRules(earlierAccepted: earlier)), ["interval"])
        // The latest accepted at or before the photo counts, not one after it: a new photo
        // older than everything imported is measured against nothing.
        XCTAssertEqual(decide([candidate(0, 990, 10)], filters: ImportRules(earlierAccepted: earlier)), ["accepted"])
        // An earlier run's photo at exactly 60 s before: accepted.
        XCTAssertEqual(decide([candidate(0, 1060, 10)], filters: ImportRules(earlierAccepted: earlier)), ["accepted"])
    }

    func testOrderingAcrossTimeZones() {
        // Paris 10:00+02:00 = 08:00Z; London 09:30+01:00 = 08:30Z: London is later, although
        // its wall clock is earlier. Instants are what the rules sort by.
        let paris = candidate(0, 8 * 3600, 48.85, 2.35, path: "paris.jpg")
        let london = candidate(1, 8.5 * 3600, 51.5, -0.12, path: "a-london.jpg")
        XCTAssertEqual(ImportRules.ordered([london, paris]).map(\.path.description), ["paris.jpg", "a-london.jpg"])
    }

    func testTiesAreBrokenByPathBytes() {
        // Same instant, far apart: the byte-wise smaller path comes first ("T" < "k"), the other
        // is an interval skip.
        let a = candidate(0, 100, 35.7, 139.7, path: "2024/Tokyo/x.jpg")
        let b = candidate(1, 100, 35.0, 135.8, path: "2024/kyoto/y.jpg")
        XCTAssertEqual(ImportRules.ordered([b, a]).map(\.path.description), ["2024/Tokyo/x.jpg", "2024/kyoto/y.jpg"])
        XCTAssertEqual(decide([b, a]), ["accepted", "interval"])
    }

    func testWithIntervalZeroAnd1KmOnlyAPhotoWithin1KmOfAPinIsSkipped() {
        // --min-interval 0: only the distance rule remains; --min-distance-km 1: 1/6371 rad.
        let filters = ImportRules(minInterval: 0, threshold: AngularDistance.angle(forKilometres: 1))
        let d = 0.9 / 111.195, e = 1.1 / 111.195 // degrees of latitude for 0.9 km and 1.1 km
        XCTAssertEqual(decide([candidate(0, 0, 45), candidate(1, 1, 45 + d), candidate(2, 2, 45 - e)], filters: filters),
                       ["accepted", "distance", "accepted"])
    }

    func testLabelsAreMadeOnlyForAcceptedPhotosAndNamedInLaterVerdicts() {
        // Four photos: accepted, then no location, interval (30 s) and distance (1 km): only the
        // accepted one's label is asked for, and the later verdicts name it.
        var f = ImportRules()
        var asked: [String] = []
        func label(_ c: ImportRules.Candidate) -> String {
            asked.append(c.path.description)
            return "label of " + c.path.description
        }
        let photos = ImportRules.ordered([candidate(0, 0, 45), candidate(1, 10, nil), candidate(2, 30, 46),
                                            candidate(3, 100, 45 + 1.0 / 111.195)])
        let verdicts = photos.map { c in f.decide(c, label: label(c)) }
        XCTAssertEqual(asked, ["p000.jpg"])
        guard case let .interval(_, previous) = verdicts[2], case let .distance(_, _, pin, _) = verdicts[3]
        else { return XCTFail("\(verdicts)") }
        XCTAssertEqual(previous, "label of p000.jpg")
        XCTAssertEqual(pin, "label of p000.jpg")
    }

    func testDistanceVerdictsNameTheRightPinAmongMany() {
        // 300 pins of earlier imports along a meridian, one degree apart, titles of different
        // lengths and scripts; then photos of this run: each is named by the pin it is near.
        let titles = (0..<300).map { i in i % 3 == 0 ? "Zürich, \(i)" : i % 3 == 1 ? "東京 \(i)" : "p\(i)" }
        let pins = titles.enumerated().map { i, title in
            ImportRules.ExistingPin(title: title, coordinate: Coordinate(latitude: -80 + Double(i) * 0.5, longitude: 7))
        }
        var filters = ImportRules(existingPins: pins)
        func named(_ verdict: ImportRules.Verdict) -> String? {
            if case let .distance(_, _, pin, _) = verdict { return pin }
            return nil
        }
        XCTAssertEqual(named(filters.decide(candidate(0, 0, -80 + 0.01), label: "a")), "Zürich, 0")
        XCTAssertEqual(named(filters.decide(candidate(1, 100, -80 + 0.5 * 271 + 0.01), label: "b")), "東京 271")
        XCTAssertEqual(named(filters.decide(candidate(2, 200, -80 + 0.5 * 271 - 0.01), label: "c")), "東京 271")
        XCTAssertEqual(named(filters.decide(candidate(3, 300, -80 + 0.5 * 299), label: "d")), "p299")
        // A pin of this run, labelled with a path that is not ASCII, between two earlier pins.
        XCTAssertEqual(filters.decide(candidate(4, 400, -80 + 0.25, 7), label: "été/ß.jpg"), .accepted)
        XCTAssertEqual(named(filters.decide(candidate(5, 500, -80 + 0.26, 7), label: "e")), "été/ß.jpg")
        XCTAssertEqual(named(filters.decide(candidate(6, 600, -80 + 0.01, 7), label: "f")), "Zürich, 0")
    }
}
