#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A source of bytes read front to back, a chunk at a time: a file, a buffer in memory, or a
/// decompressed entry of an archive. The readers of this module (XML, JSON, lines) hold only a
/// window of it, so a 1 GB file is read in bounded memory.
public protocol ByteInput: AnyObject {
    /// Copies up to `buffer.count` next bytes into `buffer`; returns how many (0 at the end).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// Why bytes could not be read as the format says. `description` is one line for a person; the
/// caller adds the file's path.
public struct FormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// "XML", "JSON", "GPX", "NMEA", ...
    public var format: String
    /// Byte offset in the input where the problem was found, when known.
    public var offset: Int64?
    public var reason: String

    public init(format: String, offset: Int64? = nil, reason: String) {
        self.format = format
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        if let offset { return "malformed \(format) at byte \(offset): \(reason)" }
        return "malformed \(format): \(reason)"
    }
}

/// A file that could not be opened or read as a file: open(2), fstat(2) or read(2) failed
/// (no permission, no descriptor left, an I/O error), or the path names no regular file (a
/// FIFO, a socket, a device, a folder). Nothing of its content was judged, so a caller records
/// no decision about it (issue 40: a track that could not be opened was recorded as read with
/// 0 points, then never read again) and names it.
public struct FileUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
    /// "cannot open: Permission denied", "read failed: Input/output error", "not a regular
    /// file (a FIFO)".
    public var reason: String
    /// The errno of the failed call; 0 for a path that names no regular file.
    public var code: Int32

    public init(reason: String, code: Int32) {
        self.reason = reason
        self.code = code
    }

    public var description: String { reason }

    /// What a file of mode `mode` that is not a regular file is, for a person.
    public static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        default: return "not a plain file"
        }
    }

    /// Opens `path` read-only, only if it is a regular file, and returns the descriptor with its
    /// fstat(2). O_NONBLOCK: a FIFO (or a device) is never opened blocking, where it would
    /// hang the run until a writer comes (issue 40, item 8); it does nothing to a regular file.
    static func openRegular(_ path: String) throws -> (fd: Int32, status: stat) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            throw FileUnavailable(reason: "cannot open: \(String(cString: strerror(code)))", code: code)
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let code = errno
            close(fd)
            throw FileUnavailable(reason: "cannot open: \(String(cString: strerror(code)))", code: code)
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw FileUnavailable(reason: "not a regular file (\(kind(st.st_mode)))", code: 0)
        }
        return (fd, st)
    }
}

/// A file read with read(2) from its descriptor, front to back.
public final class FileInput: ByteInput {
    private let fd: Int32
    private let ownsDescriptor: Bool

    /// Opens `path` read-only (`FileUnavailable.openRegular`: a regular file only); throws
    /// `FileUnavailable` when it cannot.
    public init(path: String) throws {
        self.fd = try FileUnavailable.openRegular(path).fd
        self.ownsDescriptor = true
    }

    /// Reads from a descriptor the caller keeps open.
    public init(descriptor: Int32) {
        self.fd = descriptor
        self.ownsDescriptor = false
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let n = Glibc.read(fd, base, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            let code = errno
            throw FileUnavailable(reason: "read failed: \(String(cString: strerror(code)))", code: code)
        }
    }
}

/// Bytes already in memory (tests, fuzzing, a line of a log, a small archive entry).
public final class MemoryInput: ByteInput {
    private let bytes: [UInt8]
    private var position = 0
    /// At most this many bytes per `read`, so tests can exercise every chunk boundary.
    private let chunk: Int

    public init(_ bytes: [UInt8], chunk: Int = .max) {
        self.bytes = bytes
        self.chunk = max(1, chunk)
    }

    public convenience init(_ text: String, chunk: Int = .max) {
        self.init(Array(text.utf8), chunk: chunk)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, bytes.count - position, chunk)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { src in
            buffer.baseAddress!.copyMemory(from: src.baseAddress! + position, byteCount: n)
        }
        position += n
        return n
    }
}

/// The size of every reader's read window, for tests and the fuzzer only (issue 40: the fuzz
/// runs reached ~2 KB inputs, so with the default windows of 64 KiB to 1 MiB no refill ever
/// fell inside a token). Bound with `ReadWindow.$bytes.withValue(n) { ... }`, every
/// `InputWindow` (JSON, XML, lines) starts at `n` bytes (at least 1) and the CSV reader reads
/// `n` bytes at a time, so a refill falls inside every number, string, name and line; the
/// result must be the same as with the default window. Unbound (nil) in real use.
enum ReadWindow {
    @TaskLocal static var bytes: Int?
}

/// The window both pull readers keep over their input: bytes `[0, end)` of `base` are valid,
/// the first of them at input offset `baseOffset`. `refill(keeping:)` moves the bytes still
/// needed to the front and reads more after them; the window grows (up to `limit`) only when
/// one token is longer than it.
final class InputWindow {
    let input: ByteInput
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    var end = 0
    var baseOffset: Int64 = 0
    private(set) var atEnd = false
    let limit: Int
    let format: String

    init(input: ByteInput, initialCapacity: Int, limit: Int, format: String) {
        self.input = input
        if let forced = ReadWindow.bytes {
            self.capacity = max(1, forced)
        } else {
            self.capacity = max(16, initialCapacity)
        }
        self.base = .allocate(capacity: capacity)
        self.limit = max(limit, capacity)
        self.format = format
    }

    deinit { base.deallocate() }

    /// Drops the bytes before `keep` and reads more after the rest. Returns how far the kept
    /// bytes moved down (the caller subtracts `shift` from every index it holds) and whether
    /// new bytes came (false at the end of the input).
    func refill(keeping keep: Int) throws -> (shift: Int, more: Bool) {
        if atEnd { return (0, false) }
        if keep > 0 {
            let kept = end - keep
            if kept > 0 { memmove(base, base + keep, kept) }
            baseOffset += Int64(keep)
            end = kept
        }
        if end == capacity {
            guard capacity < limit else {
                throw FormatError(format: format, offset: baseOffset,
                                  reason: "one token is longer than \(limit / (1024 * 1024)) MiB")
            }
            let grown = min(limit, capacity * 2)
            let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            fresh.update(from: base, count: end)
            base.deallocate()
            base = fresh
            capacity = grown
        }
        let n = try input.read(into: UnsafeMutableRawBufferPointer(start: base + end, count: capacity - end))
        if n == 0 {
            atEnd = true
            return (keep, false)
        }
        end += n
        return (keep, true)
    }
}
