import Glibc
import PinCore

/// Random access to one input's bytes, read on demand, so that a container reader touches only
/// the ranges it needs (a JPEG reader never reads the scan data).
protocol ByteSource {
    /// Total size of the input in bytes.
    var size: Int { get }
    /// A reader over exactly `count` bytes at absolute `offset`. Callers compare ranges with
    /// `size` first to word a precise "truncated" message; a range outside the input throws.
    mutating func reader(at offset: Int, count: Int, context: String) throws -> ByteReader
}

extension ByteSource {
    mutating func byte(at offset: Int, context: String) throws -> UInt8 {
        try reader(at: offset, count: 1, context: context).u8(at: offset)
    }
}

/// Bytes already in memory.
struct MemorySource: ByteSource {
    let all: ByteReader
    var size: Int { all.count }

    init(_ bytes: [UInt8]) { all = ByteReader(bytes, context: "file") }

    func reader(at offset: Int, count: Int, context: String) throws -> ByteReader {
        try all.child(at: offset, count: count, context: context)
    }
}

/// An open file read with pread(2): one window of bytes is kept; a request outside it reads a
/// new window (at least `MetadataLimits.laterReadSize` bytes). Owns no descriptor: the caller
/// opens and closes it.
struct FileSource: ByteSource {
    let fd: Int32
    let size: Int
    private var window: ByteReader
    /// Total bytes read from the file so far (tests check that readers stay small).
    private(set) var bytesRead = 0
    /// Set when a read failed because the file or its file system went away (`FileLost`):
    /// a reader that turns a failed read into a warning still cannot make a decision of it
    /// (`MetadataReader` throws this after the reader returns).
    private(set) var lost: FileLost?

    /// Reads the first `MetadataLimits.firstReadSize` bytes (or the whole file when smaller).
    init(fd: Int32, size: Int) throws {
        self.fd = fd
        self.size = size
        self.window = ByteReader([], context: "file")
        self.window = try load(at: 0, count: min(MetadataLimits.firstReadSize, size))
    }

    mutating func reader(at offset: Int, count: Int, context: String) throws -> ByteReader {
        if offset >= window.range.lowerBound, count >= 0,
           offset <= window.endOffset, count <= window.endOffset - offset {
            return try window.child(at: offset, count: count, context: context)
        }
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else {
            throw MetadataError.outOfBounds(container: context, offset: offset, count: count, end: size)
        }
        let wanted = min(max(count, MetadataLimits.laterReadSize), size - offset)
        window = try load(at: offset, count: wanted)
        return try window.child(at: offset, count: count, context: context)
    }

    /// pread(2) until `count` bytes or end of file; retries EINTR.
    private mutating func load(at offset: Int, count: Int) throws -> ByteReader {
        // Uninitialised: pread fills every byte or the read fails (no zeroing first).
        var failure: MetadataError?
        var failedCode: Int32 = 0
        let buffer = [UInt8](unsafeUninitializedCapacity: count) { raw, initialized in
            var done = 0
            while done < count {
                let n = pread(fd, raw.baseAddress! + done, count - done, off_t(offset + done))
                if n < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    failure = MetadataError.readFailed(offset: offset + done, reason: systemError(code))
                    failedCode = code
                    break
                }
                if n == 0 {
                    failure = MetadataError.readFailed(offset: offset + done,
                                                       reason: "file shrank while being read (expected \(size) bytes)")
                    break
                }
                done += n
            }
            // Bytes past a failure are never read: keep only what was filled.
            initialized = done
        }
        if let failure {
            if FileLost.isLost(failedCode) {
                lost = FileLost(failure, code: failedCode)
                throw lost!
            }
            throw failure
        }
        bytesRead += count
        return ByteReader(buffer, baseOffset: offset, context: "file")
    }
}

