import Foundation

/// Bytes in pieces, front to back: a file read 64 KiB at a time, a ZIP entry inflated as it is
/// read, or bytes already in memory. The readers here pull from one and never hold a whole file.
public protocol ChunkSource {
    /// The next piece (never empty), or nil at the end.
    mutating func nextChunk() throws -> [UInt8]?
}

/// Bytes already in memory (tests, the fuzzer), handed out in one piece or in `chunkSize` pieces
/// (so a test can put every chunk boundary inside a token).
public struct BytesSource: ChunkSource {
    private let bytes: [UInt8]
    private let chunkSize: Int
    private var offset = 0

    public init(_ bytes: [UInt8], chunkSize: Int = Int.max) {
        self.bytes = bytes
        self.chunkSize = max(1, chunkSize)
    }

    public mutating func nextChunk() throws -> [UInt8]? {
        guard offset < bytes.count else { return nil }
        let end = offset + min(chunkSize, bytes.count - offset)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }
}

/// Why a file could not be read at all (as opposed to one bad record in it).
public struct FileReadError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let reason: String
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "\(path): \(reason)" }
}

/// A file read front to back with read(2), `chunkSize` bytes at a time. The descriptor is
/// closed when the last copy of the source goes.
public struct FileSource: ChunkSource {
    private final class Descriptor {
        let fd: Int32
        init(_ fd: Int32) { self.fd = fd }
        deinit { close(fd) }
    }

    public static let defaultChunkSize = 64 * 1024
    private let descriptor: Descriptor
    private let chunkSize: Int
    public let path: String

    public init(path: String, chunkSize: Int = FileSource.defaultChunkSize) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileReadError(path: path, reason: String(cString: strerror(errno))) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            close(fd)
            throw FileReadError(path: path, reason: "is a folder")
        }
        self.descriptor = Descriptor(fd)
        self.chunkSize = max(1, chunkSize)
        self.path = path
    }

    public mutating func nextChunk() throws -> [UInt8]? {
        var failure: Int32 = 0
        let fd = descriptor.fd
        let chunk = [UInt8](unsafeUninitializedCapacity: chunkSize) { buffer, count in
            count = 0
            while true {
                let n = read(fd, buffer.baseAddress!, buffer.count)
                if n < 0, errno == EINTR { continue }
                if n < 0 { failure = errno } else { count = n }
                break
            }
        }
        if failure != 0 { throw FileReadError(path: path, reason: String(cString: strerror(failure))) }
        return chunk.isEmpty ? nil : chunk
    }
}
