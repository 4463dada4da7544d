import Foundation
import Synchronization
import PinCore

/// The pins database: one SQLite file, migrated on open, every write a transaction closure.
public final class PinDatabase: TransactionRunner {
    /// Internal: every query lives in PinStore (tests reach it through `@testable import`).
    let connection: Connection
    /// Held while open for writing: a repair waits for it, and it for a repair.
    private let gate: WriterGate?
    /// Opened for reading an older schema: the file's copy in memory, migrated there, shared by
    /// the readers of this process while the file is unchanged (`MigratedCopies`; its change
    /// log is the copy's own, not the file's).
    let readsACopy: Bool
    /// Whether the file's change log holds a write's changed pins until its end (schema 20,
    /// `PinChangeLog.heldSchema`); false for a file kept at an older schema (tests) or read only.
    private let holdsPinChanges: Bool
    /// Whether a write names the pins of the photo rows it inserts at its end, not through the
    /// photo insert triggers (schema 24, `PinChangeLog.writerNamesInsertsSchema`).
    private let namesPhotoInserts: Bool

    /// Opens or creates the file at `path` and brings its schema up to date.
    /// The parent folder is created when missing (the XDG default on a first run). An empty
    /// file (a zero-byte file left by a full disk or a kill during set-up) is initialised; a
    /// damaged file is refused before anything is written to it, with what to do.
    ///
    /// `checkedAlready`: the caller knows the file is as its own last write left it (`FileStamp`),
    /// checked then: the check of every table (`refuseDamaged`, 100 ms and more at 100,000 pins)
    /// is not made again.
    public init(path: String, migrateUpTo target: Int = Migrations.latestVersion, checkedAlready: Bool = false) throws {
        GuardedFiles.guardDatabase(at: path)
        let parent = PathParts.folder(of: path)
        if parent != ".", !FileManager.default.fileExists(atPath: parent) {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        let gate = try WriterGate(databasePath: path)
        let connection = try Connection(path: path)
        do {
            try Self.refuseForeignDatabase(connection)
            if !checkedAlready {
                try Self.refuseDamaged(connection)
                Self.checksOnOpen.add(1, ordering: .relaxed)
            }
            try Migrations.migrate(connection, upTo: target)
        } catch let error as StorageError {
            throw Self.diagnosed(error, connection)
        }
        self.connection = connection
        self.gate = gate
        readsACopy = false
        holdsPinChanges = try PinChangeLog.holds(connection)
        namesPhotoInserts = try PinChangeLog.namesInserts(connection)
    }

    /// Opens an existing file for reading only, without writing a byte to it and without
    /// leaving -wal/-shm files beside it when no writer is active: `immutable=1` when there is
    /// no WAL file (a cleanly closed database), a plain read-only open otherwise.
    ///
    /// A file whose schema is older than this pins (or empty: zero bytes) is copied into memory
    /// and migrated there, so reading it never writes to it; the copy is made once and read by
    /// every open of the file until the file changes (`MigratedCopies`).
    public init(readOnlyPath path: String) throws {
        GuardedFiles.guardDatabase(at: path)
        let file = try Self.openForReading(path)
        do {
            let version = try Migrations.currentVersion(of: file)
            if version == Migrations.latestVersion {
                MigratedCopies.shared.forget(path)
                connection = file
                gate = nil
                readsACopy = false
                holdsPinChanges = false
                namesPhotoInserts = false
                return
            }
            guard version < Migrations.latestVersion else {
                throw Migrations.MigrationError.newerSchema(found: version, known: Migrations.latestVersion, path: path)
            }
            try Self.refuseForeignDatabase(file)
            connection = try MigratedCopies.shared.reader(of: path, file: file)
            gate = nil
            readsACopy = true
            holdsPinChanges = false
            namesPhotoInserts = false
        } catch let error as StorageError {
            throw Self.diagnosed(error, file)
        }
    }

    /// True when the file at `path` has a schema older than this pins (a reader would read a
    /// migrated copy of it in memory): read without writing a byte and without copying it.
    public static func hasOlderSchema(path: String) throws -> Bool {
        GuardedFiles.guardDatabase(at: path)
        return try Migrations.currentVersion(of: openForReading(path)) < Migrations.latestVersion
    }

    /// The file as it is, read-only, writing nothing (see `init(readOnlyPath:)`).
    static func openForReading(_ path: String) throws -> Connection {
        // A plain stat(2): FileManager.attributesOfItem also looks up the owner's user and group
        // names through NSS (4 connect() calls to nscd, LDAP on a domain-joined NAS; issue 40).
        var wal = stat()
        let walSize: Int? = (path + "-wal").withCString { stat($0, &wal) } == 0 ? Int(wal.st_size) : nil
        if walSize == nil || walSize == 0 {
            var components = URLComponents()
            components.scheme = "file"
            components.path = path
            components.queryItems = [URLQueryItem(name: "immutable", value: "1")]
            return try Connection(uriReadOnly: components.string ?? "file:\(path)?immutable=1", displayPath: path)
        }
        return try Connection(path: path, readOnly: true, create: false)
    }

    /// A file with tables but no pins schema is another program's database: pins neither reads
    /// it as empty nor adds its tables to it.
    static func refuseForeignDatabase(_ connection: Connection) throws {
        guard try Migrations.currentVersion(of: connection) == 0 else { return }
        let tables = try connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name != 'schema_migrations'") ?? 0
        if tables > 0 { throw StorageError(.open, path: connection.path, reason: .notPins) }
    }

    /// PRAGMA quick_check: the b-trees and their pages (not the slower index-content match of
    /// integrity_check). Up to `limit` problems, empty when the file is sound.
    /// With `table`, that table and its indexes only (up to 100 problems).
    static func quickCheck(_ connection: Connection, limit: Int = 1, table: String? = nil) throws -> [String] {
        let argument = table.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "\(limit)"
        let lines = try connection.query("PRAGMA quick_check(\(argument))") { $0.string(0) }
        // The first problem comes as "*** in database main ***\nPage 11: ...": the heading goes.
        return lines == ["ok"] ? [] : lines.flatMap { $0.split(separator: "\n").map(String.init) }.filter { !$0.hasPrefix("*** ") }
    }

    /// Tables whose size grows with the library, left out of the check on open: `photos` holds
    /// a row per file ever walked, so checking it on every open would read the whole file (at
    /// 1,000,000 files, seconds: more than the nightly run's walk). Its pages are checked by
    /// SQLite as the import reads them (a damaged page is then an error, diagnosed as damage
    /// by `diagnosed`), and in full by `pins check`.
    static let tablesNotCheckedOnOpen: Set<String> = ["photos"]

    /// How many opens for writing checked the file (`refuseDamaged`), in this process: the tests'
    /// way to see a check made or left out.
    static let checksOnOpen = Atomic<Int>(0)

    /// Refuses a damaged file before anything is written to it: PRAGMA quick_check of each
    /// table but those in `tablesNotCheckedOnOpen` (pins, countries, runs, settings: their size
    /// follows the pins, not the files).
    static func refuseDamaged(_ connection: Connection) throws {
        let tables = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { $0.string(0) }
        for table in tables where !tablesNotCheckedOnOpen.contains(table) {
            let problem: String?
            do {
                problem = try quickCheck(connection, table: table).first
            } catch let error as StorageError where error.reason.isDamage {
                // A page the check of one table cannot even start on: the whole file's check
                // says which (the words `pins check` uses too).
                guard let found = try quickCheck(connection).first else { throw error }
                problem = found
            }
            if let problem { throw StorageError(.open, path: connection.path, reason: .damaged(detail: problem)) }
        }
    }

    /// An open that failed on something else than the disk or a lock: when the file fails its
    /// check, the error says it is damaged (and what to do) instead of SQLite's first symptom.
    static func diagnosed(_ error: StorageError, _ connection: Connection) -> StorageError {
        switch error.reason {
        case .damaged, .notADatabase, .notPins, .busy, .repairing, .diskFull, .readOnlyFile, .readOnlyFolder, .permissionDenied,
             .deleted, .outOfMemory:
            return error
        default:
            do {
                if let problem = try quickCheck(connection).first {
                    return StorageError(.open, path: connection.path, reason: .damaged(detail: problem), cause: error.cause)
                }
            } catch let checkError as StorageError where checkError.reason.isDamage {
                return StorageError(.open, path: connection.path, reason: checkError.reason, cause: error.cause)
            } catch {}
            return error
        }
    }

    var schemaVersion: Int { (try? Migrations.currentVersion(of: connection)) ?? 0 }

    /// While true, writes leave the photo links to a later write (`PhotoLinks`): an import sets
    /// it for its batches, so that its last write links once for the whole run.
    public var defersPhotoLinks = false {
        didSet { if defersPhotoLinks, !oldValue { deferredFrom = nil } }
    }

    /// Set by an import before its last write: the links its save stage made (`RunPhotoLinks`).
    /// That write counts the visits from them instead of linking every photo again, when the
    /// first deferred write found no photo with a position recorded and no other connection
    /// has written since (`deferredFrom`); else it links as any write. Used once.
    public var runLinks: RunPhotoLinks?

    /// As the first write that deferred the links began: whether any photo with a position was
    /// recorded, and the connection's count of writes after another writer's.
    private var deferredFrom: (photosWithPosition: Bool, writesAfterOthers: Int)?

    /// An import's page cache, in KiB. SQLite's default, 2,000 KiB (about 480 pages), is less
    /// than one batch of 500 photo records changes in a library of 100,000 files: their places
    /// in photos_identity (by size and digest, all over it: about 360 of its 751 pages), the
    /// other indexes' and the table's, photos_pin's leaves of the batch's ~80 pins (~28), and
    /// the pins' rows its links name. Past the cache SQLite writes changed pages to the WAL
    /// before the commit and reads pages again: strace of one import of scripts/gen-library
    /// --small's 100,000 files, pread64/pwrite64 calls 288,294/313,392 with photo links and
    /// 239,976/273,518 without at 2,000 KiB; 171,241/245,819 and 150,356/217,008 at 8 MiB (the
    /// photo files' own reads are in both). Pages are taken as they are used: a small library
    /// takes no more than before.
    public static let importCacheKiB = 8_192

    /// An import's WAL may grow to this many pages (32 MiB of 4 KiB pages) before it is copied
    /// into the database (SQLite's default: 1,000). A batch writes the pages it changed to the
    /// WAL (about 450 for 500 photo records), and a checkpoint copies each page the WAL holds
    /// once, however many batches wrote it: photos_identity's and the table's pages, and the
    /// photos_pin leaves of the pins a batch's photos belong to, which the next batches write
    /// again (the home town's pins). Every two batches, as at 1,000, the same pages were copied
    /// again and again. Measured on the photo upserts of a 100,000-file scripts/gen-library
    /// --small import (its records written again through Python's sqlite3, batches of 500,
    /// strace -c): pwrite64/pread64 calls 182,225/42,950 without photo links and 203,225/52,555
    /// with at 1,000 pages; 158,164/18,922 and 172,816/22,188 at 8,192; 155,328/16,075 and
    /// 168,446/17,808 at 20,000.
    public static let importWALPages = 8_192

    /// SQLite's own checkpoint threshold, in pages: every other connection's, and an import's
    /// again when its batches end.
    public static let defaultWALPages = 1_000

    /// What the WAL is cut back to when an import's batches end (`endImportWrites`): about
    /// `defaultWALPages` of 4 KiB.
    public static let walSizeLimitBytes = 4 << 20

    /// Gives this connection `importCacheKiB` of page cache and a WAL of `importWALPages` (an
    /// import's, for its batches).
    public func useImportCache() throws {
        try connection.execute("PRAGMA cache_size = -\(Self.importCacheKiB)")
        try connection.execute("PRAGMA wal_autocheckpoint = \(Self.importWALPages)")
    }

    /// After an import's batches, before its last write: checkpoints at SQLite's default again,
    /// and copies the WAL into the database now, so that the last write starts the WAL over and
    /// cuts its file back to `walSizeLimitBytes`. A connection that stays open (`pins serve`)
    /// keeps a WAL file of at most that size, not the import's; when the import's connection is
    /// the last one, closing it removes the file as before. A reader in the middle of a read
    /// keeps the WAL as it is (the checkpoint copies what it can and does not wait).
    public func endImportWrites() throws {
        try connection.execute("PRAGMA wal_autocheckpoint = \(Self.defaultWALPages)")
        try connection.execute("PRAGMA journal_size_limit = \(Self.walSizeLimitBytes)")
        try connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
    }

    public func write<T>(_ body: (Repositories) throws -> T) throws -> T {
        let (holds, namesInserts) = (holdsPinChanges, namesPhotoInserts)
        let runLinks = self.runLinks
        if runLinks != nil { self.runLinks = nil }
        return try connection.transaction {
            if holds { try PinChangeLog.hold(connection, namesInserts: namesInserts) }
            if defersPhotoLinks, deferredFrom == nil {
                deferredFrom = (try connection.scalarInt("SELECT EXISTS (SELECT 1 FROM photos WHERE latitude IS NOT NULL)") == 1,
                                connection.writesAfterOthers)
            }
            let result = try body(SQLiteRepositories(connection: connection))
            if defersPhotoLinks {
                // A batch's new photo records need links even when no pin changed.
                try PhotoLinks.markStale(connection)
            } else if try PhotoLinks.isStale(connection) {
                if let runLinks, let from = deferredFrom, !from.photosWithPosition, from.writesAfterOthers == connection.writesAfterOthers {
                    try PhotoLinks.finish(runLinks, connection)
                } else {
                    try PhotoLinks.relink(connection)
                }
            }
            // Last, so that the pins the linking changed are logged too.
            if holds { try PinChangeLog.release(connection, namesInserts: namesInserts) }
            return result
        }
    }

    public func read<T>(_ body: (Repositories) throws -> T) throws -> T {
        try connection.readTransaction { try body(SQLiteRepositories(connection: connection)) }
    }

    /// The ids of the pins whose id starts with `prefix` (lowercase hex and '-'): `pins delete`
    /// accepts the 8-character prefix `pins list` shows when it names exactly one pin.
    public func pinIDs(startingWith prefix: String) throws -> [UUID] {
        try read { _ in
            try connection.query("SELECT id FROM locations WHERE id LIKE ? || '%' ORDER BY id", [prefix.lowercased()]) { $0.string(0) }
        }.compactMap(UUID.init(uuidString:))
    }

    /// Recounts from the locations table and returns every count that disagrees (empty when
    /// the database is consistent): what tests and `pins check` rely on.
    func countMismatches() throws -> [String] {
        var problems: [String] = []
        let countryRows = try connection.query("""
            SELECT c.id, c.pin_count, (SELECT count(*) FROM locations l WHERE l.country_id = c.id) FROM countries c
            UNION ALL
            SELECT l.country_id, 0, count(*) FROM locations l
            WHERE l.country_id IS NOT NULL AND l.country_id NOT IN (SELECT id FROM countries) GROUP BY l.country_id
            """) { ($0.string(0), $0.int(1), $0.int(2)) }
        for (id, stored, actual) in countryRows where stored != actual || stored == 0 {
            problems.append("country \(id): pin_count \(stored), locations \(actual)")
        }
        for selection in LocationTypeSelection.sharedTypes {
            let (type, table) = (selection.rawValue, selection.shared!.table)
            let (nameKey, coordinateKey) = (selection.shared!.nameKey, selection.shared!.coordinateKey)
            let rows = try connection.query("""
                SELECT t.name, t.pin_count, (SELECT count(*) FROM locations l WHERE l.type = '\(type)'
                    AND json_extract(l.type_data, '$.\(nameKey)') = t.name
                    AND CAST(round(json_extract(l.type_data, '$.\(coordinateKey).latitude') * 10000) AS INTEGER) = t.lat_e4
                    AND CAST(round(json_extract(l.type_data, '$.\(coordinateKey).longitude') * 10000) AS INTEGER) = t.lon_e4)
                FROM \(table) t
                """) { ($0.string(0), $0.int(1), $0.int(2)) }
            for (name, stored, actual) in rows where stored != actual || stored == 0 {
                problems.append("\(type) \(name): pin_count \(stored), locations \(actual)")
            }
            let sharedTotal = rows.reduce(0) { $0 + $1.2 }
            let typed = try connection.scalarInt("SELECT count(*) FROM locations WHERE type = ?", [type]) ?? 0
            if typed != sharedTotal { problems.append("\(typed) \(type) pins but \(sharedTotal) counted in \(table)") }
        }
        return problems
    }
}

/// The database file and its WAL as `stat(2)` sees them: device, inode, size and modification
/// time of each (a WAL that is not there counts too). Equal stamps before and after: no process
/// wrote the file in between (a write changes a size or a modification time; a replaced file
/// has another inode).
public struct FileStamp: Equatable, Sendable {
    private let parts: [Int64]

    public init?(path: String) {
        var parts: [Int64] = []
        for (index, file) in [path, path + "-wal"].enumerated() {
            var info = stat()
            guard stat(file, &info) == 0 else {
                if index == 0 { return nil }
                parts.append(-1)
                continue
            }
            parts += [Int64(info.st_dev), Int64(info.st_ino), Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec)]
        }
        self.parts = parts
    }
}
