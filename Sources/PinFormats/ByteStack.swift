/// A growable run of bytes for a reader's hot loop: appends and truncations without the checks
/// of an Array (uniqueness, copy on write), which cost a GPX track a fifth of its reading.
struct ByteStack: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes, valid until the next append.
    var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    subscript(i: Int) -> UInt8 { base[i] }

    mutating func append(_ bytes: UnsafePointer<UInt8>, count n: Int) {
        if count + n > capacity { grow(count + n) }
        (base + count).update(from: bytes, count: n)
        count += n
    }

    mutating func truncate(_ n: Int) {
        if n < count { count = n }
    }

    private mutating func grow(_ need: Int) {
        var c = capacity
        while c < need { c *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = c
    }
}
