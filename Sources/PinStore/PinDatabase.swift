import Foundation
import PinCore

/// The pins database: one SQLite file, migrated on open, every write a transaction closure.
public final class PinDatabase: TransactionRunner {
    /// Internal: every query lives in PinStore (tests reach it through `@testable import`).
    let connection: Connection

    /// Opens or creates the file at `path` and brings its schema up to date.
    /// The parent folder is created when missing (the XDG default on a first run).
    public init(path: String, migrateUpTo target: Int = Migrations.latestVersion) throws {
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        connection = try Connection(path: path)
        try Migrations.migrate(connection, upTo: target)
    }

    /// Opens an existing file for reading only, without writing a byte to it and without
    /// leaving -wal/-shm files beside it when no writer is active: `immutable=1` when there is
    /// no WAL file (a cleanly closed database), a plain read-only open otherwise.
    public init(readOnlyPath path: String) throws {
        let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? nil
        if walSize == nil || walSize == 0 {
            var components = URLComponents()
            components.scheme = "file"
            components.path = path
            components.queryItems = [URLQueryItem(name: "immutable", value: "1")]
            connection = try Connection(uriReadOnly: components.string ?? "file:\(path)?immutable=1", displayPath: path)
        } else {
            connection = try Connection(path: path, readOnly: true, create: false)
        }
        let version = try Migrations.currentVersion(of: connection)
        guard version == Migrations.latestVersion else {
            throw Migrations.MigrationError.newerSchema(found: version, known: Migrations.latestVersion, path: path)
        }
    }

    public var schemaVersion: Int { (try? Migrations.currentVersion(of: connection)) ?? 0 }

    public func write<T>(_ body: (Repositories) throws -> T) throws -> T {
        try connection.transaction { try body(SQLiteRepositories(connection: connection)) }
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
    public func countMismatches() throws -> [String] {
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
        for (table, type, nameKey, coordinateKey) in [("cities", "city", "cityName", "cityCoordinate"),
                                                      ("mountains", "mountain", "mountainName", "mountainCoordinate")] {
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
