import Foundation
import PinCore
import PinMetadata
import Synchronization

/// Walks a folder tree with openat/fdopendir/readdir/fstatat: FileManager's enumerator is slow
/// on Linux and turns names that are not UTF-8 into something else. Regular files only; FIFOs,
/// sockets and devices are never opened. Symlinks are followed only when asked, then with loop
/// detection by device and inode. Entries are visited in byte order of their paths (see
/// `WalkVisitor`), so the walk is deterministic.
enum Scanner {
    /// The whole walk as one list (`pins inspect`, tests). The import streams it instead.
    static func scan(root: String, options: ScanOptions = ScanOptions()) throws -> ScanResult {
        var collector = Collector()
        try walk(root: root, options: options, visitor: &collector)
        return collector.result
    }

    private struct Collector: WalkVisitor {
        var result = ScanResult()
        mutating func enterFolder(_ relative: [UInt8]) {}
        mutating func leaveFolder(_ relative: [UInt8]) {}
        mutating func file(_ entry: FileEntry) { result.files.append(entry) }
        mutating func unseen(_ relative: [UInt8], problem: String?) { result.record(unseen: relative, problem: problem) }
    }

    /// Walks `root`, reporting to `visitor`; throws what the visitor throws, and
    /// `ScanError.cannotOpenRoot` when the root cannot be opened.
    static func walk<V: WalkVisitor>(root: String, options: ScanOptions = ScanOptions(), visitor: inout V) throws {
        let rootFD = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFD >= 0 else { throw ScanError.cannotOpenRoot(root, String(cString: strerror(errno))) }
        defer { close(rootFD) }
        var rootStat = stat()
        fstat(rootFD, &rootStat)
        var visited: Set<FolderID> = [FolderID(rootStat)]
        let stats = ColdWalkPool()
        defer { stats.finish() }
        try walk(rootFD: rootFD, relative: [], options: options, visited: &visited, stats: stats, visitor: &visitor)
    }

    /// A folder's device and inode: the walk's loop guard. Following symlinks, every folder
    /// walked is kept (each is walked once, however many links lead to it); otherwise only the
    /// folders being walked, the current one's ancestors (no symlink is followed, so a folder
    /// met twice is a loop only if it is one of them: a bind mount of an ancestor). The nightly
    /// run over 100,000 folders then holds a few of them, not 100,000.
    private struct FolderID: Hashable {
        let device: UInt64, inode: UInt64
        init(_ st: stat) {
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
        }
    }

