import XCTest
import Foundation
import CSupport
import CSQLite
@testable import PinStore
@testable import PinCore

/// Ids from a fixed byte: every id is the same, so the second new record collides.
let constantIDs = IDSource { [UInt8](repeating: 0x11, count: 16) }
/// 0x11 with the version (byte 6: 0x41) and variant (byte 8: 0x91) bits set, worked by hand.
let constantID = "11111111-1111-4111-9111-111111111111"

final class IDCollisionTests: XCTestCase {
    func creation(_ ids: IDSource) -> CreationService {
        CreationService(locator: StubLocator(), countries: CountryService(catalog: testCatalog), ids: ids)
    }

    func testTheIDSourceSetsVersionAndVariantBits() throws {
        XCTAssertEqual(try constantIDs.next().uuidString.lowercased(), constantID)
        let zeros = IDSource { [UInt8](repeating: 0, count: 16) }
        XCTAssertEqual(try zeros.next().uuidString.lowercased(), "00000000-0000-4000-8000-000000000000")
        let first = try IDSource.system.next(), second = try IDSource.system.next()
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(Array(first.uuidString)[14], "4")
    }

    func testACollidingPinIDFailsAndKeepsTheFirstPin() throws {
        let db = try PinDatabase(path: try temporaryDatabasePath(self))
        let service = creation(constantIDs)
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        try service.create(LocationDraft(title: "Louvre", coordinate: Coordinate(latitude: 48.8606, longitude: 2.3376), date: date),
                           using: db)
        XCTAssertThrowsError(try service.create(LocationDraft(title: "Liberty", coordinate: Coordinate(latitude: 40.6892, longitude: -74.0445),
                                                              date: date), using: db)) { error in
            XCTAssertEqual(error as? StorageError,
                           StorageError(.write, path: db.connection.path, reason: .idTaken(table: "locations", id: constantID),
                                        cause: (error as? StorageError)?.cause))
            XCTAssertEqual((error as? StorageError)?.cause?.code, 1555) // SQLITE_CONSTRAINT_PRIMARYKEY
            XCTAssertTrue("\(error)".hasSuffix("the new id \(constantID) is already used in locations; nothing was overwritten"), "\(error)")
        }
        let pins = try db.read { try $0.locations.fetchAll(countryID: nil) }
        XCTAssertEqual(pins.map(\.title), ["Louvre"])
        XCTAssertEqual(pins.map(\.countryID), ["FR"])
        // The failed pin's country count was rolled back with it: FR 1, no US.
        XCTAssertEqual(try db.read { try $0.countries.fetchAll().map { "\($0.id) \($0.pinCount)" } }, ["FR 1"])
        XCTAssertEqual(try db.countMismatches(), [])
    }

    func testACollidingCityOrMountainIDFailsAndKeepsTheFirst() throws {
        let db = try PinDatabase(path: try temporaryDatabasePath(self))
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        // The pin takes one id and its new city another; from distinct sources they do not collide.
        func counter() -> IDSource {
            final class Box: @unchecked Sendable { var n: UInt8 = 0 }
            let box = Box()
            return IDSource { box.n += 1; return [UInt8](repeating: box.n, count: 16) }
        }
        let paris = CityVisitData(cityName: "Paris", cityCoordinate: Coordinate(latitude: 48.8566, longitude: 2.3522))
        try creation(counter()).create(LocationDraft(title: "Paris", coordinate: paris.cityCoordinate, type: .city(paris), date: date),
                                       using: db)
        // A new source repeats the ids: the pin gets id 1 (taken too, but stored last), then the new
        // city Lyon gets id 2, Paris's: the city's insert is the one that fails.
        let lyon = CityVisitData(cityName: "Lyon", cityCoordinate: Coordinate(latitude: 45.764, longitude: 4.8357))
        XCTAssertThrowsError(try creation(counter()).create(
            LocationDraft(title: "Lyon", coordinate: lyon.cityCoordinate, type: .city(lyon), date: date), using: db)) { error in
            XCTAssertEqual((error as? StorageError)?.reason, .idTaken(table: "cities", id: "02020202-0202-4202-8202-020202020202"))
        }
        let everest = MountainVisitData(mountainName: "Everest", height: 8849, mountainCoordinate: Coordinate(latitude: 27.9881, longitude: 86.925))
        let mountainIDs = IDSource { [UInt8](repeating: 0x22, count: 16) }
        try db.write { repos in
            // A mountain whose id is the same as the next one the source gives.
            _ = try SharedPlaceService(ids: mountainIDs).plusPin(for: everest, in: repos)
        }
        let k2 = MountainVisitData(mountainName: "K2", height: 8611, mountainCoordinate: Coordinate(latitude: 35.8825, longitude: 76.5133))
        XCTAssertThrowsError(try db.write { repos in _ = try SharedPlaceService(ids: mountainIDs).plusPin(for: k2, in: repos) }) { error in
            XCTAssertEqual((error as? StorageError)?.reason, .idTaken(table: "mountains", id: "22222222-2222-4222-a222-222222222222"))
        }
        XCTAssertEqual(try db.read { try $0.sharedPlaces(City.self).fetchAll().map { "\($0.name) \($0.pinCount)" } }, ["Paris 1"])
        XCTAssertEqual(try db.read { try $0.sharedPlaces(Mountain.self).fetchAll().map { "\($0.name) \($0.pinCount) \($0.height ?? 0)" } }, ["Everest 1 8849.0"])
        XCTAssertEqual(try db.read { try $0.locations.fetchAll(countryID: nil).map(\.title) }, ["Paris"])
    }

