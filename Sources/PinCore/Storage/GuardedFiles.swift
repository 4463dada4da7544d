import Foundation

/// The files of the pins database this process uses, which no output file may be (issue 40,
/// item 2: `export --out pins.sqlite`, `report --out`, `import-places --report` or a link to
/// the database replaced it atomically with a CSV: every pin gone, exit 0). The database's
/// path is guarded as soon as a command knows it, with its `-wal`, `-shm`, `-journal` and
/// `.lock` companions; the one atomic writer (PinReport's `AtomicFile`) asks `match` before it
/// writes anything.
///
/// A candidate is one of them when it is the same file (device and inode: through symbolic
/// and hard links), or, for a file that does not exist yet (a `-wal` before the first write),
/// when its name in its folder, the folder's links resolved, is one of theirs.
public enum GuardedFiles {
    /// What follows the database's path in the name of each file SQLite and pins keep beside it.
    static let companions = ["", "-wal", "-shm", "-journal", ".lock"]

    private static let lock = NSLock()
    nonisolated(unsafe) private static var databases: [String] = []

    /// Guards the database at `path` (and its companions) for the rest of the process.
    public static func guardDatabase(at path: String) {
        guard !path.isEmpty else { return }
        lock.lock()
        defer { lock.unlock() }
        if !databases.contains(path) { databases.append(path) }
    }

    /// The guarded file `candidate` is (as its guarded path names it), nil when it is none.
    public static func match(_ candidate: [UInt8]) -> String? {
        lock.lock()
        let guarded = databases
        lock.unlock()
        guard !guarded.isEmpty else { return nil }
        let candidateStat = status(candidate)
        let candidateName = canonicalName(candidate)
        for database in guarded {
            for suffix in companions {
                let path = database + suffix
                let bytes = Array(path.utf8)
                if let a = candidateStat, let b = status(bytes), a.st_dev == b.st_dev, a.st_ino == b.st_ino { return path }
                if let name = candidateName, name == canonicalName(bytes) { return path }
            }
        }
        return nil
    }

    /// stat(2) of `path` (links followed), nil when it fails.
    private static func status(_ path: [UInt8]) -> stat? {
        var st = stat()
        return (path + [0]).withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { stat($0.baseAddress!, &st) }
        } == 0 ? st : nil
    }

    /// The path's folder with every link resolved (realpath(3)), then its last name; nil when
    /// the folder cannot be resolved.
    private static func canonicalName(_ path: [UInt8]) -> [UInt8]? {
        let slash = path.lastIndex(of: UInt8(ascii: "/"))
        let folder: [UInt8] = slash.map { $0 == 0 ? [UInt8(ascii: "/")] : Array(path[..<$0]) } ?? [UInt8(ascii: ".")]
        let name = slash.map { Array(path[($0 + 1)...]) } ?? path
        guard let resolved = (folder + [0]).withUnsafeBufferPointer({ p in
            p.withMemoryRebound(to: CChar.self) { realpath($0.baseAddress!, nil) }
        }) else { return nil }
        defer { free(resolved) }
        var bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(resolved).assumingMemoryBound(to: UInt8.self), count: strlen(resolved)))
        if bytes.last != UInt8(ascii: "/") { bytes.append(UInt8(ascii: "/")) }
        return bytes + name
    }
}
