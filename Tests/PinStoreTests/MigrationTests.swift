import XCTest
import Foundation
@testable import PinStore
import PinCore

final class MigrationTests: XCTestCase {
    func tables(_ db: PinDatabase) throws -> [String] {
        try db.connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { $0.string(0) }
    }

    func testEmptyFileGetsTheWholeSchema() throws {
        let path = try temporaryDatabasePath(self)
        let db = try PinDatabase(path: path)
        XCTAssertEqual(db.schemaVersion, Migrations.latestVersion)
        XCTAssertEqual(try tables(db), ["cities", "countries", "locations", "mountains", "photos", "runs", "schema_migrations", "settings"])
        XCTAssertEqual(try db.connection.query("PRAGMA journal_mode") { $0.string(0) }, ["wal"])
        XCTAssertEqual(try db.connection.query("PRAGMA foreign_keys") { $0.int(0) }, [1])
        let recorded = try db.connection.query("SELECT version FROM schema_migrations ORDER BY version") { $0.int(0) }
        XCTAssertEqual(recorded, Migrations.all.map(\.version))
    }

    func testEveryEarlierVersionMigratesForwardKeepingData() throws {
        for stop in 1..<Migrations.latestVersion {
            let path = try temporaryDatabasePath(self)
            do {
                let old = try PinDatabase(path: path, migrateUpTo: stop)
                XCTAssertEqual(old.schemaVersion, stop)
                try old.connection.run("INSERT INTO countries (id, name, continent, pin_count) VALUES ('FR', 'France', 'Europe', 1)")
                try old.connection.run("""
                    INSERT INTO locations (id, title, latitude, longitude, country_id, type, date, color, visit_count, photo_ids, created_at)
                    VALUES ('00000000-0000-0000-0000-000000000001', 'Paris', 48.85, 2.35, 'FR', 'point', 0, '#E53935', 1, '[]', 0)
                    """)
            }
            let db = try PinDatabase(path: path)
            XCTAssertEqual(db.schemaVersion, Migrations.latestVersion)
            let titles = try db.read { try $0.locations.fetchAll(countryID: nil).map(\.title) }
            XCTAssertEqual(titles, ["Paris"], "from version \(stop)")
            XCTAssertEqual(try db.countMismatches(), [])
        }
    }

    func testReopenKeepsData() throws {
        let path = try temporaryDatabasePath(self)
        let creation = CreationService(locator: StubLocator(), countries: CountryService(catalog: testCatalog))
        let id: UUID
        do {
            let db = try PinDatabase(path: path)
            id = try creation.create(LocationDraft(title: "Louvre", coordinate: Coordinate(latitude: 48.8606, longitude: 2.3376),
                                                   date: Date(timeIntervalSince1970: 1_700_000_000), note: "n", tags: ["a", "b"],
                                                   photoIDs: ["p1"]), using: db).id
        }
        let reopened = try PinDatabase(path: path)
        let location = try XCTUnwrap(try reopened.read { try $0.locations.fetch(id: id) })
        XCTAssertEqual(location.title, "Louvre")
        XCTAssertEqual(location.countryID, "FR")
        XCTAssertEqual(location.tags, ["a", "b"])
        XCTAssertEqual(location.photoIDs, ["p1"])
        XCTAssertEqual(location.date, Date(timeIntervalSince1970: 1_700_000_000))
        XCTAssertEqual(location.color, Settings.defaultPinColor)
        // And the read-only open used by dry runs sees the same.
        let readOnly = try PinDatabase(readOnlyPath: path)
        XCTAssertEqual(try readOnly.read { try $0.locations.fetch(id: id)?.title }, "Louvre")
    }

    func testReadOnlyOpenLeavesTheFileUntouched() throws {
        let path = try temporaryDatabasePath(self)
        do { _ = try PinDatabase(path: path) }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let dir = (path as NSString).deletingLastPathComponent
        let listing = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        do {
            let db = try PinDatabase(readOnlyPath: path)
            _ = try db.read { try $0.locations.fetchAll(countryID: nil) }
            XCTAssertThrowsError(try db.connection.run("INSERT INTO settings (key, value) VALUES ('x', 'y')"))
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), listing)
    }

    func testNewerSchemaIsRefused() throws {
        let path = try temporaryDatabasePath(self)
        do {
            let db = try PinDatabase(path: path)
            try db.connection.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)")
        }
        XCTAssertThrowsError(try PinDatabase(path: path)) { error in
            XCTAssertTrue("\(error)".contains("999"), "\(error)")
        }
    }

    func testWriteTransactionRollsBackOnError() throws {
        let db = try PinDatabase(path: try temporaryDatabasePath(self))
        struct Boom: Error {}
        XCTAssertThrowsError(try db.write { repos in
            try repos.countries.save(Country(id: "FR", name: "France", continent: "Europe", pinCount: 1))
            throw Boom()
        })
        XCTAssertEqual(try db.read { try $0.countries.fetchAll() }, [])
    }
}
