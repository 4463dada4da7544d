import XCTest
import Foundation
import CSQLite
@testable import PinStore
@testable import PinCore

/// An import writes a batch's photo records several to a statement (`saveAll`): the rows,
/// their order, upserts of a path stored before or given twice, the pins they name in the
/// change log and the statements' sizes are what the same records saved one by one give, worked
/// out here by hand.
final class PhotoBatchSaveTests: XCTestCase {
    var db: PinDatabase!
    var creation: CreationService!

    override func setUpWithError() throws {
        db = try PinDatabase(path: try temporaryDatabasePath(self))
        creation = CreationService(locator: StubLocator(), countries: CountryService(catalog: testCatalog), ids: .system)
    }

    func pin(_ title: String, latitude: Double) throws -> UUID {
        try creation.create(LocationDraft(title: title, coordinate: Coordinate(latitude: latitude, longitude: 5),
                                          date: Date(timeIntervalSince1970: 1_700_000_000)), using: db).id
    }

    func record(_ n: Int, size: Int64 = 1, decision: PhotoDecision = .distance, pin: UUID? = nil) -> PhotoRecord {
        var r = PhotoRecord(path: RawPath(String(format: "/lib/%03d.jpg", n)),
                            fingerprint: PhotoFingerprint(size: size, modificationNanoseconds: 2, inode: 3),
                            takenAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)),
                            coordinate: Coordinate(latitude: 45, longitude: 5), decision: decision)
        r.pinID = pin
        return r
    }

    /// Rows by rowid: (path number, size, decision, pin's title).
    func rows() throws -> [(Int, Int64, String, String?)] {
        try db.connection.query("""
            SELECT p.path, p.size, p.decision, l.title FROM photos p LEFT JOIN locations l ON l.rowid = p.pin ORDER BY p.rowid
            """) { s in
            let path = String(decoding: s.blob(0), as: UTF8.self)
            return (Int(path.dropFirst(5).prefix(3))!, s.int64(1), s.string(2), s.optionalString(3))
        }
    }

    /// 261 records in one call: 256 + 4 + 1 to a statement (`rowsPerStatement`). Record 7 was
    /// stored before (its row keeps its place, first, and takes the new values); record 100 is
    /// given twice (at 100, then again as the 261st with size 9: one row, the later values).
    /// Every third record belongs to Alpha, every fifth (not third) to Bravo.
    func testABatchWritesTheRowsOfItsRecordsInOrderAsOneByOneWould() throws {
        let alpha = try pin("Alpha", latitude: 45), bravo = try pin("Bravo", latitude: 46)
        try db.write { try $0.photos.save(record(7, size: 5, decision: .noLocation), runID: nil) }
        let s0 = try XCTUnwrap(db.pinSnapshot().seq)
        func owner(_ n: Int) -> UUID? { n % 3 == 0 ? alpha : (n % 5 == 0 ? bravo : nil) }
        var batch = (0..<260).map { record($0, pin: owner($0)) }
        batch.append(record(100, size: 9, pin: owner(100)))
        XCTAssertEqual(batch.count, 261)
        try db.write { try $0.photos.saveAll(batch, runID: nil) }

        let stored = try rows()
        XCTAssertEqual(stored.count, 260, "7 and 100 are one row each")
        XCTAssertEqual(stored.map(\.0), [7] + (0..<260).filter { $0 != 7 }, "7 where it was, the rest in the batch's order")
        XCTAssertEqual(stored.first.map { [$0.1] }, [1], "7 took the batch's size")
        XCTAssertEqual(stored.first?.2, "distance", "and its decision")
        XCTAssertEqual(stored.first { $0.0 == 100 }?.1, 9, "the later record of 100")
        for row in stored {
            let expected = row.0 % 3 == 0 ? "Alpha" : (row.0 % 5 == 0 ? "Bravo" : nil)
            XCTAssertEqual(row.3, expected, "record \(row.0)")
        }
        XCTAssertEqual(stored.filter { $0.3 == "Alpha" }.count, 87, "0, 3, ..., 258")
        XCTAssertEqual(stored.filter { $0.3 == "Bravo" }.count, 34, "0 to 255 by 5, less those by 15 (Alpha's): 52 - 18")

        // The write names each pin once, with its photos counted.
        let changes = try XCTUnwrap(db.pinChanges(since: s0))
        XCTAssertEqual(changes.seq, s0 + 2)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: changes.pins.map { ($0.id, $0.pin?.photoCount) }), [alpha: 87, bravo: 34])
    }

    /// The statements a batch takes, worked by hand: 261 records are 256 + 4 + 1; a full batch of
    /// 500 is 256 + 3 × 64 + 3 × 16 + 4; with at most 55 rows to a statement (999 values of 18),
    /// 70 are 4 × 16 + 4 + 2 × 1.
    func testEachStatementWritesTheLargestFixedSizeLeft() {
        XCTAssertEqual(SQLitePhotoRepository.statementSizes(261, most: 1_820), [256, 4, 1])
        XCTAssertEqual(SQLitePhotoRepository.statementSizes(500, most: 1_820), [256, 64, 64, 64, 16, 16, 16, 4])
        XCTAssertEqual(SQLitePhotoRepository.statementSizes(70, most: 999 / 18), [16, 16, 16, 16, 4, 1, 1])
        XCTAssertEqual(SQLitePhotoRepository.statementSizes(0, most: 1_820), [])
        XCTAssertEqual(SQLitePhotoRepository.upsert(rows: 4).components(separatedBy: "(?, ?, ?").count - 1, 4, "four rows of values")
    }

    /// SQLite before 3.32 took at most 999 values to a statement: 256 or 64 rows of 18 are
    /// more, so a batch goes 16 rows to a statement there (and is written all the same).
    func testAConnectionThatTakesFewerValuesWritesSmallerStatements() throws {
        sqlite3_limit(db.connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, 999)
        XCTAssertEqual(db.connection.variableLimit, 999)
        let alpha = try pin("Alpha", latitude: 45)
        try db.write { try $0.photos.saveAll((0..<70).map { record($0, pin: alpha) }, runID: nil) }
        XCTAssertEqual(try rows().map(\.0), Array(0..<70))
        XCTAssertEqual(try db.connection.scalarInt("SELECT count(*) FROM photos WHERE pin IS NOT NULL"), 70)
    }

    /// A record the database refuses (here a trigger aborts on its size) fails the whole write:
    /// none of the batch's rows stay, not even those of the statements before its own.
    func testARecordTheTableRefusesLeavesNoneOfTheBatch() throws {
        try db.connection.execute("""
            CREATE TRIGGER photos_no_bad_size BEFORE INSERT ON photos WHEN NEW.size = 666
            BEGIN SELECT RAISE(ABORT, 'bad size'); END
            """)
        var batch = (0..<300).map { record($0) }
        batch[290] = record(290, size: 666)
        XCTAssertThrowsError(try db.write { try $0.photos.saveAll(batch, runID: nil) })
        XCTAssertEqual(try db.connection.scalarInt("SELECT count(*) FROM photos"), 0)
    }
    /// A write that deleted the photo rows at the top before it saves: its new row takes a
    /// rowid at or below the mark it began with (SQLite gives the largest plus one), where the
    /// write's end does not look, so the row goes in through the insert triggers whole, which
    /// name its pin. Alpha had photos 1 to 3 (rowids 1 to 3, the mark 3); the write deletes row
    /// 3 and saves photo 4, taken at Bravo, which takes rowid 3: the log names Alpha (a photo
    /// gone) and Bravo (a photo made), with their counts.
    func testARowBelowTheWritesMarkIsNamedByTheTriggers() throws {
        let alpha = try pin("Alpha", latitude: 45), bravo = try pin("Bravo", latitude: 46)
        try db.write { try $0.photos.saveAll((1...3).map { record($0, pin: alpha) }, runID: nil) }
        let s0 = try XCTUnwrap(db.pinSnapshot().seq)
        var atBravo = record(4, pin: bravo)
        atBravo.coordinate = Coordinate(latitude: 46, longitude: 5)
        try db.write { repos in
            try db.connection.run("DELETE FROM photos WHERE rowid = 3")
            try repos.photos.saveAll([atBravo], runID: nil)
        }
        XCTAssertEqual(try db.connection.scalarInt("SELECT rowid FROM photos WHERE path = CAST('/lib/004.jpg' AS BLOB)"), 3)
        let changes = try XCTUnwrap(db.pinChanges(since: s0))
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: changes.pins.map { ($0.id, $0.pin?.photoCount) }), [alpha: 2, bravo: 1])
    }

    /// The photo insert triggers, read by the statements of a write that names its inserts at
    /// its end: NULL where they ask whether the row names a pin, and whole in any other statement.
    func testAStatementCompiledWithReadsAsNullSeesNullInThoseTriggersOnly() throws {
        let connection = db.connection
        try connection.execute("""
            CREATE TABLE t (a INTEGER, b INTEGER);
            CREATE TABLE seen (via TEXT, a INTEGER, b INTEGER);
            CREATE TRIGGER t_one AFTER INSERT ON t BEGIN INSERT INTO seen VALUES ('one', NEW.a, NEW.b); END;
            CREATE TRIGGER t_two AFTER INSERT ON t BEGIN INSERT INTO seen VALUES ('two', NEW.a, NEW.b); END;
            """)
        let oneReadsNoA: Set = [TriggerRead(trigger: "t_one", table: "t", column: "a")]
        try connection.run("INSERT INTO t VALUES (?, ?)", [1, 2], readingAsNull: oneReadsNoA)
        try connection.run("INSERT INTO t VALUES (?, ?)", [3, 4])
        // A schema change: SQLite compiles both statements again at their next step, each as
        // it was.
        try connection.execute("CREATE TABLE u (c)")
        try connection.run("INSERT INTO t VALUES (?, ?)", [5, 6], readingAsNull: oneReadsNoA)
        try connection.run("INSERT INTO t VALUES (?, ?)", [7, 8])
        let seen = try connection.query("SELECT via, a, b FROM seen ORDER BY rowid") { "\($0.string(0)) \($0.optionalString(1) ?? "NULL") \($0.int(2))" }
        // SQLite fires the triggers last made first.
        XCTAssertEqual(seen, ["two 1 2", "one NULL 2", "two 3 4", "one 3 4", "two 5 6", "one NULL 6", "two 7 8", "one 7 8"])
        XCTAssertEqual(try connection.query("SELECT a FROM t ORDER BY rowid") { $0.int(0) }, [1, 3, 5, 7], "the rows themselves are whole")
    }

}