    func testNoRandomnessStopsBeforeAnythingIsWritten() throws {
        let db = try PinDatabase(path: try temporaryDatabasePath(self))
        let none = IDSource { throw RandomnessUnavailable(reason: "getrandom: Function not implemented") }
        XCTAssertThrowsError(try creation(none).create(
            LocationDraft(title: "Louvre", coordinate: Coordinate(latitude: 48.8606, longitude: 2.3376), date: Date()), using: db)) { error in
            XCTAssertEqual("\(error)", "cannot make a new pin id: the system gives no randomness (getrandom: Function not implemented); nothing was written")
        }
        XCTAssertEqual(try db.read { try $0.locations.fetchAll(countryID: nil) }, [])
        XCTAssertEqual(try db.read { try $0.countries.fetchAll() }, [])
        // A source that gives too few bytes is no randomness either.
        XCTAssertThrowsError(try IDSource { [1, 2, 3] }.next()) { error in
            XCTAssertEqual(error as? RandomnessUnavailable, RandomnessUnavailable(reason: "got 3 of 16 bytes"))
        }
    }

    func testUpdatingARecordThatIsNotStoredIsAnError() throws {
        let db = try PinDatabase(path: try temporaryDatabasePath(self))
        let ghost = Location(id: try constantIDs.next(), title: "Ghost", coordinate: Coordinate(latitude: 1, longitude: 1), date: Date())
        XCTAssertThrowsError(try db.write { try $0.locations.update(ghost) }) { error in
            XCTAssertEqual((error as? StorageError)?.reason, .notStored(table: "locations", id: constantID))
        }
        XCTAssertEqual(try db.read { try $0.locations.fetchAll(countryID: nil) }, [])
    }
}

final class DeletedDatabaseTests: XCTestCase {
    func testAWriteAfterTheFileWasDeletedFails() throws {
        let path = try temporaryDatabasePath(self)
        let db = try PinDatabase(path: path)
        try db.write { try $0.countries.save(Country(id: "FR", name: "France", continent: "Europe", pinCount: 1)) }
        XCTAssertFalse(db.connection.fileWasMoved)
        XCTAssertEqual(unlink(path), 0)
        XCTAssertTrue(db.connection.fileWasMoved)
        XCTAssertThrowsError(try db.write { try $0.countries.save(Country(id: "US", name: "United States", continent: "North America", pinCount: 1)) }) { error in
            XCTAssertEqual((error as? StorageError)?.reason, .deleted)
            XCTAssertEqual("\(error)", "cannot write to \(path): the file was deleted or replaced while pins was using it; what this run wrote is lost with it")
        }
    }

    func testAWriteAfterTheFileWasReplacedFails() throws {
        let path = try temporaryDatabasePath(self)
        let db = try PinDatabase(path: path)
        // Another database moved over the path (what a restore from backup does).
        let other = path + ".other"
        do { _ = try PinDatabase(path: other) }
        XCTAssertEqual(rename(other, path), 0)
        XCTAssertThrowsError(try db.write { try $0.countries.save(Country(id: "FR", name: "France", continent: "Europe", pinCount: 1)) }) { error in
            XCTAssertEqual((error as? StorageError)?.reason, .deleted)
        }
        // The file now at the path was not written to.
        let replaced = try PinDatabase(readOnlyPath: path)
        XCTAssertEqual(try replaced.read { try $0.countries.fetchAll() }, [])
    }
}

