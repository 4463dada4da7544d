import Foundation

/// `pins check`: is the file sound, and do its counts agree; `--repair`: copy what can be read
/// into a new file and keep the damaged one.
///
/// Why not SQLite's own recovery: the C API (`sqlite3_recover`, ext/recover) is not part of
/// Debian 12's libsqlite3 3.40.1, and the `sqlite3` shell's `.recover` needs the sqlite_dbpage
/// table, which Debian builds without (SQLITE_ENABLE_DBPAGE_VTAB): it fails with "SQL logic
/// error" even on a sound file. So the repair reads each table row by row through the b-tree
/// as the shell's `.dump` does on a damaged file: forwards by rowid until a damaged page stops
/// it, then backwards from the end down to the last row read. Rows on the damaged pages are
/// lost; every row SQLite can still reach is kept. Indexes are rebuilt, not copied.
public enum DatabaseCheck {
    /// What is wrong with the file at `path`: integrity_check's findings (at most `limit`),
    /// else the counts that disagree with the locations table; empty when all is well.
    public static func problems(path: String, limit: Int = 20) throws -> [String] {
        let found = try damage(path: path, limit: limit)
        guard found.isEmpty else { return found }
        return try countMismatches(path: path)
    }

    /// integrity_check's findings on the file at `path` (at most `limit`); empty when the file
    /// is sound. Writes nothing.
    public static func damage(path: String, limit: Int = 20) throws -> [String] {
        let connection = try PinDatabase.openForReading(path)
        // SQLite may list problems and then fail on the page it cannot read: keep both.
        var lines: [String] = []
        do {
            let statement = try connection.prepare("PRAGMA integrity_check(\(limit))")
            while try statement.step() { lines.append(statement.string(0)) }
        } catch let error as StorageError where error.reason.isDamage {
            lines.append(error.cause?.message ?? "the file is damaged")
        }
        return lines == ["ok"] ? [] : lines.flatMap { $0.split(separator: "\n").map(String.init) }.filter { !$0.hasPrefix("*** ") }
    }

    /// The counts of countries, cities and mountains that disagree with the locations table.
    /// Writes nothing.
    public static func countMismatches(path: String) throws -> [String] {
        try PinDatabase(readOnlyPath: path).countMismatches()
    }

    /// On a sound file whose counts disagree: the counts made true in place, in one transaction
    /// (the same recount as `repair`), with no copy kept, since nothing is damaged. Returns what
    /// still disagrees (e.g. a pin whose country has no row). The caller holds the run lock.
    public static func recountInPlace(path: String) throws -> [String] {
        do {
            let connection = try Connection(path: path, readOnly: false, create: false)
            try connection.transaction { try recount(connection) }
        }
        return try countMismatches(path: path)
    }

    public struct TableCopy: Equatable, Sendable {
        public let table: String
        public let rows: Int
        /// False when a damaged part stopped the reading (rows between were lost).
        public let complete: Bool
    }

    public struct Repair: Sendable {
        /// Where the damaged file now is (the repaired one took its path).
        public let damagedKeptAt: String
        public let tables: [TableCopy]
        /// What still disagrees in the repaired file (e.g. a pin whose country row was lost).
        public let remaining: [String]
    }

