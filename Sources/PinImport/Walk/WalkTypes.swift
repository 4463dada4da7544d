import Foundation
import PinCore
import PinMetadata
import Synchronization

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

    /// False for a file the walk did not stat (`ScanOptions.statFiles` off): its size is -1,
    /// its modification time, inode and device 0, until its reader fills them in (`statted`).
    var isStatted: Bool { size >= 0 }

    /// A regular file found by name and type alone (getdents' d_type), not statted.
    static func unstatted(_ relativePath: RawPath) -> FileEntry {
        FileEntry(relativePath: relativePath, size: -1, modificationNanoseconds: 0, inode: 0, device: 0)
    }

    /// The same path with what fstat(2) said of the file.
    func statted(_ status: FileStatus) -> FileEntry {
        FileEntry(relativePath: relativePath, size: status.size, modificationNanoseconds: status.modificationNanoseconds,
                  inode: status.inode, device: status.device)
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
    /// Stat every regular file (size, modification time, inode). Off, regular files whose type
    /// getdents gives are listed without a stat (`FileEntry.isStatted` false): for an import
    /// whose database knows no file under the root, whose readers open and fstat every file
    /// anyway. A cold cache then reads the inodes in the readers, many in flight, instead of
    /// one after the other in the walk. Folders are not statted either unless symlinks are
    /// followed (their loop guard is taken from the descriptor that opens them); symlinks and
    /// entries of unknown type are statted either way.
    var statFiles = true

    public init(followSymlinks: Bool = false, includeHidden: Bool = false, includeSystemFolders: Bool = false, excludes: [String] = []) {
        self.followSymlinks = followSymlinks
        self.includeHidden = includeHidden
        self.includeSystemFolders = includeSystemFolders
        self.excludes = excludes
    }

    /// Synology thumbnails, Synology/QNAP recycle bins and snapshots, QNAP thumbnails,
    /// macOS volume trash, ext4's fsck folder.
    static let systemFolders: Set<[UInt8]> = Set(["@eaDir", "#recycle", "#snapshot", ".@__thumb", ".Trashes", "lost+found"].map { Array($0.utf8) })
}

struct ScanResult: Sendable {
    var files: [FileEntry] = []
    /// Entries that could not be read (a folder without permission, a vanished file), with why.
    var problems: [(path: RawPath, reason: String)] = []
    /// Entries left out by the hidden/system/exclude rules (not counted as files).
    var excluded = 0
    /// What the walk did not look into: excluded entries and entries it could not read, as
    /// paths relative to the root. A known file at or below one of them is out of sight, not
    /// gone.
    var unseen: Set<RawPath> = []

    /// True when `path` (relative to the root) is at or below an entry the walk did not look into.
    func isUnseen(_ path: RawPath) -> Bool { Self.isBelow(path, anyOf: unseen) }

    /// True when `path` is one of `entries` or below one of them (the root, empty, holds all).
    static func isBelow(_ path: RawPath, anyOf entries: Set<RawPath>) -> Bool {
        guard !entries.isEmpty else { return false }
        if entries.contains(RawPath(bytes: [])) { return true }
        var end = path.bytes.startIndex
        while end < path.bytes.endIndex {
            end = path.bytes[end...].firstIndex(of: UInt8(ascii: "/")) ?? path.bytes.endIndex
            if entries.contains(RawPath(bytes: Array(path.bytes[..<end]))) { return true }
            end += 1
        }
        return false
    }

    /// An entry the walk did not look into: excluded (`problem` nil) or unreadable.
    mutating func record(unseen relative: [UInt8], problem: String?) {
        let path = RawPath(bytes: relative)
        if let problem { problems.append((path, problem)) } else { excluded += 1 }
        unseen.insert(path)
    }
}

enum ScanError: Error, CustomStringConvertible {
    case cannotOpenRoot(String, String)

    var description: String {
        switch self {
        case let .cannotOpenRoot(path, reason): return "cannot open \(path): \(reason)"
        }
    }
}

/// What the walk reports, in byte order of the paths relative to the root: the entries of a
/// folder in the order of their names, a subfolder at the place of its name followed by '/'
/// (so "a-b/x" < "a.jpg" < "a/x", as the bytes compare), every file of the subfolder visited
/// there. The known files come from the database in the same order, so the two are merged
/// without holding either.
protocol WalkVisitor {
    /// A folder is entered (the root: empty); its files follow, then `leaveFolder`.
    mutating func enterFolder(_ relative: [UInt8]) throws
    mutating func file(_ entry: FileEntry) throws
    mutating func leaveFolder(_ relative: [UInt8]) throws
    /// An entry the walk did not look into: excluded (`problem` nil) or unreadable (why).
    mutating func unseen(_ relative: [UInt8], problem: String?) throws
}
