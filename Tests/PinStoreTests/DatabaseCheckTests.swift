import XCTest
import Foundation
@testable import PinStore
@testable import PinCore

final class DatabaseCheckTests: XCTestCase {
    /// 60 pins with 1000-character titles (about 3 to a 4 KiB page), then one leaf page of the
    /// locations table in the middle made unreadable (its type byte becomes 0xFF).
    func damagedDatabase() throws -> (path: String, lostRows: Int) {
        let path = try temporaryDatabasePath(self)
        let page: Int64, cells: Int64, size: Int64
        do {
            let db = try PinDatabase(path: path)
            let creation = CreationService(locator: StubLocator(), countries: CountryService(catalog: testCatalog), ids: .system)
            for i in 0..<60 {
                try creation.create(LocationDraft(title: String(repeating: "x", count: 1000) + " \(i)",
                                                  coordinate: Coordinate(latitude: 10, longitude: Double(i)), date: Date(timeIntervalSince1970: Double(i))),
                                    using: db)
            }
            // SQLite's own page map (the dbstat table): the third leaf page of locations.
            let leaves = try db.connection.query(
                "SELECT pageno, ncell FROM dbstat WHERE name = 'locations' AND pagetype = 'leaf' ORDER BY pageno") { ($0.int64(0), $0.int64(1)) }
            XCTAssertGreaterThan(leaves.count, 10)
            (page, cells) = leaves[2]
            size = try XCTUnwrap(try db.connection.scalarInt("PRAGMA page_size"))
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64((page - 1) * size))
        try handle.write(contentsOf: Data([0xFF]))
        try handle.close()
        return (path, Int(cells))
    }

    func testASoundFileHasNoProblemsAndADamagedOneSaysWhere() throws {
        let sound = try temporaryDatabasePath(self)
        do { _ = try PinDatabase(path: sound) }
        XCTAssertEqual(try DatabaseCheck.problems(path: sound), [])
        let (path, _) = try damagedDatabase()
        let problems = try DatabaseCheck.problems(path: path)
        XCTAssertTrue(problems.contains { $0.contains("btreeInitPage() returns error code 11") }, "\(problems)")
    }

    func testRepairKeepsEveryReadableRowRecountsAndKeepsTheDamagedFile() throws {
        let (path, lost) = try damagedDatabase()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let repair = try DatabaseCheck.repair(path: path, now: Date(timeIntervalSince1970: 1_800_000_000))
        XCTAssertEqual(repair.damagedKeptAt, path + ".damaged-20270115T080000")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: repair.damagedKeptAt)), before, "the damaged file is kept as it was")
        XCTAssertEqual(repair.tables.first { $0.table == "locations" }, DatabaseCheck.TableCopy(table: "locations", rows: 60 - lost, complete: false, lostBetween: lost),
                       "the rows lost are counted: those of the damaged page (dbstat's ncell)")
        XCTAssertEqual(repair.remaining, [])
        XCTAssertEqual(try DatabaseCheck.problems(path: path), [])
        let db = try PinDatabase(path: path)
        let pins = try db.read { try $0.locations.fetchAll(countryID: nil) }
        XCTAssertEqual(pins.count, 60 - lost)
        // Longitude 0 is France in StubLocator, the rest too (east of 0): FR counts the pins left.
        XCTAssertEqual(try db.read { try $0.countries.fetchAll().map { "\($0.id) \($0.pinCount)" } }, ["FR \(60 - lost)"])
        XCTAssertEqual(try db.countMismatches(), [])
    }

    /// A file of every earlier schema version (a pins upgraded since) is repaired too, and comes
    /// out at the latest version with its pin. Version 1 has no photos table: the repair failed
    /// there with "no such table: photos".
    func testRepairOfAnEarlierSchemaKeepsItsPinsAndBringsItForward() throws {
        for stop in 1..<Migrations.latestVersion {
            let path = try temporaryDatabasePath(self)
            do {
                let old = try PinDatabase(path: path, migrateUpTo: stop)
                try old.connection.run("INSERT INTO countries (id, name, continent, pin_count) VALUES ('FR', 'France', 'Europe', 1)")
                try old.connection.run("""
                    INSERT INTO locations (id, title, latitude, longitude, country_id, type, date, color, visit_count, photo_ids, created_at)
                    VALUES ('00000000-0000-0000-0000-000000000001', 'Paris', 48.85, 2.35, 'FR', 'point', 0, '#E53935', 1, '[]', 0)
                    """)
            }
            let repair = try DatabaseCheck.repair(path: path, now: Date(timeIntervalSince1970: 1_800_000_000))
            XCTAssertEqual(repair.tables.first { $0.table == "locations" }?.rows, 1, "from version \(stop)")
            XCTAssertEqual(repair.remaining, [], "from version \(stop)")
            let db = try PinDatabase(readOnlyPath: path)
            XCTAssertEqual(db.schemaVersion, Migrations.latestVersion)
            XCTAssertEqual(try db.read { try $0.locations.fetchAll(countryID: nil).map(\.title) }, ["Paris"], "from version \(stop)")
            XCTAssertEqual(try db.read { try $0.countries.fetchAll().map { "\($0.id) \($0.pinCount)" } }, ["FR 1"])
        }
    }
}
