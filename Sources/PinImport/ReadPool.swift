import Foundation

/// Reads in flight, apart from the cores: `threads` threads of their own, each taking the next
/// file and running a blocking read on it, while the caller consumes the results in file order.
///
/// Why threads and not Swift's cooperative pool: that pool has one thread per core, so blocking
/// reads on it made reads in flight equal to the cores (2 here), whatever `--jobs` said; a cold
/// disk or a network share needs tens of reads in flight to be kept busy. Why threads and not
/// io_uring: a container reader's reads depend on each other (a header gives a box's offset,
/// which gives the next range), so io_uring would turn every reader into a state machine, add a
/// dependency (liburing) and a kernel feature that containers and older NAS kernels often
/// refuse; a thread per read in flight keeps the plain bounds-checked reader, for a few KiB of
/// resident stack each. On a warm cache the threads are runnable, not waiting, and the kernel
/// runs as many as there are cores.
///
/// Memory stays bounded: a thread does not start a batch of files until the caller has taken
/// the batch `window` places before it, so at most `4 x threads` batches of results wait at
/// once however large the run.
public enum ReadPool {
    /// Files a thread claims at once: one file per claim made the hand-over (a mutex, a wake-up)
    /// cost more than a warm read itself. Reads in flight stay one per thread.
    static let batch = 16

    /// Runs `read(i)` for every `i` in `0..<count` on `threads` threads and calls `consume(i, result)`
    /// on the calling thread in increasing `i`. Returns when every result was consumed.
    public static func run<Result>(count: Int, threads: Int, read: @escaping @Sendable (Int) -> Result,
                                   consume: (Int, Result) -> Void) {
        guard count > 0 else { return }
        let batches = (count + batch - 1) / batch
        let threads = max(1, min(threads, batches))
        let state = State<Result>(window: threads * 4, count: count)
        for _ in 0..<threads {
            let thread = Thread { state.work(read) }
            // Readers go a few frames deep into the container parsers: 256 KiB is plenty and
            // keeps 64 threads' stacks at 16 MiB of address space.
            thread.stackSize = 256 * 1024
            thread.start()
        }
        for b in 0..<batches {
            for (k, result) in state.take(b).enumerated() { consume(b * batch + k, result) }
        }
        state.finish()
    }

    /// The shared ring of batches of results, behind one mutex and its condition.
    private final class State<Result>: @unchecked Sendable {
        private let condition = NSCondition()
        /// Batches that may be read ahead of the consumer.
        private let window: Int
        private let count: Int
        private var slots: [[Result]?]
        /// The next batch a thread may claim.
        private var next = 0
        /// The next batch the consumer takes: batches at or beyond `consumed + window` wait.
        private var consumed = 0
        private var running = 0
        private var batches: Int { (count + ReadPool.batch - 1) / ReadPool.batch }

        init(window: Int, count: Int) {
            self.window = window
            self.count = count
            slots = Array(repeating: nil, count: window)
        }

        func work(_ read: @Sendable (Int) -> Result) {
            condition.lock()
            running += 1
            while true {
                while next < batches && next >= consumed + window { condition.wait() }
                guard next < batches else { break }
                let b = next
                next += 1
                condition.unlock()
                let start = b * ReadPool.batch
                let results = (start..<min(count, start + ReadPool.batch)).map(read)
                condition.lock()
                slots[b % window] = results
                if b == consumed { condition.broadcast() }
            }
            running -= 1
            condition.broadcast()
            condition.unlock()
        }

        func take(_ b: Int) -> [Result] {
            condition.lock()
            defer { condition.unlock() }
            while slots[b % window] == nil { condition.wait() }
            let results = slots[b % window]!
            slots[b % window] = nil
            consumed = b + 1
            // Threads held back by the window may go on.
            if next >= consumed - 1 + window { condition.broadcast() }
            return results
        }

        /// Waits until every thread has left (they leave once no batch is left to claim).
        func finish() {
            condition.lock()
            defer { condition.unlock() }
            while running > 0 { condition.wait() }
        }
    }
}
