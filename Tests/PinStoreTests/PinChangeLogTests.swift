import XCTest
import Foundation
@testable import PinStore
@testable import PinCore

/// Schema 18's change log (PinChangeLog): every change of a pin's stored form, by any writer
/// (plain SQL here, as another process's would be), names that pin; a reader behind the log's
/// pruned part, or reading an older file's migrated copy, is told it cannot patch.
final class PinChangeLogTests: XCTestCase {
    var db: PinDatabase!
    var creation: CreationService!

    override func setUpWithError() throws {
        db = try PinDatabase(path: try temporaryDatabasePath(self))
        creation = CreationService(locator: StubLocator(), countries: CountryService(catalog: testCatalog), ids: .system)
    }

    func pin(_ title: String, _ latitude: Double) throws -> UUID {
        try creation.create(LocationDraft(title: title, coordinate: Coordinate(latitude: latitude, longitude: 5),
                                          date: Date(timeIntervalSince1970: 1_700_000_000)), using: db).id
    }

    /// The pins changed since `seq`: each id with its title now, "(deleted)" for a deleted one.
    func changed(since seq: Int64) throws -> (seq: Int64, pins: [String: String]) {
        let changes = try XCTUnwrap(db.pinChanges(since: seq))
        return (changes.seq, Dictionary(uniqueKeysWithValues: changes.pins.map { ($0.id.lowercasedText, $0.pin?.title ?? "(deleted)") }))
    }

    func testEditsDeletesAndPhotoLinksNameTheirPins() throws {
        let a = try pin("Alpha", 45), b = try pin("Bravo", 46)
        let start = try db.pinSnapshot()
        XCTAssertEqual(start.pins.map(\.title).sorted(), ["Alpha", "Bravo"])
        let s0 = try XCTUnwrap(start.seq)
        XCTAssertEqual(try changed(since: s0).pins.count, 0, "nothing changed since the snapshot")

        try db.connection.run("UPDATE locations SET title = 'Alpha edited' WHERE id = ?", [a.lowercasedText])
        let first = try changed(since: s0)
        XCTAssertEqual(first.pins, [a.lowercasedText: "Alpha edited"])
        XCTAssertEqual(first.seq, s0 + 1, "one row logged")

        try db.connection.run("DELETE FROM locations WHERE id = ?", [b.lowercasedText])
        XCTAssertEqual(try changed(since: first.seq).pins, [b.lowercasedText: "(deleted)"])

        // A photo linked to Alpha changes its photo count (a column read from photos).
        let before = try changed(since: first.seq).seq
        try db.connection.run("""
            INSERT INTO photos (path, size, mtime_ns, inode, decision, pin) VALUES (?, 1, 1, 1, 'distance', (SELECT rowid FROM locations WHERE id = ?))
            """,
                              ["/p/a.jpg", a.lowercasedText])
        let photo = try XCTUnwrap(db.pinChanges(since: before))
        XCTAssertEqual(photo.pins.map(\.id), [a])
        XCTAssertEqual(photo.pins.first?.pin?.photoCount, 1)
        try db.connection.run("DELETE FROM photos")
        XCTAssertEqual(try XCTUnwrap(db.pinChanges(since: photo.seq)).pins.first?.pin?.photoCount, 0)
    }

    func testAReaderBehindThePrunedLogOrAPositionAheadOfItReadsEverything() throws {
        let a = try pin("Alpha", 45)
        let s0 = try XCTUnwrap(db.pinSnapshot().seq)
        try db.connection.transaction {
            for _ in 0..<(PinChangeLog.kept + 300) {
                try db.connection.run("UPDATE locations SET visit_count = visit_count WHERE id = ?", [a.lowercasedText])
            }
        }
        XCTAssertNil(try db.pinChanges(since: s0), "the changes just after s0 were pruned")
        let rows = try XCTUnwrap(db.connection.scalarInt("SELECT count(*) FROM pin_changes"))
        XCTAssertLessThanOrEqual(rows, Int64(PinChangeLog.kept + 256), "the log stays bounded")
        let latest = s0 + Int64(PinChangeLog.kept + 300)
        XCTAssertEqual(try changed(since: latest - 5).pins, [a.lowercasedText: "Alpha"], "recent changes are still there")
        XCTAssertNil(try db.pinChanges(since: latest + 1), "a position the log never reached")
    }

    func testAnOlderFileReadThroughItsMigratedCopyHasNoPosition() throws {
        let path = try temporaryDatabasePath(self)
        _ = try PinDatabase(path: path, migrateUpTo: 18)
        let reader = try PinDatabase(readOnlyPath: path)
        XCTAssertNil(try reader.pinSnapshot().seq)
        XCTAssertNil(try reader.pinChanges(since: 0))
    }
}
