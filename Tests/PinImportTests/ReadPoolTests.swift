import Foundation
import XCTest
@testable import PinImport

/// Counts reads under way at once, from any thread.
private final class InFlight: @unchecked Sendable {
    private let lock = NSLock()
    private var now = 0
    private(set) var most = 0
    /// Results handed over but not yet taken by the consumer, at most.
    private var waiting = 0
    private(set) var mostWaiting = 0

    func begin() {
        lock.lock(); now += 1; most = max(most, now); lock.unlock()
    }

    func end() {
        lock.lock(); now -= 1; waiting += 1; mostWaiting = max(mostWaiting, waiting); lock.unlock()
    }

    func taken() {
        lock.lock(); waiting -= 1; lock.unlock()
    }
}

final class ReadPoolTests: XCTestCase {
    /// Every index once, in order, with its own result, for counts around the batch size.
    func testEveryResultInOrder() {
        for count in [0, 1, ReadPool.batch - 1, ReadPool.batch, ReadPool.batch + 1, 1000] {
            for threads in [1, 3, 64] {
                var seen: [Int] = []
                ReadPool.run(count: count, threads: threads, read: { $0 * 7 }, consume: { i, result in
                    XCTAssertEqual(result, i * 7)
                    seen.append(i)
                })
                XCTAssertEqual(seen, Array(0..<count), "count \(count), threads \(threads)")
            }
        }
    }

    /// Reads that block (a slow disk, a share) overlap up to the number of threads asked for,
    /// on a 2-core machine too: 32 threads, 32 reads at once.
    func testBlockingReadsOverlapUpToTheThreads() {
        let meter = InFlight()
        let started = Date()
        ReadPool.run(count: 32 * ReadPool.batch, threads: 32, read: { _ in
            meter.begin()
            usleep(2_000)
            meter.end()
        }, consume: { _, _ in meter.taken() })
        XCTAssertEqual(meter.most, 32)
        // 512 reads of 2 ms: 1 s one at a time; 32 at a time about 32 ms plus start-up.
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.6)
    }

    /// A consumer slower than the readers holds the readers back: results waiting for it stay
    /// within the window (4 batches per thread), however many files.
    func testResultsWaitingStayBounded() {
        let meter = InFlight()
        let threads = 4
        ReadPool.run(count: 200 * ReadPool.batch, threads: threads, read: { _ in
            meter.begin()
            meter.end()
        }, consume: { i, _ in
            meter.taken()
            if i % 64 == 0 { usleep(500) }
        })
        // The window, plus the batch the consumer is going through (its results count as waiting
        // until each is consumed).
        XCTAssertLessThanOrEqual(meter.mostWaiting, (threads * 4 + 1) * ReadPool.batch)
        XCTAssertGreaterThan(meter.mostWaiting, ReadPool.batch)
    }
}
