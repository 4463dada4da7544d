import Foundation
import Synchronization
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

    /// Fed as a walk goes: reads begin while inputs are still being submitted (the walk and the
    /// reads overlap), and every result comes back once, in submission order.
    func testFeedReadsWhileInputsStillCome() {
        let meter = InFlight()
        let feed = ReadFeed<Int, Int>(threads: 4) { i in
            meter.begin()
            meter.end()
            return i * 3
        }
        for i in 0..<(4 * ReadPool.batch) { feed.submit(i) }
        // Nothing is closed yet: the threads still read the whole batches submitted.
        let deadline = Date().addingTimeInterval(5)
        var seen: [Int] = []
        while seen.count < 4 * ReadPool.batch && Date() < deadline {
            feed.takeReady { i, result in
                XCTAssertEqual(result, i * 3)
                seen.append(i)
            }
            usleep(1_000)
        }
        XCTAssertEqual(seen, Array(0..<(4 * ReadPool.batch)), "read before the feed was finished")
        // A last, partial batch is read once the feed is finished.
        for i in seen.count..<(seen.count + 5) { feed.submit(i) }
        feed.finish { i, result in
            XCTAssertEqual(result, i * 3)
            seen.append(i)
        }
        XCTAssertEqual(seen, Array(0..<(4 * ReadPool.batch + 5)))
        XCTAssertLessThanOrEqual(meter.most, 4)
    }

    /// Abandoned (the walk failed): inputs not yet claimed are never read, and it returns once
    /// the reads under way ended.
    func testAbandonedFeedReadsNoMore() {
        let reads = InFlight()
        let feed = ReadFeed<Int, Int>(threads: 2) { i in
            reads.begin()
            usleep(20_000)
            reads.end()
            return i
        }
        for i in 0..<(100 * ReadPool.batch) { feed.submit(i) }
        usleep(30_000)
        let started = Date()
        feed.abandon()
        // Two threads, a batch each under way: 16 reads of 20 ms at most, not 1,600.
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5)
        XCTAssertLessThanOrEqual(reads.mostWaiting, 4 * ReadPool.batch)
    }

    /// A feed given nothing finishes at once (were it to wait for work, the test would hang)
    /// and never calls its handler.
    func testAnEmptyFeedFinishesWithoutCallingItsHandler() {
        let feed = ReadFeed<Int, Int>(threads: 8) { $0 }
        var seen = 0
        feed.finish { _, _ in seen += 1 }
        XCTAssertEqual(seen, 0)
    }

    /// The read pool's threads give way to the walk once it met a cold cache: each raises its
    /// own nice value by `coldNice` (a per-thread value on Linux), and only then; the thread
    /// that made the feed keeps its own.
    func testThreadsGiveWayOnceTheWalkMetAColdCache() throws {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let base = getpriority(which, 0)
        func nices() -> Set<Int32> {
            let feed = ReadFeed<Int, Int32>(threads: 3, batch: 1, coldNice: 10) { _ in getpriority(which, 0) }
            var seen: Set<Int32> = []
            for i in 0..<12 { feed.submit(i) }
            feed.finish { _, nice in seen.insert(nice) }
            return seen
        }
        let saved = ColdCache.met.load(ordering: .relaxed)
        defer { ColdCache.met.store(saved, ordering: .relaxed) }
        ColdCache.met.store(false, ordering: .relaxed)
        XCTAssertEqual(nices(), [base], "a warm walk: the threads keep the caller's priority")

        // A walk whose stats wait for the disk (the cold path forced) sets it.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-cold-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/a", withIntermediateDirectories: true)
        try "x".write(toFile: dir + "/a/1.jpg", atomically: false, encoding: .utf8)
        let slow = ColdCache.slowNanoseconds
        ColdCache.slowNanoseconds = -1
        defer { ColdCache.slowNanoseconds = slow }
        _ = try Scanner.scan(root: dir)
        XCTAssertTrue(ColdCache.met.load(ordering: .relaxed))
        XCTAssertEqual(nices(), [min(19, base + 10)], "after a cold walk: 10 nicer")
        XCTAssertEqual(getpriority(which, 0), base, "the caller's own thread is left as it was")
    }

    /// Each batch a thread claims goes to `prefetch` on that thread before its reads, whole.
    func testEachBatchIsPrefetchedByItsThreadBeforeItIsRead() {
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var prefetched: [Int: pthread_t] = [:]
            var batches: [[Int]] = []
            var wrong: [Int] = []
        }
        let seen = Seen()
        let feed = ReadFeed<Int, Int>(threads: 3, batch: 4, prefetch: { inputs in
            seen.lock.lock()
            seen.batches.append(inputs)
            for i in inputs { seen.prefetched[i] = pthread_self() }
            seen.lock.unlock()
        }) { i in
            seen.lock.lock()
            if seen.prefetched[i].map({ pthread_equal($0, pthread_self()) == 0 }) ?? true { seen.wrong.append(i) }
            seen.lock.unlock()
            return i * 2
        }
        for i in 0..<30 { feed.submit(i) }
        var results: [Int] = []
        feed.finish { _, r in results.append(r) }
        XCTAssertEqual(results, (0..<30).map { $0 * 2 })
        XCTAssertEqual(seen.wrong, [], "every input prefetched on the thread that read it, before")
        XCTAssertEqual(seen.batches.map(\.count).sorted(), [2] + Array(repeating: 4, count: 7))
        XCTAssertEqual(seen.batches.flatMap { $0 }.sorted(), Array(0..<30))
    }

    /// Files held open ahead: a whole batch per thread, fewer when all the threads' would pass
    /// half the soft limit of open files, none past it.
    func testFilesPrefetchedPerThreadStayWithinHalfTheOpenFilesLimit() {
        XCTAssertEqual(ReadStage.prefetchedPerThread(jobs: 32, limit: 1024), 16)
        XCTAssertEqual(ReadStage.prefetchedPerThread(jobs: 64, limit: 1024), 8)
        XCTAssertEqual(ReadStage.prefetchedPerThread(jobs: 100, limit: 1024), 5)
        XCTAssertEqual(ReadStage.prefetchedPerThread(jobs: 600, limit: 1024), 0)
        XCTAssertEqual(ReadStage.prefetchedPerThread(jobs: 64, limit: 1_048_576), 16)
        XCTAssertGreaterThan(ReadStage.prefetchedPerThread(jobs: 32), 0)
    }
}
