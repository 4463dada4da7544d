import CSQLite
import CSupport
import Foundation
import PinCore

/// SQLite's "transient" destructor: SQLite copies bound text/blobs before the call returns.
let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

// Extended result codes (sqlite3.h builds them with macros Swift does not import).
let SQLITE_READONLY_DBMOVED = SQLITE_READONLY | (4 << 8)
let SQLITE_READONLY_DIRECTORY = SQLITE_READONLY | (6 << 8)
let SQLITE_CONSTRAINT_PRIMARYKEY = SQLITE_CONSTRAINT | (6 << 8)

/// What SQLite said, as it said it: the cause kept inside a `StorageError`, for tests and bug
/// reports. Users see the StorageError's words, not this.
public struct SQLiteError: Error, CustomStringConvertible, Equatable {
    /// The extended result code (e.g. 1544, SQLITE_READONLY_DIRECTORY).
    public let code: Int32
    public let message: String
    let sql: String?
    /// errno of the system call that failed (sqlite3_system_errno), 0 when none did: tells a
    /// full disk (ENOSPC) among SQLite's I/O errors.
    var systemErrno: Int32 = 0

    public var description: String {
        if let sql { return "SQLite error \(code): \(message) (in: \(sql))" }
        return "SQLite error \(code): \(message)"
    }
}

/// A storage failure in words: what pins was doing, on which file, and why, e.g. "cannot write
/// to /data/pins.sqlite: the disk is full". The SQLite code it came from is kept as `cause`.
public struct StorageError: ExitStatusError, Equatable {
    /// 75 (try later) when another writer or a repair held the file past the wait; else 1.
    public var exitStatus: Int32 { reason == .busy || reason == .repairing ? ExitCode.busy : ExitCode.failure }

    public enum Action: String, Sendable {
        case open = "open"
        case read = "read"
        case write = "write to"
    }

    public enum Reason: Equatable, Sendable {
        case diskFull
        case readOnlyFile
        /// SQLite must create the -wal and -shm files next to the database.
        case readOnlyFolder
        case permissionDenied
        case busy
        /// `pins check --repair` holds the file (for longer than a writer waits).
        case repairing
        /// What SQLite or its check found, when it says more than "malformed".
        case damaged(detail: String?)
        case notADatabase
        /// A SQLite database of another program (tables, but no pins schema).
        case notPins
        case cannotOpen
        case inputOutput
        case outOfMemory
        /// The file was deleted or replaced by another while open: writes go nowhere.
        case deleted
        /// A new record's id is already used by another (ids must be unique; nothing is overwritten).
        case idTaken(table: String, id: String)
        /// An update of a record that is not stored.
        case notStored(table: String, id: String)
        /// A column of a closed set (a decision, a run status, a time source) holds a value this
        /// version does not know: a newer pins wrote it, or the file was edited by hand.
        case unknownValue(column: String, value: String)
        /// Anything else: SQLite's own words.
        case other(String)
    }

    public let action: Action
    public let path: String
    public let reason: Reason
    public let cause: SQLiteError?

    public init(_ action: Action, path: String, reason: Reason, cause: SQLiteError? = nil) {
        self.action = action
        self.path = path
        self.reason = reason
        self.cause = cause
    }

    /// Classifies SQLite's result code `cause.code`.
    init(_ action: Action, path: String, cause: SQLiteError) {
        let reason: Reason
        switch cause.code & 0xFF {
        case SQLITE_FULL: reason = .diskFull
        case SQLITE_READONLY:
            switch cause.code {
            case SQLITE_READONLY_DIRECTORY: reason = .readOnlyFolder
            case SQLITE_READONLY_DBMOVED: reason = .deleted
            default: reason = .readOnlyFile
            }
        case SQLITE_PERM, SQLITE_AUTH: reason = .permissionDenied
        case SQLITE_BUSY, SQLITE_LOCKED: reason = .busy
        case SQLITE_CORRUPT: reason = .damaged(detail: nil)
        case SQLITE_NOTADB: reason = .notADatabase
        case SQLITE_CANTOPEN:
            // The -wal or -shm file could not be made: no block left for its folder entry.
            reason = Self.isOutOfSpace(cause, path: path) ? .diskFull : .cannotOpen
        case SQLITE_IOERR:
            // A write or an allocation of the WAL index (-shm) that found no free block.
            reason = Self.isOutOfSpace(cause, path: path) ? .diskFull : .inputOutput
        case SQLITE_NOMEM: reason = .outOfMemory
        default: reason = .other(cause.message)
        }
        self.init(action, path: path, reason: reason, cause: cause)
    }

