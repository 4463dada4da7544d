import CZlib
import Foundation

/// A ZIP archive read through its central directory (APPNOTE.TXT 6.3.x, PKWARE): enough for a
/// KMZ, which Google Earth writes as a plain ZIP with `doc.kml` first, stored or deflated.
///
/// Every offset and length read from the file is checked against the file's size before it is
/// used; entries are inflated as they are read (zlib's raw inflate, RFC 1951), never whole,
/// and an entry may not inflate to more than it declares nor beyond `maxEntryBytes` or
/// `maxRatio` times its compressed size (a zip bomb stops there). Not read: ZIP64, encryption,
/// multi-disk archives, methods other than 0 (stored) and 8 (deflate); each is named when met.
public final class ZipArchive {
    public struct Entry: Sendable, Equatable {
        public let name: String
        public let method: UInt16
        public let flags: UInt16
        public let crc32: UInt32
        let compressedSize: Int
        let uncompressedSize: Int
        let localHeaderOffset: Int
    }

    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let reason: String
        public init(_ reason: String) { self.reason = reason }
        public var description: String { reason }
    }

    /// Limits, each against one abuse: a central directory that claims millions of entries or
    /// megabytes of names (memory before any entry is read); an entry that inflates past what
    /// a place file is (a bomb of nested or highly repetitive deflate streams).
    public static let maxEntries = 10_000
    static let maxCentralDirectoryBytes = 8 << 20
    static let maxEntryBytes = 512 << 20
    /// Deflate reaches about 1032:1 on its best input; a real KML compresses 5–20:1.
    static let maxRatio = 1_100

    public let entries: [Entry]
    /// Where the bytes come from: a file read with pread(2), or bytes in memory (the fuzzer).
    private enum Storage {
        case file(Descriptor)
        case bytes([UInt8])
    }
    private final class Descriptor {
        let fd: Int32
        init(_ fd: Int32) { self.fd = fd }
        deinit { close(fd) }
    }
    private let storage: Storage
    private let size: Int

    public init(path: String) throws {
        // A file that cannot be opened is no archive to judge: `FileUnavailable` goes through.
        let (fd, info) = try FileUnavailable.openRegular(path)
        let descriptor = Descriptor(fd)
        storage = .file(descriptor)
        size = Int(info.st_size)
        entries = try Self.readDirectory(size: size) { offset, count, what in
            try Self.read(fd: fd, size: Int(info.st_size), offset: offset, count: count, what: what)
        }
    }

    public init(bytes: [UInt8]) throws {
        storage = .bytes(bytes)
        size = bytes.count
        entries = try Self.readDirectory(size: bytes.count) { offset, count, what in
            try Self.slice(bytes, offset: offset, count: count, what: what)
        }
    }

    static func slice(_ bytes: [UInt8], offset: Int, count: Int, what: String) throws -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= bytes.count, count <= bytes.count - offset else {
            throw Failure("\(what) at byte \(offset) runs past the end of the file (\(bytes.count) bytes)")
        }
        return Array(bytes[offset..<(offset + count)])
    }

    /// `count` bytes at `offset`, all of them inside the file, or a failure naming what was cut.
    static func read(fd: Int32, size: Int, offset: Int, count: Int, what: String) throws -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else {
            throw Failure("\(what) at byte \(offset) runs past the end of the file (\(size) bytes)")
        }
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, done in
            done = 0
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(offset + done))
                if n < 0, errno == EINTR { continue }
                if n < 0 { failure = errno }
                if n <= 0 { break }
                done += n
            }
        }
        if failure != 0 { throw Failure("cannot read \(what): \(String(cString: strerror(failure)))") }
        guard bytes.count == count else { throw Failure("\(what) at byte \(offset) is cut short") }
        return bytes
    }

    static func u16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
    static func u32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }

    /// APPNOTE 4.3.16: the end of central directory record, 22 bytes and a comment of at most
    /// 65,535, is found by its signature searched backwards from the end.
    static func readDirectory(size: Int, read: (Int, Int, String) throws -> [UInt8]) throws -> [Entry] {
        guard size >= 22 else { throw Failure("not a ZIP archive: \(size) bytes, less than an end record") }
        let tailLength = min(size, 22 + 65_535)
        let tail = try read(size - tailLength, tailLength, "the end record")
        var at = tail.count - 22
        var found: Int?
        while at >= 0 {
            if tail[at] == 0x50, tail[at + 1] == 0x4B, tail[at + 2] == 0x05, tail[at + 3] == 0x06,
               Int(u16(tail, at + 20)) == tail.count - at - 22 {
                found = at
                break
            }
            at -= 1
        }
        guard let end = found else { throw Failure("not a ZIP archive: no end of central directory record") }
        let disk = u16(tail, end + 4), cdDisk = u16(tail, end + 6)
        let count = Int(u16(tail, end + 10))
        let cdSize = Int(u32(tail, end + 12)), cdOffset = Int(u32(tail, end + 16))
        if count == 0xFFFF || cdSize == 0xFFFF_FFFF || cdOffset == 0xFFFF_FFFF {
            throw Failure("a ZIP64 archive, which pins does not read (a KMZ is far smaller)")
        }
        guard disk == 0, cdDisk == 0 else { throw Failure("a multi-disk ZIP archive, which pins does not read") }
        guard count <= maxEntries else { throw Failure("the archive lists \(count) entries, more than \(maxEntries)") }
        guard cdSize <= maxCentralDirectoryBytes else { throw Failure("a central directory of \(cdSize) bytes, more than \(maxCentralDirectoryBytes)") }
        let directory = try read(cdOffset, cdSize, "the central directory")
        var entries: [Entry] = []
        var p = 0
        for index in 0..<count {
            guard p + 46 <= directory.count, u32(directory, p) == 0x0201_4B50 else {
                throw Failure("central directory entry \(index + 1) at byte \(cdOffset + p) is damaged")
            }
            let flags = u16(directory, p + 8), method = u16(directory, p + 10)
            let crc = u32(directory, p + 16)
            let csize = Int(u32(directory, p + 20)), usize = Int(u32(directory, p + 24))
            let nameLength = Int(u16(directory, p + 28)), extraLength = Int(u16(directory, p + 30)),
                commentLength = Int(u16(directory, p + 32))
            let local = Int(u32(directory, p + 42))
            let next = p + 46 + nameLength + extraLength + commentLength
            guard next <= directory.count else {
                throw Failure("central directory entry \(index + 1) at byte \(cdOffset + p) runs past the directory")
            }
            if csize == 0xFFFF_FFFF || usize == 0xFFFF_FFFF || local == 0xFFFF_FFFF {
                throw Failure("a ZIP64 entry, which pins does not read")
            }
            let name = String(decoding: directory[(p + 46)..<(p + 46 + nameLength)], as: UTF8.self)
            entries.append(Entry(name: name, method: method, flags: flags, crc32: crc, compressedSize: csize,
                                 uncompressedSize: usize, localHeaderOffset: local))
            p = next
        }
        return entries
    }

    /// The KML of a KMZ: `doc.kml` at the top if there is one, else the first `.kml` listed
    /// (KML 2.2, OGC 07-147r2, annex C: "the first .kml file").
    public var kmlEntry: Entry? {
        entries.first { $0.name == "doc.kml" } ?? entries.first { $0.name.lowercased().hasSuffix(".kml") && !$0.name.hasSuffix("/") }
    }

    /// The entry's bytes, inflated as they are pulled.
    public func contents(of entry: Entry) throws -> ZipEntrySource {
        guard entry.flags & 1 == 0 else { throw Failure("\(entry.name) is encrypted") }
        guard entry.method == 0 || entry.method == 8 else {
            throw Failure("\(entry.name) is compressed with method \(entry.method); pins reads stored (0) and deflate (8)")
        }
        guard entry.uncompressedSize <= Self.maxEntryBytes else {
            throw Failure("\(entry.name) declares \(entry.uncompressedSize) bytes, more than \(Self.maxEntryBytes)")
        }
        // APPNOTE 4.3.7: the local header repeats the name and has its own extra field.
        let header = try readData(offset: entry.localHeaderOffset, count: 30, what: "the local header of \(entry.name)")
        guard Self.u32(header, 0) == 0x0403_4B50 else { throw Failure("the local header of \(entry.name) at byte \(entry.localHeaderOffset) is damaged") }
        let dataOffset = entry.localHeaderOffset + 30 + Int(Self.u16(header, 26)) + Int(Self.u16(header, 28))
        guard dataOffset <= size, entry.compressedSize <= size - dataOffset else {
            throw Failure("the data of \(entry.name) runs past the end of the file")
        }
        return try ZipEntrySource(archive: self, entry: entry, dataOffset: dataOffset)
    }

    func readData(offset: Int, count: Int, what: String) throws -> [UInt8] {
        switch storage {
        case let .file(descriptor): return try Self.read(fd: descriptor.fd, size: size, offset: offset, count: count, what: what)
        case let .bytes(bytes): return try Self.slice(bytes, offset: offset, count: count, what: what)
        }
    }
}

