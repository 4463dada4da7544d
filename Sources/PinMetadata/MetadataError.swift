import Glibc

/// Why a media file's metadata could not be read. "This file has no EXIF" is not an error (it is
/// a `PhotoMetadata` without position); these are files the pipeline counts as unreadable.
/// `description` is one line for a person, with byte offsets where they help; the caller adds
/// the path.
public enum MetadataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// open(2) or fstat(2) failed, or the path is not a regular file.
    case cannotOpen(reason: String)
    /// pread(2) failed.
    case readFailed(offset: Int, reason: String)
    /// A structure announces more bytes than the file has: "truncated JPEG: Exif segment ends at
    /// byte 5123 but file has 4096 bytes".
    case truncated(container: String, what: String, endsAt: Int, fileSize: Int)
    /// The file ends where the format requires more: "truncated JPEG: file ends at byte 20
    /// where a marker was expected".
    case endOfFile(container: String, offset: Int, expected: String)
    /// A read inside a block went past the block's end (bounds-checked `ByteReader`).
    case outOfBounds(container: String, offset: Int, count: Int, end: Int)
    /// The bytes break the format's rules.
    case malformed(container: String, offset: Int?, reason: String)
    /// A resource limit (`MetadataLimits`) was reached.
    case limitExceeded(container: String, what: String, limit: Int)

    public var description: String {
        switch self {
        case .cannotOpen(let reason):
            return "cannot open: \(reason)"
        case .readFailed(let offset, let reason):
            return "read failed at byte \(offset): \(reason)"
        case .truncated(let container, let what, let endsAt, let fileSize):
            return "truncated \(container): \(what) ends at byte \(endsAt) but file has \(fileSize) bytes"
        case .endOfFile(let container, let offset, let expected):
            return "truncated \(container): file ends at byte \(offset) where \(expected) was expected"
        case .outOfBounds(let container, let offset, let count, let end):
            return "truncated \(container): need \(count) byte\(count == 1 ? "" : "s") at byte \(offset) but the data ends at byte \(end)"
        case .malformed(let container, let offset, let reason):
            if let offset { return "malformed \(container) at byte \(offset): \(reason)" }
            return "malformed \(container): \(reason)"
        case .limitExceeded(let container, let what, let limit):
            return "\(container) over limit: \(what) (limit \(limit))"
        }
    }
}

/// A file that was listed but that its reader could not open or reach any more: open(2) or
/// fstat(2) failed, whatever the errno (no permission, no descriptor left, no memory, the file
/// gone), or pread(2) failed with an errno that says the file or the file system is gone
/// (`isLost`). Its bytes were never seen, so it is no decision about the photo: the import
/// leaves such a file unread and names it (the next run tries it again; issue 40: a file of
/// mode 0600 recorded "unreadable: Permission denied" stayed so after a chmod) and checks
/// whether its whole folder went away (a share unmounted, a folder moved). Its text is the
/// wrapped error's, so a person reads the same "cannot open: Permission denied" as before.
public struct FileLost: Error, Sendable, Hashable, CustomStringConvertible {
    public let error: MetadataError
    /// The errno of the failed call.
    public let code: Int32

    public init(_ error: MetadataError, code: Int32) {
        self.error = error
        self.code = code
    }

    public var description: String { error.description }

    /// Whether the file or its file system went away (`isLost`), rather than that it could not
    /// be opened (permission, descriptors or memory exhausted).
    public var isGone: Bool { Self.isLost(code) }

    /// Whether `code` says the file or its file system went away rather than that the file
    /// cannot be read: no such file or folder (deleted, renamed, a share unmounted under the
    /// path), a stale NFS handle, a device gone, an I/O error (a lost mount, a pulled disk), a
    /// network file system whose connection or host is gone, no medium.
    public static func isLost(_ code: Int32) -> Bool {
        switch code {
        case ENOENT, ENOTDIR, ESTALE, ENODEV, ENXIO, EIO, ENOMEDIUM, ENOTCONN, ESHUTDOWN, ECONNRESET, ECONNABORTED,
             ETIMEDOUT, EHOSTDOWN, EHOSTUNREACH, ENETDOWN, ENETUNREACH, EREMOTEIO:
            return true
        default:
            return false
        }
    }
}