    /// Space left below which a failed open or write is put down to a full disk: SQLite's WAL
    /// index alone takes 32 KiB, a transaction's WAL frames more.
    static let fullDiskMargin: UInt64 = 1 << 20

    /// ENOSPC or EDQUOT; or, when SQLite kept another errno or none (a failed mmap of the
    /// -shm, a short write, an open that gave up after the first error), a file system with
    /// less than `fullDiskMargin` or no inode left for this user in the database's folder.
    /// Without the second test the same full disk was "cannot be opened" on one run and "the
    /// disk is full" on the next, depending on which call found no block first.
    static func isOutOfSpace(_ cause: SQLiteError, path: String) -> Bool {
        if cause.systemErrno == ENOSPC || cause.systemErrno == EDQUOT { return true }
        // An errno that names another cause is that cause, full disk or not. Not ENOENT: when
        // SQLite cannot create the -wal or -shm (ENOSPC) it tries to open it read-only, and
        // keeps that attempt's ENOENT (seen in FullDiskTests at 0 blocks free).
        if [EACCES, EPERM, EROFS, ENOTDIR, EISDIR, ELOOP, ENAMETOOLONG].contains(cause.systemErrno) { return false }
        let folder: String
        if let slash = path.lastIndex(of: "/") {
            folder = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            folder = "."
        }
        var fs = statvfs()
        guard statvfs(folder, &fs) == 0 else { return false }
        let root = getuid() == 0  // root may use the blocks and inodes kept back for it
        let blocks = UInt64(root ? fs.f_bfree : fs.f_bavail), inodes = UInt64(root ? fs.f_ffree : fs.f_favail)
        return blocks * UInt64(fs.f_frsize) < fullDiskMargin || (fs.f_files > 0 && inodes == 0)
    }

    public var description: String {
        let words: String
        switch reason {
        case .diskFull: words = "the disk is full"
        case .readOnlyFile: words = "the file is read-only"
        case .readOnlyFolder: words = "its folder is not writable (SQLite keeps its journal files beside the database)"
        case .permissionDenied: words = "permission denied"
        case .busy: words = "another program kept the database locked for more than 5 seconds; try again later"
        case .repairing: words = "'pins check --repair' is repairing it; nothing was changed, try again when it has finished"
        case let .damaged(detail):
            words = "the file is damaged" + (detail.map { " (\($0))" } ?? "") + "; " + Self.repairAdvice(path)
        case .notADatabase:
            words = "the file is not a SQLite database, or its first page is damaged; if it held your pins, " + Self.repairAdvice(path)
        case .notPins: words = "the file is another program's SQLite database, not a pins database; give pins a file of its own"
        case .cannotOpen: words = "the file or its folder cannot be opened (missing, or no permission)"
        case .inputOutput: words = "the disk reported an input/output error"
        case .outOfMemory: words = "out of memory"
        case .deleted:
            words = "the file was deleted or replaced while pins was using it; what this run wrote is lost with it"
        case let .idTaken(table, id): words = "the new id \(id) is already used in \(table); nothing was overwritten"
        case let .notStored(table, id): words = "there is no record \(id) in \(table)"
        case let .unknownValue(column, value):
            words = "\(column) '\(value)' is not one this version of pins knows (written by a newer version, or edited by hand)"
        case let .other(message): words = message + (cause.map { " (SQLite code \($0.code))" } ?? "")
        }
        return "cannot \(action.rawValue) \(path): \(words)"
    }

    static func repairAdvice(_ path: String) -> String {
        "'pins check --repair --db \(path)' saves what can be read into a new file and keeps this one"
    }
}

extension StorageError.Reason {
    /// The file's content is broken (as opposed to the disk, a lock or permissions).
    var isDamage: Bool {
        switch self {
        case .damaged, .notADatabase: return true
        default: return false
        }
    }
}

/// A value to bind or read. All SQL in pins binds its parameters; none is built from data.
enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

