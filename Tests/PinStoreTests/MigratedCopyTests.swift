import Foundation
@testable import PinStore
import XCTest

/// A file of an older schema that cannot be migrated (`pins serve` on a read-only file) is read
/// through a copy migrated in memory. Each open made its own: a copy and a migration of the
/// whole file per request. Now one copy is made and read by every open while the file is
/// unchanged (size, times, inode), and a new one when it changed; the old one is freed.
final class MigratedCopyTests: XCTestCase {
    private static func titles(_ db: PinDatabase) throws -> [String] {
        try db.read { try $0.locations.fetchAll(countryID: nil).map(\.title) }
    }

    /// `sql` run on the file at the older schema, the connection closed (WAL checkpointed).
    private func change(_ path: String, _ sql: String) throws {
        let old = try PinDatabase(path: path, migrateUpTo: Migrations.latestVersion - 1)
        try old.connection.execute(sql)
    }

    func testOneCopyIsReadUntilTheFileChangesThenANewOneAndTheOldOneIsFreed() throws {
        let path = try temporaryDatabasePath(self)
        try change(path, """
            INSERT INTO countries (id, name, continent, pin_count) VALUES ('FR', 'France', 'Europe', 1);
            INSERT INTO locations (id, title, latitude, longitude, country_id, type, date, color, visit_count, photo_ids, created_at)
            VALUES ('00000000-0000-0000-0000-000000000001', 'Paris', 48.85, 2.35, 'FR', 'point', 0, '#E53935', 1, '[]', 0)
            """)
        let made = MigratedCopies.shared.made
        weak var first: MigratedCopy?
        do {
            let a = try PinDatabase(readOnlyPath: path), b = try PinDatabase(readOnlyPath: path)
            XCTAssertTrue(a.readsACopy)
            XCTAssertEqual(a.schemaVersion, Migrations.latestVersion)
            XCTAssertEqual(try Self.titles(a), ["Paris"])
            XCTAssertEqual(try Self.titles(b), ["Paris"])
            first = a.connection.sharedCopy
            XCTAssertNotNil(first)
            XCTAssertTrue(a.connection.sharedCopy === b.connection.sharedCopy)
            // A burst of readers at once, each on its own thread and connection: still that copy.
            let sameCopy = LockedCounter(), read = LockedCounter()
            let shared = ObjectIdentifier(try XCTUnwrap(first))
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                guard let db = try? PinDatabase(readOnlyPath: path) else { return }
                if db.connection.sharedCopy.map(ObjectIdentifier.init) == shared { sameCopy.increment() }
                if (try? Self.titles(db)) == ["Paris"] { read.increment() }
            }
            XCTAssertEqual(sameCopy.value, 8)
            XCTAssertEqual(read.value, 8)
            XCTAssertEqual(MigratedCopies.shared.made, made + 1, "one copy for 10 opens")
            XCTAssertThrowsError(try a.connection.run("DELETE FROM locations"), "the shared copy is read-only")
            XCTAssertEqual(try Self.titles(b), ["Paris"])

            // The same size, another title: the file's modification time tells (its clock moves
            // in ticks of a few milliseconds: a change within the tick of the copy would not).
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            usleep(50_000)
            try change(path, "UPDATE locations SET title = 'Lille'")
            XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size)
            let c = try PinDatabase(readOnlyPath: path)
            XCTAssertEqual(try Self.titles(c), ["Lille"])
            XCTAssertFalse(c.connection.sharedCopy === first)
            XCTAssertEqual(MigratedCopies.shared.made, made + 2)
            // The readers of the old copy still read it, as it was.
            XCTAssertEqual(try Self.titles(a), ["Paris"])
            XCTAssertNotNil(first)
            XCTAssertTrue(try PinDatabase(readOnlyPath: path).connection.sharedCopy === c.connection.sharedCopy)
            XCTAssertEqual(MigratedCopies.shared.made, made + 2)
        }
        XCTAssertNil(first, "the old copy is freed with its last reader")

        // Another file put at the path (another inode), of the same size and times.
        let other = path + ".other"
        try FileManager.default.copyItem(atPath: path, toPath: other)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        try FileManager.default.setAttributes([.modificationDate: attributes[.modificationDate]!], ofItemAtPath: other)
        let d = try PinDatabase(readOnlyPath: path)
        XCTAssertEqual(MigratedCopies.shared.made, made + 2)
        XCTAssertEqual(rename(other, path), 0)
        XCTAssertFalse(try PinDatabase(readOnlyPath: path).connection.sharedCopy === d.connection.sharedCopy)
        XCTAssertEqual(MigratedCopies.shared.made, made + 3)

        // Once a write has migrated the file, it is read as it is and the last copy is freed.
        weak var last = try PinDatabase(readOnlyPath: path).connection.sharedCopy
        XCTAssertNotNil(last)
        _ = try PinDatabase(path: path)
        let current = try PinDatabase(readOnlyPath: path)
        XCTAssertFalse(current.readsACopy)
        XCTAssertEqual(try Self.titles(current), ["Lille"])
        XCTAssertNil(last, "the copy of a file now migrated is freed")
    }
}
