import XCTest
import Foundation
@testable import PinStore
@testable import PinCore

/// Schema 19's change log (PinChangeLog): every change of a pin's stored form, by any writer
/// (plain SQL here, as another process's would be), names that pin; a reader behind the log's
/// pruned part, or reading an older file's migrated copy, is told it cannot patch.
final class PinChangeLogTests: XCTestCase {
    var db: PinDatabase!
    var path: String!
    var creation: CreationService!

    override func setUpWithError() throws {
        path = try temporaryDatabasePath(self)
        db = try PinDatabase(path: path)
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

    /// A photo record linked to `pin` (its row), written by plain SQL on `db`'s connection.
    func linkedPhoto(_ path: String, to pin: UUID, in db: PinDatabase? = nil) throws {
        try (db ?? self.db).connection.run("""
            INSERT INTO photos (path, size, mtime_ns, inode, decision, pin) VALUES (?, 1, 1, 1, 'distance', (SELECT rowid FROM locations WHERE id = ?))
            """, [SQLValue.blob(Array(path.utf8)), pin.lowercasedText])
    }

    func logRows(_ db: PinDatabase? = nil) throws -> Int64 {
        try XCTUnwrap((db ?? self.db).connection.scalarInt("SELECT count(*) FROM pin_changes"))
    }

    /// Schema 20: a write logs each pin it changed once, not each row. Hand-worked: 3 pins with
    /// 10 photos linked to each in one write are 3 rows (schema 19 logged 30, one a photo, as
    /// an import logged one per photo it linked).
    func testAWriteLogsEachPinItChangedOnceNotEachPhoto() throws {
        let pins = [try pin("Alpha", 45), try pin("Bravo", 46), try pin("Charlie", 47)]
        let s0 = try XCTUnwrap(db.pinSnapshot().seq)
        let rows = try logRows()
        try db.write { _ in
            for k in 0..<10 {
                for (n, id) in pins.enumerated() { try linkedPhoto("/p/\(n)-\(k).jpg", to: id) }
            }
        }
        XCTAssertEqual(try logRows() - rows, 3, "one row per pin, not per photo")
        let changes = try XCTUnwrap(db.pinChanges(since: s0))
        XCTAssertEqual(changes.seq, s0 + 3)
        XCTAssertEqual(Set(changes.pins.map(\.id)), Set(pins))
        XCTAssertEqual(changes.pins.map { $0.pin?.photoCount }, [10, 10, 10])
        XCTAssertEqual(try db.connection.scalarInt("SELECT count(*) FROM pin_changes_held"), 0, "nothing held after the commit")
    }

    /// The pin ids the current write holds so far (its holding row left out).
    func heldNow() throws -> [String] {
        try db.connection.query("SELECT pin_id FROM pin_changes_held WHERE pin_id <> '' ORDER BY pin_id") { $0.string(0) }
    }

    /// Schema 24: a write names the pins of the photo rows it inserts at its end, in one
    /// statement, not through a trigger at each row: while it runs nothing holds Bravo, and
    /// after it the log names Bravo once. The write marks where its inserts start (the largest
    /// rowid, 1 here) in a row that never commits. A row inserted after the write deleted the
    /// largest one (a moved photo's record is deleted and made again) takes that rowid again,
    /// 2, not above the mark (2): its trigger names its pin, Charlie, as before schema 24.
    func testAWriteNamesThePinsOfThePhotosItInsertsAtItsEnd() throws {
        let a = try pin("Alpha", 45), b = try pin("Bravo", 46), c = try pin("Charlie", 47)
        try db.write { _ in try linkedPhoto("/p/1.jpg", to: a) }
        let s0 = try XCTUnwrap(db.pinSnapshot().seq)
        var during: (held: [String], from: [Int64])?
        try db.write { _ in
            try linkedPhoto("/p/2.jpg", to: b)
            during = (try heldNow(), try db.connection.query("SELECT photo FROM pin_changes_from") { $0.int64(0) })
        }
        XCTAssertEqual(during?.held, [], "no trigger named Bravo at the row")
        XCTAssertEqual(during?.from, [1], "the inserts start above rowid 1")
        XCTAssertEqual(try db.connection.scalarInt("SELECT count(*) FROM pin_changes_from"), 0, "the mark never commits")
        let first = try XCTUnwrap(db.pinChanges(since: s0))
        XCTAssertEqual(first.seq, s0 + 1, "Bravo, once")
        XCTAssertEqual(first.pins.map(\.id), [b])
        XCTAssertEqual(first.pins.first?.pin?.photoCount, 1)

        var rowid: Int64?
        try db.write { _ in
            try db.connection.run("DELETE FROM photos WHERE path = ?", [SQLValue.blob(Array("/p/2.jpg".utf8))])
            try linkedPhoto("/p/3.jpg", to: c)
            rowid = try db.connection.scalarInt("SELECT rowid FROM photos WHERE path = ?", [SQLValue.blob(Array("/p/3.jpg".utf8))])
            during = (try heldNow(), [])
        }
        XCTAssertEqual(rowid, 2, "SQLite gave the deleted row's rowid again")
        XCTAssertEqual(during?.held, [b.lowercasedText, c.lowercasedText].sorted(), "the delete's and the insert's triggers named theirs")
        let second = try XCTUnwrap(db.pinChanges(since: first.seq))
        XCTAssertEqual(second.seq, first.seq + 2)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: second.pins.map { ($0.id, $0.pin?.photoCount) }), [b: 0, c: 1])
    }

    /// The write's end reads its own photo rows, by rowid, and looks up their pins by row: not
    /// every pin's photos in photos_pin, nor all of photos_location (what SQLite chose for a
    /// join on the mark's table, 876,373 page reads in a 100,000-file import against 287,572).
    func testTheWritesEndReadsOnlyItsOwnRows() throws {
        let plan = try db.connection.query("EXPLAIN QUERY PLAN " + PinChangeLog.heldAndInserted, [Int64(1)]) { $0.string(3) }
        XCTAssertEqual(plan.filter { $0.hasPrefix("SEARCH p ") }, Array(repeating: "SEARCH p USING INTEGER PRIMARY KEY (rowid>?)", count: 2))
        XCTAssertEqual(plan.filter { $0.hasPrefix("SEARCH l ") }, ["SEARCH l USING INTEGER PRIMARY KEY (rowid=?)"])
        XCTAssertEqual(plan.filter { $0.hasPrefix("SCAN") }, ["SCAN pin_changes_held"])
    }

    /// A photo trigger is skipped only when every pin the photo names is already held by the
    /// write: a photo moved from a held pin to another names that other one, and a pin edited
    /// after its photos were held is logged once.
    func testAPhotoMovedFromAHeldPinNamesItsNewPin() throws {
        let a = try pin("Alpha", 45), b = try pin("Bravo", 46), c = try pin("Charlie", 47)
        try db.write { _ in try linkedPhoto("/p/1.jpg", to: a) }
        let s0 = try XCTUnwrap(db.pinSnapshot().seq)
        try db.write { _ in
            try linkedPhoto("/p/2.jpg", to: a)
            try db.connection.run("UPDATE photos SET pin = (SELECT rowid FROM locations WHERE id = ?) WHERE path = ?",
                                  [b.lowercasedText, SQLValue.blob(Array("/p/1.jpg".utf8))])
            try db.connection.run("UPDATE locations SET title = 'Alpha edited' WHERE id = ?", [a.lowercasedText])
            try db.connection.run("DELETE FROM photos WHERE path = ?", [SQLValue.blob(Array("/p/2.jpg".utf8))])
        }
        let changes = try XCTUnwrap(db.pinChanges(since: s0))
        XCTAssertEqual(changes.seq, s0 + 2, "Alpha and Bravo, once each")
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: changes.pins.map { ($0.id, $0.pin?.photoCount) }), [a: 0, b: 1])
        XCTAssertFalse(changes.pins.contains { $0.id == c })
    }

    /// A photo read again is an upsert (`ON CONFLICT(path) DO UPDATE`, as the import's), and
    /// SQLite gives its conflict policy to the statements of the triggers it fires: schema 20's
    /// `INSERT OR IGNORE` of a pin already held then failed ("UNIQUE constraint failed:
    /// pin_changes_held.pin_id"), and so did every import that read a changed sidecar again. Both
    /// photos' pins are named once, in a held write and in a plain one.
    func testAPhotoReadAgainByAnUpsertWhileItsPinsAreHeldIsLogged() throws {
        let a = try pin("Alpha", 45), b = try pin("Bravo", 46), c = try pin("Charlie", 47)
        try db.write { _ in try linkedPhoto("/p/1.jpg", to: a) }
        func upsert(_ path: String, to pin: UUID) throws {
            try db.connection.run("""
                INSERT INTO photos (path, size, mtime_ns, inode, decision, pin) VALUES (?, 2, 2, 2, 'distance', (SELECT rowid FROM locations WHERE id = ?))
                ON CONFLICT(path) DO UPDATE SET size = excluded.size, decision = excluded.decision, pin = excluded.pin
                """, [SQLValue.blob(Array(path.utf8)), pin.lowercasedText])
        }
        let s0 = try XCTUnwrap(db.pinSnapshot().seq)
        try db.write { _ in
            try linkedPhoto("/p/2.jpg", to: a)
            try linkedPhoto("/p/3.jpg", to: b)
            try upsert("/p/1.jpg", to: c)  // from Alpha, held, to Charlie, not yet: the trigger runs
        }
        let held = try XCTUnwrap(db.pinChanges(since: s0))
        XCTAssertEqual(held.seq, s0 + 3, "Alpha, Bravo and Charlie, once each")
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: held.pins.map { ($0.id, $0.pin?.photoCount) }), [a: 1, b: 1, c: 1])
        try upsert("/p/1.jpg", to: a)
        let plain = try XCTUnwrap(db.pinChanges(since: held.seq))
        XCTAssertEqual(Set(plain.pins.map(\.id)), [a, c], "outside a held write, each at once")
        XCTAssertEqual(try db.connection.scalarInt("SELECT count(*) FROM pin_changes_held"), 0)
    }

    /// A reader (another connection, as `pins serve` beside a nightly import) that read the log
    /// between two writes, or while one was under way (it reads the last commit), learns at the
    /// next commit of every pin that write changed: also the pin the log's newest row already
    /// named when it read (a log that skipped a pin its newest row names would lose it here).
    func testAReaderBetweenOrDuringWritesSeesEveryPinTheNextCommitChanged() throws {
        let a = try pin("Alpha", 45), b = try pin("Bravo", 46)
        try db.write { _ in try linkedPhoto("/p/a1.jpg", to: a) }
        let reader = try PinDatabase(readOnlyPath: path)
        XCTAssertFalse(reader.readsACopy)
        let between = try XCTUnwrap(reader.pinSnapshot().seq)
        XCTAssertEqual(try reader.connection.query("SELECT pin_id FROM pin_changes WHERE seq = ?", [between]) { $0.string(0) },
                       [a.lowercasedText], "the newest row names Alpha")
        var during: PinSnapshot?
        try db.write { _ in
            try linkedPhoto("/p/a2.jpg", to: a)
            try linkedPhoto("/p/b1.jpg", to: b)
            // Positioned in the middle of the write: the changes above are not committed yet.
            during = try reader.pinSnapshot()
            XCTAssertEqual(try reader.pinChanges(since: between)?.pins.count, 0, "nothing committed yet")
            try linkedPhoto("/p/a3.jpg", to: a)
        }
        let mid = try XCTUnwrap(during)
        XCTAssertEqual(mid.seq, between)
        XCTAssertEqual(mid.pins.first { $0.id == a }?.photoCount, 1, "the reader read before the write's changes")
        for since in [between, try XCTUnwrap(mid.seq)] {
            let changes = try XCTUnwrap(reader.pinChanges(since: since))
            XCTAssertEqual(Dictionary(uniqueKeysWithValues: changes.pins.map { ($0.id, $0.pin?.photoCount) }), [a: 3, b: 1])
        }
    }

    /// A write that fails holds nothing after it (its holding row is rolled back with it): a
    /// change by plain SQL, as another tool's or an older schema's writer makes, is logged at once.
    func testAFailedWriteLeavesPlainChangesLoggedAtOnce() throws {
        struct Failure: Error {}
        let a = try pin("Alpha", 45)
        let s0 = try XCTUnwrap(db.pinSnapshot().seq)
        XCTAssertThrowsError(try db.write { _ in
            try linkedPhoto("/p/a1.jpg", to: a)
            throw Failure()
        })
        XCTAssertEqual(try db.connection.scalarInt("SELECT count(*) FROM pin_changes_held"), 0)
        XCTAssertEqual(try db.connection.scalarInt("SELECT count(*) FROM pin_changes_from"), 0, "its mark rolled back")
        XCTAssertEqual(try changed(since: s0).pins.count, 0, "the failed write logged nothing")
        try linkedPhoto("/p/a2.jpg", to: a)
        try linkedPhoto("/p/a3.jpg", to: a)
        XCTAssertEqual(try db.pinSnapshot().seq, s0 + 2, "outside a write, one row per change as in schema 19")
        XCTAssertEqual(try XCTUnwrap(db.pinChanges(since: s0 + 1)).pins.first?.pin?.photoCount, 2)
    }

    /// Schema 19 to 20: the log's rows are kept (a reader's position stays good), and from then
    /// on a write logs each pin once.
    func testASchema19FileKeepsItsLogAndThenLogsEachPinOncePerWrite() throws {
        let path = try temporaryDatabasePath(self)
        var a: UUID!
        do {
            let old = try PinDatabase(path: path, migrateUpTo: 19)
            a = try creation.create(LocationDraft(title: "Alpha", coordinate: Coordinate(latitude: 45, longitude: 5),
                                                  date: Date(timeIntervalSince1970: 1_700_000_000)), using: old).id
            try old.write { _ in for k in 0..<3 { try linkedPhoto("/p/a\(k).jpg", to: a, in: old) } }
            XCTAssertEqual(try logRows(old), 4, "schema 19: the pin's row, then one per photo")
        }
        let db = try PinDatabase(path: path)
        XCTAssertEqual(db.schemaVersion, Migrations.latestVersion)
        XCTAssertEqual(try logRows(db), 4, "kept")
        XCTAssertEqual(try XCTUnwrap(db.pinChanges(since: 2)).pins.map(\.id), [a], "a position in the old log still reads")
        try db.write { _ in for k in 3..<8 { try linkedPhoto("/p/a\(k).jpg", to: a, in: db) } }
        XCTAssertEqual(try logRows(db), 5)
        XCTAssertEqual(try XCTUnwrap(db.pinChanges(since: 4)).pins.first?.pin?.photoCount, 8)
    }

    /// No trigger of the log copies a row into a temporary table (schema 22): SQLite does that
    /// for an `INSERT ... SELECT` that reads the table it writes (a coroutine, then
    /// `OpenEphemeral`), and schema 21's triggers did it at every pin made and at the first
    /// photo of each pin in a write, a b-tree and page cache made and freed each time. EXPLAIN
    /// lists the triggers' programs with the statement's; on schema 21 it finds 6 in the photos'
    /// upsert.
    func testTheLogsTriggersCopyNothingIntoATemporaryTable() throws {
        func copies(_ sql: String, in db: PinDatabase) throws -> Int {
            let program = try db.connection.query("EXPLAIN " + sql) { $0.string(1) }
            return zip(program, program.dropFirst()).filter { $0 == "EndCoroutine" && $1 == "OpenEphemeral" }.count
        }
        let statements = [
            "INSERT INTO photos (path, size, mtime_ns, inode, decision, location_id, pin) VALUES (x'01', 1, 2, 3, 'distance', 'x', 1) ON CONFLICT(path) DO UPDATE SET pin = excluded.pin, location_id = excluded.location_id",
            "UPDATE photos SET pin = 2, location_id = 'y', decision = 'accepted' WHERE rowid = 1",
            "DELETE FROM photos WHERE rowid = 1",
            "INSERT INTO locations (id) VALUES ('x')",
            "UPDATE locations SET id = 'y' WHERE rowid = 1",
            "DELETE FROM locations WHERE rowid = 1",
        ]
        for sql in statements { XCTAssertEqual(try copies(sql, in: db), 0, sql) }
        let old = try PinDatabase(path: try temporaryDatabasePath(self), migrateUpTo: 21)
        XCTAssertEqual(try copies(statements[0], in: old), 6, "schema 21: the check can fail")
    }
}