protocol SQLBindable { var sqlValue: SQLValue { get } }
extension Int: SQLBindable { var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int64: SQLBindable { var sqlValue: SQLValue { .integer(self) } }
extension Double: SQLBindable { var sqlValue: SQLValue { .real(self) } }
extension String: SQLBindable { var sqlValue: SQLValue { .text(self) } }
extension Bool: SQLBindable { var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension SQLValue: SQLBindable { var sqlValue: SQLValue { self } }
extension Optional: SQLBindable where Wrapped: SQLBindable {
    var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

/// One open database file. Not shared between threads: each task that needs the database opens
/// its own connection (the importer has one writer).
final class Connection {
    let handle: OpaquePointer
    let path: String
    /// A private scratch database (`init(scratchCacheKiB:)`): its file has no name.
    private var isScratch = false
    private var statementCache: [String: Statement] = [:]
    /// `prepare(_:readingAsNull:)`'s statements, with the reads each was compiled to ignore.
    private var trimmedStatementCache: [String: (reads: Set<TriggerRead>, statement: Statement)] = [:]
    /// What the authorizer tells SQLite to read as NULL (`run(_:_:readingAsNull:)`).
    private let triggerReads = TriggerReads()
    /// Pins' rowids by id as write transactions looked them up (`pinRow`): each
    /// photo record saved names its pin (`photos.pin`), and a batch of 500 names a few pins, so
    /// one lookup each instead of one a record (a subquery per record was 3 µs of the import's
    /// CPU a photo). Filled only inside `transaction`; kept from one committed write
    /// transaction to the next while no other connection committed in between (`PRAGMA
    /// data_version`, `pinRowsVersion`): an import's batches link most photos to pins an
    /// earlier batch made (5,493 lookups fewer in a 100,000-file import). Emptied when a write
    /// fails, so a rollback that takes back a pin takes its entry too; a delete drops its
    /// pin's (`forgetPinRow`).
    private var pinRows: [UUID: Int64] = [:]
    /// `PRAGMA data_version` as the last committed write transaction began (nil: none, or it
    /// failed): the same value at the next one, and no other connection changed the file since.
    private var pinRowsVersion: Int64?
    /// The last of them `pinRow` gave, kept and emptied with them: consecutive records mostly
    /// name the same pin (a burst of photos at one place, linked to it), and comparing an id
    /// costs less than hashing it for the table.
    private var lastPinRow: (id: UUID, row: Int64)?
    private var inWriteTransaction = false
    /// In a write that names the pins of the photo rows it inserts itself (`PinChangeLog.hold`,
    /// schema 24): the largest photo rowid as it began. Rows above it are named as the write
    /// ends; nil in any other write and outside one.
    var photoInsertsNamedAbove: Int64?
    /// Write transactions that began after another connection had committed since this one's
    /// previous write began (`PRAGMA data_version` changed in between): equal counts at two of
    /// this connection's writes, and no other writer changed the file between them.
    private(set) var writesAfterOthers = 0
    /// `PRAGMA data_version` as this connection's last write transaction began.
    private var versionAtLastWrite: Int64?
    /// The migrated copy this connection reads (`init(readingCopy:)`): its bytes live as long.
    private(set) var sharedCopy: MigratedCopy?

    /// Opens (creating when `create`) the file; `readOnly` never writes a byte.
    init(path: String, readOnly: Bool = false, create: Bool = true) throws {
        var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        flags |= SQLITE_OPEN_NOMUTEX
        self.handle = try Self.open(path, flags: flags, displayPath: path)
        self.path = path
        triggerReads.install(on: handle)
        // Wait for a concurrent writer rather than failing at once (the run lock keeps
        // importers apart; this covers `pins add` during an import).
        sqlite3_busy_timeout(handle, 5_000)
        do {
            try execute("PRAGMA foreign_keys = ON")
            if !readOnly {
                try execute("PRAGMA journal_mode = WAL")
                // WAL + NORMAL: a crash loses at most the last transactions, never consistency.
                try execute("PRAGMA synchronous = NORMAL")
            }
        } catch let error as StorageError {
            throw StorageError(.open, path: path, reason: error.reason, cause: error.cause)
        }
    }

    /// Opens a read-only `file:` URI (used with `immutable=1` for dry runs).
    init(uriReadOnly uri: String, displayPath: String) throws {
        self.handle = try Self.open(uri, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                                    displayPath: displayPath)
        self.path = displayPath
    }

