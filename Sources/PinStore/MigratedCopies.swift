import CSQLite
import Foundation

/// A database file of an older schema, copied into memory and migrated there, as SQLite's bytes
/// of a database (`sqlite3_serialize`): what `PinDatabase(readOnlyPath:)` reads when the file
/// itself cannot be migrated (a read-only file or folder: `pins serve` then reads through it).
/// Readers share these bytes, read-only, without copying them (`Connection(readingCopy:)`); they
/// are freed when the last reader and the cache have let go of them.
final class MigratedCopy: @unchecked Sendable {
    /// Written once, before any reader has them; only read from then on.
    let bytes: UnsafeMutablePointer<UInt8>
    let count: Int64
    /// The file as it was before it was copied (nil: it could not be looked at).
    let source: SourceFileState?

    init(bytes: UnsafeMutablePointer<UInt8>, count: Int64, source: SourceFileState?) {
        self.bytes = bytes
        self.count = count
        self.source = source
    }

    deinit { sqlite3_free(bytes) }
}

/// What says a database file has not changed: the file's device, inode, size, modification
/// and change times (nanoseconds), and the same of its `-wal` (a writer's transactions sit in
/// the WAL, which a read-only open reads, until a checkpoint moves them into the file).
struct SourceFileState: Equatable, Sendable {
    private var file: [Int64]
    private var wal: [Int64]?

    /// The file at `path` as it is now; nil when it cannot be looked at.
    init?(path: String) {
        guard let file = Self.status(path) else { return nil }
        self.file = file
        wal = Self.status(path + "-wal")
    }

    private static func status(_ path: String) -> [Int64]? {
        var st = stat()
        guard path.withCString({ stat($0, &st) }) == 0 else { return nil }
        return [Int64(st.st_dev), Int64(st.st_ino), Int64(st.st_size), Int64(st.st_mtim.tv_sec), Int64(st.st_mtim.tv_nsec),
                Int64(st.st_ctim.tv_sec), Int64(st.st_ctim.tv_nsec)]
    }
}

/// The migrated copies of this process, one per database path: made once and read by every
/// reader while the file is unchanged (`SourceFileState`), made again when it changed. Before, each
/// open made its own (`pins serve`: a copy and a migration per request, the whole file each).
/// Only in memory: nothing is written to a temporary folder, and nothing is left after the
/// process, however it ends.
final class MigratedCopies: @unchecked Sendable {
    static let shared = MigratedCopies()

    private let lock = NSLock()
    private var copies: [String: MigratedCopy] = [:]
    private var madeCount = 0

    /// How many copies this process has made (tests).
    var made: Int { lock.withLock { madeCount } }

    /// A read-only connection to the migrated copy of the file at `path`, which `file` has open:
    /// the cached copy while the file is as it was, else a new one (the old one is dropped, and
    /// freed when its last reader closes). One copy is made at a time: a burst of readers waits
    /// for it instead of each making its own.
    func reader(of path: String, file: Connection) throws -> Connection {
        // Looked at before the copy is read: a change meanwhile makes the next reader copy again.
        let identity = SourceFileState(path: path)
        let copy: MigratedCopy = try lock.withLock {
            if let identity, let cached = copies[path], cached.source == identity { return cached }
            copies[path] = nil
            let copy = try Self.make(from: file, source: identity)
            madeCount += 1
            // A file that could not be looked at is copied for each reader, as before.
            if identity != nil { copies[path] = copy }
            return copy
        }
        return try Connection(readingCopy: copy, displayPath: file.path)
    }

    /// Drops the copy of the file at `path`, if any (it is freed when its last reader closes):
    /// the file is of the current schema now, migrated by a write, and read as it is.
    func forget(_ path: String) {
        lock.withLock { _ = copies.removeValue(forKey: path) }
    }

    /// `file` copied into memory, migrated there, and serialized.
    private static func make(from file: Connection, source: SourceFileState?) throws -> MigratedCopy {
        let memory = try Connection(inMemoryCopyOf: file)
        try Migrations.migrate(memory)
        var size: sqlite3_int64 = 0
        guard let bytes = sqlite3_serialize(memory.handle, "main", &size, 0) else {
            throw StorageError(.read, path: file.path, reason: .outOfMemory)
        }
        // The file's header says WAL (its write and read versions, bytes 18 and 19, are 2), which
        // a copy in memory cannot open: rollback journal (1), as SQLite's file format allows.
        if size >= 100 { (bytes[18], bytes[19]) = (1, 1) }
        return MigratedCopy(bytes: bytes, count: Int64(size), source: source)
    }
}