/// strerror(3) text ("Permission denied").
func systemError(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// What fstat(2) says of a file a reader opened, for a caller that did not stat it before (the
/// import's walk leaves the files the database does not know to the readers' own fstat).
public struct FileStatus: Sendable, Equatable {
    public var size: Int64
    public var modificationNanoseconds: Int64
    public var inode: UInt64
    public var device: UInt64

    public init(size: Int64, modificationNanoseconds: Int64, inode: UInt64, device: UInt64) {
        self.size = size
        self.modificationNanoseconds = modificationNanoseconds
        self.inode = inode
        self.device = device
    }

    public init(_ st: stat) {
        self.init(size: Int64(st.st_size), modificationNanoseconds: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                  inode: UInt64(st.st_ino), device: UInt64(st.st_dev))
    }

    /// lstat(2) of `path`; nil when it fails.
    public static func of(_ path: RawPath) -> FileStatus? {
        var st = stat()
        return path.withCString { lstat($0, &st) } == 0 ? FileStatus(st) : nil
    }
}

/// An open, read-only descriptor for `path`, closed by `body`'s end whatever happens.
func withOpenFile<T>(_ path: RawPath, _ body: (Int32, Int) throws -> T) throws -> T {
    var status: FileStatus?
    return try withOpenFile(path, status: &status) { fd, status in try body(fd, Int(status.size)) }
}

/// The same, the body given what the descriptor's fstat(2) said; `status` is set to it as
/// soon as it succeeds (before the body runs, whatever it then throws).
func withOpenFile<T>(_ path: RawPath, status: inout FileStatus?, _ body: (Int32, FileStatus) throws -> T) throws -> T {
    // A failure to open or fstat says nothing of the file's bytes: never a decision (`FileLost`).
    let fd = FolderCache.open(path)
    guard fd >= 0 else {
        let code = errno
        throw FileLost(.cannotOpen(reason: systemError(code)), code: code)
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
        let code = errno
        throw FileLost(.cannotOpen(reason: systemError(code)), code: code)
    }
    let found = FileStatus(info)
    status = found
    guard (info.st_mode & S_IFMT) == S_IFREG else {
        throw MetadataError.cannotOpen(reason: "not a regular file")
    }
    return try body(fd, found)
}

/// Per thread, the folder of the last file opened, held open (O_PATH), so that the next file of
/// the same folder is opened relative to it: the kernel then looks up one name instead of every
/// component of the absolute path (the import reads files folder by folder, and its opens were
/// about 9 % of a warm run's CPU, mostly path walking). Released when the thread ends.
/// One difference with opening the absolute path: a folder renamed (or replaced) while its
/// files are being read is still the held one, so the files the walk listed in it are read
/// there rather than not found; a file removed, or a folder removed, fails as before.
///
/// It also holds the files `prefetch` opened ahead, until they are read: `open` of one of
/// them hands its descriptor over instead of opening it again.
final class FolderCache {
    private var folder: [UInt8] = []
    private var fd: Int32 = -1
    /// Files opened by `prefetch` and not yet asked for: path and descriptor.
    private var prefetched: [(path: RawPath, fd: Int32)] = []

    deinit {
        if fd >= 0 { close(fd) }
        closePrefetched()
    }

    private func closePrefetched() {
        for file in prefetched { close(file.fd) }
        prefetched = []
    }

    /// Opens each of `paths` (as `open` does) and asks the kernel to read its first `bytes`
    /// (posix_fadvise WILLNEED: the reads start, nothing waits for them); the descriptors are
    /// kept for `open`. On a cold cache the thread then waits for the disk once for the lot
    /// instead of once per file, and the reads of neighbouring files go to the disk together.
    /// Files prefetched before and never asked for are closed first.
    static func prefetch(_ paths: [RawPath], bytes: Int) {
        let cache = current
        cache.closePrefetched()
        for path in paths {
            let fd = open(path, prefetching: false)
            guard fd >= 0 else { continue }
            _ = posix_fadvise(fd, 0, off_t(bytes), POSIX_FADV_WILLNEED)
            cache.prefetched.append((path, fd))
        }
    }

    /// O_NONBLOCK: opening a FIFO that slipped past the scanner must not hang; it has no effect
    /// on regular files. O_CLOEXEC: never leak the descriptor into a child process.
    static let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK
    /// Linux's O_PATH (octal 010000000 on every architecture Debian builds for but alpha,
    /// hppa and sparc): a handle for lookups only, no read permission needed. Glibc's module
    /// does not export it (it is a _GNU_SOURCE name).
    private static let pathOnly: Int32 = 0o10_000_000

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<FolderCache>.fromOpaque(pointer).release() }
        }
        return key
    }()

    private static var current: FolderCache {
        if let pointer = pthread_getspecific(key) { return Unmanaged<FolderCache>.fromOpaque(pointer).takeUnretainedValue() }
        let cache = FolderCache()
        pthread_setspecific(key, Unmanaged.passRetained(cache).toOpaque())
        return cache
    }

    /// open(2) of `path` with `flags`: relative to its folder when that folder can be held
    /// open; on any failure, the absolute path itself again, so errors (and errno) are those
    /// of opening the path.
    static func open(_ path: RawPath, prefetching: Bool = true) -> Int32 {
        let bytes = path.bytes
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")), slash > 0, slash < bytes.count - 1 else {
            return path.withCString { Glibc.open($0, flags) }
        }
        let cache = current
        if prefetching, !cache.prefetched.isEmpty, let k = cache.prefetched.firstIndex(where: { $0.path == path }) {
            return cache.prefetched.remove(at: k).fd
        }
        if cache.fd < 0 || !cache.folder.elementsEqual(bytes[..<slash]) {
            if cache.fd >= 0 { close(cache.fd) }
            cache.folder = Array(bytes[..<slash])
            cache.fd = RawPath(bytes: cache.folder).withCString { Glibc.open($0, pathOnly | O_DIRECTORY | O_CLOEXEC) }
        }
        if cache.fd >= 0 {
            let fd = RawPath(bytes: Array(bytes[(slash + 1)...])).withCString { openat(cache.fd, $0, flags) }
            if fd >= 0 { return fd }
        }
        return path.withCString { Glibc.open($0, flags) }
    }
}
