import Foundation
import PinCore

/// One record of a place file that made a pin (`pins import-places`).
public struct PlaceRecordRow: Sendable, Equatable {
    public var key: String
    public var digest: String
    /// nil when its pin was deleted since.
    public var locationID: UUID?
    public var runID: Int64?
    public var importedAt: Date

    public init(key: String, digest: String, locationID: UUID?, runID: Int64?, importedAt: Date) {
        self.key = key
        self.digest = digest
        self.locationID = locationID
        self.runID = runID
        self.importedAt = importedAt
    }
}

/// The place_records table, inside a transaction of `PinDatabase.withPlaceRecords`.
public struct PlaceRecordTable {
    let connection: Connection

    public func fetch(key: String) throws -> PlaceRecordRow? {
        try connection.query("SELECT key, digest, location_id, run_id, imported_at FROM place_records WHERE key = ?", [key]) { s in
            PlaceRecordRow(key: s.string(0), digest: s.string(1), locationID: s.optionalString(2).flatMap(UUID.init(uuidString:)),
                           runID: s.isNull(3) ? nil : s.int64(3), importedAt: Date(timeIntervalSince1970: s.double(4)))
        }.first
    }

    /// Inserts or replaces the record of `row.key`.
    public func save(_ row: PlaceRecordRow) throws {
        try connection.run("""
            INSERT INTO place_records (key, digest, location_id, run_id, imported_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(key) DO UPDATE SET digest = excluded.digest, location_id = excluded.location_id,
                run_id = excluded.run_id, imported_at = excluded.imported_at
            """, [row.key, row.digest, row.locationID?.lowercasedText, row.runID, row.importedAt.timeIntervalSince1970])
    }
}

extension PinDatabase {
    /// A write transaction with the repositories and the place records.
    public func writePlaces<T>(_ body: (Repositories, PlaceRecordTable) throws -> T) throws -> T {
        try write { repos in try body(repos, PlaceRecordTable(connection: connection)) }
    }

    /// A read transaction with the repositories and the place records (a dry run).
    public func readPlaces<T>(_ body: (Repositories, PlaceRecordTable) throws -> T) throws -> T {
        try read { repos in try body(repos, PlaceRecordTable(connection: connection)) }
    }
}