/// One entry's bytes as a `ByteInput`: stored bytes read as they are, deflated ones inflated
/// 64 KiB at a time; the CRC-32 and the declared size are checked at the end (a damaged entry
/// throws from `read`, after the bytes before the damage).
public final class ZipEntrySource: ByteInput {
    private var pending: [UInt8] = []
    private var pendingAt = 0

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard buffer.count > 0 else { return 0 }
        while pendingAt >= pending.count {
            guard let next = try nextChunk() else { return 0 }
            pending = next
            pendingAt = 0
        }
        let n = min(buffer.count, pending.count - pendingAt)
        pending.withUnsafeBytes { src in
            buffer.baseAddress!.copyMemory(from: src.baseAddress! + pendingAt, byteCount: n)
        }
        pendingAt += n
        return n
    }

    private let archive: ZipArchive
    private let entry: ZipArchive.Entry
    private var nextOffset: Int
    private var compressedLeft: Int
    private var produced = 0
    private var crc: UInt = crc32(0, nil, 0)
    private var stream = z_stream()
    private var streamOpen = false
    private var input: [UInt8] = []
    private var finished = false
    private var streamEnded = false
    static let chunk = 64 * 1024

    init(archive: ZipArchive, entry: ZipArchive.Entry, dataOffset: Int) throws {
        self.archive = archive
        self.entry = entry
        self.nextOffset = dataOffset
        self.compressedLeft = entry.compressedSize
        if entry.method == 8 {
            // Negative window bits: raw deflate, no zlib header (APPNOTE 4.4.5, method 8).
            guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw ZipArchive.Failure("cannot start inflating \(entry.name)")
            }
            streamOpen = true
        }
    }

    deinit { if streamOpen { inflateEnd(&stream) } }

    private func fail(_ why: String) -> ZipArchive.Failure { ZipArchive.Failure("\(entry.name): \(why)") }

    /// The next piece of the entry (never empty), or nil at its end.
    func nextChunk() throws -> [UInt8]? {
        guard !finished else { return nil }
        let out: [UInt8]
        if entry.method == 0 {
            guard compressedLeft > 0 else { return try finish() }
            let n = min(Self.chunk, compressedLeft)
            out = try archive.readData(offset: nextOffset, count: n, what: entry.name)
            nextOffset += n
            compressedLeft -= n
        } else {
            if streamEnded { return try finish() }
            out = try inflateSome()
            if out.isEmpty { return try finish() }
        }
        produced += out.count
        guard produced <= entry.uncompressedSize else { throw fail("inflates to more than the \(entry.uncompressedSize) bytes it declares") }
        out.withUnsafeBufferPointer { crc = crc32(crc, $0.baseAddress, uInt($0.count)) }
        return out
    }

    private func inflateSome() throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.chunk)
        var written = 0
        while written == 0 {
            if stream.avail_in == 0 {
                guard compressedLeft > 0 else {
                    throw fail("the deflate stream is cut short")
                }
                let n = min(Self.chunk, compressedLeft)
                input = try archive.readData(offset: nextOffset, count: n, what: entry.name)
                nextOffset += n
                compressedLeft -= n
            }
            let consumedBefore = input.count - Int(stream.avail_in)
            let status: Int32 = input.withUnsafeMutableBufferPointer { inBuffer in
                out.withUnsafeMutableBufferPointer { outBuffer in
                    if stream.avail_in == 0 {
                        stream.next_in = inBuffer.baseAddress
                        stream.avail_in = uInt(inBuffer.count)
                    } else {
                        stream.next_in = inBuffer.baseAddress! + consumedBefore
                    }
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
            }
            written = Self.chunk - Int(stream.avail_out)
            switch status {
            case Z_STREAM_END:
                streamEnded = true
                if written == 0 { return [] }
            case Z_OK:
                break
            case Z_BUF_ERROR where written > 0 || stream.avail_in > 0 || compressedLeft > 0:
                break
            default:
                throw fail("the deflate data is damaged (zlib \(status))")
            }
            let total = produced + written
            let ratioLimit = max(1 << 20, entry.compressedSize.multipliedReportingOverflow(by: ZipArchive.maxRatio).partialValue)
            guard total <= ratioLimit else { throw fail("inflates more than \(ZipArchive.maxRatio) times its compressed size (a zip bomb?)") }
        }
        out.removeSubrange(written...)
        return out
    }

    private func finish() throws -> [UInt8]? {
        finished = true
        guard produced == entry.uncompressedSize else {
            throw fail("inflates to \(produced) bytes, but declares \(entry.uncompressedSize)")
        }
        guard UInt32(truncatingIfNeeded: crc) == entry.crc32 else { throw fail("its CRC-32 does not match: the data is damaged") }
        return nil
    }
}
