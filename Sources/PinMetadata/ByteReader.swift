/// Bounds-checked reading of untrusted bytes: a length or offset read from a file is checked
/// before it is used, and reading past the end throws instead of trapping.
///
/// Every container parser reads through a `ByteReader`. Offsets in its API are *absolute*: the
/// position in the input file (or buffer) of the byte, even when the reader holds only a window
/// of the file; that is what error messages print, so a report can say "at byte 5123".
/// A reader may be limited to a range (a segment, a box, a chunk): reading outside it throws
/// `MetadataError.outOfBounds` naming the offset, never traps.

/// Byte order of multi-byte integers.
enum ByteOrder: String, Sendable, Hashable {
    case bigEndian
    case littleEndian
}

/// Resource limits for untrusted input. Each stops one way a crafted or broken file could make a
/// reader loop, allocate or read without bound; all are far above what real cameras write.
///
/// The one convention: every limit is a named `static let` of `MetadataLimits`, declared in an
/// extension next to the reader that uses it, with a comment saying what abuse it stops; a
/// reader that reaches one throws `MetadataError.limitExceeded` (or, where the rest of the file
/// is still worth reading, skips with a warning that names the limit).
enum MetadataLimits {
    /// Size of the first read of a file: enough for the signature and the first segments or
    /// boxes. The rest is read by exact ranges: a JPEG's Exif APP1 (phones write 10-30 KiB with
    /// the thumbnail) comes with one more read of exactly its bytes, so a file costs what its
    /// metadata weighs. A 64 KiB window was a sixth of a 20,000-photo import, 16 KiB still a
    /// third of its system time (perf). Stops reading whole multi-megabyte images for a header.
    static let firstReadSize = 4 * 1024
    /// Smallest later read when a needed byte lies outside what is already in memory: a little
    /// read-ahead so that a run of small segments does not become one system call each.
    static let laterReadSize = 4 * 1024
    /// Most JPEG marker segments walked before SOS. Stops a file made of millions of 4-byte
    /// segments from keeping a reader busy (cameras write fewer than 20).
    static let maxJPEGSegments = 1_024
    /// Longest run of 0xFF fill bytes accepted before a marker code. Stops a file of all-FF
    /// bytes from being scanned to its end.
    static let maxJPEGFillBytes = 4_096
    /// Most junk bytes skipped between two JPEG segments while rescanning for the next marker
    /// (ExifTool rescans too; writers that leave junk leave a few bytes). Stops a file that is
    /// garbage after its first segment from being scanned byte by byte up to the header limit.
    static let maxJPEGJunkBytes = 64 * 1024
    /// Furthest file offset at which the JPEG walker still looks for the Exif APP1. Stops a
    /// chain of maximal segments from walking (and reading headers from) a huge file; real
    /// headers (Exif, XMP, ICC, Photoshop IRB, MPF) end within a few hundred KiB.
    static let maxJPEGHeaderBytes = 16 * 1024 * 1024
    /// Most warnings kept per file. Stops a corrupt Exif block with thousands of bad entries
    /// from producing thousands of libexif log messages in a report.
    static let maxWarnings = 32
    /// Longest libexif log message kept (bytes). Stops one formatted message from growing a
    /// report line without bound.
    static let maxWarningLength = 256
}

struct ByteReader: Sendable {
    /// The bytes held (a window of the input starting at absolute offset `baseOffset`).
    let storage: [UInt8]
    /// Absolute offset of `storage[0]`.
    let baseOffset: Int
    /// Absolute range this reader may touch.
    let range: Range<Int>
    /// Absolute offset of the next sequential read.
    private(set) var offset: Int
    /// What is being read ("JPEG", "TIFF", ...), for messages.
    let context: String

    /// A reader over all of `bytes`, whose first byte sits at absolute offset `baseOffset`.
    init(_ bytes: [UInt8], baseOffset: Int = 0, context: String) {
        self.storage = bytes
        self.baseOffset = baseOffset
        // A window of an array always fits in Int; baseOffset comes from file offsets ≥ 0.
        self.range = baseOffset..<(baseOffset + bytes.count)
        self.offset = baseOffset
        self.context = context
    }

    private init(storage: [UInt8], baseOffset: Int, range: Range<Int>, context: String) {
        self.storage = storage
        self.baseOffset = baseOffset
        self.range = range
        self.offset = range.lowerBound
        self.context = context
    }

    /// Absolute offset one past the last readable byte.
    var endOffset: Int { range.upperBound }
    /// Number of bytes in the window.
    var count: Int { range.count }
    /// Bytes left after `offset`.
    var remaining: Int { range.upperBound - offset }
    var isAtEnd: Bool { offset >= range.upperBound }

