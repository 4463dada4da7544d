import Foundation
import XCTest
@testable import PinServe

/// The cache behind GET /api/pins and /api/page-data (scripts/bench-serve): one read per version
/// of the database, shared by the requests that arrive while it is read.
final class VersionCacheTests: XCTestCase {
    final class Counter: @unchecked Sendable {
        let lock = NSLock()
        var loads = 0
        func increment() { lock.lock(); loads += 1; lock.unlock() }
    }

    func testOneReadPerVersionAndANewOneWhenTheVersionChanges() throws {
        let cache = VersionCache<String>(), counter = Counter()
        XCTAssertEqual(try cache.value(for: "v1") { counter.increment(); return "first" }, "first")
        XCTAssertEqual(try cache.value(for: "v1") { counter.increment(); return "not read" }, "first")
        XCTAssertEqual(try cache.value(for: "v2") { counter.increment(); return "second" }, "second")
        XCTAssertEqual(counter.loads, 2)
        struct Failed: Error {}
        XCTAssertThrowsError(try cache.value(for: "v3") { throw Failed() })
        XCTAssertEqual(try cache.value(for: "v3") { "read again after the failure" }, "read again after the failure")
    }

    func testRequestsArrivingDuringTheReadWaitForIt() {
        let cache = VersionCache<Int>(), counter = Counter()
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let value = try? cache.value(for: "v1") {
                counter.increment()
                Thread.sleep(forTimeInterval: 0.2)
                return 42
            }
            XCTAssertEqual(value, 42)
        }
        XCTAssertEqual(counter.loads, 1, "16 requests, one read")
    }
}
