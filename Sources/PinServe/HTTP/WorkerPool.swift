import Foundation

/// A fixed number of threads taking jobs from a bounded queue: the event loop hands each decoded
/// request to one and never waits on SQLite, the gazetteer or a page being rendered. When the
/// queue is full `submit` says no at once (the loop answers 503): a flood of requests costs a
/// bounded amount of memory, not a growing backlog.
final class WorkerPool: @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var stopped = false
    private let capacity: Int

    init(threads: Int, capacity: Int) {
        self.capacity = capacity
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in work() }
            thread.name = "pins-serve-\(index)"
            // Rendering the page of 100,000 pins recurses nowhere deep; 4 MiB leaves room.
            thread.stackSize = 4 << 20
            thread.start()
        }
    }

    /// Queues `job`; false when the queue holds `capacity` jobs already or the pool stopped.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, jobs.count - head < capacity else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// No new jobs; the threads end once the queued ones ran.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        while let job = next() { job() }
    }

    private func next() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count {
            if stopped { return nil }
            condition.wait()
        }
        let job = jobs[head]
        head += 1
        // The consumed prefix is dropped now and then, not at every job.
        if head > 64, head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }
}
