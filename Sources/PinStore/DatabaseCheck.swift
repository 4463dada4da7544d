import Foundation
import PinCore

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
    static func countMismatches(path: String) throws -> [String] {
        try PinDatabase(readOnlyPath: path).countMismatches()
    }

    /// On a sound file whose counts disagree: the counts made true in place, in one transaction
    /// (the same recount as `repair`), with no copy kept, since nothing is damaged. Returns what
    /// still disagrees (e.g. a pin whose country has no row). The caller holds the run lock.
    static func recountInPlace(path: String) throws -> [String] {
        do {
            let connection = try Connection(path: path, readOnly: false, create: false)
            try connection.transaction { try recount(connection) }
        }
        return try countMismatches(path: path)
    }

    public struct TableCopy: Equatable, Sendable {
        public let table: String
        /// Rows read and kept.
        public let rows: Int
        /// False when a damaged part stopped the reading (rows between were lost).
        public let complete: Bool
        /// Rows known lost: the rowids between two readable parts that could not be read (the
        /// rowids of pins, runs and photos follow their insertion, so this counts the rows on
        /// the damaged pages, less any deleted earlier).
        public var lostBetween: Int = 0
        /// True when the end of the table could not be read (a truncated file): how many rows
        /// were there is unknown.
        public var lostAtEnd: Bool = false

        public init(table: String, rows: Int, complete: Bool, lostBetween: Int = 0, lostAtEnd: Bool = false) {
            self.table = table
            self.rows = rows
            self.complete = complete
            self.lostBetween = lostBetween
            self.lostAtEnd = lostAtEnd
        }
    }

    /// What the repair made again from the pins, and what it left to the next import.
    public struct Rebuilt: Equatable, Sendable {
        /// Country rows made again for pins whose country row was lost (from the catalog).
        public var countries = 0
        /// Shared objects (City, Mountain rows) made again from their pins' names and
        /// coordinates, by pin type.
        public var sharedPlaces: [LocationTypeSelection: Int] = [:]
        /// Photo records "accepted" whose pin was lost: forgotten, so the next import reads
        /// those photos again and decides them again (a pin deleted by hand is not one of
        /// them: its photos keep their decision and no link).
        public var decisionsForgotten = 0
    }

    public struct Repair: Sendable {
        /// Where the damaged file now is (the repaired one took its path).
        public let damagedKeptAt: String
        public let tables: [TableCopy]
        public let rebuilt: Rebuilt
        /// What still disagrees in the repaired file (e.g. a pin whose country row was lost).
        public let remaining: [String]
    }

    /// A country's name and continent, for rows the repair makes again (`CountryCatalog`).
    public typealias CountryNames = @Sendable (String) -> (name: String, continent: String)?

    /// Copies what can be read of `path` into a new file, recounts, checks it, then moves the
    /// damaged file (and its -wal/-shm) to `PATH.damaged-STAMP` and the new file to `path`.
    /// The caller holds the run lock.
    public static func repair(path: String, now: Date = Date(), countries: CountryNames = { _ in nil }) throws -> Repair {
        let temporary = path + ".repairing"
        for suffix in ["", "-wal", "-shm"] { unlink(temporary + suffix) }
        var tables: [TableCopy] = []
        var rebuilt = Rebuilt()
        do {
            let source = try PinDatabase.openForReading(path)
            // A file cut short (its header counts more pages than it has) is refused whole by
            // SQLite ("malformed") unless writable_schema is on; with it, only the missing pages
            // fail and the rest reads. The connection is read-only: nothing is written.
            try source.execute("PRAGMA writable_schema = ON")
            let version = (try? Migrations.currentVersion(of: source)).map { max(1, min($0, Migrations.latestVersion)) }
                ?? Migrations.latestVersion
            let target = try Connection(path: temporary)
            try Migrations.migrate(target, upTo: version)
            try target.execute("PRAGMA foreign_keys = OFF")
            // The change log is not copied: the copy's own triggers log the pins copied, and a
            // reader of the repaired file (another file) reads every pin again anyway. Nor the
            // pins it holds during a write, nor where its own inserts start: none outside one.
            let names = try target.query("""
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('schema_migrations', 'pin_changes', 'pin_changes_held', 'pin_changes_from') ORDER BY rootpage
                """) { $0.string(0) }
            try target.transaction {
                for table in names { tables.append(try copy(table, from: source, to: target)) }
                rebuilt = try rebuild(target, countries: countries)
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
        return Repair(damagedKeptAt: kept, tables: tables, rebuilt: rebuilt, remaining: remaining)
    }

    /// Every row of `table` SQLite can reach, with the columns both files have: read forwards
    /// by rowid; where a damaged page stops the reading, the next rowid that can be reached is
    /// searched for (a seek past the damaged pages lands on the next sound one: doubling steps,
    /// then halving back to the first rowid that reads), and the reading goes on from there.
    /// So every sound leaf page is read, however many damaged ones lie between, and a file cut
    /// short keeps what it still holds.
    static func copy(_ table: String, from source: Connection, to target: Connection) throws -> TableCopy {
        let wanted = try target.query("SELECT name FROM pragma_table_info(?)", [table]) { $0.string(0) }
        let present = Set((try? source.query("SELECT name FROM pragma_table_info(?)", [table]) { $0.string(0) }) ?? [])
        let columns = wanted.filter(present.contains)
        guard !columns.isEmpty else { return TableCopy(table: table, rows: 0, complete: present.isEmpty ? false : true) }
        var copier = TableCopier(table: table, columns: columns, source: source, target: target)
        return try copier.copy()
    }

    /// What is derived from the pins, made again where its rows were lost: a country row for
    /// every country a pin names (name and continent from `countries`), a City or Mountain row
    /// for every shared place the pins name; and the photo records "accepted" whose pin is gone
    /// are forgotten, so the next import decides those photos again. Counts follow in `recount`.
    static func rebuild(_ db: Connection, countries: CountryNames) throws -> Rebuilt {
        var rebuilt = Rebuilt()
        let missingCountries = try db.query("""
            SELECT DISTINCT country_id FROM locations WHERE country_id IS NOT NULL AND country_id NOT IN (SELECT id FROM countries)
            ORDER BY country_id
            """) { $0.string(0) }
        for id in missingCountries {
            let names = countries(id)
            rebuilt.countries += try db.run("INSERT INTO countries (id, name, continent, pin_count) VALUES (?, ?, ?, 0)",
                                            [id, names?.name ?? id, names?.continent ?? "Unknown"])
        }
        for type in LocationTypeSelection.sharedTypes {
            rebuilt.sharedPlaces[type] = try rebuildSharedPlaces(of: type, db)
        }
        if try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'photos'") ?? 0 > 0 {
            rebuilt.decisionsForgotten = try db.run("""
                DELETE FROM photos WHERE decision = 'accepted' AND location_id IS NOT NULL
                    AND location_id NOT IN (SELECT id FROM locations)
                """)
        }
        return rebuilt
    }

    /// The shared objects of `type` its pins name and its table lacks, made again (pin count 0,
    /// set by `recount`): name and rounded key as the pins say them, the first coordinate, the
    /// largest value the pins give for each of the type's rebuilt columns (a mountain's height).
    private static func rebuildSharedPlaces(of type: LocationTypeSelection, _ db: Connection) throws -> Int {
        let shared = type.shared!, own = shared.rebuiltColumns
        let lat = "json_extract(type_data, '$.\(shared.coordinateKey).latitude')"
        let lon = "json_extract(type_data, '$.\(shared.coordinateKey).longitude')"
        let places = try db.query("""
            SELECT json_extract(type_data, '$.\(shared.nameKey)') AS n, CAST(round(\(lat) * 10000) AS INTEGER) AS la,
                   CAST(round(\(lon) * 10000) AS INTEGER) AS lo, min(\(lat)), min(\(lon))\(own.map { ", max(json_extract(type_data, '$.\($0)'))" }.joined())
            FROM locations WHERE type = ? AND n IS NOT NULL AND la IS NOT NULL AND lo IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM \(shared.table) t WHERE t.name = n AND t.lat_e4 = la AND t.lon_e4 = lo)
            GROUP BY n, la, lo ORDER BY n, la, lo
            """, [type.rawValue]) { s -> [SQLBindable] in
            [s.string(0), s.int64(1), s.int64(2), s.double(3), s.double(4)] + own.indices.map { s.value(5 + Int32($0)) }
        }
        let columns = ["id", "name", "lat_e4", "lon_e4", "latitude", "longitude"] + own
        let insert = "INSERT OR IGNORE INTO \(shared.table) (\(columns.joined(separator: ", ")), pin_count) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ", 0)"
        var made = 0
        for values in places {
            made += try db.run(insert, [UUID().lowercasedText] + values)
        }
        return made
    }

    /// Counts made true again after rows were lost: pin counts from the locations left,
    /// shared places and countries without pins gone, other photo records of lost pins unlinked.
    /// A file of schema version 1 (before imports) has no photos table: nothing to unlink there.
    static func recount(_ db: Connection) throws {
        if try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'photos'") ?? 0 > 0 {
            try db.execute("UPDATE photos SET location_id = NULL WHERE location_id IS NOT NULL AND location_id NOT IN (SELECT id FROM locations)")
            // Schema 10 on: the photos of lost pins go to the next nearest pin, visits recounted;
            // before schema 18 (links by id) the note is left for its migration, which links.
            if try db.scalarInt("SELECT count(*) FROM pragma_table_info('photos') WHERE name = 'pin'") ?? 0 > 0 {
                try PhotoLinks.relink(db)
            } else if try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'pending_work'") ?? 0 > 0 {
                try PhotoLinks.markStale(db)
            }
        }
        try db.execute("""
            UPDATE countries SET pin_count = (SELECT count(*) FROM locations l WHERE l.country_id = countries.id);
            DELETE FROM countries WHERE pin_count = 0;
            """)
        for type in LocationTypeSelection.sharedTypes {
            let (table, name, coordinate) = (type.shared!.table, type.shared!.nameKey, type.shared!.coordinateKey)
            try db.execute("""
                UPDATE \(table) SET pin_count = (SELECT count(*) FROM locations l WHERE l.type = '\(type.rawValue)'
                    AND json_extract(l.type_data, '$.\(name)') = \(table).name
                    AND CAST(round(json_extract(l.type_data, '$.\(coordinate).latitude') * 10000) AS INTEGER) = \(table).lat_e4
                    AND CAST(round(json_extract(l.type_data, '$.\(coordinate).longitude') * 10000) AS INTEGER) = \(table).lon_e4);
                DELETE FROM \(table) WHERE pin_count = 0;
                """)
        }
    }
}

