import Foundation

/// What a run must keep per record but not in memory, in one private SQLite scratch database
/// (`Connection(scratchCacheKiB:)`): SQLite makes its file only when the pages outgrow the cache
/// and unlinks it at once, so a run killed at any point leaves nothing behind. Three stores:
/// records read back sorted by a key (SQLite's external merge sort, within the same cache), a
/// set of keys, and a log of records read back by sequence, optionally of some categories only.
/// The SQL stays here: the callers hand over bytes (their own codecs) and numbers.
/// One thread uses it at a time.
public final class ScratchSpool: @unchecked Sendable {
    private let db: Connection
    private let addSortedRow: Statement, addLogRow: Statement, addKeyRow: Statement

    /// `cacheKiB`: SQLite's page cache for the scratch database.
    public init(cacheKiB: Int) throws {
        db = try Connection(scratchCacheKiB: cacheKiB)
        try db.execute("""
            CREATE TABLE sorted(seq INTEGER PRIMARY KEY, key REAL NOT NULL, body BLOB NOT NULL);
            CREATE TABLE seen(key TEXT PRIMARY KEY) WITHOUT ROWID;
            CREATE TABLE log(seq INTEGER PRIMARY KEY, category INTEGER NOT NULL, body BLOB NOT NULL);
            BEGIN;
            """)
        addSortedRow = try db.statement("INSERT INTO sorted(seq, key, body) VALUES (?, ?, ?)")
        addLogRow = try db.statement("INSERT INTO log(seq, category, body) VALUES (?, ?, ?)")
        addKeyRow = try db.statement("INSERT OR IGNORE INTO seen(key) VALUES (?)")
    }

    private func run(_ statement: Statement, _ values: [SQLBindable]) throws {
        statement.reset()
        try statement.bind(values)
        while try statement.step() {}
    }

    /// Keeps a record to be read back by `key`, then `seq` (unique). NaN sorts last.
    public func addSorted(seq: Int, key: Double, body: [UInt8]) throws {
        try run(addSortedRow, [Int64(seq), key.isNaN ? .infinity : key, SQLValue.blob(body)])
    }

    /// The sorted records, each as (seq, key, its bytes) to `body`.
    public func sorted(_ body: (Int, Double, UnsafeRawBufferPointer) throws -> Void) throws {
        let query = try db.statement("SELECT seq, key, body FROM sorted ORDER BY key, seq")
        while try query.step() {
            let bytes = query.blob(2)
            try bytes.withUnsafeBytes { try body(query.int(0), query.double(1), $0) }
        }
    }

    /// True the first time `key` is given.
    public func insertKey(_ key: String) throws -> Bool {
        try run(addKeyRow, [key])
        return db.changes == 1
    }

    /// Keeps a record of `category` at `seq` (unique; given in any order).
    public func addLogged(seq: Int, category: Int, body: [UInt8]) throws {
        try run(addLogRow, [Int64(seq), Int64(category), SQLValue.blob(body)])
    }

    /// The logged records by `seq`, of `categories` only (nil: all), read as they are asked for.
    public func logged(categories: [Int]?) throws -> Cursor {
        let filter = categories.map { " WHERE category IN (" + $0.map(String.init).joined(separator: ",") + ")" } ?? ""
        return Cursor(query: try db.statement("SELECT body FROM log\(filter) ORDER BY seq"))
    }

    /// One pass over logged records.
    public struct Cursor {
        fileprivate let query: Statement

        /// The next record's bytes to `body`, or nil at the end.
        public func next<T>(_ body: (UnsafeRawBufferPointer) throws -> T) throws -> T? {
            guard try query.step() else { return nil }
            return try query.blob(0).withUnsafeBytes(body)
        }
    }
}
