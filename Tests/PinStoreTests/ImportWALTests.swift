import Foundation
@testable import PinStore
import XCTest

/// An import lets its WAL grow to `PinDatabase.importWALPages` before a checkpoint copies it
/// into the database (each page once, however many batches wrote it), and cuts it back when
/// its batches end (`endImportWrites`), so that a connection that stays open (`pins serve`)
/// is not left beside a 32 MiB file.
final class ImportWALTests: XCTestCase {
    private func walBytes(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
    }

    /// Writes `batches` transactions of 100 rows of 3,000 bytes (about 75 pages each).
    private func write(_ db: PinDatabase, batches: Int) throws {
        for _ in 0..<batches {
            try db.connection.transaction {
                for _ in 0..<100 { try db.connection.run("INSERT INTO wal_test (x) VALUES (randomblob(3000))") }
            }
        }
    }

    func testAnImportsWALGrowsPastSQLitesDefaultAndIsCutBackWhenItsBatchesEnd() throws {
        let path = try temporaryDatabasePath(self)
        let db = try PinDatabase(path: path)
        try db.connection.execute("CREATE TABLE wal_test (x BLOB)")
        // Another connection stays open, as `pins serve` does: the WAL file stays when the
        // import's writes end.
        let other = try PinDatabase(path: path)
        _ = try other.connection.scalarInt("SELECT count(*) FROM wal_test")
        // Without the import's settings a checkpoint runs at 1,000 pages: the WAL starts over
        // and stays near 4 MiB (1,000 frames of 4,120 bytes, plus the batch that passed them).
        try write(db, batches: 60)
        XCTAssertLessThan(walBytes(path), 5 << 20)
        try db.useImportCache()
        try write(db, batches: 60)
        // About 4,500 more pages: past 1,000, below 8,192, not copied yet.
        XCTAssertGreaterThan(walBytes(path), 12 << 20)
        XCTAssertLessThan(walBytes(path), PinDatabase.importWALPages * 4_120)
        try db.endImportWrites()
        try db.connection.transaction { try db.connection.run("INSERT INTO wal_test (x) VALUES (1)") }
        XCTAssertLessThanOrEqual(walBytes(path), PinDatabase.walSizeLimitBytes)
        XCTAssertEqual(try other.connection.scalarInt("SELECT count(*) FROM wal_test"), 12_001)
        // And checkpoints come at SQLite's default again.
        try write(db, batches: 60)
        XCTAssertLessThan(walBytes(path), 5 << 20)
    }
}
