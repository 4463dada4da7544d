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
}
