import Foundation
import PinCore

/// One import at a time per database: an exclusive flock(2) on `<database>.lock`. The kernel
/// drops the lock when the process ends, however it ends, so a killed run never leaves a stale
/// lock behind. The file holds the pid of the holder, for the message.
public final class RunLock {
    public enum Failure: Error, CustomStringConvertible {
        case busy(path: String, holder: String)
        case cannotOpen(path: String, reason: String)

        public var description: String {
            switch self {
            case let .busy(path, holder):
                return "another pins import\(holder.isEmpty ? "" : " (pid \(holder))") is using this database; "
                    + "try again when it has finished (lock: \(path))"
            case let .cannotOpen(path, reason): return "cannot create the lock file \(path): \(reason)"
            }
        }
    }

    public let path: String
    private let fd: Int32

    /// Takes the lock at once or throws `.busy`; never waits.
    public init(databasePath: String) throws {
        path = databasePath + ".lock"
        let parent = PathParts.folder(of: path)
        if parent != "." { try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) }
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = pread(fd, &buffer, 31, 0)
            close(fd)
            let holder = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
            if code == EWOULDBLOCK { throw Failure.busy(path: path, holder: holder) }
            throw Failure.cannotOpen(path: path, reason: String(cString: strerror(code)))
        }
        let pid = "\(getpid())\n"
        ftruncate(fd, 0)
        _ = pid.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    /// True when some process holds the lock (for `pins runs`: a 'running' run whose process is
    /// gone was interrupted).
    public static func isHeld(databasePath: String) -> Bool {
        let fd = open(databasePath + ".lock", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return true
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