    /// A private scratch database: SQLite's temporary file, in `SQLITE_TMPDIR`, else `TMPDIR`,
    /// else /var/tmp, /usr/tmp, /tmp. SQLite makes it only when the pages outgrow the cache
    /// (`cacheKiB`), and unlinks it as soon as it has opened it: nothing is left behind, however
    /// the process ends. No journal and no syncs: it is thrown away with the connection.
    init(scratchCacheKiB cacheKiB: Int) throws {
        // The folder SQLite takes (unixTempFileDir): the first of these that is a folder it can write.
        let environment = ProcessInfo.processInfo.environment
        let folder = ([environment["SQLITE_TMPDIR"], environment["TMPDIR"]].compactMap { $0 } + ["/var/tmp", "/usr/tmp", "/tmp", "."])
            .first { folder in
                var info = stat()
                return stat(folder, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR && access(folder, W_OK | X_OK) == 0
            } ?? "."
        let name = "a scratch database in \(folder) (TMPDIR chooses the folder)"
        self.handle = try Self.open("", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, displayPath: name)
        self.path = name
        isScratch = true
        try execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -\(max(64, cacheKiB))")
    }

    /// A private in-memory database holding a copy of `source` (sqlite3_backup): read commands
    /// migrate an older file's copy, never the file.
    init(inMemoryCopyOf source: Connection) throws {
        self.handle = try Self.open(":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, displayPath: source.path)
        self.path = source.path
        guard let backup = sqlite3_backup_init(handle, "main", source.handle, "main") else {
            throw error(sqlite3_extended_errcode(handle), nil)
        }
        let rc = sqlite3_backup_step(backup, -1)
        sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE else { throw source.storageError(SQLiteError(code: rc, message: String(cString: sqlite3_errstr(rc)), sql: nil)) }
        try execute("PRAGMA foreign_keys = ON")
    }

    /// A read-only connection to `copy`'s bytes, shared with its other readers, not copied
    /// (sqlite3_deserialize, read-only, freed by `copy` and not by SQLite).
    init(readingCopy copy: MigratedCopy, displayPath: String) throws {
        self.handle = try Self.open(":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, displayPath: displayPath)
        self.path = displayPath
        sharedCopy = copy
        let rc = sqlite3_deserialize(handle, "main", copy.bytes, copy.count, copy.count, UInt32(SQLITE_DESERIALIZE_READONLY))
        guard rc == SQLITE_OK else { throw error(rc, nil) }
    }

    /// A statement's journal (the pages it changes that its transaction had changed already, so
    /// that the statement alone can be undone) stays in memory up to this size, then goes to a
    /// temporary file in /var/tmp until the transaction ends. SQLite's default, 64 KiB (16
    /// pages), was outgrown at nearly every batch of an import (a pin made, a page split), and
    /// from then on each photo record's upsert wrote its pages to that file: 163,353 page writes
    /// in a 100,000-file import with photo links, 76,490 without (strace of
    /// scripts/bench-photo-links' import), the most of what linking photos cost it. 4 MiB (1,024
    /// pages) holds any statement of a batch; one that changes more (a migration's UPDATE of
    /// every photo) still spills, so memory stays bounded. Set before SQLite initializes: the
    /// first open, before `SharedMemoryAllocation` (whose VFS lookup initializes it).
    static let statementJournalSpill: Bool = pins_statement_journal_spill(statementJournalSpillBytes) == SQLITE_OK
    static let statementJournalSpillBytes: Int32 = 4 << 20

    /// SQLite's memory comes from glibc's malloc as before, but the few large blocks it frees
    /// (1 to 16 MiB, at most two) are kept for its next large request. The statement journal
    /// takes one chunk of `statementJournalSpillBytes` at a statement's first journaled page
    /// and frees it at the statement's end, and every photo upsert of an import journals (an upsert may
    /// have to be undone alone: with the triggers on `photos` dropped it still did); with glibc's
    /// mmap threshold fixed at 128 KiB (`MallocTuning`) each chunk was an mmap, a page fault
    /// per page written and a munmap: 117,282 of them in a 100,000-file import (strace of
    /// scripts/bench-photo-links' import), with photo links the more pages each. Set before
    /// SQLite initializes, like the spill.
    static let memoryMethods: Bool = {
        var methods = sqlite3_mem_methods(xMalloc: pins_sqlite_malloc, xFree: pins_sqlite_free, xRealloc: pins_sqlite_realloc,
                                          xSize: pins_sqlite_size, xRoundup: pins_sqlite_roundup, xInit: pins_sqlite_init,
                                          xShutdown: pins_sqlite_shutdown, pAppData: nil)
        return pins_sqlite_memory_methods(&methods) == SQLITE_OK
    }()

    /// SQLite counts no memory (SQLITE_CONFIG_MEMSTATUS off): the count took a process-wide
    /// mutex at every allocation, which `pins serve`'s threads waited on (perf of the served
    /// pin route: a fifth of its samples in futex waits); pins reads no count. Set before SQLite
    /// initializes, like the memory methods.
    static let noMemoryStatus: Bool = pins_sqlite_no_memory_status() == SQLITE_OK

    private static func open(_ name: String, flags: Int32, displayPath: String) throws -> OpaquePointer {
        _ = memoryMethods
        _ = noMemoryStatus
        _ = statementJournalSpill
        _ = SharedMemoryAllocation.installed
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let code = db.map { sqlite3_extended_errcode($0) } ?? rc
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            let systemErrno = db.map { sqlite3_system_errno($0) } ?? 0
            if let db { sqlite3_close_v2(db) }
            throw StorageError(.open, path: displayPath, cause: SQLiteError(code: code, message: message, sql: nil, systemErrno: systemErrno))
        }
        sqlite3_extended_result_codes(db, 1)
        return db
    }

    deinit {
        statementCache.removeAll()
        trimmedStatementCache.removeAll()
        sqlite3_set_authorizer(handle, nil, nil)
        let deleted = fileWasMoved && access(path, F_OK) != 0
        sqlite3_close_v2(handle)
        // SQLite keeps the -wal and -shm of a database unlinked while open. Left at the path they
        // would be replayed into the next file put there (a restored backup): corruption.
        if deleted && access(path, F_OK) != 0 {
            unlink(path + "-wal")
            unlink(path + "-shm")
        }
    }

    func error(_ rc: Int32, _ sql: String?) -> StorageError {
        storageError(SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)), sql: sql,
                                 systemErrno: sqlite3_system_errno(handle)))
    }