    /// The mode of an entry of getdents type `type` that needs no stat when files are not
    /// statted: a regular file, a FIFO, a socket, a device; a folder when not following
    /// symlinks (its device and inode, the loop guard, are then taken when it is opened). Nil
    /// for a symlink, an unknown type and, following symlinks, a folder: those are statted.
    private static func mode(ofType type: UInt8, followingSymlinks: Bool) -> mode_t? {
        switch Int(type) {
        case Int(DT_DIR): return followingSymlinks ? nil : S_IFDIR
        case Int(DT_REG): return S_IFREG
        case Int(DT_FIFO): return S_IFIFO
        case Int(DT_SOCK): return S_IFSOCK
        case Int(DT_CHR): return S_IFCHR
        case Int(DT_BLK): return S_IFBLK
        default: return nil
        }
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

    /// One entry of a folder, classified, at the place its path sorts.
    private enum Child {
        case file(FileEntry)
        /// Its device and inode; nil when it was not statted (found by its type, not following
        /// symlinks): they are then taken from its descriptor when it is opened.
        case folder([UInt8], FolderID?)
        case unseen([UInt8], problem: String?)
    }

    private static func walk<V: WalkVisitor>(rootFD: Int32, relative: [UInt8], unstattedFolder: Bool = false, options: ScanOptions,
                                             visited: inout Set<FolderID>, stats: ColdWalkPool, visitor: inout V) throws {
        let dir: OpaquePointer
        // A folder not statted when listed: an ancestor (`visited`) while it is walked.
        var ownID: FolderID?
        switch openFolder(rootFD: rootFD, relative: relative, unstatted: unstattedFolder, options: options, visited: visited) {
        case let .unseen(reason): return try visitor.unseen(relative, problem: reason)
        case .walkedAlready: return
        case let .opened(opened, id):
            dir = opened
            if let id { visited.insert(id) }
            ownID = id
        }
        defer { if let ownID { visited.remove(ownID) } }
        let (entries, subfolderKeys) = children(of: dir, relative: relative, options: options, visited: &visited, stats: stats)
        // On a cold cache the subfolders after the first are read ahead on other threads while
        // the walk goes down the first (`ColdWalkPool.readAhead`).
        if subfolderKeys, ColdCache.met.load(ordering: .relaxed) {
            readAhead(laterFoldersOf: entries, rootFD: rootFD, options: options, stats: stats)
        }
        try visitor.enterFolder(relative)
        try visit(entries, rootFD: rootFD, options: options, visited: &visited, stats: stats, visitor: &visitor)
        try visitor.leaveFolder(relative)
    }

    private enum OpenedFolder {
        /// Its device and inode when it was not statted when listed (the loop guard).
        case opened(OpaquePointer, FolderID?)
        /// Cannot be opened or read: why.
        case unseen(String)
        /// A bind mount of an ancestor (found on its descriptor): left out, as when listed.
        case walkedAlready
    }

    /// Opens the folder `relative` (to the root) to read its names: it is closed again before
    /// the walk descends, so a deep tree holds one descriptor, not one per level. A folder not
    /// statted when listed (`unstatted`: not following symlinks, so `visited` holds its
    /// ancestors only) gets the loop guard here, on its descriptor; the open's time tells a
    /// cold cache (its inode read from the disk) instead of the stat's.
    private static func openFolder(rootFD: Int32, relative: [UInt8], unstatted: Bool, options: ScanOptions,
                                   visited: Set<FolderID>) -> OpenedFolder {
        let path = relative.isEmpty ? [UInt8(ascii: ".")] : relative
        let started = unstatted ? ColdCache.now() : 0
        let fd = (path + [0]).withUnsafeBufferPointer {
            openat(rootFD, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self),
                   O_RDONLY | O_DIRECTORY | O_CLOEXEC | (options.followSymlinks ? 0 : O_NOFOLLOW))
        }
        guard fd >= 0 else { return .unseen(String(cString: strerror(errno))) }
        var ownID: FolderID?
        if unstatted {
            var st = stat()
            if fstat(fd, &st) == 0 {
                if ColdCache.now() - started > ColdCache.slowNanoseconds { ColdCache.noteSlowStat() }
                let id = FolderID(st)
                guard !visited.contains(id) else {
                    close(fd)
                    return .walkedAlready
                }
                ownID = id
            }
        }
        guard let dir = fdopendir(fd) else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .unseen(reason)
        }
        return .opened(dir, ownID)
    }

    /// A name of a folder with its stat (or the error of its stat); `typedOnly`: not statted,
    /// its mode taken from its getdents type.
    private struct Listed {
        var name: [UInt8]
        var st: stat
        var error: Int32
        var typedOnly: Bool
    }

    /// The entries of the open folder `dir` (which is closed here), classified and in the order
    /// the walk visits them; and whether any is a subfolder.
    private static func children(of dir: OpaquePointer, relative: [UInt8], options: ScanOptions, visited: inout Set<FolderID>,
                                 stats: ColdWalkPool) -> (children: [(key: [UInt8], child: Child)], subfolderKeys: Bool) {
        defer { closedir(dir) }
        let dfd = dirfd(dir)
        var found = list(dir, options: options, stats: stats)
        found.sort { $0.name.lexicographicallyPrecedes($1.name) }
        var children: [(key: [UInt8], child: Child)] = []
        children.reserveCapacity(found.count)
        var subfolderKeys = false
        for listed in found {
            guard let (key, child) = classify(listed, in: dfd, relative: relative, options: options, visited: &visited) else { continue }
            if case .folder = child { subfolderKeys = true }
            children.append((key, child))
        }
        // A name followed by '/' can sort after a longer name ("a/" > "a.jpg"): sort again only then.
        if subfolderKeys { children.sort { $0.key.lexicographicallyPrecedes($1.key) } }
        return (children, subfolderKeys)
    }

    /// The names of `dir` with the stat of each, taken while the entry is at hand (fstatat on
    /// the name readdir returned, NUL-terminated in place: no copy per file). Once one stat
    /// waits for the disk (a cold cache: its inode is not in memory), the folder's other names
    /// are statted side by side on `ColdWalkPool`'s threads instead, many inode reads in flight.
    /// Without `statFiles`, an entry whose type getdents gives (other than a symlink, or a
    /// folder when following symlinks) is not statted: its mode is that type, and a regular
    /// file's entry carries no size, time or inode (`FileEntry.unstatted`).
    private static func list(_ dir: OpaquePointer, options: ScanOptions, stats: ColdWalkPool) -> [Listed] {
        var found: [Listed] = []
        let dfd = dirfd(dir)
        var cold = false
        var unstatted: [Int] = []
        while let entry = readdir(dir) {
            var st = stat()
            var failure: Int32 = 0
            let typeMode = options.statFiles ? nil : Self.mode(ofType: entry.pointee.d_type, followingSymlinks: options.followSymlinks)
            let name: [UInt8] = withUnsafeBytes(of: &entry.pointee.d_name) { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                let length = bytes.firstIndex(of: 0) ?? bytes.count
                if length == 1 && bytes[0] == UInt8(ascii: ".") || length == 2 && bytes[0] == UInt8(ascii: ".") && bytes[1] == UInt8(ascii: ".") {
                    return []
                }
                if let typeMode {
                    st.st_mode = typeMode
                } else if !cold {
                    let started = ColdCache.now()
                    if fstatat(dfd, raw.baseAddress!.assumingMemoryBound(to: CChar.self), &st, AT_SYMLINK_NOFOLLOW) != 0 { failure = errno }
                    cold = ColdCache.now() - started > ColdCache.slowNanoseconds
                    if cold { ColdCache.noteSlowStat() }
                } else {
                    failure = -1
                }
                return Array(bytes[0..<length])
            }
            if !name.isEmpty {
                if failure == -1 { unstatted.append(found.count) }
                found.append(Listed(name: name, st: st, error: failure, typedOnly: typeMode != nil))
            }
        }
        if !unstatted.isEmpty {
            for (k, outcome) in stats.stat(unstatted.map { ColdWalkPool.Job(folder: dfd, name: found[$0].name) }).enumerated() {
                found[unstatted[k]].st = outcome.st
                found[unstatted[k]].error = outcome.error
            }
        }
        return found
    }

    /// What the walk makes of one entry of the folder `dfd` (`relative` to the root), keyed
    /// where its path sorts; nil for one it passes over: a symlink not followed, a folder
    /// walked already, a FIFO, socket or device (never opened, not counted).
    private static func classify(_ listed: Listed, in dfd: Int32, relative: [UInt8], options: ScanOptions,
                                 visited: inout Set<FolderID>) -> (key: [UInt8], child: Child)? {
        let name = listed.name
        // One array for the path below the root, not the three of `relative + "/" + name`.
        var childRelative = name
        if !relative.isEmpty {
            childRelative = []
            childRelative.reserveCapacity(relative.count + 1 + name.count)
            childRelative += relative
            childRelative.append(UInt8(ascii: "/"))
            childRelative += name
        }
        var st = listed.st
        guard listed.error == 0 else { return (name, .unseen(childRelative, problem: String(cString: strerror(listed.error)))) }
        var mode = st.st_mode & S_IFMT
        if mode == S_IFLNK {
            guard options.followSymlinks else { return nil }
            let target = (name + [0]).withUnsafeBufferPointer {
                fstatat(dfd, UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &st, 0)
            }
            guard target == 0 else { return (name, .unseen(childRelative, problem: "broken symlink: \(String(cString: strerror(errno)))")) }
            mode = st.st_mode & S_IFMT
        }
        let isDirectory = mode == S_IFDIR
        if isExcluded(name: name, relative: childRelative, isDirectory: isDirectory, options: options) {
            return (name, .unseen(childRelative, problem: nil))
        }
        if isDirectory && listed.typedOnly {
            return (name + [UInt8(ascii: "/")], .folder(childRelative, nil))
        } else if isDirectory {
            // Each folder once: a symlink loop, or two links to one folder, is walked once.
            let id = FolderID(st)
            if options.followSymlinks {
                guard visited.insert(id).inserted else { return nil }
            } else if visited.contains(id) {
                return nil
            }
            // Its files sort as "name/...".
            return (name + [UInt8(ascii: "/")], .folder(childRelative, id))
        } else if mode == S_IFREG && listed.typedOnly {
            return (name, .file(FileEntry.unstatted(RawPath(bytes: childRelative))))
        } else if mode == S_IFREG {
            return (name, .file(FileEntry(
                relativePath: RawPath(bytes: childRelative), size: Int64(st.st_size),
                modificationNanoseconds: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                inode: UInt64(st.st_ino), device: UInt64(st.st_dev))))
        }
        return nil
    }

    /// Hands the subfolders of `children` after the first to `stats`' read-ahead threads.
    private static func readAhead(laterFoldersOf children: [(key: [UInt8], child: Child)], rootFD: Int32, options: ScanOptions,
                                  stats: ColdWalkPool) {
        var later: [[UInt8]] = []
        for (_, child) in children {
            if case let .folder(path, _) = child { later.append(path) }
        }
        if later.count > 1 { stats.readAhead(rootFD: rootFD, folders: later.dropFirst(), followSymlinks: options.followSymlinks) }
    }

    /// Visits the entries of a folder in order, walking each subfolder where it sorts.
    private static func visit<V: WalkVisitor>(_ children: [(key: [UInt8], child: Child)], rootFD: Int32, options: ScanOptions,
                                              visited: inout Set<FolderID>, stats: ColdWalkPool, visitor: inout V) throws {
        for (_, child) in children {
            switch child {
            case let .file(entry): try visitor.file(entry)
            case let .unseen(path, problem): try visitor.unseen(path, problem: problem)
            case let .folder(path, nil):
                try walk(rootFD: rootFD, relative: path, unstattedFolder: true, options: options, visited: &visited, stats: stats, visitor: &visitor)
            case let .folder(path, id?):
                if options.followSymlinks {
                    try walk(rootFD: rootFD, relative: path, options: options, visited: &visited, stats: stats, visitor: &visitor)
                } else {
                    // An ancestor while it is walked, then forgotten.
                    visited.insert(id)
                    defer { visited.remove(id) }
                    try walk(rootFD: rootFD, relative: path, options: options, visited: &visited, stats: stats, visitor: &visitor)
                }
            }
        }
    }
}