    /// Copies what can be read of `path` into a new file, recounts, checks it, then moves the
    /// damaged file (and its -wal/-shm) to `PATH.damaged-STAMP` and the new file to `path`.
    /// The caller holds the run lock.
    public static func repair(path: String, now: Date = Date()) throws -> Repair {
        let temporary = path + ".repairing"
        for suffix in ["", "-wal", "-shm"] { unlink(temporary + suffix) }
        var tables: [TableCopy] = []
        do {
            let source = try PinDatabase.openForReading(path)
            let version = (try? Migrations.currentVersion(of: source)).map { max(1, min($0, Migrations.latestVersion)) }
                ?? Migrations.latestVersion
            let target = try Connection(path: temporary)
            try Migrations.migrate(target, upTo: version)
            try target.execute("PRAGMA foreign_keys = OFF")
            let names = try target.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'schema_migrations' ORDER BY rootpage") { $0.string(0) }
            try target.transaction {
                for table in names { tables.append(try copy(table, from: source, to: target)) }
                try recount(target)
            }
            try Migrations.migrate(target)
            let check = try target.query("PRAGMA integrity_check") { $0.string(0) }
            guard check == ["ok"] else {
                throw StorageError(.write, path: temporary, reason: .other("the repaired copy fails its own check: \(check.first ?? "")"))
            }
        } catch {
            for suffix in ["", "-wal", "-shm"] { unlink(temporary + suffix) }
            throw error
        }
        let remaining = (try? PinDatabase(readOnlyPath: temporary).countMismatches()) ?? []
        let stamp = ISO8601DateFormatter.string(from: now, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withYear, .withMonth, .withDay, .withTime])
        let kept = path + ".damaged-" + stamp
        guard rename(path, kept) == 0 else {
            let reason = String(cString: strerror(errno))
            for suffix in ["", "-wal", "-shm"] { unlink(temporary + suffix) }
            throw StorageError(.write, path: path, reason: .other("cannot move the damaged file aside: \(reason)"))
        }
        for suffix in ["-wal", "-shm"] { rename(path + suffix, kept + suffix) }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            rename(kept, path)
            throw StorageError(.write, path: path, reason: .other("cannot put the repaired file in place: \(reason)"))
        }
        return Repair(damagedKeptAt: kept, tables: tables, remaining: remaining)
    }

    /// Every row of `table` SQLite can reach, with the columns both files have.
    static func copy(_ table: String, from source: Connection, to target: Connection) throws -> TableCopy {
        let wanted = try target.query("SELECT name FROM pragma_table_info(?)", [table]) { $0.string(0) }
        let present = Set((try? source.query("SELECT name FROM pragma_table_info(?)", [table]) { $0.string(0) }) ?? [])
        let columns = wanted.filter(present.contains)
        guard !columns.isEmpty else { return TableCopy(table: table, rows: 0, complete: present.isEmpty ? false : true) }
        let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let insert = "INSERT OR IGNORE INTO \"\(table)\" (rowid, \(list)) VALUES (?\(String(repeating: ", ?", count: columns.count)))"
        var rows = 0
        var last = Int64.min
        var complete = true
        func scan(_ sql: String) -> Bool {
            do {
                let statement = try source.prepare(sql)
                try statement.bind([last])
                while try statement.step() {
                    let rowid = statement.int64(0)
                    if sql.hasSuffix("ASC") { last = rowid }
                    let values: [SQLBindable] = [rowid] + (0..<columns.count).map { statement.value(Int32($0 + 1)) }
                    rows += try target.run(insert, values)
                }
                return true
            } catch {
                return false
            }
        }
        let select = "SELECT rowid, \(list) FROM \"\(table)\" WHERE rowid > ? ORDER BY rowid"
        if !scan(select + " ASC") {
            complete = false
            _ = scan(select + " DESC")
        }
        return TableCopy(table: table, rows: rows, complete: complete)
    }

    /// Counts made true again after rows were lost: pin counts from the locations left,
    /// shared places and countries without pins gone, photo records of lost pins unlinked.
    /// A file of schema version 1 (before imports) has no photos table: nothing to unlink there.
    static func recount(_ db: Connection) throws {
        if try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'photos'") ?? 0 > 0 {
            try db.execute("UPDATE photos SET location_id = NULL WHERE location_id IS NOT NULL AND location_id NOT IN (SELECT id FROM locations)")
        }
        try db.execute("""
            UPDATE countries SET pin_count = (SELECT count(*) FROM locations l WHERE l.country_id = countries.id);
            DELETE FROM countries WHERE pin_count = 0;
            UPDATE cities SET pin_count = (SELECT count(*) FROM locations l WHERE l.type = 'city'
                AND json_extract(l.type_data, '$.cityName') = cities.name
                AND CAST(round(json_extract(l.type_data, '$.cityCoordinate.latitude') * 10000) AS INTEGER) = cities.lat_e4
                AND CAST(round(json_extract(l.type_data, '$.cityCoordinate.longitude') * 10000) AS INTEGER) = cities.lon_e4);
            DELETE FROM cities WHERE pin_count = 0;
            UPDATE mountains SET pin_count = (SELECT count(*) FROM locations l WHERE l.type = 'mountain'
                AND json_extract(l.type_data, '$.mountainName') = mountains.name
                AND CAST(round(json_extract(l.type_data, '$.mountainCoordinate.latitude') * 10000) AS INTEGER) = mountains.lat_e4
                AND CAST(round(json_extract(l.type_data, '$.mountainCoordinate.longitude') * 10000) AS INTEGER) = mountains.lon_e4);
            DELETE FROM mountains WHERE pin_count = 0;
            """)
    }
}