/// One table's copy for `DatabaseCheck.copy`: the rows read forwards by rowid, and past each
/// damaged stretch the first rowid that reads again.
private struct TableCopier {
    let table: String
    let columnCount: Int
    let source: Connection
    let target: Connection
    let insert: String
    let select: String
    let seek: String
    var rows = 0
    var complete = true
    var lostBetween = 0
    var lostAtEnd = false

    init(table: String, columns: [String], source: Connection, target: Connection) {
        self.table = table
        columnCount = columns.count
        self.source = source
        self.target = target
        let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        insert = "INSERT OR IGNORE INTO \"\(table)\" (rowid, \(list)) VALUES (?\(String(repeating: ", ?", count: columns.count)))"
        // Each row's content as one text (SQL quote() of every column): what tells a garbage
        // cell of a damaged page from the real row of the same rowid.
        let content = columns.map { "quote(\"\($0)\")" }.joined(separator: " || ',' || ")
        select = "SELECT rowid, \(list), \(content) FROM \"\(table)\" WHERE rowid >= ? ORDER BY rowid ASC"
        seek = "SELECT rowid, \(content) FROM \"\(table)\" WHERE rowid >= ? ORDER BY rowid ASC LIMIT 1"
    }

    /// Most stretches of damage one table's copy goes past, per page of the file: a bound on
    /// the work whatever the damage (each stretch costs at most ~130 seeks). Past it, the rest
    /// of the table counts as lost at the end.
    static let stretchesPerPage = 8