extension Scanner {
    /// The same walk, its system calls (getdents, fstatat) and sorting on a thread of its own
    /// while the calling thread gives its events to `visitor`: a nightly run over a large share
    /// merges the walk with the known files (SQLite, `Survey`) on one core while the other
    /// walks, instead of one after the other. At most `WalkForwarder.queued` batches of events
    /// wait, so memory stays small however large the tree. An error thrown by `visitor` stops
    /// the walk; the walk's own errors are rethrown here.
    static func walkAside<V: WalkVisitor>(root: String, options: ScanOptions = ScanOptions(), visitor: inout V) throws {
        let queue = BoundedQueue<[WalkEvent]>(capacity: WalkForwarder.queued)
        // One frame per folder level: deep trees need a main thread's stack.
        let walker = WorkerThread<Error?>(name: "walk", stackSize: 8 << 20) {
            var forward = WalkForwarder(queue: queue)
            defer { queue.close() }
            do {
                try walk(root: root, options: options, visitor: &forward)
                forward.flush()
                return nil
            } catch {
                return error
            }
        }
        // The visitor is done or gave up: the walk stops at its next batch, and has left
        // before this returns.
        defer {
            queue.abandon()
            walker.join()
        }
        while let batch = queue.take() {
            for event in batch {
                switch event {
                case let .enter(relative): try visitor.enterFolder(relative)
                case let .file(entry): try visitor.file(entry)
                case let .leave(relative): try visitor.leaveFolder(relative)
                case let .unseen(relative, problem): try visitor.unseen(relative, problem: problem)
                }
            }
        }
        if let error = walker.join() { throw error }
    }
}