    /// In words, with what the statement was doing: a query reads, anything else writes.
    func storageError(_ cause: SQLiteError) -> StorageError {
        let reads = cause.sql.map { $0.hasPrefix("SELECT") || $0.hasPrefix("PRAGMA") || $0.hasPrefix("BEGIN DEFERRED") } ?? false
        // Whatever SQLite says (often an I/O error), a file deleted under it is the news.
        if fileWasMoved { return StorageError(reads ? .read : .write, path: path, reason: .deleted, cause: cause) }
        return StorageError(reads ? .read : .write, path: path, cause: cause)
    }

    /// True when the file at `path` is no longer the one this connection has open: deleted
    /// (unlinked) or replaced by another file (SQLite compares the inode, SQLITE_FCNTL_HAS_MOVED).
    var fileWasMoved: Bool {
        guard !isScratch else { return false }
        var moved: Int32 = 0
        let rc = sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved)
        return rc == SQLITE_OK && moved != 0
    }

    /// Runs SQL without parameters (schema, pragmas); may hold several statements.
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "error"
            sqlite3_free(message)
            throw storageError(SQLiteError(code: sqlite3_extended_errcode(handle), message: text, sql: sql,
                                           systemErrno: sqlite3_system_errno(handle)))
        }
    }

    /// A prepared statement, cached per SQL text.
    func prepare(_ sql: String) throws -> Statement {
        if let cached = statementCache[sql] {
            cached.reset()
            return cached
        }
        let statement = try self.statement(sql)
        statementCache[sql] = statement
        return statement
    }

    /// `prepare`, compiled while the authorizer ignores `reads` (`run(_:_:readingAsNull:)`).
    /// Cached apart from `prepare`'s.
    private func prepare(_ sql: String, readingAsNull reads: Set<TriggerRead>) throws -> Statement {
        if let cached = trimmedStatementCache[sql], cached.reads == reads {
            cached.statement.reset()
            return cached.statement
        }
        let statement = try self.statement(sql)
        trimmedStatementCache[sql] = (reads, statement)
        return statement
    }

    /// A prepared statement of its own, not cached: for a query read step by step while other
    /// statements run on the connection (a cached one is reset by the next `prepare` of its SQL).
    func statement(_ sql: String) throws -> Statement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc, sql) }
        return Statement(stmt, connection: self, sql: sql)
    }

    /// Runs one statement with bound parameters; returns the number of changed rows.
    @discardableResult
    func run(_ sql: String, _ values: [SQLBindable] = []) throws -> Int {
        let statement = try prepare(sql)
        try statement.bind(values)
        while try statement.step() {}
        return changes
    }

    /// `run`, with the statement compiled so that its trigger programs read `reads` as NULL:
    /// SQLite asks the connection's authorizer (`TriggerReads`) about each column a statement
    /// reads as it compiles it, naming the trigger that reads it, and reads a column it is told
    /// to ignore (SQLITE_IGNORE) as NULL. The authorizer answers so only while this runs, so
    /// also when SQLite compiles the statement again by itself in its step (after a schema
    /// change); every other statement, and every other connection, runs the triggers whole.
    /// (The authorizer is set once, as a connection to a file opens, `init(path:)`: setting one
    /// expires every statement prepared, which SQLite then compiles again without it. On any
    /// other connection this is `run`.)
    @discardableResult
    func run(_ sql: String, _ values: [SQLBindable], readingAsNull reads: Set<TriggerRead>) throws -> Int {
        triggerReads.ignored = reads
        defer { triggerReads.ignored = [] }
        let statement = try prepare(sql, readingAsNull: reads)
        try statement.bind(values)
        while try statement.step() {}
        return changes
    }

    /// Rows of a query, each mapped by `row`; `capacity`: about how many rows, taken at once.
    func query<T>(_ sql: String, _ values: [SQLBindable] = [], capacity: Int = 0, _ row: (Statement) throws -> T) throws -> [T] {
        let statement = try prepare(sql)
        try statement.bind(values)
        var out: [T] = []
        out.reserveCapacity(capacity)
        while try statement.step() { out.append(try row(statement)) }
        return out
    }

    func scalarInt(_ sql: String, _ values: [SQLBindable] = []) throws -> Int64? {
        try query(sql, values) { $0.isNull(0) ? nil : $0.int64(0) }.first ?? nil
    }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The most parameters one statement may have (SQLITE_LIMIT_VARIABLE_NUMBER).
    var variableLimit: Int32 { sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1) }

    /// The rowid of pin `id` (nil: not stored), from the lookups of this write transaction and
    /// the committed ones before it when it made one (see `pinRows`).
    func pinRow(_ id: UUID) throws -> Int64? {
        if inWriteTransaction {
            if let last = lastPinRow, last.id == id { return last.row }
            if let row = pinRows[id] {
                lastPinRow = (id, row)
                return row
            }
        }
        guard let row = try scalarInt("SELECT rowid FROM locations WHERE id = ?", [id.lowercasedText]) else { return nil }
        if inWriteTransaction { (pinRows[id], lastPinRow) = (row, (id, row)) }
        return row
    }

    /// A pin deleted: its rowid may be a new pin's next (SQLite reuses the largest).
    func forgetPinRow(_ id: UUID) {
        pinRows[id] = nil
        if lastPinRow?.id == id { lastPinRow = nil }
    }
    /// Rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// How many times SQLite wrote changed pages out before a commit because its page cache
    /// was full (a cache spill), since the connection opened.
    var cacheSpills: Int {
        var current: Int32 = 0, highest: Int32 = 0
        sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_SPILL, &current, &highest, 0)
        return Int(current)
    }

    /// Runs `body` in one transaction: BEGIN IMMEDIATE takes the write lock up front (no
    /// deadlock upgrading a read), COMMIT on return, ROLLBACK on any error.
    ///
    /// Before and after each COMMIT the file is checked to still be the one at `path`: a
    /// database deleted or replaced during a run would otherwise take every later write with it
    /// while the run reports success.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        var committed = false
        defer {
            inWriteTransaction = false
            photoInsertsNamedAbove = nil
            if !committed { forgetPinRows() }
        }
        do {
            let version = try scalarInt("PRAGMA data_version")
            if version == nil || version != pinRowsVersion { forgetPinRows() }
            if versionAtLastWrite != nil, version == nil || version != versionAtLastWrite { writesAfterOthers += 1 }
            versionAtLastWrite = version
            inWriteTransaction = true
            let result = try body()
            try ensureNotMoved()
            try execute("COMMIT")
            committed = true
            pinRowsVersion = version
            try ensureNotMoved()
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Empties the pins' rowids `pinRow` keeps.
    private func forgetPinRows() {
        pinRows.removeAll(keepingCapacity: true)
        lastPinRow = nil
        pinRowsVersion = nil
    }

    /// Throws `.deleted` when the open file is no longer the one at `path`.
    func ensureNotMoved() throws {
        if fileWasMoved { throw StorageError(.write, path: path, reason: .deleted) }
    }

    /// A read-only snapshot.
    func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN DEFERRED")
        defer { try? execute("COMMIT") }
        return try body()
    }
}

