import Foundation
import Synchronization

/// Reads in flight, apart from the cores: `threads` threads of their own, each taking the next
/// batch of inputs and running a blocking read on each, while the caller consumes the results
/// in the order it submitted the inputs.
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
/// Inputs can be submitted while earlier ones are read (`ReadFeed`): the import's walk feeds the
/// pool folder by folder, so reading starts with the first folder instead of after the last.
///
/// Memory stays bounded by the consumer: a thread does not start a batch until the caller has
/// taken the batch `window` places before it, so at most `4 x threads` batches of results wait
/// at once however large the run (inputs submitted and not yet read wait too: the caller holds
/// those anyway).
enum ReadPool {
    /// Inputs a thread claims at once: one file per claim made the hand-over (a mutex, a wake-up)
    /// cost more than a warm read itself. Reads in flight stay one per thread.
    static let batch = 16

    /// Runs `read(i)` for every `i` in `0..<count` on `threads` threads and calls `consume(i, result)`
    /// on the calling thread in increasing `i`. Returns when every result was consumed.
    static func run<Result>(count: Int, threads: Int, read: @escaping @Sendable (Int) -> Result,
                                   consume: (Int, Result) -> Void) {
        guard count > 0 else { return }
        let feed = ReadFeed<Int, Result>(threads: min(threads, (count + batch - 1) / batch), read: read)
        for i in 0..<count { feed.submit(i) }
        feed.finish(consume)
    }
}

/// A `ReadPool` fed as the inputs come: `submit` from one producer thread, `takeReady` (without
/// waiting) and `finish` (waiting for the rest) on that same thread, results in submission
/// order. The threads start at the first `submit`: a run with nothing to read starts none.
/// `abandon` ends it early (the walk failed, or a stop was asked): inputs not yet claimed are
/// never read.
final class ReadFeed<Input: Sendable, Result>: @unchecked Sendable {
    // Everything below `read` is guarded by `lock`; threads wait on `work` (a batch to claim,
    // or room in the window), the consumer on `ready` (the next batch's results). Two
    // conditions, so that a new batch wakes one thread, not all of them.
    private let lock = ThreadLock()
    private let work: ThreadCondition
    private let ready: ThreadCondition
    private let threads: Int
    private let window: Int
    /// Inputs a thread claims at once (`ReadPool.batch`).
    private let batch: Int
    private let read: @Sendable (Input) -> Result
    /// Called on a thread with each batch it claimed, before its reads (`ReadStage`: opens the
    /// files ahead on a cold cache).
    private let prefetch: (@Sendable ([Input]) -> Void)?
    /// How much nicer the threads make themselves once a walk met a cold cache (`ColdCache`).
    private let coldNice: Int32
    private let name: String
    /// Submitted inputs not yet claimed: `pending[head...]`.
    private var pending: [Input] = []
    private var head = 0
    private var closed = false, cancelled = false, started = false
    /// The next batch a thread claims; the next the consumer takes.
    private var next = 0, consumed = 0
    /// Results of claimed batches, at `b % window`, until the consumer takes them.
    private var slots: [[(Input, Result)]?]
    /// The threads, once started (joined by `finish` and `abandon`).
    private var workers: [WorkerThread<Void>] = []
    /// Inputs submitted, and results handed to the consumer.
    private var submitted = 0, taken = 0

    /// `window`: batches that may be read ahead of the consumer (default 4 per thread).
    /// `coldNice`: once a walk of this process met a cold cache, each thread raises its nice
    /// value by this much (see `ReadStage.coldNice`); 0 leaves it.
    /// `name`: the threads' job, for the message when one cannot be started.
    init(threads: Int, window: Int? = nil, batch: Int? = nil, coldNice: Int32 = 0, name: String = "reader",
                prefetch: (@Sendable ([Input]) -> Void)? = nil, read: @escaping @Sendable (Input) -> Result) {
        self.name = name
        self.coldNice = coldNice
        self.prefetch = prefetch
        self.threads = max(1, threads)
        self.batch = max(1, batch ?? ReadPool.batch)
        self.read = read
        self.window = max(1, window ?? max(1, threads) * 4)
        slots = Array(repeating: nil, count: self.window)
        work = ThreadCondition(lock)
        ready = ThreadCondition(lock)
    }