private enum WalkEvent: Sendable {
    case enter([UInt8])
    case file(FileEntry)
    case leave([UInt8])
    case unseen([UInt8], String?)
}

/// The visitor on the walking thread: events go to the queue a batch at a time.
private struct WalkForwarder: WalkVisitor {
    /// Events handed over at once, and batches that may wait.
    static let batch = 512, queued = 64
    struct Stopped: Error {}
    let queue: BoundedQueue<[WalkEvent]>
    var pending: [WalkEvent] = []

    init(queue: BoundedQueue<[WalkEvent]>) {
        self.queue = queue
        pending.reserveCapacity(Self.batch)
    }

    private mutating func add(_ event: WalkEvent) throws {
        pending.append(event)
        if pending.count >= Self.batch {
            guard queue.put(pending) else { throw Stopped() }
            pending.removeAll(keepingCapacity: true)
        }
    }

    mutating func flush() {
        if !pending.isEmpty { _ = queue.put(pending) }
        pending = []
    }

    mutating func enterFolder(_ relative: [UInt8]) throws { try add(.enter(relative)) }
    mutating func file(_ entry: FileEntry) throws { try add(.file(entry)) }
    mutating func leaveFolder(_ relative: [UInt8]) throws { try add(.leave(relative)) }
    mutating func unseen(_ relative: [UInt8], problem: String?) throws { try add(.unseen(relative, problem)) }
}
