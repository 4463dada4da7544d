/// One ISO base media file format box header (ISO/IEC 14496-12 §4.2; docs/formats.md 3.1),
/// the structure shared by HEIF/AVIF, Canon CR3, QuickTime/MP4 and the JPEG XL container.
/// Offsets are absolute. Every container walks boxes with `ISOBoxWalker`, which parses each
/// header here; what to read and what a bad size costs stay the container's.
struct ISOBox: Sendable, Hashable {
    /// The four-character type as a big-endian integer (`©xyz` is 0xA978797A).
    var type: UInt32
    /// Offset of the size field.
    var start: Int
    /// 8, 16 with a 64-bit size, plus 16 for a `uuid` box's user type.
    var headerSize: Int
    /// Offset one past the box.
    var end: Int

    var payloadStart: Int { start + headerSize }
    var payloadCount: Int { end - payloadStart }
    var size: Int { end - start }
    /// The type as text (`©` for 0xA9, `\xNN` for other bytes outside printable ASCII).
    var name: String { ISOBox.name(type) }

    /// A four-character code as a big-endian integer.
    static func code(_ text: String) -> UInt32 {
        text.unicodeScalars.reduce(0) { $0 << 8 | UInt32($1.value & 0xFF) }
    }

    static let uuid = code("uuid")

    /// Why a header does not fit.
    enum Problem: Error, Equatable {
        /// The size (in bytes) is smaller than the header it needs.
        case tooSmall(size: Int, header: Int)
        /// The box ends past its parent (or the file); the box as read.
        case pastParent(ISOBox)
        /// Fewer bytes than a header before the parent's end (or in the reader).
        case truncatedHeader
    }

    /// Parses the header at `at` from `r` (which must hold the header's bytes). Size 0 means
    /// "to `parentEnd`" (callers that treat a nested size 0 as a terminator check first);
    /// size 1 a 64-bit size. A `uuid` box too small for its 16-byte user type is `tooSmall`,
    /// or with `lenientUUID` a plain 8-byte-header box (a renamed 20-byte `ftyp`, which
    /// ExifTool reads past).
    static func header(_ r: ByteReader, at: Int, parentEnd: Int, lenientUUID: Bool = false) throws(Problem) -> ISOBox {
        guard parentEnd - at >= 8, (try? r.check(at, 8)) != nil,
              let size32 = try? r.u32(at: at, .bigEndian), let type = try? r.u32(at: at + 4, .bigEndian) else {
            throw .truncatedHeader
        }
        var headerSize = 8
        let size: Int
        switch size32 {
        case 0:
            size = parentEnd - at
        case 1:
            guard parentEnd - at >= 16, let large = try? r.u64(at: at + 8, .bigEndian) else { throw .truncatedHeader }
            headerSize = 16
            guard large >= 16 else { throw .tooSmall(size: Int(large), header: 16) }
            guard large <= UInt64(Int.max - at) else {
                throw .pastParent(ISOBox(type: type, start: at, headerSize: 16, end: Int.max))
            }
            size = Int(large)
        default:
            guard size32 >= 8 else { throw .tooSmall(size: Int(size32), header: 8) }
            size = Int(size32)
        }
        if type == uuid {
            if size >= headerSize + 16 {
                headerSize += 16
            } else if !lenientUUID {
                throw .tooSmall(size: size, header: headerSize + 16)
            }
        }
        let box = ISOBox(type: type, start: at, headerSize: headerSize, end: at + size)
        guard box.end <= parentEnd else { throw .pastParent(box) }
        return box
    }

    static func name(_ type: UInt32) -> String {
        var out = ""
        for shift in stride(from: 24, through: 0, by: -8) {
            let byte = UInt8(truncatingIfNeeded: type >> UInt32(shift))
            if byte == 0xA9 {
                out += "©"
            } else if (0x20..<0x7F).contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "\\x" + JPEG.hex(byte).dropFirst(2)
            }
        }
        return out
    }
}

/// The one box walker of HEIF/AVIF, Canon CR3, QuickTime/MP4 and JPEG XL: the children of one
/// byte range (a file's top level, or a box's payload), one header at a time, each parsed by
/// `ISOBox.header` and checked against the range.
///
/// What it finds is the same for every container; what a problem costs is each container's
/// policy (HEIF throws, QuickTime keeps what it read before a bad box inside `moov`), so a
/// problem is returned as a `Problem`, worded by the caller. The walk always advances: every
/// box it returns is at least 8 bytes long, and after a problem it returns nil.
///
/// - size 0: "to the end of the range" at the top level; "no more boxes" inside a box
///   (`sizeZeroEnds`), as Canon writes it and QuickTime allows in `udta` (a 32-bit zero is
///   enough: it is read as soon as 4 bytes are left);
/// - size 1: a 64-bit size follows;
/// - fewer than 8 bytes left: `strayBytes` (the caller decides whether zero padding is fine);
/// - a box past the end of the range, or a size smaller than its header: `badHeader`;
/// - more than `limit` boxes (counted in `visited`, which a caller may share between walks):
///   `tooManyBoxes`.
struct ISOBoxWalker {
    /// Offset of the next header.
    private(set) var position: Int
    /// End of the range walked (the parent's end, or the file's size).
    let end: Int
    /// Whether size 0 ends the walk (inside a box) or means "to `end`" (top level).
    let sizeZeroEnds: Bool
    /// A `uuid` box too small for its user type read as a plain box (`ISOBox.header`).
    let lenientUUID: Bool
    /// Most boxes walked (a `MetadataLimits` value).
    let limit: Int
    /// Boxes walked so far (by `next()` without a shared counter).
    private(set) var visited = 0
    private var done = false

