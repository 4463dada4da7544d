import Foundation
@testable import PinCore
import Synchronization
import XCTest

/// The one lazy loader: one load however many threads ask at once, and a failure kept, so that a
/// damaged data file is read once per run, not once per photo.
final class LoadOnceTests: XCTestCase {
    struct Damaged: Error, Equatable {}

    func testManyThreadsAskingAtOnceMakeOneLoad() throws {
        let loads = Atomic<Int>(0)
        let once = LoadOnce<Int> {
            loads.add(1, ordering: .relaxed)
            Thread.sleep(forTimeInterval: 0.05)  // long enough that the others ask meanwhile
            return 42
        }
        let answers = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let value = try! once.get()
            answers.withLock { $0.append(value) }
        }
        XCTAssertEqual(loads.load(ordering: .relaxed), 1)
        XCTAssertEqual(answers.withLock { $0 }, Array(repeating: 42, count: 16))
    }

    func testAFailureIsKeptAndNotLoadedAgain() {
        let loads = Atomic<Int>(0)
        let once = LoadOnce<Int> {
            loads.add(1, ordering: .relaxed)
            throw Damaged()
        }
        for _ in 0..<3 {
            XCTAssertThrowsError(try once.get()) { XCTAssertEqual($0 as? Damaged, Damaged()) }
        }
        XCTAssertEqual(loads.load(ordering: .relaxed), 1)
    }

    /// `loadedOrOnce`: before any lookup, each call loads places of its own, kept by no one (the
    /// lookups' load still to come); once a lookup loaded them, that one, loaded no more.
    func testPlacesLoadedOnceForACallerAreNotKept() throws {
        final class Counted: PlaceLocating {
            func match(at point: Coordinate, countryCode: String?) -> PlaceMatch { .none }
            func match(at point: Coordinate, countryCode: String?, inOutline: Bool?) -> PlaceMatch { .none }
            func regions(of countryCode: String) -> [Region] { [] }
            func prepare() throws {}
            func largestPlaces(of countryCode: String, limit: Int) -> [Place] { [] }
        }
        let loads = Atomic<Int>(0)
        let places = LazyPlaceLocator {
            loads.add(1, ordering: .relaxed)
            return Counted()
        }
        weak var dropped: Counted?
        do {
            let first = try XCTUnwrap(try places.loadedOrOnce() as? Counted)
            let second = try XCTUnwrap(try places.loadedOrOnce() as? Counted)
            XCTAssertEqual(loads.load(ordering: .relaxed), 2, "each caller loads its own while no lookup loaded them")
            XCTAssertFalse(first === second)
            dropped = first
        }
        XCTAssertNil(dropped, "let go with the caller's last reference")
        try places.prepare()
        XCTAssertEqual(loads.load(ordering: .relaxed), 3, "the lookups' own load")
        let kept = try places.loadedOrOnce() as? Counted
        XCTAssertTrue(kept === (try places.loadedOrOnce() as? Counted))
        XCTAssertEqual(loads.load(ordering: .relaxed), 3, "the lookups' places, not loaded again")
    }
}
