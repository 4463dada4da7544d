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

    /// The map data's way (`staleWhileLoading`): while one thread makes the new version's value,
    /// another asking for that version gets the older value at once, not after the read; the
    /// thread that makes it gets the new one, and so does everyone once it is made.
    func testWhileOneThreadMakesTheNewVersionTheOthersGetTheOldValueAtOnce() throws {
        let cache = VersionCache<String>(), counter = Counter()
        XCTAssertEqual(try cache.value(for: "v1", staleWhileLoading: true) { counter.increment(); return "old" }, "old")
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let maker = Counter()
        DispatchQueue.global().async {
            let value = try? cache.value(for: "v2", staleWhileLoading: true) {
                counter.increment()
                started.signal()
                release.wait()
                return "new"
            }
            if value == "new" { maker.increment() }
            done.signal()
        }
        started.wait()
        let began = Date()
        XCTAssertEqual(try cache.value(for: "v2", staleWhileLoading: true) { counter.increment(); return "made twice" }, "old")
        XCTAssertLessThan(Date().timeIntervalSince(began), 0.5, "not held by the read under way")
        release.signal()
        done.wait()
        XCTAssertEqual(maker.loads, 1, "the thread that made the new value answers with it")
        XCTAssertEqual(try cache.value(for: "v2", staleWhileLoading: true) { counter.increment(); return "made again" }, "new")
        XCTAssertEqual(counter.loads, 2, "one read per version")
    }

    /// With nothing kept yet (the first map data), there is no older value: the others wait.
    func testWithNothingKeptTheOthersWaitForTheFirstRead() {
        let cache = VersionCache<Int>(), counter = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let value = try? cache.value(for: "v1", staleWhileLoading: true) {
                counter.increment()
                Thread.sleep(forTimeInterval: 0.2)
                return 7
            }
            XCTAssertEqual(value, 7)
        }
        XCTAssertEqual(counter.loads, 1)
    }

    /// A poll of the map data (`keptValue`): answered at once with the value kept when the
    /// version changed, while one thread of its own reads the new one (one read, however many
    /// polls); a page after its own change (`freshValue`) waits for that read and gets the new
    /// value; the polls after it get the new value too.
    func testAPollIsAnsweredAtOnceWhileTheNewVersionIsReadInTheBackground() throws {
        let cache = VersionCache<String>(), counter = Counter()
        XCTAssertEqual(try cache.keptValue(for: "v1") { counter.increment(); return "old" }, "old", "nothing kept: read now")
        let release = DispatchSemaphore(value: 0)
        let slowNew: @Sendable () throws -> String = {
            counter.increment()
            release.wait()
            return "new"
        }
        let began = Date()
        for _ in 0..<5 { XCTAssertEqual(try cache.keptValue(for: "v2", makeInBackground: slowNew), "old") }
        XCTAssertLessThan(Date().timeIntervalSince(began), 0.5, "no poll waits for the read")
        let fresh = Counter()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            if (try? cache.freshValue(for: "v2") { counter.increment(); return "read twice" }) == "new" { fresh.increment() }
            done.signal()
        }
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(fresh.loads, 0, "the fresh read waits for the one under way")
        release.signal()
        done.wait()
        XCTAssertEqual(fresh.loads, 1, "and answers with its value")
        XCTAssertEqual(try cache.keptValue(for: "v2") { counter.increment(); return "read again" }, "new")
        XCTAssertEqual(counter.loads, 2, "one read per version, the background one")
    }

    /// A background read that fails leaves the old value, and the next poll starts another.
    func testAFailedBackgroundReadKeepsTheOldValueAndIsTriedAgain() throws {
        let cache = VersionCache<String>(), counter = Counter()
        XCTAssertEqual(try cache.keptValue(for: "v1") { "old" }, "old")
        struct Failed: Error {}
        XCTAssertEqual(try cache.keptValue(for: "v2") { counter.increment(); throw Failed() }, "old")
        let deadline = Date().addingTimeInterval(5)
        while counter.loads == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(try cache.keptValue(for: "v2") { counter.increment(); return "new" }, "old", "the failure left the old value")
        XCTAssertEqual(try cache.freshValue(for: "v2") { "new" }, "new")
        XCTAssertEqual(try cache.keptValue(for: "v2") { "not read" }, "new")
    }

    /// The background reads take at most a quarter of the time: after one that took 0.3 s, a poll
    /// of a newer version within 0.9 s of its end is answered with the value kept and starts no
    /// read; one 2 s after its end starts it.
    func testBackgroundReadsRestThreeTimesTheirOwnLength() throws {
        let cache = VersionCache<String>(), counter = Counter()
        XCTAssertEqual(try cache.keptValue(for: "v1") { "v1" }, "v1")
        let slow: @Sendable (String) -> @Sendable () throws -> String = { value in
            { counter.increment(); Thread.sleep(forTimeInterval: 0.3); return value }
        }
        XCTAssertEqual(try cache.keptValue(for: "v2", makeInBackground: slow("v2")), "v1")
        XCTAssertEqual(try cache.freshValue(for: "v2") { "read twice" }, "v2", "the background read waited for")
        let ended = Date()
        XCTAssertEqual(try cache.keptValue(for: "v3", makeInBackground: slow("v3")), "v2")
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(counter.loads, 1, "no read within three times the last one's length")
        Thread.sleep(forTimeInterval: max(0, 2.0 - Date().timeIntervalSince(ended)))  // rest 0.9 s: twice the margin
        XCTAssertEqual(try cache.keptValue(for: "v3", makeInBackground: slow("v3")), "v2")
        XCTAssertEqual(try cache.freshValue(for: "v3") { "read twice" }, "v3")
        XCTAssertEqual(counter.loads, 2)
    }
}