    mutating func copy() throws -> DatabaseCheck.TableCopy {
        var start = Int64.min
        // Every loop over damaged data ends (issue 40, item 6: a leaf whose cell offsets were
        // flipped gave rowids out of order, the copy went back to them and read the same rows
        // for ever): `start` only goes up, and the stretches are bounded by the file's pages.
        let pages = Int(clamping: (try? source.scalarInt("PRAGMA page_count")).flatMap { $0 } ?? 0)
        var stretchesLeft = Self.stretchesPerPage * max(pages, 1) + 64
        while true {
            var lastRead: Int64?
            if try scan(from: start, lastRead: &lastRead) { break }
            complete = false
            stretchesLeft -= 1
            guard stretchesLeft > 0 else {
                lostAtEnd = true
                break
            }
            // Seeks from `base + 1` on fail (the page after the last row read is damaged).
            let base = lastRead ?? (start == Int64.min ? Int64.min : start - 1)
            guard case let (sound, first)? = firstSoundRow(after: base) else {
                // Nothing after the damaged pages: what was on them is lost, how much is unknown.
                lostAtEnd = true
                break
            }
            let from = base == Int64.min ? 0 : base
            let next: Int64
            if sound == base &+ 1 {
                // The seek reads right where the scan failed: that row's own content (an
                // overflow page) is damaged. It is lost; the reading goes on after it.
                lostBetween += Int(clamping: max(0, first - from))
                if first == Int64.max { break }
                next = first + 1
            } else {
                // The rows between the last read and the first sound one were on the damaged pages.
                lostBetween += Int(clamping: max(0, first - from - 1))
                next = first
            }
            // A seek that lands at or before where this stretch began would read it again.
            guard next > start else {
                lostAtEnd = true
                break
            }
            start = next
        }
        return DatabaseCheck.TableCopy(table: table, rows: rows, complete: complete, lostBetween: lostBetween, lostAtEnd: lostAtEnd)
    }

