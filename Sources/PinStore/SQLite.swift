import CSQLite
import Foundation

/// SQLite's "transient" destructor: SQLite copies bound text/blobs before the call returns.
let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

public struct SQLiteError: Error, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public let sql: String?

    public var description: String {
        if let sql { return "database error \(code): \(message) (in: \(sql.prefix(80)))" }
        return "database error \(code): \(message)"
    }
}

/// A value to bind or read. All SQL in pins binds its parameters; none is built from data.
public enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

public protocol SQLBindable { var sqlValue: SQLValue { get } }
extension Int: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int64: SQLBindable { public var sqlValue: SQLValue { .integer(self) } }
extension Double: SQLBindable { public var sqlValue: SQLValue { .real(self) } }
extension String: SQLBindable { public var sqlValue: SQLValue { .text(self) } }
extension Bool: SQLBindable { public var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension SQLValue: SQLBindable { public var sqlValue: SQLValue { self } }
extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

/// One open database file. Not shared between threads: each task that needs the database opens
/// its own connection (the importer has one writer).
public final class Connection {
    let handle: OpaquePointer
    public let path: String
    private var statementCache: [String: Statement] = [:]

    /// Opens (creating when `create`) the file; `readOnly` never writes a byte.
    public init(path: String, readOnly: Bool = false, create: Bool = true) throws {
        var db: OpaquePointer?
        var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        flags |= SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: "\(message): \(path)", sql: nil)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        // Wait for a concurrent writer rather than failing at once (the run lock keeps
        // importers apart; this covers `pins add` during an import).
        sqlite3_busy_timeout(db, 5_000)
        try execute("PRAGMA foreign_keys = ON")
        if !readOnly {
            try execute("PRAGMA journal_mode = WAL")
            // WAL + NORMAL: a crash loses at most the last transactions, never consistency.
            try execute("PRAGMA synchronous = NORMAL")
        }
    }

    /// Opens a read-only `file:` URI (used with `immutable=1` for dry runs).
    public init(uriReadOnly uri: String, displayPath: String) throws {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: "\(message): \(displayPath)", sql: nil)
        }
        self.handle = db
        self.path = displayPath
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    func error(_ rc: Int32, _ sql: String?) -> SQLiteError {
        SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Runs SQL without parameters (schema, pragmas); may hold several statements.
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "error"
            sqlite3_free(message)
            throw SQLiteError(code: rc, message: text, sql: sql)
        }
    }

    /// A prepared statement, cached per SQL text.
    public func prepare(_ sql: String) throws -> Statement {
        if let cached = statementCache[sql] {
            cached.reset()
            return cached
        }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc, sql) }
        let statement = Statement(stmt, connection: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs one statement with bound parameters; returns the number of changed rows.
    @discardableResult
    public func run(_ sql: String, _ values: [SQLBindable] = []) throws -> Int {
        let statement = try prepare(sql)
        try statement.bind(values)
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// Rows of a query, each mapped by `row`.
    public func query<T>(_ sql: String, _ values: [SQLBindable] = [], _ row: (Statement) throws -> T) throws -> [T] {
        let statement = try prepare(sql)
        try statement.bind(values)
        var out: [T] = []
        while try statement.step() { out.append(try row(statement)) }
        return out
    }

    public func scalarInt(_ sql: String, _ values: [SQLBindable] = []) throws -> Int64? {
        try query(sql, values) { $0.isNull(0) ? nil : $0.int64(0) }.first ?? nil
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in one transaction: BEGIN IMMEDIATE takes the write lock up front (no
    /// deadlock upgrading a read), COMMIT on return, ROLLBACK on any error.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// A read-only snapshot.
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN DEFERRED")
        defer { try? execute("COMMIT") }
        return try body()
    }
}

/// A prepared statement; columns are read by index.
public final class Statement {
    let stmt: OpaquePointer
    unowned let connection: Connection
    let sql: String

    init(_ stmt: OpaquePointer, connection: Connection, sql: String) {
        self.stmt = stmt
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(stmt) }

    func reset() {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
    }

    public func bind(_ values: [SQLBindable]) throws {
        guard values.count == Int(sqlite3_bind_parameter_count(stmt)) else {
            throw SQLiteError(code: SQLITE_RANGE, message: "expected \(sqlite3_bind_parameter_count(stmt)) parameters, got \(values.count)", sql: sql)
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value.sqlValue {
            case .null: rc = sqlite3_bind_null(stmt, index)
            case let .integer(v): rc = sqlite3_bind_int64(stmt, index, v)
            case let .real(v): rc = sqlite3_bind_double(stmt, index, v)
            case let .text(v): rc = sqlite3_bind_text(stmt, index, v, -1, SQLITE_TRANSIENT)
            case let .blob(v):
                rc = v.withUnsafeBytes { sqlite3_bind_blob(stmt, index, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
            }
            guard rc == SQLITE_OK else { throw connection.error(rc, sql) }
        }
    }

    /// True while there is a row.
    public func step() throws -> Bool {
        let rc = sqlite3_step(stmt)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(rc, sql)
        }
    }

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(stmt, column) == SQLITE_NULL }
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(stmt, column) }
    public func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(stmt, column)) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(stmt, column) }
    public func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
    public func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(stmt, column) else { return "" }
        return String(cString: text)
    }
    public func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }
    public func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(stmt, column))
        guard count > 0, let pointer = sqlite3_column_blob(stmt, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
