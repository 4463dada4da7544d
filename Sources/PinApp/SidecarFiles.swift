import Foundation
import PinCore
import PinImport
import PinMetadata
import PinReport

/// The file system side of `pins sidecars` and of its undo. Everything happens inside one
/// photo folder opened without following a link (`O_NOFOLLOW`), by name relative to it
/// (`openat`, `renameat`, `unlinkat`): a folder or a sidecar that is a symbolic link is left
/// alone, so nothing is written outside the photos' own folders. A file is replaced whole and
/// atomically: a temporary file in the same folder, synced, then renamed over it; a failure
/// leaves the file as it was and no temporary behind. The photos themselves are never opened.
struct SidecarFolder {
    let fd: Int32
    let path: RawPath

    /// Sidecars larger than this are not read (XMP's own limit, `MetadataLimits`).
    static let maxBytes = 8 * 1024 * 1024

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The folder holding `file`, opened; a failure says why in words.
    static func open(holding file: RawPath) -> Result<SidecarFolder, Failure> {
        let folder = file.folder
        let fd = folder.withCString { Glibc.open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else {
            let code = errno
            return .failure(Failure(description: code == ELOOP || code == ENOTDIR
                ? "its folder is a symbolic link or not a folder: pins writes only in the photos' own folders"
                : "cannot open its folder: \(String(cString: strerror(code)))"))
        }
        return .success(SidecarFolder(fd: fd, path: folder))
    }

    func close() { Glibc.close(fd) }

    /// lstat(2) of `name` in the folder; nil when there is no such entry.
    func status(_ name: [UInt8]) -> stat? {
        var st = stat()
        return RawPath(bytes: name).withCString { fstatat(fd, $0, &st, AT_SYMLINK_NOFOLLOW) } == 0 ? st : nil
    }

    /// The bytes of the regular file `name` and its state, read without following a link.
    func read(_ name: [UInt8]) throws(Failure) -> (bytes: [UInt8], status: stat) {
        let file = RawPath(bytes: name).withCString { openat(fd, $0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK) }
        guard file >= 0 else {
            let code = errno
            throw Failure(description: code == ELOOP ? "it is a symbolic link: left alone" : "cannot read it: \(String(cString: strerror(code)))")
        }
        defer { Glibc.close(file) }
        var st = stat()
        guard fstat(file, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { throw Failure(description: "it is not a regular file: left alone") }
        guard Int(st.st_size) <= Self.maxBytes else { throw Failure(description: "it is over \(Self.maxBytes / (1024 * 1024)) MiB: left alone") }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size) + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress! + count, $0.count - count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw Failure(description: "cannot read it: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            count += n
        }
        guard count <= Self.maxBytes else { throw Failure(description: "it grew while read: left alone") }
        return (Array(bytes[..<count]), st)
    }

    /// Puts `bytes` at `name` atomically: a temporary file beside it, synced, renamed over it.
    /// A file replaced keeps its permission bits (`mode`); a new one gets 0666 less the umask.
    /// Returns the new file's state.
    func replace(_ name: [UInt8], with bytes: [UInt8], mode: mode_t?) throws(Failure) -> FileStatus {
        let (file, temporary) = try createTemporary()
        var failure: Int32?
        if !bytes.withUnsafeBytes({ AtomicFile.writeAll(file, $0) }) { failure = errno }
        if failure == nil, let mode, fchmod(file, mode & 0o7777) != 0 { failure = errno }
        if failure == nil, fsync(file) != 0 { failure = errno }
        var st = stat()
        if failure == nil, fstat(file, &st) != 0 { failure = errno }
        Glibc.close(file)
        if failure == nil, RawPath(bytes: temporary).withCString({ from in RawPath(bytes: name).withCString { renameat(fd, from, fd, $0) } }) != 0 {
            failure = errno
        }
        if let failure {
            _ = RawPath(bytes: temporary).withCString { unlinkat(fd, $0, 0) }
            throw Failure(description: Self.refusal(failure))
        }
        fsync(fd)
        return FileStatus(st)
    }

    /// A new file of a name of its own in the folder, open for writing. The name is short and
    /// random, not the sidecar's name and the process id: a name near the 255-byte limit had no
    /// room for a suffix, and a process killed between create and rename left a file that the
    /// next run of the same process id (a container's pins is always process 1) could never
    /// create again, so that sidecar was refused "File exists" on every later run.
    private func createTemporary() throws(Failure) -> (fd: Int32, name: [UInt8]) {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<8 {
            let hex = String(generator.next() as UInt64, radix: 16)
            let name = Array(".pins-\(String(repeating: "0", count: 16 - hex.count) + hex).tmp".utf8)
            let file = RawPath(bytes: name).withCString { openat(fd, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666) }
            if file >= 0 { return (file, name) }
            guard errno == EEXIST else { throw Failure(description: Self.refusal(errno)) }
        }
        throw Failure(description: Self.refusal(EEXIST))
    }

    /// Whether `name` is one of pins' own temporaries, as `createTemporary` names them exactly:
    /// `.pins-`, 16 lowercase hexadecimal digits, `.tmp`.
    static func isTemporaryName(_ name: [UInt8]) -> Bool {
        name.count == 26 && name.starts(with: Array(".pins-".utf8)) && name.suffix(4).elementsEqual(".tmp".utf8)
            && name[6..<22].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// How long ago (by mtime) a temporary of pins must have been written before a later run
    /// removes it as a killed run's leftover: one hour. A temporary lives from its create to its
    /// rename: one sidecar written (8 MiB at most), synced, renamed, seconds at the most even on
    /// a slow network share, and its mtime is its last write. An hour is far beyond that, for any
    /// pins still running, whatever its database (the run lock is one database's, so another
    /// pins may write in the same folder), and beyond the clock difference of a file server
    /// that sets the mtime; waiting costs only that a leftover stays until a run after that hour.
    static let leftoverSeconds = 3600

    /// Removes pins' own temporaries in the folder (`isTemporaryName`) that a killed run left:
    /// regular files (not through a link) written more than `leftoverSeconds` before `now`;
    /// nothing else. The number removed.
    func removeLeftoverTemporaries(now: time_t = time(nil)) -> Int {
        let names = ImportPipeline.names(inOpenFolder: fd, where: Self.isTemporaryName)
        var removed = 0
        for name in names {
            guard let st = status(name), st.st_mode & S_IFMT == S_IFREG,
                  st.st_mtim.tv_sec < now - Self.leftoverSeconds else { continue }
            if RawPath(bytes: name).withCString({ unlinkat(fd, $0, 0) }) == 0 { removed += 1 }
        }
        if removed > 0 { fsync(fd) }
        return removed
    }

    /// Removes the file `name` (not a folder, not through a link: unlinkat removes the entry).
    func remove(_ name: [UInt8]) throws(Failure) {
        guard RawPath(bytes: name).withCString({ unlinkat(fd, $0, 0) }) == 0 else { throw Failure(description: Self.refusal(errno)) }
        fsync(fd)
    }

    /// Why a write was refused, in words; a read-only folder says so.
    static func refusal(_ code: Int32) -> String {
        switch code {
        case EROFS: "the folder is on a read-only file system"
        case EACCES, EPERM: "the folder is read-only for this user (\(String(cString: strerror(code))))"
        case ENOSPC: "the disk is full"
        default: String(cString: strerror(code))
        }
    }
}

extension PhotoFingerprint {
    init(_ status: FileStatus) {
        self.init(size: status.size, modificationNanoseconds: status.modificationNanoseconds, inode: status.inode)
    }
}