    private var unclaimed: Int { pending.count - head }

    /// A thread may claim the next batch: it is whole (or the last one), and within the window.
    private var claimable: Bool {
        next < consumed + window && (unclaimed >= batch || closed && unclaimed > 0)
    }

    func submit(_ input: Input) {
        lock.lock()
        if !started { start() }
        pending.append(input)
        submitted += 1
        if unclaimed % batch == 0 { work.signal() }
        lock.unlock()
    }

    /// Consumes the results ready now, in order, without waiting.
    func takeReady(_ consume: (Input, Result) -> Void) {
        while let results = take(wait: false) { for (input, result) in results { consume(input, result) } }
    }

    /// Consumes results in order, waiting for them, until at most `keeping` submitted inputs are
    /// left without their result taken (`keeping` at least a batch less one: a partial batch
    /// is read only once the feed is finished).
    func drain(keeping: Int, _ consume: (Input, Result) -> Void) {
        precondition(keeping >= batch - 1)
        while outstanding > keeping, let results = take(wait: true) { for (input, result) in results { consume(input, result) } }
    }

    private var outstanding: Int {
        lock.lock()
        defer { lock.unlock() }
        return submitted - taken
    }

    /// No more inputs: consumes every result left, in order, and returns once the threads left.
    func finish(_ consume: (Input, Result) -> Void) {
        lock.lock()
        closed = true
        work.broadcast()
        lock.unlock()
        while let results = take(wait: true) { for (input, result) in results { consume(input, result) } }
        join()
    }

    /// Stops early: inputs not claimed are dropped, reads under way end, results are dropped.
    func abandon() {
        lock.lock()
        closed = true
        cancelled = true
        pending = []
        head = 0
        work.broadcast()
        lock.unlock()
        join()
        lock.lock()
        slots = Array(repeating: nil, count: window)
        lock.unlock()
    }

    /// Called with the lock held.
    private func start() {
        started = true
        // Readers go a few frames deep into the container parsers: 256 KiB is plenty and keeps
        // 64 threads' stacks at 16 MiB of address space.
        workers = (0..<threads).map { _ in WorkerThread(name: name, stackSize: 256 * 1024) { [self] in serve() } }
    }

    private func serve() {
        var niced = false
        lock.lock()
        while true {
            while !cancelled && !claimable && !(closed && unclaimed == 0) { work.wait() }
            guard !cancelled, claimable else { break }
            let b = next
            next += 1
            let end = min(pending.count, head + batch)
            let inputs = Array(pending[head..<end])
            head = end
            // The last inputs are claimed: threads waiting for more may leave.
            if closed && head == pending.count { work.broadcast() }
            // Claimed inputs leave the queue: compact it now and then.
            if head >= 4096 && head * 2 >= pending.count {
                pending.removeFirst(head)
                head = 0
            }
            lock.unlock()
            if coldNice > 0 && !niced && ColdCache.met.load(ordering: .relaxed) {
                // This thread only (Linux: the nice value is per thread); once, as an unprivileged
                // process cannot lower it again.
                niced = true
                let which = __priority_which_t(PRIO_PROCESS.rawValue)
                errno = 0
                let current = getpriority(which, 0)
                if errno == 0 { setpriority(which, 0, min(19, current + coldNice)) }
            }
            prefetch?(inputs)
            let results = inputs.map { ($0, read($0)) }
            lock.lock()
            slots[b % window] = results
            if b == consumed { ready.signal() }
        }
        lock.unlock()
    }

    /// The next batch's results in order; nil when none is ready (`wait` false) or none is left.
    private func take(wait: Bool) -> [(Input, Result)]? {
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let results = slots[consumed % window] {
                slots[consumed % window] = nil
                consumed += 1
                taken += results.count
                // A thread held back by the window may go on.
                if claimable { work.signal() }
                return results
            }
            // Every claimed batch was taken and nothing is left to claim (or it was abandoned).
            if !wait || cancelled || closed && unclaimed == 0 && consumed == next { return nil }
            ready.wait()
        }
    }

    /// Waits for the threads to leave (they do once closed and every batch is claimed, or
    /// once cancelled).
    private func join() {
        for worker in lock.withLock({ workers }) { worker.join() }
    }
}