    // MARK: Checked arithmetic

    /// `a + b`, throwing instead of trapping when the sum overflows (offsets come from the file).
    func add(_ a: Int, _ b: Int) throws -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        if overflow {
            throw MetadataError.malformed(container: context, offset: a, reason: "offset \(a) + \(b) overflows")
        }
        return sum
    }

    /// Throws unless `count` bytes starting at absolute `at` lie inside the window.
    @inline(__always)
    func check(_ at: Int, _ count: Int) throws {
        guard count >= 0, at >= range.lowerBound else {
            throw MetadataError.outOfBounds(container: context, offset: at, count: count, end: range.upperBound)
        }
        let end = try add(at, count)
        guard end <= range.upperBound else {
            throw MetadataError.outOfBounds(container: context, offset: at, count: count, end: range.upperBound)
        }
    }

    // MARK: Random access (does not move `offset`)

    func u8(at: Int) throws -> UInt8 {
        try check(at, 1)
        return storage[at - baseOffset]
    }

    func u16(at: Int, _ order: ByteOrder) throws -> UInt16 {
        UInt16(truncatingIfNeeded: try integer(at: at, size: 2, order))
    }

    func u32(at: Int, _ order: ByteOrder) throws -> UInt32 {
        UInt32(truncatingIfNeeded: try integer(at: at, size: 4, order))
    }

    func u64(at: Int, _ order: ByteOrder) throws -> UInt64 {
        try integer(at: at, size: 8, order)
    }

    /// A copy of `count` bytes at `at`.
    func bytes(at: Int, count: Int) throws -> [UInt8] {
        try check(at, count)
        let start = at - baseOffset
        return Array(storage[start..<(start + count)])
    }

    /// True when the window holds `prefix` at `at` (false, not an error, when it is too short).
    func matches(_ prefix: [UInt8], at: Int) -> Bool {
        guard (try? check(at, prefix.count)) != nil else { return false }
        let start = at - baseOffset
        return storage[start..<(start + prefix.count)].elementsEqual(prefix)
    }

    /// A reader limited to `count` bytes at absolute `at` (a segment, a box); shares storage.
    func child(at: Int, count: Int, context: String? = nil) throws -> ByteReader {
        try check(at, count)
        return ByteReader(storage: storage, baseOffset: baseOffset, range: at..<(at + count),
                          context: context ?? self.context)
    }

    /// Calls `body` with the window's bytes (no copy).
    func withUnsafeBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let start = range.lowerBound - baseOffset
        return try storage.withUnsafeBytes { raw in
            try body(UnsafeRawBufferPointer(rebasing: raw[start..<(start + range.count)]))
        }
    }

    /// The whole window as an array (a copy unless the window is the whole storage).
    var allBytes: [UInt8] {
        if range.lowerBound == baseOffset && range.count == storage.count { return storage }
        let start = range.lowerBound - baseOffset
        return Array(storage[start..<(start + range.count)])
    }

    // MARK: Sequential reads (advance `offset`)

    mutating func seek(to absolute: Int) throws {
        try check(absolute, 0)
        offset = absolute
    }

    mutating func skip(_ count: Int) throws {
        try check(offset, count)
        offset += count
    }

    mutating func readU8() throws -> UInt8 {
        let value = try u8(at: offset)
        offset += 1
        return value
    }

    mutating func readU16(_ order: ByteOrder) throws -> UInt16 {
        let value = try u16(at: offset, order)
        offset += 2
        return value
    }

    mutating func readU32(_ order: ByteOrder) throws -> UInt32 {
        let value = try u32(at: offset, order)
        offset += 4
        return value
    }

    mutating func readU64(_ order: ByteOrder) throws -> UInt64 {
        let value = try u64(at: offset, order)
        offset += 8
        return value
    }

    mutating func readBytes(_ count: Int) throws -> [UInt8] {
        let value = try bytes(at: offset, count: count)
        offset += count
        return value
    }

    // MARK: Private

    private func integer(at: Int, size: Int, _ order: ByteOrder) throws -> UInt64 {
        try check(at, size)
        let start = at - baseOffset
        var value: UInt64 = 0
        switch order {
        case .bigEndian:
            for i in 0..<size { value = value << 8 | UInt64(storage[start + i]) }
        case .littleEndian:
            for i in (0..<size).reversed() { value = value << 8 | UInt64(storage[start + i]) }
        }
        return value
    }
}