/// A prepared statement; columns are read by index.
final class Statement {
    let stmt: OpaquePointer
    unowned let connection: Connection
    let sql: String

    init(_ stmt: OpaquePointer, connection: Connection, sql: String) {
        self.stmt = stmt
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(stmt) }

    /// Ready to be bound and run again (a statement of `Connection.statement`; `prepare` does it).
    func reset() {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
    }

    func bind(_ values: [SQLBindable]) throws {
        guard values.count == Int(sqlite3_bind_parameter_count(stmt)) else {
            throw connection.storageError(SQLiteError(code: SQLITE_RANGE, message: "expected \(sqlite3_bind_parameter_count(stmt)) parameters, got \(values.count)", sql: sql))
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value.sqlValue {
            case .null: rc = sqlite3_bind_null(stmt, index)
            case let .integer(v): rc = sqlite3_bind_int64(stmt, index, v)
            case let .real(v): rc = sqlite3_bind_double(stmt, index, v)
            // With its byte count, not -1: SQLite then stores a text whole, past any NUL in it
            // (-1 ended it at the first NUL, and a digest so cut never compared equal again).
            case let .text(v): rc = sqlite3_bind_text(stmt, index, v, Int32(clamping: v.utf8.count), SQLITE_TRANSIENT)
            case let .blob(v):
                rc = v.withUnsafeBytes { sqlite3_bind_blob(stmt, index, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
            }
            guard rc == SQLITE_OK else { throw connection.error(rc, sql) }
        }
    }

    /// True while there is a row.
    func step() throws -> Bool {
        let rc = sqlite3_step(stmt)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            // A failed step leaves the statement needing a reset before its next use.
            let error = connection.error(rc, sql)
            sqlite3_reset(stmt)
            throw error
        }
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(stmt, column) == SQLITE_NULL }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(stmt, column) }
    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(stmt, column)) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(stmt, column) }
    func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
    /// A TEXT column whole, by its byte count (a NUL inside does not end it).
    func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(stmt, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(stmt, column))), as: UTF8.self)
    }
    func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }
    /// A TEXT column holding a UUID in its 36-character form, parsed from its bytes (either
    /// case); nil when it is not one. Foundation's `UUID(uuidString:)` goes through sscanf, a
    /// tenth of reading 100,000 pins.
    func uuid(_ column: Int32) -> UUID? {
        withText(column) { text -> UUID? in
            guard text.count == 36 else { return nil }
            var bytes = [UInt8](repeating: 0, count: 16)
            var at = 0
            for (i, c) in text.enumerated() {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard c == UInt8(ascii: "-") else { return nil }
                    continue
                }
                let v: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
                default: return nil
                }
                bytes[at >> 1] |= at & 1 == 0 ? v << 4 : v
                at += 1
            }
            return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
    }
    /// The row's columns (a count of the statement, fixed once prepared).
    var columnCount: Int32 { sqlite3_column_count(stmt) }

    /// A column's value into `hasher` as it is stored, without making a value of it: its type,
    /// then an integer, a double's bits, or a text's or blob's bytes with their count.
    func hash(_ column: Int32, into hasher: inout Hasher) {
        let type = sqlite3_column_type(stmt, column)
        hasher.combine(type)
        switch type {
        case SQLITE_INTEGER: hasher.combine(sqlite3_column_int64(stmt, column))
        case SQLITE_FLOAT: hasher.combine(sqlite3_column_double(stmt, column).bitPattern)
        case SQLITE_TEXT: withText(column) { hasher.combine($0.count); hasher.combine(bytes: $0) }
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(stmt, column))
            hasher.combine(count)
            if let blob = sqlite3_column_blob(stmt, column) { hasher.combine(bytes: UnsafeRawBufferPointer(start: blob, count: count)) }
        default: break
        }
    }

    /// A TEXT column's bytes as `string` reads them, without making a string.
    func withText<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        guard let text = sqlite3_column_text(stmt, column) else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(stmt, column))))
    }
    /// A column holding one of a closed set of values (stored as their raw values); a value
    /// outside the set is a read error naming the column and the value.
    func value<T: RawRepresentable>(_ column: Int32, as type: T.Type) throws -> T where T.RawValue == String {
        let text = string(column)
        guard let value = T(rawValue: text) else {
            let name = sqlite3_column_name(stmt, column).map { String(cString: $0) } ?? "column \(column)"
            throw StorageError(.read, path: connection.path, reason: .unknownValue(column: name, value: text))
        }
        return value
    }
    func optionalValue<T: RawRepresentable>(_ column: Int32, as type: T.Type) throws -> T? where T.RawValue == String {
        isNull(column) ? nil : try value(column, as: type)
    }
    /// A column as stored, whatever its type.
    func value(_ column: Int32) -> SQLValue {
        switch sqlite3_column_type(stmt, column) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(int64(column))
        case SQLITE_FLOAT: return .real(double(column))
        case SQLITE_BLOB: return .blob(blob(column))
        default: return .text(string(column))
        }
    }

    /// The bytes of a BLOB column, without the first `skip` (a prefix every row shares).
    func blob(_ column: Int32, droppingFirst skip: Int = 0) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(stmt, column))
        guard count > skip, let pointer = sqlite3_column_blob(stmt, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer + skip, count: count - skip))
    }
}

