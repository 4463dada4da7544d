import Foundation
import PinCore

/// Writes a file so that a reader (a browser, a NAS web server, a script reading a report) never
/// sees half of it: the bytes go to a temporary file in the same folder, are flushed, and the
/// file is renamed over the target. On any failure the temporary file is removed and the old
/// file stays. The one atomic writer of the map page, `import --report`, `import --html` and
/// `export --out`.
///
/// What is at the path decides how it is written (`destination`):
/// - nothing, or a regular file: replaced atomically as above (an existing file keeps its
///   permissions and, for root, its owner);
/// - a symbolic link: written through: its final target is replaced atomically in the
///   target's own folder (a dangling link's target is created), the link stays a link;
/// - this process's own standard output or error (`/dev/stdout`, `/proc/self/fd/1`, or the file
///   stdout is redirected to): written to that descriptor;
/// - another special file (a FIFO, a terminal, a device such as `/dev/null`): opened and written
///   to directly, never replaced by a regular file;
/// - a folder, or a name ending in `/`: refused;
/// - the database, or its `-wal`, `-shm`, `-journal` or `.lock` file (`GuardedFiles`): refused.
public enum AtomicFile {
    public struct WriteError: ExitStatusError {
        /// 1, or EX_CANTCREAT (73) for an output that is the database (`GuardedFiles`).
        public let exitStatus: Int32
        /// The path as the terminal shows it (`TerminalText.quoted`).
        public let path: String
        public let reason: String
        public var description: String { "cannot write \(path): \(reason)" }

        public init(path: String, reason: String, exitStatus: Int32 = ExitCode.failure) {
            self.path = path
            self.reason = reason
            self.exitStatus = exitStatus
        }

        init(_ path: RawPath, _ reason: String, exitStatus: Int32 = ExitCode.failure) {
            self.init(path: TerminalText.quoted(path), reason: reason, exitStatus: exitStatus)
        }
    }

    /// How a path is written.
    public enum Destination: Equatable, Sendable {
        /// A temporary file beside `path`, renamed over it.
        case replace(RawPath)
        /// A special file, opened and written in place.
        case special(RawPath)
        /// A descriptor this process already has open (1 or 2).
        case descriptor(Int32)
    }

    private static func errorText(_ code: Int32 = errno) -> String {
        String(validatingCString: strerror(code)) ?? "error \(code)"
    }

    /// Where the bytes for `path` go, or why they cannot go there: see the type's comment. A
    /// file to replace that is the database or one of its companions (`GuardedFiles`: the same
    /// file through any link, or the name of one not made yet) is refused, before a byte is
    /// written, with EX_CANTCREAT.
    public static func destination(_ path: RawPath) throws -> Destination {
        let found = try unguardedDestination(path)
        if case .replace(let target) = found, let database = GuardedFiles.match(target.bytes) {
            let shown = target == path ? "" : " (a link to \(TerminalText.quoted(target)))"
            throw WriteError(path, "\(shown.isEmpty ? "it" : "it\(shown)") is the pins database's file \(TerminalText.quoted(RawPath(database))); "
                             + "nothing was written, the database is untouched", exitStatus: ExitCode.cantCreate)
        }
        return found
    }

