import Foundation
import PinCore

/// Locks on the database file itself: byte-range locks owned by an open file description
/// (Linux `F_OFD_SETLK`), on bytes SQLite never locks. They follow the file, not its name: a
/// symlink, a hard link or `..` in the path reach the same inode and so the same lock. The
/// kernel drops them when the process ends, however it ends. Closing another descriptor of
/// the file (as SQLite does) does not drop them, unlike classic POSIX locks.
///
/// Two bytes, just above SQLite's own (PENDING_BYTE at 1 GiB and the 511 bytes after it; in WAL
/// mode SQLite locks the -shm file, not these):
/// - `importByte`: exclusive for an import, `pins runs undo` and `check --repair` (one at a time);
/// - `writersByte`: shared by every command that writes (each read-write open of the
///   database), exclusive for `check --repair`, which so holds the file for its whole run.
enum DatabaseFileLock {
    static let importByte: Int = 0x4000_0400
    static let writersByte: Int = 0x4000_0401
    // fcntl.h's F_OFD_* (defined only with _GNU_SOURCE, so not imported).
    static let getLock: Int32 = 36
    static let setLock: Int32 = 37

    /// The database's path with symbolic links and `.`/`..` resolved: the file's own when it
    /// exists, else its folder's plus the name. Nil when the folder does not exist.
    static func resolvedPath(_ path: String) -> String? {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        guard let folder = realpath(PathParts.folder(of: path), nil) else { return nil }
        defer { free(folder) }
        let base = String(cString: folder)
        return (base == "/" ? "" : base) + "/" + PathParts.name(of: path)
    }

    /// Tries once to take the lock on `byte` (`F_WRLCK` or `F_RDLCK`); true when taken.
    static func tryLock(_ fd: Int32, _ type: Int32, _ byte: Int) -> Bool {
        var lock = flock(l_type: Int16(type), l_whence: Int16(SEEK_SET), l_start: byte, l_len: 1, l_pid: 0)
        return fcntl(fd, setLock, &lock) == 0
    }

    /// True when another open file description holds a lock on `byte` that `type` conflicts with.
    static func isLocked(_ fd: Int32, _ type: Int32, _ byte: Int) -> Bool {
        var lock = flock(l_type: Int16(type), l_whence: Int16(SEEK_SET), l_start: byte, l_len: 1, l_pid: 0)
        return fcntl(fd, getLock, &lock) == 0 && lock.l_type != Int16(F_UNLCK)
    }

    /// Opens the database file for locking (created empty when missing and `create`: SQLite
    /// initialises an empty file), read-write when it can, else read-only.
    static func open(_ path: String, create: Bool) -> Int32 {
        var fd = Glibc.open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0o644)
        if fd < 0, errno == EACCES || errno == EROFS { fd = Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        return fd
    }