/// The WAL index (the -shm file beside the database) without holes, so that no command dies of
/// SIGBUS on a full disk.
///
/// SQLite's unix VFS grows the -shm file 32 KiB at a time (`unixShmMap`) by writing one byte at
/// the end of each 4 KiB page, then maps it with mmap(MAP_SHARED) and reads and writes it as
/// memory. On a file system whose blocks are smaller than 4 KiB (ext4 `-b 1024`), that one byte
/// allocates only the page's last block: the others stay holes. When SQLite then writes into a
/// hole through the mapping, the kernel must allocate a block at the page fault; on a full disk
/// it cannot, and the process gets SIGBUS instead of an error. The first connection also
/// truncates the -shm (to 3 bytes) and grows it again, so every later command crashed the
/// same way until the disk had room again.
///
/// The fix is SQLite's own system-call hook (`xSetSystemCall`, "mmap"): before a shared,
/// writable mapping is made, its whole range of the file is allocated with fallocate(2)
/// (FALLOC_FL_KEEP_SIZE: no byte and not the size change; blocks already there stay as they
/// are). On any block size every page SQLite maps then has its blocks; when they cannot be had,
/// the mmap fails with ENOSPC, SQLite returns SQLITE_IOERR_SHMMAP, and the command says "the
/// disk is full" and exits 1 with the database as it was. Readers in other processes are
/// unaffected: the -shm stays a shared, mapped file (unlike `locking_mode=EXCLUSIVE`, which
/// would keep the index in heap memory and lock every other reader out during an import). A
/// file system without fallocate (EOPNOTSUPP) is left as SQLite leaves it.
enum SharedMemoryAllocation {
    typealias Map = @convention(c) (UnsafeMutableRawPointer?, Int, Int32, Int32, Int32, Int) -> UnsafeMutableRawPointer?