    private static func unguardedDestination(_ path: RawPath) throws -> Destination {
        guard !path.bytes.isEmpty else { throw WriteError(path, "no file name given") }
        guard !path.bytes.contains(0) else { throw WriteError(path, "a file name cannot hold a NUL byte") }
        let name = path.lastComponent
        var link = stat()
        if name.isEmpty || name == Array(".".utf8) || name == Array("..".utf8) {
            let folder = path.withCString { stat($0, &link) } == 0 && link.st_mode & S_IFMT == S_IFDIR
            throw WriteError(path, folder ? "it is a folder" : "not a file name (it ends with '/', '.' or '..')")
        }
        guard path.withCString({ lstat($0, &link) }) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return .replace(path) }
            throw WriteError(path, errorText())
        }
        var info = stat()
        if link.st_mode & S_IFMT == S_IFLNK {
            guard path.withCString({ stat($0, &info) }) == 0 else {
                guard errno == ENOENT else { throw WriteError(path, errorText()) }
                // A dangling link: its target is created, as `echo > link` would.
                return .replace(try finalTarget(of: path))
            }
        } else {
            info = link
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw WriteError(path, "it is a folder")
        case S_IFREG:
            if let fd = ownDescriptor(info) { return .descriptor(fd) }
            guard link.st_mode & S_IFMT == S_IFLNK else { return .replace(path) }
            guard let resolved = path.withCString({ realpath($0, nil) }) else { throw WriteError(path, errorText()) }
            defer { free(resolved) }
            return .replace(RawPath(bytes: Array(UnsafeBufferPointer(start: UnsafeRawPointer(resolved).assumingMemoryBound(to: UInt8.self), count: strlen(resolved)))))
        default:
            if let fd = ownDescriptor(info) { return .descriptor(fd) }
            return .special(path)
        }
    }

    /// 1 or 2 when `info` is the file this process's stdout or stderr is.
    private static func ownDescriptor(_ info: stat) -> Int32? {
        for fd: Int32 in [1, 2] {
            var own = stat()
            if fstat(fd, &own) == 0, own.st_dev == info.st_dev, own.st_ino == info.st_ino { return fd }
        }
        return nil
    }

    /// The path a chain of symbolic links ends at, each relative target read against the
    /// folder of its link; ELOOP after 40 links, as the kernel counts.
    private static func finalTarget(of path: RawPath) throws -> RawPath {
        var current = path
        for _ in 0..<40 {
            var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = current.withCString { name in buffer.withUnsafeMutableBytes { readlink(name, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count) } }
            if n < 0 {
                if errno == EINVAL || errno == ENOENT { return current }  // not a link (any more), or missing
                throw WriteError(path, errorText())
            }
            let target = Array(buffer[..<n])
            current = target.first == UInt8(ascii: "/") ? RawPath(bytes: target) : current.folder.appending(target)
        }
        throw WriteError(path, errorText(ELOOP))
    }

    /// The refusal to write `path` because it is the database or one of its files (`GuardedFiles`),
    /// nil when it is not: checked before a long run, with its own exit status.
    public static func databaseRefusal(_ path: RawPath) -> WriteError? {
        do {
            _ = try destination(path)
        } catch let error as WriteError where error.exitStatus == ExitCode.cantCreate {
            return error
        } catch {}
        return nil
    }

    /// Why `path` cannot be written (nil when it can, as far as can be known before writing):
    /// checked before a long run, so that its report is not lost at the end.
    public static func problem(writing path: RawPath) -> String? {
        let destination: Destination
        do {
            destination = try self.destination(path)
        } catch let error as WriteError {
            return error.reason
        } catch {
            return "\(error)"
        }
        guard case .replace(let target) = destination else { return nil }
        let folder = target.folder
        var info = stat()
        guard folder.withCString({ stat($0, &info) }) == 0 else { return "\(TerminalText.quoted(folder)): \(errorText())" }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "\(TerminalText.quoted(folder)) is not a folder" }
        guard folder.withCString({ access($0, W_OK) }) == 0 else { return "\(TerminalText.quoted(folder)): \(errorText())" }
        return nil
    }

    /// Writes `text` to `path` atomically.
    public static func write(_ text: String, to path: String) throws {
        try write(to: RawPath(path)) { fd in writeAll(fd, text) }
    }

    /// Writes what `body` writes to the descriptor it is given to `path` atomically.
    public static func write(to path: String, _ body: (Int32) -> Bool) throws {
        try write(to: RawPath(path), body)
    }

    /// Writes what `body` writes to the descriptor it is given to `path` (atomically unless it is
    /// a special file: see the type's comment). `body` returns false when one of its writes
    /// failed, with `errno` saying why.
    public static func write(to path: RawPath, _ body: (Int32) -> Bool) throws {
        switch try destination(path) {
        case .descriptor(let fd):
            guard body(fd) else { throw WriteError(path, errorText()) }
        case .special(let special):
            let fd = special.withCString { open($0, O_WRONLY | O_NOCTTY | O_CLOEXEC) }
            guard fd >= 0 else { throw WriteError(path, errorText()) }
            var failure: String?
            if !body(fd) { failure = errorText() }
            if close(fd) != 0, failure == nil { failure = errorText() }
            if let failure { throw WriteError(path, failure) }
        case .replace(let target):
            try replace(target, shownAs: path, body)
        }
    }

    /// The temporary file beside `target`, written, flushed and renamed over it.
    private static func replace(_ target: RawPath, shownAs path: RawPath, _ body: (Int32) -> Bool) throws {
        func failed(_ reason: String) -> WriteError {
            target == path ? WriteError(path, reason)
                : WriteError(path: TerminalText.quoted(path) + " (a link to " + TerminalText.quoted(target) + ")", reason: reason)
        }
        // `.name.XXXXXX`, the name cut so that the temporary's fits in NAME_MAX (255 bytes).
        var name = target.lastComponent
        if name.count > 240 { name = Array(name.prefix(240)) }
        var template = target.folder.bytes + Array("/.".utf8) + name + Array(".XXXXXX".utf8) + [0]
        let fd = template.withUnsafeMutableBytes { mkstemp($0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
        guard fd >= 0 else { throw failed(errorText()) }
        let temporary = RawPath(bytes: Array(template.dropLast()))
        var failure: String?
        if !body(fd) { failure = errorText() }
        // mkstemp makes the file 0600. A file that was there keeps its permissions (and, when
        // root writes it, its owner: a page the web server's user owns stays its); a new page
        // or report is for reading (a web server, another user): 0666 less the umask.
        var old = stat()
        if target.withCString({ stat($0, &old) }) == 0, old.st_mode & S_IFMT == S_IFREG {
            if failure == nil, fchmod(fd, old.st_mode & 0o7777) != 0 { failure = errorText() }
            if failure == nil, geteuid() == 0, old.st_uid != 0 || old.st_gid != 0, fchown(fd, old.st_uid, old.st_gid) != 0 {
                failure = errorText()
            }
        } else {
            let mask = umask(0)
            umask(mask)
            if failure == nil, fchmod(fd, 0o666 & ~mask) != 0 { failure = errorText() }
        }
        if failure == nil, fsync(fd) != 0 { failure = errorText() }
        if close(fd) != 0, failure == nil { failure = errorText() }
        if failure == nil, temporary.withCString({ from in target.withCString { rename(from, $0) } }) != 0 { failure = errorText() }
        if let failure {
            _ = temporary.withCString { unlink($0) }
            throw failed(failure)
        }
    }

    /// write(2) of all of `text`, again after EINTR; false on an error (`errno` says which).
    public static func writeAll(_ fd: Int32, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    /// write(2) of all of `bytes`, again after EINTR; false on an error (`errno` says which).
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }
}