final class DatabaseFileStateTests: XCTestCase {
    func testStorageErrorsAreInWordsWithTheSQLiteCodeAsCause() {
        let cause = SQLiteError(code: 1544, message: "attempt to write a readonly database", sql: "PRAGMA journal_mode = WAL")
        let error = StorageError(.open, path: "/srv/pins.sqlite", cause: cause)
        XCTAssertEqual(error.description, "cannot open /srv/pins.sqlite: its folder is not writable (SQLite keeps its journal files beside the database)")
        XCTAssertEqual(error.cause?.code, 1544)
        XCTAssertEqual(StorageError(.write, path: "p", cause: SQLiteError(code: 13, message: "database or disk is full", sql: "COMMIT")).description,
                       "cannot write to p: the disk is full")
        XCTAssertEqual(StorageError(.read, path: "p", cause: SQLiteError(code: 1, message: "no such column: x", sql: nil)).description,
                       "cannot read p: no such column: x (SQLite code 1)")
    }

    func testAZeroByteFileReadsAsEmptyWithoutAWriteAndIsInitialisedForWriting() throws {
        let path = try temporaryDatabasePath(self)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        let reader = try PinDatabase(readOnlyPath: path)
        XCTAssertEqual(try reader.read { try $0.locations.fetchAll(countryID: nil) }, [])
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, 0)
        let writer = try PinDatabase(path: path)
        XCTAssertEqual(writer.schemaVersion, Migrations.latestVersion)
    }

    func testAnOlderSchemaIsReadThroughAMigratedCopyLeavingTheFileAlone() throws {
        let path = try temporaryDatabasePath(self)
        do {
            let old = try PinDatabase(path: path, migrateUpTo: 1)
            try old.connection.run("INSERT INTO countries (id, name, continent, pin_count) VALUES ('FR', 'France', 'Europe', 1)")
            try old.connection.run("""
                INSERT INTO locations (id, title, latitude, longitude, country_id, type, date, color, visit_count, photo_ids, created_at)
                VALUES ('00000000-0000-4000-8000-000000000001', 'Paris', 48.85, 2.35, 'FR', 'point', 0, '#E53935', 1, '[]', 0)
                """)
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let reader = try PinDatabase(readOnlyPath: path)
        XCTAssertEqual(reader.schemaVersion, Migrations.latestVersion)
        XCTAssertEqual(try reader.read { try $0.locations.fetchAll(countryID: nil).map(\.title) }, ["Paris"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
    }

    /// A database at `path` with what `fill` writes, then the root page of `table` damaged: its
    /// type byte (0x0D, a table leaf) becomes 0xFF, no kind of b-tree page. Returns the page.
    func damagedDatabase(at path: String, table: String, fill: (Repositories) throws -> Void) throws -> Int64 {
        let page: Int64, size: Int64
        do {
            let db = try PinDatabase(path: path)
            try db.write(fill)
            page = try XCTUnwrap(try db.connection.scalarInt("SELECT rootpage FROM sqlite_master WHERE name = ?", [table]))
            size = try XCTUnwrap(try db.connection.scalarInt("PRAGMA page_size"))
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64((page - 1) * size))
        try handle.write(contentsOf: Data([0xFF]))
        try handle.close()
        return page
    }

    func testADamagedFileIsRefusedBeforeAnyWrite() throws {
        let path = try temporaryDatabasePath(self)
        let page = try damagedDatabase(at: path, table: "countries") {
            try $0.countries.save(Country(id: "FR", name: "France", continent: "Europe", pinCount: 1))
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try PinDatabase(path: path)) { error in
            guard case .damaged(let detail)? = (error as? StorageError)?.reason else { return XCTFail("\(error)") }
            XCTAssertEqual(detail, "Page \(page): btreeInitPage() returns error code 11")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
    }

    /// The photos table (a row per file ever walked) is not read on open: at 1,000,000 files
    /// that alone took longer than a nightly run's walk. A damaged page there is found by the
    /// read that needs it, and said in the same words.
    func testADamagedPhotosPageIsFoundByTheReadNotOnOpen() throws {
        let path = try temporaryDatabasePath(self)
        _ = try damagedDatabase(at: path, table: "photos") {
            try $0.photos.save(PhotoRecord(path: RawPath("/lib/a.jpg"), fingerprint: PhotoFingerprint(
                size: 1, modificationNanoseconds: 2, inode: 3), decision: .noLocation), runID: nil)
        }
        let db = try PinDatabase(path: path)
        XCTAssertThrowsError(try db.read { try $0.photos.knownFiles(under: RawPath("/lib")).next() }) { error in
            guard case .damaged? = (error as? StorageError)?.reason else { return XCTFail("\(error)") }
            XCTAssertTrue("\(error)".contains("the file is damaged; 'pins check --repair --db \(path)'"), "\(error)")
        }
    }

    func testAnotherProgramsDatabaseIsNeitherReadNorChanged() throws {
        let path = try temporaryDatabasePath(self)
        do { try Connection(path: path).execute("CREATE TABLE notes (x)") }
        XCTAssertThrowsError(try PinDatabase(path: path)) { XCTAssertEqual(($0 as? StorageError)?.reason, .notPins) }
        XCTAssertThrowsError(try PinDatabase(readOnlyPath: path)) { XCTAssertEqual(($0 as? StorageError)?.reason, .notPins) }
        let tables = try Connection(path: path).query("SELECT name FROM sqlite_master") { $0.string(0) }
        XCTAssertEqual(tables, ["notes"])
    }
}

/// A statement's journal stays in memory up to `Connection.statementJournalSpillBytes`: past
/// SQLite's default 64 KiB it went to a temporary file, and an import's batch then wrote every
/// record's pages to it (what made linking photos cost a fifth of an import's CPU).
final class StatementJournalTests: XCTestCase {
    /// SQLite's temporary files, open by this process: /proc/self/fd names them (deleted).
    func openTemporaryFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")
        }.filter { $0.contains("etilqs_") }
    }

    func testAStatementChangingAMegabyteOfPagesKeepsItsJournalInMemory() throws {
        let db = try PinDatabase(path: try temporaryDatabasePath(self))
        XCTAssertTrue(Connection.statementJournalSpill, "set before SQLite initialized")
        try db.connection.execute("CREATE TABLE t (x INTEGER NOT NULL CHECK (x >= 0), pad BLOB NOT NULL)")
        let before = try openTemporaryFiles()
        var during: [String] = []
        try db.connection.transaction {
            // 2,000 rows of 500 bytes: about 250 pages of 4 KiB, 1 MB; then one statement that
            // may fail midway (the CHECK) changes every one of them, so SQLite journals each page.
            for i in 0..<2_000 { try db.connection.run("INSERT INTO t VALUES (?, zeroblob(500))", [i]) }
            try db.connection.execute("UPDATE t SET x = x + 1")
            during = try openTemporaryFiles()
        }
        XCTAssertEqual(during, before, "no statement journal file while the transaction was open")
        XCTAssertEqual(try db.connection.scalarInt("SELECT sum(x) FROM t"), 2_001_000)
    }

    /// SQLite's memory methods keep at most two freed blocks of 1 to 16 MiB (the statement
    /// journal's 4 MiB chunk, taken and freed by every photo upsert of an import) for its next
    /// large request, and nothing smaller (ImportPageFaultTests has what it saves an import).
    func testSQLitesLargeBlocksServeItsNextLargeRequests() throws {
        XCTAssertTrue(Connection.memoryMethods, "set before SQLite initialized")
        let chunk = Int32(Connection.statementJournalSpillBytes) + 8
        let first = try XCTUnwrap(pins_sqlite_malloc(chunk)), second = try XCTUnwrap(pins_sqlite_malloc(chunk))
        let third = try XCTUnwrap(pins_sqlite_malloc(chunk))
        pins_sqlite_free(first)
        pins_sqlite_free(second)
        pins_sqlite_free(third)  // a third is given back to glibc
        let again = [try XCTUnwrap(pins_sqlite_malloc(chunk)), try XCTUnwrap(pins_sqlite_malloc(1 << 20))]
        XCTAssertEqual(Set(again), Set([first, second]), "the two kept blocks serve the next two large requests")
        XCTAssertGreaterThanOrEqual(pins_sqlite_size(again[1]), 1 << 20)
        again.forEach(pins_sqlite_free)
        let small = try XCTUnwrap(pins_sqlite_malloc(4096))
        pins_sqlite_free(small)
        let large = try XCTUnwrap(pins_sqlite_malloc(64 << 20))
        XCTAssertFalse([first, second].contains(large), "a request over 16 MiB is glibc's")
        XCTAssertGreaterThanOrEqual(pins_sqlite_size(large), 64 << 20)
        pins_sqlite_free(large)
        let kept = [try XCTUnwrap(pins_sqlite_malloc(chunk)), try XCTUnwrap(pins_sqlite_malloc(chunk))]
        XCTAssertEqual(Set(kept), Set([first, second]))
        kept.forEach(pins_sqlite_free)
    }

    /// SQLite counts no memory (SQLITE_CONFIG_MEMSTATUS off), so it takes no process-wide mutex
    /// at each allocation: with the count on, sqlite3_memory_used() is above zero while a
    /// connection is open.
    func testSQLiteCountsNoMemory() throws {
        let db = try Connection(path: ":memory:")
        try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
        XCTAssertTrue(Connection.noMemoryStatus, "set before SQLite initialized")
        XCTAssertEqual(sqlite3_memory_used(), 0)
        XCTAssertEqual(try db.scalarInt("SELECT sum(x) FROM t"), 3)
    }
}