    /// True when `fd` is still the file at `path` (not replaced by a rename, e.g. a repair's).
    static func isStillAt(_ fd: Int32, _ path: String) -> Bool {
        var open = stat(), named = stat()
        guard fstat(fd, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// Opens `path` and takes the lock on `byte`, waiting up to `wait` seconds. Taken only on
    /// the file that is still at `path` once the lock is held (a file swapped in meanwhile is
    /// locked in its turn). Returns the descriptor, or nil when the lock stayed held by another
    /// for the whole wait; throws errno's words when the file cannot be opened.
    static func acquire(_ path: String, type: Int32, byte: Int, wait: TimeInterval, create: Bool) throws -> Int32? {
        let deadline = Date().addingTimeInterval(wait)
        while true {
            let fd = open(path, create: create)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            if tryLock(fd, type, byte) {
                if isStillAt(fd, path) { return fd }
                close(fd)
                continue
            }
            let code = errno
            close(fd)
            guard code == EAGAIN || code == EACCES else {
                // A file system without byte-range locks: SQLite's own locks are what is left.
                return -1
            }
            if Date() >= deadline { return nil }
            usleep(20_000)
        }
    }
}

/// One import at a time per database: an exclusive lock on the database file itself (see
/// `DatabaseFileLock`), and an exclusive flock(2) on `<database>.lock` beside the file's real
/// path, which also holds the pid of the holder for the message. The kernel drops both when
/// the process ends, however it ends, so a killed run never leaves a stale lock behind.
public final class RunLock {
    public enum Failure: ExitStatusError {
        case busy(path: String, holder: String)
        /// `excludingWriters`: commands kept writing for the whole wait.
        case writersBusy(path: String)
        case cannotOpen(path: String, reason: String)

        /// 75 (try later) while another import or writers hold the database; else 1.
        public var exitStatus: Int32 {
            if case .cannotOpen = self { return ExitCode.failure }
            return ExitCode.busy
        }

        public var description: String {
            switch self {
            case let .busy(path, holder):
                return "another pins import\(holder.isEmpty ? "" : " (pid \(holder))") is using this database; "
                    + "try again when it has finished (lock: \(path))"
            case let .writersBusy(path):
                return "other pins commands kept writing to \(path) for more than 5 seconds; try again when they have finished"
            case let .cannotOpen(path, reason): return "cannot create the lock file \(path): \(reason)"
            }
        }
    }

    public let path: String
    private let fd: Int32
    private var databaseFD: Int32 = -1
    private var writersFD: Int32 = -1

    /// Takes the lock at once or throws `.busy`; never waits. With `excludingWriters` (the
    /// repair), also keeps every other writing command out while it is held: it waits up to
    /// 5 seconds for those running to finish, and those started later wait for it (see
    /// `WriterGate`). A missing database file is created empty (SQLite initialises it).
    public init(databasePath: String, excludingWriters: Bool = false) throws {
        // The default location's folder on a first run (a path the person named is checked
        // by the command first: a missing folder there is an error, not a mkdir).
        let parent = PathParts.folder(of: databasePath)
        if parent != "." { try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) }
        guard let target = DatabaseFileLock.resolvedPath(databasePath) else {
            throw Failure.cannotOpen(path: databasePath + ".lock", reason: "the folder \(parent.isEmpty ? "." : parent) does not exist")
        }
        path = target + ".lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            let holder = Self.holder(fd)
            close(fd)
            if code == EWOULDBLOCK { throw Failure.busy(path: path, holder: holder) }
            throw Failure.cannotOpen(path: path, reason: String(cString: strerror(code)))
        }
        do {
            // The file itself: another name of it (a hard link) has its own .lock file.
            guard let held = try DatabaseFileLock.acquire(target, type: F_WRLCK, byte: DatabaseFileLock.importByte, wait: 0, create: true) else {
                throw Failure.busy(path: target, holder: "")
            }
            databaseFD = held
            if excludingWriters {
                guard let gate = try DatabaseFileLock.acquire(target, type: F_WRLCK, byte: DatabaseFileLock.writersByte, wait: 5, create: false) else {
                    throw Failure.writersBusy(path: target)
                }
                writersFD = gate
            }
        } catch let error as POSIXError {
            release()
            throw Failure.cannotOpen(path: target, reason: String(cString: strerror(error.code.rawValue)))
        } catch {
            release()
            throw error
        }
        let pid = "\(getpid())\n"
        ftruncate(fd, 0)
        _ = pid.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    private static func holder(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, 31, 0)
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
    }

    /// True when some process holds the lock (for `pins runs`: a 'running' run whose process is
    /// gone was interrupted).
    public static func isHeld(databasePath: String) -> Bool {
        let target = DatabaseFileLock.resolvedPath(databasePath) ?? databasePath
        let database = open(target, O_RDONLY | O_CLOEXEC)
        if database >= 0 {
            defer { close(database) }
            if DatabaseFileLock.isLocked(database, F_WRLCK, DatabaseFileLock.importByte) { return true }
        }
        let fd = open(target + ".lock", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return true
    }

    private func release() {
        if writersFD >= 0 { close(writersFD) }
        if databaseFD >= 0 { close(databaseFD) }
        writersFD = -1
        databaseFD = -1
        flock(fd, LOCK_UN)
        close(fd)
    }

    deinit { release() }
}

/// What every read-write open of the database holds for its lifetime: a shared lock on the
/// file's `writersByte`, so that `check --repair` (which takes it exclusively) never swaps the
/// file under a writer, and a writer that starts during a repair waits for it (up to `wait`
/// seconds, then `.busy`) and then writes into the repaired file, not the damaged one.
final class WriterGate {
    private let fd: Int32

    /// Nil-free: on a file system without byte-range locks there is nothing to hold.
    init(databasePath: String, wait: TimeInterval = 5) throws {
        guard let target = DatabaseFileLock.resolvedPath(databasePath) else {
            fd = -1
            return
        }
        let held: Int32?
        do {
            held = try DatabaseFileLock.acquire(target, type: F_RDLCK, byte: DatabaseFileLock.writersByte, wait: wait, create: true)
        } catch {
            // Cannot even open the file: SQLite's open says why, in its words.
            fd = -1
            return
        }
        guard let held else { throw StorageError(.open, path: databasePath, reason: .repairing) }
        fd = held
    }

    deinit { if fd >= 0 { close(fd) } }
}
