import Foundation
import PinCore

/// One regular file found under the import root.
public struct FileEntry: Sendable, Hashable {
    /// Path relative to the root, as bytes.
    public let relativePath: RawPath
    public let size: Int64
    public let modificationNanoseconds: Int64
    public let inode: UInt64
    public let device: UInt64

    public var fingerprint: PhotoFingerprint {
        PhotoFingerprint(size: size, modificationNanoseconds: modificationNanoseconds, inode: inode)
    }

    public var modificationDate: Date {
        Date(timeIntervalSince1970: Double(modificationNanoseconds) / 1e9)
    }
}

public struct ScanOptions: Sendable {
    public var followSymlinks = false
    /// Hidden entries (names starting with '.') and macOS AppleDouble `._*` files.
    public var includeHidden = false
    /// NAS and OS housekeeping folders (`@eaDir`, `#recycle`, ...).
    public var includeSystemFolders = false
    /// Extra shell globs (fnmatch) matched against each entry's name and its path relative to the root.
    public var excludes: [String] = []

    public init(followSymlinks: Bool = false, includeHidden: Bool = false, includeSystemFolders: Bool = false, excludes: [String] = []) {
        self.followSymlinks = followSymlinks
        self.includeHidden = includeHidden
        self.includeSystemFolders = includeSystemFolders
        self.excludes = excludes
    }

    /// Synology thumbnails, Synology/QNAP recycle bins and snapshots, QNAP thumbnails,
    /// macOS volume trash, ext4's fsck folder.
    public static let systemFolders: Set<[UInt8]> = Set(["@eaDir", "#recycle", "#snapshot", ".@__thumb", ".Trashes", "lost+found"].map { Array($0.utf8) })
}

public struct ScanResult: Sendable {
    public var files: [FileEntry] = []
    /// Entries that could not be read (a folder without permission, a vanished file), with why.
    public var problems: [(path: RawPath, reason: String)] = []
    /// Entries left out by the hidden/system/exclude rules (not counted as files).
    public var excluded = 0
    /// What the walk did not look into: excluded entries and entries it could not read, as
    /// paths relative to the root. A known file at or below one of them is out of sight, not
    /// gone.
    public var unseen: Set<RawPath> = []

    /// True when `path` (relative to the root) is at or below an entry the walk did not look into.
    public func isUnseen(_ path: RawPath) -> Bool {
        guard !unseen.isEmpty else { return false }
        if unseen.contains(RawPath(bytes: [])) { return true }
        var end = path.bytes.startIndex
        while end < path.bytes.endIndex {
            end = path.bytes[end...].firstIndex(of: UInt8(ascii: "/")) ?? path.bytes.endIndex
            if unseen.contains(RawPath(bytes: Array(path.bytes[..<end]))) { return true }
            end += 1
        }
        return false
    }
}

public enum ScanError: Error, CustomStringConvertible {
    case cannotOpenRoot(String, String)

    public var description: String {
        switch self {
        case let .cannotOpenRoot(path, reason): return "cannot open \(path): \(reason)"
        }
    }
}

/// Walks a folder tree with openat/fdopendir/readdir/fstatat: FileManager's enumerator is slow
/// on Linux and turns names that are not UTF-8 into something else. Regular files only; FIFOs,
/// sockets and devices are never opened. Symlinks are followed only when asked, then with loop
/// detection by device and inode. Entries of a folder are visited in byte order, so the walk is
/// deterministic.
public enum Scanner {
    public static func scan(root: String, options: ScanOptions = ScanOptions()) throws -> ScanResult {
        let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFD >= 0 else { throw ScanError.cannotOpenRoot(root, String(cString: strerror(errno))) }
        defer { close(rootFD) }
        var result = ScanResult()
        var rootStat = stat()
        fstat(rootFD, &rootStat)
        var visited: Set<[UInt64]> = [[UInt64(rootStat.st_dev), UInt64(rootStat.st_ino)]]
        walk(rootFD: rootFD, relative: [], options: options, visited: &visited, result: &result)
        return result
    }