    init(from: Int, to end: Int, sizeZeroEnds: Bool, lenientUUID: Bool = false, limit: Int) {
        self.position = from
        self.end = end
        self.sizeZeroEnds = sizeZeroEnds
        self.lenientUUID = lenientUUID
        self.limit = limit
    }

    /// Why a walk stopped before the end of its range.
    enum Problem: Error, Equatable {
        /// More than `limit` boxes.
        case tooManyBoxes(limit: Int)
        /// `count` bytes (fewer than a header) left at `at`; `allZero` when they are padding.
        case strayBytes(at: Int, count: Int, allZero: Bool)
        /// The header at `at` does not fit; `type` when its bytes were there.
        case badHeader(at: Int, type: UInt32?, ISOBox.Problem)
    }

    /// One step of a walk: a box (with the bytes its header was read from, at least up to the
    /// end of its header) or the problem that ends the walk.
    enum Step {
        case box(ISOBox, head: ByteReader)
        case stop(Problem)
    }

    /// The next box of a range whose bytes are all in `r`; nil at the end.
    mutating func next(in r: ByteReader) -> Step? {
        var count = visited
        defer { visited = count }
        return next(in: r, counting: &count)
    }

    /// As `next(in:)`, counting boxes in `counter` (a budget shared by several walks).
    mutating func next(in r: ByteReader, counting counter: inout Int) -> Step? {
        guard !done, position < end else { return nil }
        counter += 1
        guard counter <= limit else { return stop(.tooManyBoxes(limit: limit)) }
        let left = end - position
        if sizeZeroEnds, left >= 4, (try? r.u32(at: position, .bigEndian)) == 0 {
            done = true
            return nil
        }
        if left < 8 {
            let bytes = (try? r.bytes(at: position, count: left)) ?? []
            return stop(.strayBytes(at: position, count: left, allZero: bytes.allSatisfy { $0 == 0 }))
        }
        do {
            let box = try ISOBox.header(r, at: position, parentEnd: end, lenientUUID: lenientUUID)
            position = box.end
            return .box(box, head: r)
        } catch {
            return stop(.badHeader(at: position, type: try? r.u32(at: position + 4, .bigEndian), error))
        }
    }

    /// The next box of a range of `source`, reading only its header (at most 32 bytes); nil at
    /// the end. Throws only when the source cannot be read.
    mutating func next<S: ByteSource>(in source: inout S, context: String) throws -> Step? {
        var count = visited
        defer { visited = count }
        return try next(in: &source, context: context, counting: &count)
    }

    /// As `next(in:context:)`, counting boxes in `counter`.
    mutating func next<S: ByteSource>(in source: inout S, context: String, counting counter: inout Int) throws -> Step? {
        guard !done, position < end else { return nil }
        let head = try source.reader(at: position, count: min(end - position, 32), context: context)
        return next(in: head, counting: &counter)
    }

    private mutating func stop(_ problem: Problem) -> Step {
        done = true
        return .stop(problem)
    }

    /// The next top-level box of a file whose boxes must all be whole (JPEG XL, JPEG 2000),
    /// reading only its header; nil at the end. Any problem is the file's error: too many boxes,
    /// a cut or impossible header, a box past the end of the file.
    mutating func nextWholeBox<S: ByteSource>(in source: inout S, container: String) throws -> ISOBox? {
        guard let step = try next(in: &source, context: container) else { return nil }
        switch step {
        case .box(let box, _):
            return box
        case .stop(.tooManyBoxes(let limit)):
            throw MetadataError.limitExceeded(container: container, what: "top-level boxes", limit: limit)
        case .stop(.strayBytes), .stop(.badHeader(_, _, .truncatedHeader)):
            throw MetadataError.endOfFile(container: container, offset: end, expected: "a box header")
        case .stop(.badHeader(let at, _, .tooSmall(let n, let header))):
            throw MetadataError.malformed(container: container, offset: at,
                                          reason: "box size \(n) is smaller than its \(header)-byte header")
        case .stop(.badHeader(let at, _, .pastParent(let b))):
            throw MetadataError.truncated(container: container, what: "'\(b.name)' box at byte \(at)",
                                          endsAt: b.end, fileSize: end)
        }
    }
}