    /// Rows from `start` on until the end (true) or a damaged page (false; `lastRead`: the
    /// last rowid read).
    private mutating func scan(from start: Int64, lastRead: inout Int64?) throws -> Bool {
        do {
            let statement = try source.prepare(select)
            try statement.bind([start])
            while try statement.step() {
                let rowid = statement.int64(0)
                // A table's b-tree gives its rows in rowid order: one below the start, or not
                // above the row before, was read from a damaged page (garbage), and is damage.
                // So is one that a seek of its own rowid does not find: a garbage rowid far
                // above the damaged page's would make the copy skip every sound row up to it.
                if rowid < start || lastRead.map({ rowid <= $0 }) == true { return false }
                guard seekOnce(rowid) == .row(rowid, statement.string(Int32(columnCount + 1))) else { return false }
                lastRead = rowid
                let values: [SQLBindable] = [rowid] + (0..<columnCount).map { statement.value(Int32($0 + 1)) }
                rows += try target.run(insert, values)
            }
            return true
        } catch let error as StorageError where error.action == .write {
            throw error
        } catch {
            return false
        }
    }

    /// The first rowid >= a start whose seek does not fail (with its content): `row`, or `end`
    /// past the last.
    private enum Probe: Equatable { case row(Int64, String), end, damaged }

    /// A row a seek lands on counts only when a seek of its own rowid finds it again: a damaged
    /// leaf can hand a seek a garbage rowid (one far above the page's, which would make the
    /// copy skip every sound row up to it).
    private func probe(_ from: Int64) -> Probe {
        let found = seekOnce(from)
        guard case let .row(rowid, _) = found, rowid != from else { return found }
        return seekOnce(rowid) == found ? found : .damaged
    }

    private func seekOnce(_ from: Int64) -> Probe {
        do {
            let statement = try source.prepare(seek)
            try statement.bind([from])
            return try statement.step() ? .row(statement.int64(0), statement.string(1)) : .end
        } catch {
            return .damaged
        }
    }

    /// Past `base`, whose next seek fails: the smallest start whose seek reads (doubling steps,
    /// then halving back) and the rowid it reads; nil when the rest of the table is on
    /// damaged or missing pages.
    private func firstSoundRow(after base: Int64) -> (start: Int64, row: Int64)? {
        var low = base
        var step: Int64 = 1
        var high: Int64?
        while high == nil {
            let (next, overflow) = low.addingReportingOverflow(step)
            let candidate = overflow ? Int64.max : next
            if case .damaged = probe(candidate) {
                if candidate == Int64.max { break }
                low = candidate
                step = step > Int64.max / 2 ? Int64.max : step * 2
            } else {
                high = candidate
            }
        }
        // Seeks fail all the way: the rest of the table is on damaged or missing pages.
        guard var hi = high else { return nil }
        // Halve back to the smallest start past the damage whose seek reads.
        var lo = low
        while UInt64(bitPattern: hi &- lo) > 1 {
            let mid = lo &+ Int64(bitPattern: UInt64(bitPattern: hi &- lo) / 2)
            if case .damaged = probe(mid) { lo = mid } else { hi = mid }
        }
        guard case let .row(first, _) = probe(hi) else { return nil }
        return (hi, first)
    }
}