    /// The VFS's own mmap, called once the blocks are there. Set once, before the first open.
    nonisolated(unsafe) static var systemMap: Map?

    /// True once the hook is in place (done before the first connection opens).
    static let installed: Bool = {
        guard let vfs = sqlite3_vfs_find(nil), let get = vfs.pointee.xGetSystemCall, let set = vfs.pointee.xSetSystemCall,
              let current = get(vfs, "mmap") else { return false }
        systemMap = unsafeBitCast(current, to: Map.self)
        let hook: Map = { address, length, protection, flags, fd, offset in
            if fd >= 0, protection & PROT_WRITE != 0, flags & MAP_SHARED != 0, !SharedMemoryAllocation.allocate(fd, offset, length) {
                return UnsafeMutableRawPointer(bitPattern: -1)
            }
            return SharedMemoryAllocation.systemMap?(address, length, protection, flags, fd, offset)
                ?? UnsafeMutableRawPointer(bitPattern: -1)
        }
        return set(vfs, "mmap", unsafeBitCast(hook, to: sqlite3_syscall_ptr.self)) == SQLITE_OK
    }()

    /// Allocates the blocks of `fd`'s range; false (errno set) when the disk has none left.
    static func allocate(_ fd: Int32, _ offset: Int, _ length: Int) -> Bool {
        while pins_allocate_blocks(fd, offset, length) != 0 {
            switch errno {
            case EINTR: continue
            case EOPNOTSUPP, ENOSYS, ENODEV, EINVAL: return true
            default: return false
            }
        }
        return true
    }
}

/// A column a trigger reads (`NEW.pin` in a trigger on `photos`: table "photos", column "pin"),
/// for `Connection.run(_:_:readingAsNull:)`.
struct TriggerRead: Hashable, Sendable {
    let trigger: String
    let table: String
    let column: String
}

/// The connection's authorizer: SQLITE_IGNORE (read as NULL) for the trigger reads in
/// `ignored`, which is empty but while `Connection.run(_:_:readingAsNull:)` runs.
private final class TriggerReads {
    var ignored: Set<TriggerRead> = []

    func install(on handle: OpaquePointer) {
        sqlite3_set_authorizer(handle, { context, action, table, column, _, trigger in
            guard action == SQLITE_READ, let context, let table, let column, let trigger else { return SQLITE_OK }
            let reads = Unmanaged<TriggerReads>.fromOpaque(context).takeUnretainedValue()
            guard !reads.ignored.isEmpty else { return SQLITE_OK }
            let read = TriggerRead(trigger: String(cString: trigger), table: String(cString: table), column: String(cString: column))
            return reads.ignored.contains(read) ? SQLITE_IGNORE : SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }
}