    private static func isExcluded(name: [UInt8], relative: [UInt8], isDirectory: Bool, options: ScanOptions) -> Bool {
        if !options.includeHidden, name.first == UInt8(ascii: ".") { return true }
        if !options.includeSystemFolders, isDirectory, ScanOptions.systemFolders.contains(name) { return true }
        for pattern in options.excludes {
            let matched = pattern.withCString { p in
                (name + [0]).withUnsafeBufferPointer { n in
                    fnmatch(p, UnsafeRawPointer(n.baseAddress!).assumingMemoryBound(to: CChar.self), 0) == 0
                } || (relative + [0]).withUnsafeBufferPointer { r in
                    fnmatch(p, UnsafeRawPointer(r.baseAddress!).assumingMemoryBound(to: CChar.self), 0) == 0
                }
            }
            if matched { return true }
        }
        return false
    }

    private static func walk(rootFD: Int32, relative: [UInt8], options: ScanOptions,
                             visited: inout Set<[UInt64]>, result: inout ScanResult) {
        // Open this folder relative to the root; read all its names; close it before descending,
        // so a deep tree holds one descriptor, not one per level.
        let path = relative.isEmpty ? [UInt8(ascii: ".")] : relative
        let fd = (path + [0]).withUnsafeBufferPointer {
            openat(rootFD, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self),
                   O_RDONLY | O_DIRECTORY | O_CLOEXEC | (options.followSymlinks ? 0 : O_NOFOLLOW))
        }
        guard fd >= 0 else {
            result.problems.append((RawPath(bytes: relative), String(cString: strerror(errno))))
            result.unseen.insert(RawPath(bytes: relative))
            return
        }
        guard let dir = fdopendir(fd) else {
            close(fd)
            result.problems.append((RawPath(bytes: relative), String(cString: strerror(errno))))
            result.unseen.insert(RawPath(bytes: relative))
            return
        }
        // Names with the stat of each, taken while the entry is at hand (fstatat on the name
        // readdir returned, NUL-terminated in place: no copy per file).
        var found: [(name: [UInt8], st: stat, error: Int32)] = []
        let dfd = dirfd(dir)
        while let entry = readdir(dir) {
            var st = stat()
            var failure: Int32 = 0
            let name: [UInt8] = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                let length = bytes.firstIndex(of: 0) ?? bytes.count
                if length == 1 && bytes[0] == UInt8(ascii: ".") || length == 2 && bytes[0] == UInt8(ascii: ".") && bytes[1] == UInt8(ascii: ".") {
                    return []
                }
                if fstatat(dfd, raw.baseAddress!.assumingMemoryBound(to: CChar.self), &st, AT_SYMLINK_NOFOLLOW) != 0 { failure = errno }
                return Array(bytes[0..<length])
            }
            if !name.isEmpty { found.append((name, st, failure)) }
        }
        found.sort { $0.name.lexicographicallyPrecedes($1.name) }
        var subfolders: [[UInt8]] = []
        for (name, statted, failure) in found {
            let childRelative = relative.isEmpty ? name : relative + [UInt8(ascii: "/")] + name
            var st = statted
            guard failure == 0 else {
                result.problems.append((RawPath(bytes: childRelative), String(cString: strerror(failure))))
                result.unseen.insert(RawPath(bytes: childRelative))
                continue
            }
            var mode = st.st_mode & S_IFMT
            if mode == S_IFLNK {
                guard options.followSymlinks else { continue }
                let target = (name + [0]).withUnsafeBufferPointer {
                    fstatat(dfd, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &st, 0)
                }
                guard target == 0 else {
                    result.problems.append((RawPath(bytes: childRelative), "broken symlink: \(String(cString: strerror(errno)))"))
                    result.unseen.insert(RawPath(bytes: childRelative))
                    continue
                }
                mode = st.st_mode & S_IFMT
            }
            let isDirectory = mode == S_IFDIR
            if isExcluded(name: name, relative: childRelative, isDirectory: isDirectory, options: options) {
                result.excluded += 1
                result.unseen.insert(RawPath(bytes: childRelative))
                continue
            }
            if isDirectory {
                // Each folder once: a symlink loop, or two links to one folder, is walked once.
                guard visited.insert([UInt64(st.st_dev), UInt64(st.st_ino)]).inserted else { continue }
                subfolders.append(childRelative)
            } else if mode == S_IFREG {
                result.files.append(FileEntry(
                    relativePath: RawPath(bytes: childRelative), size: Int64(st.st_size),
                    modificationNanoseconds: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                    inode: UInt64(st.st_ino), device: UInt64(st.st_dev)))
            }
            // FIFOs, sockets, devices: never opened, not counted.
        }
        closedir(dir)
        for folder in subfolders {
            walk(rootFD: rootFD, relative: folder, options: options, visited: &visited, result: &result)
        }
    }
}
