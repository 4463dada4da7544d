import XCTest
@testable import PinCore
@testable import PinImport
import PinStore

/// The save stage's photo links (issue 39): each record written with the pin nearest so far, a
/// pin the run makes later takes the run's photos it is nearer to, and the store is handed the
/// corrections and each pin's days (`RunPhotoLinks`) instead of reading every photo again.
///
/// Distances along a meridian, where they are the latitude difference alone: one degree is
/// 6371 km × π / 180 = 111.19493 km.
final class NearestPinsTests: XCTestCase {
    let here = Coordinate(latitude: 45, longitude: 5)

    func north(_ km: Double) -> Coordinate {
        Coordinate(latitude: here.latitude + km / 111.19493, longitude: here.longitude)
    }

    func record(_ name: String, at coordinate: Coordinate?, _ decision: PhotoDecision = .distance, pin: UUID? = nil,
                taken iso: String = "2024-05-01T12:00:00Z") -> PhotoRecord {
        PhotoRecord(path: RawPath("/lib/\(name)"), fingerprint: PhotoFingerprint(size: 1, modificationNanoseconds: 2, inode: 3),
                    takenAt: ISO8601DateFormatter().date(from: iso), coordinate: coordinate, decision: decision, locationID: pin)
    }

    func testAPinMadeLaterTakesTheRunsPhotosItIsNearerTo() throws {
        let pins = NearestPins()
        let northPin = UUID(), southPin = UUID(), thirdPin = UUID()
        pins.insert(north(4.9), id: northPin)
        var between = record("between.jpg", at: here)
        pins.link(&between)
        XCTAssertEqual(between.pinID, northPin, "the only pin yet, 4.9 km away")
        var far = record("far.jpg", at: north(-9.9), .interval, taken: "2024-05-02T12:00:00Z")
        pins.link(&far)
        XCTAssertNil(far.pinID, "14.8 km from North")
        // South, 4.8 km from `between` and 5.1 km from `far`; then its own photo.
        pins.insert(north(-4.8), id: southPin)
        var maker = record("maker.jpg", at: north(-4.8), .accepted, pin: southPin, taken: "2024-05-03T12:00:00Z")
        pins.link(&maker)
        XCTAssertNil(maker.pinID, "an accepted photo is written with its own pin")
        var unplaced = record("unplaced.jpg", at: nil, .noLocation)
        pins.link(&unplaced)
        // Third, 3.1 km from `far`.
        pins.insert(north(-13), id: thirdPin)

        let links = try XCTUnwrap(pins.links(exact: true))
        XCTAssertEqual(links.corrections.map { "\($0.path) \($0.pin)" },
                       ["/lib/between.jpg \(southPin)", "/lib/far.jpg \(thirdPin)"])
        // 2024-05-01, -02, -03 at noon UTC: days 19,844, 19,845, 19,846 (1,714,564,800 s / 86,400).
        XCTAssertEqual(links.days, [southPin: [19_844, 19_846], thirdPin: [19_845]])
        XCTAssertEqual(links.positionedRecords, 3, "the photo without a position is not counted")
        XCTAssertEqual(links.storedPins, [])
    }

    func testAWantedPinVisitedOrAPinMovedLeavesTheLinksToTheStore() {
        let pins = NearestPins()
        XCTAssertNotNil(pins.links(exact: true))
        XCTAssertNil(pins.links(exact: false), "a correction moved a pin")
        pins.exact = false
        XCTAssertNil(pins.links(exact: true))
    }
}
