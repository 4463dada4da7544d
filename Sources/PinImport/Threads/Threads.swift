import Foundation

// The import's threads are started one way (`WorkerThread`) and wait on one primitive (a
// pthread mutex with its conditions: `ThreadLock`, `ThreadCondition`); their hand-overs are a
// `BoundedQueue` (first in, first out) or a `ReadFeed` (results in the order given). Which
// threads exist and what each may touch: Sources/PinImport/THREADS.md.

/// A pthread mutex. Its conditions (`ThreadCondition`) wait on it.
final class ThreadLock: @unchecked Sendable {
    fileprivate let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always) func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always) func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// A pthread condition on a `ThreadLock`: `wait` with the lock held.
final class ThreadCondition: @unchecked Sendable {
    private let lock: ThreadLock
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init(_ lock: ThreadLock) {
        self.lock = lock
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    @inline(__always) func wait() { pthread_cond_wait(condition, lock.mutex) }
    @inline(__always) func signal() { pthread_cond_signal(condition) }
    @inline(__always) func broadcast() { pthread_cond_broadcast(condition) }
}

/// A first-in first-out hand-over between threads that holds at most `capacity` elements:
/// `put` waits while it is full, `take` while it is empty. The producer `close`s it when done
/// (`take` gives what is left, then nil); the consumer `abandon`s it when it gives up (what
/// waits is dropped, `put` returns false, `take` nil), which also wakes a producer waiting for
/// room.
final class BoundedQueue<Element>: @unchecked Sendable {
    let capacity: Int
    // Everything below is guarded by `lock`.
    private let lock = ThreadLock()
    private let notFull: ThreadCondition
    private let notEmpty: ThreadCondition
    /// A ring of `capacity` places: `count` elements from `head` on.
    private var ring: [Element?]
    private var head = 0, count = 0
    private var closed = false, abandoned = false

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        ring = Array(repeating: nil, count: capacity)
        notFull = ThreadCondition(lock)
        notEmpty = ThreadCondition(lock)
    }

    /// Adds `element` at the end, waiting for room; false (and not added) once abandoned.
    func put(_ element: Element) -> Bool {
        lock.withLock {
            while count == capacity && !abandoned { notFull.wait() }
            guard !abandoned else { return false }
            precondition(!closed, "put on a closed queue")
            ring[(head + count) % capacity] = element
            count += 1
            notEmpty.signal()
            return true
        }
    }

    /// The first element, waiting for one; nil once closed and empty, or abandoned.
    func take() -> Element? {
        lock.withLock {
            while count == 0 && !closed && !abandoned { notEmpty.wait() }
            guard count > 0 && !abandoned else { return nil }
            let element = ring[head].take()
            head = (head + 1) % capacity
            count -= 1
            notFull.signal()
            return element
        }
    }

    /// No more elements (from the producer): `take` gives those left, then nil.
    func close() {
        lock.withLock {
            closed = true
            notEmpty.broadcast()
        }
    }

    /// The consumer gave up: what waits is dropped, `put` returns false and `take` nil.
    func abandon() {
        lock.withLock {
            abandoned = true
            ring = Array(repeating: nil, count: capacity)
            count = 0
            notFull.broadcast()
            notEmpty.broadcast()
        }
    }
}

/// What a new thread runs: `WorkerThread`'s body, behind a class that is not generic (a C
/// thread entry cannot name a generic type).
class ThreadEntry: @unchecked Sendable {
    fileprivate func main() {}
}

/// A thread of its own for blocking or long work, started by `init` and joined by the thread
/// that started it (`join`: waits for the thread to end, and gives what its body returned; a
/// second `join` gives the same). A handle dropped without a join detaches its thread.
final class WorkerThread<Result: Sendable>: ThreadEntry, @unchecked Sendable {
    // `body` runs on the new thread and leaves its result in `result`, which the starting
    // thread reads only after `pthread_join` (the join orders the two); then it is let go
    // (what it holds may hold this handle). `thread` and `joined` belong to the starting thread.
    private var body: (@Sendable () -> Result)?
    private var result: Result?
    private var thread = pthread_t()
    private var joined = false

    /// Starts `body` on a new thread with a stack of `stackSize` bytes (nil: the system's
    /// default, RLIMIT_STACK on Linux); `name` says which thread could not be started.
    init(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Result) {
        self.body = body
        super.init()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        // The new thread holds this handle until its body returned.
        let context = Unmanaged<ThreadEntry>.passRetained(self).toOpaque()
        let failed = pthread_create(&thread, &attributes, { context in
            Unmanaged<ThreadEntry>.fromOpaque(context!).takeRetainedValue().main()
            return nil
        }, context)
        guard failed == 0 else { fatalError("cannot start the thread \(name): \(String(cString: strerror(failed)))") }
    }

    deinit {
        if !joined { pthread_detach(thread) }
    }

    override fileprivate func main() {
        result = body!()
        body = nil
    }

    /// Waits for the thread to end; what its body returned.
    @discardableResult
    func join() -> Result {
        if !joined {
            pthread_join(thread, nil)
            joined = true
        }
        return result!
    }
}
