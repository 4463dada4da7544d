import XCTest
import Foundation
@testable import PinStore
@testable import PinCore

final class MigrationTests: XCTestCase {
    func tables(_ db: PinDatabase) throws -> [String] {
        try db.connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { $0.string(0) }
    }

    func testEmptyFileGetsTheWholeSchema() throws {
        let path = try temporaryDatabasePath(self)
        let db = try PinDatabase(path: path)
        XCTAssertEqual(db.schemaVersion, Migrations.latestVersion)
        XCTAssertEqual(try tables(db), ["cities", "countries", "locations", "mountains", "pending_work", "photos", "pin_changes", "pin_changes_from", "pin_changes_held", "place_records", "run_changes", "run_files", "runs", "schema_migrations", "settings", "tracks"])
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

    /// Schema 12 (issue 36 item 4): a photo's position source. Before it, an accepted photo a
    /// track placed is known by its detail ('track'); the rest stay NULL and count as their
    /// own for the estimates only while the database has no track.
    func testPositionSourcesOfEarlierRecords() throws {
        let path = try temporaryDatabasePath(self)
        do {
            let old = try PinDatabase(path: path, migrateUpTo: 11)
            for (name, lat, detail) in [("phone.jpg", 48.0, nil), ("walk.jpg", 49.0, "position from the track /t/walk.gpx, nearest fix 3 s away"),
                                        ("camera.jpg", nil, nil)] as [(String, Double?, String?)] {
                try old.connection.run("""
                    INSERT INTO photos (path, size, mtime_ns, inode, taken_at, time_source, latitude, longitude, decision, detail)
                    VALUES (?, 1, 0, 1, 1000, 'exifOffset', ?, ?, ?, ?)
                    """, [SQLValue.blob(Array("/p/\(name)".utf8)), lat, lat.map { _ in 2.0 }, lat == nil ? "noLocation" : "accepted", detail])
            }
        }
        let db = try PinDatabase(path: path)
        XCTAssertEqual(try db.connection.query("SELECT path, position_source FROM photos ORDER BY path") {
            "\(String(decoding: $0.blob(0), as: UTF8.self)) \($0.optionalString(1) ?? "NULL")"
        }, ["/p/camera.jpg NULL", "/p/phone.jpg NULL", "/p/walk.jpg track"])
        XCTAssertEqual(try db.read { try $0.photos.recordedNeighbours(from: 0, to: 2000) }.map(\.path.description), ["/p/phone.jpg"])
        XCTAssertEqual(try db.read { try $0.photos.recordedNeighbours(from: 1001, to: 2000) }.count, 0)
        try db.connection.run("INSERT INTO tracks (root, path, size, mtime_ns, inode, points) VALUES (x'2f70', x'2f74', 1, 0, 1, 2)")
        XCTAssertEqual(try db.read { try $0.photos.recordedNeighbours(from: 0, to: 2000) }.count, 0,
                       "a database that had a track: a position without a recorded source may be a track's")
    }

    func testReopenKeepsData() throws {
        let path = try temporaryDatabasePath(self)
        let creation = CreationService(locator: StubLocator(), countries: CountryService(catalog: testCatalog), ids: .system)
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

    /// Schema 11 (issue 40 item 12): the Saved Places imported before (their place records'
    /// keys start with `saved-places:`) become wanted, but for one with a photo of the person's
    /// within 5 km (that photo was skipped beside it: they have been there); pins of other
    /// files and pins made by hand stay visits.
    func testSavedPlacesImportedBeforeBecomeWanted() throws {
        let path = try temporaryDatabasePath(self)
        do {
            let old = try PinDatabase(path: path, migrateUpTo: 10)
            try old.connection.execute("""
                INSERT INTO countries (id, name, continent, pin_count) VALUES ('JP', 'Japan', 'Asia', 2), ('FR', 'France', 'Europe', 2);
                INSERT INTO runs (id, root, started_at, status) VALUES (1, 'places: /x/Saved Places.json', 0, 'completed'),
                    (2, 'places: /x/list.geojson', 0, 'completed'), (3, '/photos', 0, 'completed');
                INSERT INTO locations (id, title, latitude, longitude, country_id, type, date, color, visit_count, photo_ids, created_at, run_id) VALUES
                    ('00000000-0000-4000-8000-000000000001', 'Kinkaku-ji', 35.0394, 135.7292, 'JP', 'point', 0, '#E53935', 1, '[]', 0, 1),
                    ('00000000-0000-4000-8000-000000000002', 'Trocadero', 48.8616, 2.2893, 'FR', 'point', 0, '#E53935', 1, '[]', 0, 1),
                    ('00000000-0000-4000-8000-000000000003', 'Kyoto station', 34.9858, 135.7588, 'JP', 'point', 0, '#E53935', 1, '[]', 0, 2),
                    ('00000000-0000-4000-8000-000000000004', 'By hand', 48.85, 2.35, 'FR', 'point', 0, '#E53935', 1, '[]', 0, NULL);
                INSERT INTO place_records (key, digest, location_id, run_id, imported_at) VALUES
                    ('saved-places:id:http://maps.google.com/?cid=222', 'd', '00000000-0000-4000-8000-000000000001', 1, 0),
                    ('saved-places:id:http://maps.google.com/?cid=111', 'd', '00000000-0000-4000-8000-000000000002', 1, 0),
                    ('geojson:at:34.98580,135.75880:Kyoto station', 'd', '00000000-0000-4000-8000-000000000003', 2, 0);
                INSERT INTO photos (path, size, mtime_ns, inode, latitude, longitude, decision, detail, run_id)
                    VALUES (X'2F70686F746F732F612E6A7067', 1, 0, 1, 48.85837, 2.294481, 'distance', 'beside the Trocadero', 3);
                """)
        }
        let db = try PinDatabase(path: path)
        let wanted = try db.read { try $0.locations.fetchAll(countryID: nil).filter(\.wanted).map(\.title) }
        XCTAssertEqual(wanted, ["Kinkaku-ji"], "the photo 0.39 km from the Trocadero keeps it a visit")
        XCTAssertEqual(try db.countMismatches(), [], "the countries table still counts every pin")
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

/// Issue 15 item 7: schema 5 makes photo ids unambiguous without losing or misattributing one.
final class PhotoIDMigrationTests: XCTestCase {
    /// A database as schema 4 left it: two files, `a<FF>.jpg` (the byte 0xFF) and one really
    /// named `a\xFF.jpg`, made two pins whose photo ids were the same text. Each id must come
    /// back as the text of its own file's bytes.
    func testIdsThatCollidedAreToldApartByTheirRecordedFiles() throws {
        let path = try temporaryDatabasePath(self)
        let byteFF: [UInt8] = Array("/lib/a".utf8) + [0xFF] + Array(".jpg".utf8)
        let literalFF = Array(#"/lib/a\xFF.jpg"#.utf8)
        let literalFE = Array(#"/lib/c\xFE.jpg"#.utf8)
        // pin id -> (stored photo ids as schema 4 wrote them, expected ids after the migration)
        let pins: [(id: String, old: [String], new: [String])] = [
            ("00000000-0000-4000-8000-00000000000a", [#"/lib/a\xFF.jpg"#], [#"/lib/a\xFF.jpg"#]),   // its file is the byte
            ("00000000-0000-4000-8000-00000000000b", [#"/lib/a\xFF.jpg"#], [#"/lib/a\\xFF.jpg"#]),  // its file is the characters
            ("00000000-0000-4000-8000-00000000000c", [#"/lib/c\xFE.jpg"#], [#"/lib/c\\xFE.jpg"#]),  // its file was decided again
            ("00000000-0000-4000-8000-00000000000d", [#"/gone/d\xFD.jpg"#], [#"/gone/d\\xFD.jpg"#]), // no file recorded: as shown
            ("00000000-0000-4000-8000-00000000000e", ["/lib/x.jpg"], ["/lib/x.jpg"]),
            ("00000000-0000-4000-8000-00000000000f", [], []),                                         // made by hand
        ]
        let photos: [(path: [UInt8], pin: String?)] = [
            (byteFF, pins[0].id), (literalFF, pins[1].id), (literalFE, nil), (Array("/lib/x.jpg".utf8), pins[4].id),
        ]
        do {
            let old = try PinDatabase(path: path, migrateUpTo: 4)
            try old.connection.run("INSERT INTO countries (id, name, continent, pin_count) VALUES ('FR', 'France', 'Europe', ?)", [pins.count])
            for (i, pin) in pins.enumerated() {
                let ids = String(decoding: try JSONEncoder().encode(pin.old), as: UTF8.self)
                try old.connection.run("""
                    INSERT INTO locations (id, title, latitude, longitude, country_id, type, date, color, visit_count, photo_ids, created_at)
                    VALUES (?, ?, 48.85, 2.35, 'FR', 'point', 0, '#E53935', 1, ?, 0)
                    """, [pin.id, "pin \(i)", ids])
            }
            for (i, photo) in photos.enumerated() {
                try old.connection.run("""
                    INSERT INTO photos (path, size, mtime_ns, inode, decision, location_id) VALUES (?, ?, 0, ?, ?, ?)
                    """, [SQLValue.blob(photo.path), 100 + i, i, photo.pin == nil ? "interval" : "accepted", photo.pin])
            }
        }
        let db = try PinDatabase(path: path)
        XCTAssertEqual(db.schemaVersion, Migrations.latestVersion)
        for pin in pins {
            let stored = try XCTUnwrap(try db.read { try $0.locations.fetch(id: UUID(uuidString: pin.id)!) })
            XCTAssertEqual(stored.photoIDs, pin.new, pin.id)
        }
        // Each imported pin's id names the bytes of the very file that points at it.
        for photo in photos {
            guard let pin = photo.pin else { continue }
            let stored = try XCTUnwrap(try db.read { try $0.locations.fetch(id: UUID(uuidString: pin)!) })
            XCTAssertEqual(stored.photoIDs.compactMap { RawPath(escaped: $0)?.bytes }, [photo.path])
        }
        // No row lost or changed: the four files, as bytes, each with its pin.
        let rows = try db.connection.query("SELECT path, location_id FROM photos ORDER BY size") { ($0.blob(0), $0.optionalString(1)) }
        XCTAssertEqual(rows.map(\.0), photos.map(\.path))
        XCTAssertEqual(rows.map(\.1), photos.map(\.pin))
        XCTAssertEqual(try db.connection.scalarInt("SELECT count(*) FROM locations"), Int64(pins.count))
        XCTAssertEqual(try db.countMismatches(), [])
    }

    /// A read-only open (a dry run) of a schema-4 file migrates a copy in memory: same ids, file untouched.
    func testReadOnlyOpenSeesTheSameIds() throws {
        let path = try temporaryDatabasePath(self)
        do {
            let old = try PinDatabase(path: path, migrateUpTo: 4)
            try old.connection.run("""
                INSERT INTO locations (id, title, latitude, longitude, type, date, color, visit_count, photo_ids, created_at)
                VALUES ('00000000-0000-4000-8000-000000000001', 'x', 1, 1, 'point', 0, '#E53935', 1, ?, 0)
                """, [#"["\/p\/a\\xFF.jpg"]"#])
            try old.connection.run("INSERT INTO photos (path, size, mtime_ns, inode, decision, location_id) VALUES (?, 1, 0, 0, 'accepted', ?)",
                                   [SQLValue.blob(Array(#"/p/a\xFF.jpg"#.utf8)), "00000000-0000-4000-8000-000000000001"])
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let db = try PinDatabase(readOnlyPath: path)
        let pin = try db.read { try $0.locations.fetch(id: UUID(uuidString: "00000000-0000-4000-8000-000000000001")!) }
        XCTAssertEqual(pin?.photoIDs, [#"/p/a\\xFF.jpg"#])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
    }
}
