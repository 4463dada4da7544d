import Foundation
import PinCore

/// The schema, as numbered, append-only migrations. Each runs in its own transaction and is
/// recorded in `schema_migrations`; a database is brought forward one step at a time.
/// Never edit a released migration: add a new one.
public enum Migrations {
    public struct Migration: Sendable {
        public let version: Int
        public let name: String
        let sql: String
        /// What SQL cannot do, run after `sql` in the same transaction.
        let step: (@Sendable (Connection) throws -> Void)?

        init(version: Int, name: String, sql: String, step: (@Sendable (Connection) throws -> Void)? = nil) {
            self.version = version
            self.name = name
            self.sql = sql
            self.step = step
        }
    }

    public static let all: [Migration] = [
        Migration(version: 1, name: "model", sql: """
            CREATE TABLE countries (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                continent TEXT NOT NULL,
                pin_count INTEGER NOT NULL CHECK (pin_count >= 0)
            );
            CREATE TABLE cities (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                lat_e4 INTEGER NOT NULL,
                lon_e4 INTEGER NOT NULL,
                latitude REAL NOT NULL,
                longitude REAL NOT NULL,
                pin_count INTEGER NOT NULL CHECK (pin_count >= 0),
                UNIQUE (name, lat_e4, lon_e4)
            );
            CREATE TABLE mountains (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                height REAL,
                lat_e4 INTEGER NOT NULL,
                lon_e4 INTEGER NOT NULL,
                latitude REAL NOT NULL,
                longitude REAL NOT NULL,
                pin_count INTEGER NOT NULL CHECK (pin_count >= 0),
                UNIQUE (name, lat_e4, lon_e4)
            );
            CREATE TABLE locations (
                id TEXT PRIMARY KEY,
                title TEXT NOT NULL,
                latitude REAL NOT NULL CHECK (latitude BETWEEN -90 AND 90),
                longitude REAL NOT NULL CHECK (longitude BETWEEN -180 AND 180),
                country_id TEXT REFERENCES countries(id),
                type TEXT NOT NULL CHECK (type IN ('point', 'city', 'mountain')),
                type_data TEXT,
                date REAL NOT NULL,
                color TEXT NOT NULL,
                visit_count INTEGER NOT NULL CHECK (visit_count >= 1),
                note TEXT,
                tags TEXT,
                photo_ids TEXT NOT NULL,
                created_at REAL NOT NULL
            );
            CREATE INDEX locations_country ON locations(country_id);
            CREATE TABLE settings (
                key TEXT PRIMARY KEY,
                value TEXT NOT NULL
            );
            """),
        Migration(version: 2, name: "import", sql: """
            CREATE TABLE runs (
                id INTEGER PRIMARY KEY,
                root TEXT NOT NULL,
                started_at REAL NOT NULL,
                finished_at REAL,
                status TEXT NOT NULL,
                exit_code INTEGER,
                files INTEGER NOT NULL DEFAULT 0,
                photos INTEGER NOT NULL DEFAULT 0,
                created INTEGER NOT NULL DEFAULT 0,
                skipped TEXT
            );
            CREATE TABLE photos (
                path BLOB PRIMARY KEY,
                size INTEGER NOT NULL,
                mtime_ns INTEGER NOT NULL,
                inode INTEGER NOT NULL,
                digest TEXT,
                format TEXT,
                taken_at REAL,
                time_source TEXT,
                utc_offset INTEGER,
                latitude REAL,
                longitude REAL,
                decision TEXT NOT NULL CHECK (decision IN
                    ('accepted', 'noLocation', 'interval', 'distance', 'unreadable', 'notMedia')),
                detail TEXT,
                location_id TEXT REFERENCES locations(id) ON DELETE SET NULL,
                run_id INTEGER REFERENCES runs(id),
                missing INTEGER NOT NULL DEFAULT 0
            );
            CREATE INDEX photos_accepted_time ON photos(taken_at) WHERE decision = 'accepted';
            CREATE INDEX photos_identity ON photos(size, digest);
            CREATE INDEX photos_location ON photos(location_id);
            """),
        // Which import run made a pin (NULL for pins made by hand): what `runs` and an undo need.
        Migration(version: 3, name: "pin run", sql: """
            ALTER TABLE locations ADD COLUMN run_id INTEGER REFERENCES runs(id);
            CREATE INDEX locations_run ON locations(run_id) WHERE run_id IS NOT NULL;
            """),
        // A pin's own UTC offset (its date is shown in it; imported pins take their photo's) and
        // when the user last edited it (an undone import leaves edited pins alone).
        Migration(version: 4, name: "pin offset and edit time", sql: """
            ALTER TABLE locations ADD COLUMN utc_offset INTEGER;
            ALTER TABLE locations ADD COLUMN edited_at REAL;
            UPDATE locations SET utc_offset = (SELECT p.utc_offset FROM photos p WHERE p.location_id = locations.id
                AND p.decision = 'accepted' AND p.utc_offset IS NOT NULL ORDER BY p.path LIMIT 1);
            """),
        // A pin's photo ids (the photos' absolute paths as text) become unambiguous: a backslash
        // is now written twice, so a byte that is not UTF-8 (`\xFF`) and a name that really
        // holds those four characters (`\\xFF`) differ. See `unambiguousPhotoIDs`.
        Migration(version: 5, name: "photo ids keep their bytes", sql: "", step: unambiguousPhotoIDs),
        // What `pins import-places` made, by each record's stable key (file kind and the
        // record's own id or content), so the same file twice adds nothing and a changed record
        // updates its pin. `digest` is the record as it was read; `imported_at` tells an edit by
        // the person (edited_at later) from the import itself.
        Migration(version: 6, name: "place records", sql: """
            CREATE TABLE place_records (
                key TEXT PRIMARY KEY,
                digest TEXT NOT NULL,
                location_id TEXT REFERENCES locations(id) ON DELETE SET NULL,
                run_id INTEGER REFERENCES runs(id),
                imported_at REAL NOT NULL
            );
            CREATE INDEX place_records_location ON place_records(location_id);
            CREATE INDEX place_records_run ON place_records(run_id);
            """),
        // Places (the places issue, schema 7): a pin's populated place (GeoNames name and id) and admin-1
        // region. `places_resolved` is 0 for every pin stored before: the backfill
        // (PlaceBackfill) gives each its place, and its new title when the title is still the one
        // pins made, then sets it to 1; a pin made or moved since is resolved when it is saved.
        // A city becomes the gazetteer place it is (`place_id`), one city per place.
        Migration(version: 7, name: "places", sql: """
            ALTER TABLE locations ADD COLUMN place TEXT;
            ALTER TABLE locations ADD COLUMN place_id INTEGER;
            ALTER TABLE locations ADD COLUMN region TEXT;
            ALTER TABLE locations ADD COLUMN region_code TEXT;
            ALTER TABLE locations ADD COLUMN places_resolved INTEGER NOT NULL DEFAULT 0;
            CREATE INDEX locations_unresolved_places ON locations(id) WHERE places_resolved = 0;
            ALTER TABLE cities ADD COLUMN place_id INTEGER;
            CREATE UNIQUE INDEX cities_place ON cities(place_id) WHERE place_id IS NOT NULL;
            """),
        // The track files given with --track, per import root (issue 29, nightly): the
        // fingerprint of the content last read, what it covers, the run that read it and the
        // last run of the root that had it. A new or changed file has the photos skipped for
        // "no location" that it covers decided again; an unchanged one is not read.
        Migration(version: 8, name: "tracks", sql: """
            CREATE TABLE tracks (
                root BLOB NOT NULL,
                path BLOB NOT NULL,
                size INTEGER NOT NULL,
                mtime_ns INTEGER NOT NULL,
                inode INTEGER NOT NULL,
                format TEXT,
                points INTEGER NOT NULL CHECK (points >= 0),
                first_at REAL,
                last_at REAL,
                read_run INTEGER REFERENCES runs(id),
                seen_run INTEGER REFERENCES runs(id),
                PRIMARY KEY (root, path)
            );
            """),
        // Issue 38: the overseas parts ISO 3166-1 counts as countries (RE, GF, GP, MQ, YT, SJ,
        // BV, BQ, CX, CC, TK) have their own outlines now; the pins stored as their sovereign's
        // move to their code, with the titles pins made and the country counts. See
        // `OverseasCountries`.
        Migration(version: 9, name: "overseas countries", sql: "", step: OverseasCountries.migrate),
        // A pin's photos and visits (issue 39, `PhotoLinks`): the pin each photo belongs to,
        // whether a person gave a pin's visit count (a count other than 1 was: imports make 1),
        // and the triggers that note when pins change, or a linked photo is forgotten (an undo),
        // so that the links and visits follow. The step notes that the photos already recorded
        // need their links and their pins' visits: schema 18, where the links are kept now
        // (`photos.pin`), makes them (this step linked them into `pin_id` before).
        Migration(version: 10, name: "pin photos", sql: """
            ALTER TABLE photos ADD COLUMN pin_id TEXT REFERENCES locations(id) ON DELETE SET NULL;
            CREATE INDEX photos_pin ON photos(pin_id) WHERE pin_id IS NOT NULL;
            ALTER TABLE locations ADD COLUMN visits_by_hand INTEGER NOT NULL DEFAULT 0;
            UPDATE locations SET visits_by_hand = 1 WHERE visit_count != 1;
            CREATE TABLE pending_work (name TEXT PRIMARY KEY);
            CREATE TRIGGER locations_made AFTER INSERT ON locations
                BEGIN INSERT OR IGNORE INTO pending_work (name) VALUES ('photo links'); END;
            CREATE TRIGGER locations_removed AFTER DELETE ON locations
                BEGIN INSERT OR IGNORE INTO pending_work (name) VALUES ('photo links'); END;
            CREATE TRIGGER locations_moved AFTER UPDATE OF latitude, longitude ON locations
                WHEN NEW.latitude IS NOT OLD.latitude OR NEW.longitude IS NOT OLD.longitude
                BEGIN INSERT OR IGNORE INTO pending_work (name) VALUES ('photo links'); END;
            CREATE TRIGGER photos_forgotten AFTER DELETE ON photos WHEN OLD.pin_id IS NOT NULL
                BEGIN INSERT OR IGNORE INTO pending_work (name) VALUES ('photo links'); END;
            """, step: { try PhotoLinks.markStale($0) }),
        // Places someone wants to go, not visits (issue 40 item 12): `wanted` pins are drawn
        // apart and left out of countries, regions, statistics and trips. Google's Saved Places
        // imported before are known by their records' keys (`saved-places:` in place_records,
        // written since schema 6), so they become wanted here; see `wantedSavedPlaces`.
        Migration(version: 11, name: "wanted places", sql: """
            ALTER TABLE locations ADD COLUMN wanted INTEGER NOT NULL DEFAULT 0;
            """, step: wantedSavedPlaces),
        // Where a photo's recorded position came from (issue 36 item 4): its own (`exif`,
        // `xmp`, ...) or pins' (`track`, `estimate`). The photos with their own are the
        // neighbours a later run estimates from; the others never are. Records made before
        // say so only for an accepted photo placed by a track (its detail names the track);
        // the rest stay NULL (see `recordedNeighbours`).
        Migration(version: 12, name: "photo position source", sql: """
            ALTER TABLE photos ADD COLUMN position_source TEXT;
            UPDATE photos SET position_source = 'track' WHERE latitude IS NOT NULL AND detail LIKE 'position from the track %';
            CREATE INDEX photos_own_position ON photos(taken_at) WHERE latitude IS NOT NULL;
            """),
        // Regions by outline in every country (issue 38 item 3): Regions.bin now holds Natural
        // Earth's admin-1 units beside DCW's 8 countries, so a stored pin's region may be another
        // now (Norway's counties of 2024, a town's region across a border, a desert far from
        // towns). Migrations have no data files, so every pin with a country is handed to the
        // existing re-derive path, `PlaceBackfill`: at the next open for writing with the
        // gazetteer it gets its place (the same rule, so the same place) and its region again,
        // and a new title only where the title is still the one pins made before places.
        Migration(version: 13, name: "regions by outline", sql: """
            UPDATE locations SET places_resolved = 0 WHERE country_id IS NOT NULL AND places_resolved = 1;
            """),
        // What a run changed in pins it did not make (issue 40 item 12: a photo or a timeline
        // visit that made a wanted place visited; a place file's changed record): each pin as
        // it was before the run's first change and after its last, as JSON (`Location`), so
        // `runs undo` gives back exactly what was there, and only while the pin is still as the
        // run left it (an edit or a later run since decides).
        Migration(version: 14, name: "run changes", sql: """
            CREATE TABLE run_changes (
                run_id INTEGER NOT NULL REFERENCES runs(id),
                location_id TEXT NOT NULL,
                before TEXT NOT NULL,
                after TEXT NOT NULL,
                PRIMARY KEY (run_id, location_id)
            );
            """),
        // The files a run wrote beside the photos (`pins sidecars`, issue 36 item 6): each
        // file's bytes before (NULL: the run created it) and after, so that `runs undo` removes
        // what it created and gives back what it edited byte for byte, and only while the file
        // is still as the run left it.
        Migration(version: 15, name: "run files", sql: """
            CREATE TABLE run_files (
                run_id INTEGER NOT NULL REFERENCES runs(id),
                path BLOB NOT NULL,
                before BLOB,
                after BLOB NOT NULL,
                PRIMARY KEY (run_id, path)
            );
            """),
        // Whether a run estimated positions (issue 36 item 4): a photo a run without estimates
        // skipped for no location is decided again by the next run that estimates, when a photo
        // with its own position is near it in time. Runs before are taken as not estimating:
        // their photos get that one chance.
        Migration(version: 16, name: "estimating runs", sql: """
            ALTER TABLE runs ADD COLUMN estimates INTEGER NOT NULL DEFAULT 0;
            """),
        // English names for the 11 countries Countries.json named by their official forms
        // ("Russian Federation" is "Russia"): the countries table and the titles pins made.
        // See `CountryNames`.
        Migration(version: 17, name: "country names", sql: "", step: CountryNames.migrate),
        // A photo's pin by the pin's row (`photos.pin`, the locations rowid) instead of its id's
        // 36 characters (`pin_id`, schema 10): most photos carry one, and the text made the
        // file of a 100,000-file import (scripts/bench-photo-links) 11,343 pages instead of
        // 9,680, its index on the pin 1,163 pages instead of 267, pages an import writes again
        // at each batch. Every stored link is kept: copied through the id.
        // The rowid stays with its pin: pins updates rows in place, never VACUUMs, and a repair
        // copies rows with their rowids (`DatabaseCheck`); a deleted pin's photos are linked
        // again in the delete's own transaction, before its rowid can be taken by a new pin.
        // SQLite drops the column only once nothing in the schema names it (the index, the
        // trigger), so both are made again on `pin`. The step links what schema 10 noted.
        Migration(version: 18, name: "photo pin by row", sql: """
            ALTER TABLE photos ADD COLUMN pin INTEGER;
            UPDATE photos SET pin = (SELECT l.rowid FROM locations l WHERE l.id = photos.pin_id) WHERE pin_id IS NOT NULL;
            DROP TRIGGER photos_forgotten;
            DROP INDEX photos_pin;
            ALTER TABLE photos DROP COLUMN pin_id;
            CREATE INDEX photos_pin ON photos(pin) WHERE pin IS NOT NULL;
            CREATE TRIGGER photos_forgotten AFTER DELETE ON photos WHEN OLD.pin IS NOT NULL
                BEGIN INSERT OR IGNORE INTO pending_work (name) VALUES ('photo links'); END;
            """, step: { db in if try PhotoLinks.isStale(db) { try PhotoLinks.relink(db) } }),
        // Which pins changed, in order (`PinChangeLog`): every write of any process (the CLI, an
        // import, `pins serve`) notes the ids of the pins whose stored form (`Location`, with
        // its photo count and its photos' offset) it changed, so a reader that keeps the pins
        // (`pins serve`) reads again only those. The log keeps the last `PinChangeLog.kept`
        // changes (a reader further behind reads everything again).
        Migration(version: 19, name: "pin change log", sql: PinChangeLog.schema),
        // The log names a pin once per write, not once per changed row (`PinChangeLog.heldSchema`):
        // a 100,000-file import logged a row per photo linked, about 90,000. Its rows are kept:
        // a reader's position stays good across the migration.
        Migration(version: 20, name: "pin change log once per write", sql: PinChangeLog.heldSchema),
        // Schema 20's triggers failed inside the photos' upsert (`PinChangeLog.heldOnceSchema`).
        Migration(version: 21, name: "pin change log without conflict clauses", sql: PinChangeLog.heldOnceSchema),
        // Schema 21's triggers copied a row into a temporary table at each firing
        // (`PinChangeLog.heldInWhenSchema`): the same log, cheaper to write.
        Migration(version: 22, name: "pin change log without temporary tables", sql: PinChangeLog.heldInWhenSchema),
        // The camera clock offset a photo's record was read with (`PhotoRecord.clockOffset`): a
        // photo skipped for "no location" whose camera clock a later run corrects is decided
        // again at its corrected instant, which the record alone could not give (its time has
        // the old offset in it). NULL in the records before: not known.
        Migration(version: 23, name: "photo clock offset", sql: """
            ALTER TABLE photos ADD COLUMN clock_offset REAL;
            """),
    ]

    /// Schema 11: the pins of Saved Places imported before become wanted, but for one with a
    /// recorded photo (one of the person's own, with a position) within the app's 5 km: that
    /// photo was skipped for being near it, or made a pin beside it, so the person has been
    /// there, and it stays a visit (the import rule would have made it visited; a photo
    /// already recorded is never decided again). A Saved Place imported by a file kind pins
    /// did not tell apart (a KML export of a Maps list) cannot be known and stays a visit.
    @Sendable static func wantedSavedPlaces(_ db: Connection) throws {
        let saved = try db.query("""
            SELECT l.id, l.latitude, l.longitude FROM locations l
            WHERE l.id IN (SELECT location_id FROM place_records WHERE key LIKE 'saved-places:%' AND location_id IS NOT NULL)
            ORDER BY l.id
            """) { (id: $0.string(0), coordinate: Coordinate(latitude: $0.double(1), longitude: $0.double(2))) }
        guard !saved.isEmpty else { return }
        var index = PinSpatialIndex(threshold: AngularDistance.appThreshold)
        for (tag, pin) in saved.enumerated() where pin.coordinate.isValid { index.insert(pin.coordinate, tag: tag) }
        var visited = Set<Int>()
        let photos = try db.prepare("SELECT latitude, longitude FROM photos WHERE latitude IS NOT NULL AND longitude IS NOT NULL AND missing = 0")
        while try photos.step() {
            let c = Coordinate(latitude: photos.double(0), longitude: photos.double(1))
            if c.isValid, let match = index.nearest(to: c) { visited.insert(match.entry.tag) }
        }
        for (tag, pin) in saved.enumerated() where !visited.contains(tag) {
            try db.run("UPDATE locations SET wanted = 1 WHERE id = ?", [pin.id])
        }
    }

    /// Schema 5: rewrites each photo id that holds a backslash in the text of `RawPath.description`.
    /// Before, `/p/a\xFF.jpg` could be the byte 0xFF or the four characters `\xFF`; the photos
    /// table kept the bytes (`path` is a BLOB), so the id is read back through it: the recorded
    /// file that pointed at this pin with that old text, else the one recorded file that had that
    /// text. An id no recorded file had (its record was forgotten) is read as the characters it
    /// shows. Ids without a backslash read the same before and after and are not touched.
    @Sendable static func unambiguousPhotoIDs(_ db: Connection) throws {
        // `\\` in the stored JSON is one backslash in an id (a JSON escape); `\/` is only a slash.
        let pins = try db.query("SELECT id, photo_ids FROM locations WHERE instr(photo_ids, '\\\\') > 0") { ($0.string(0), $0.string(1)) }
        guard !pins.isEmpty else { return }
        // Recorded files whose old text had a backslash, by that text, with the pin each points at.
        var recorded: [String: [(path: RawPath, pin: String?)]] = [:]
        let statement = try db.prepare("SELECT path, location_id FROM photos ORDER BY missing, path")
        while try statement.step() {
            let path = RawPath(bytes: statement.blob(0))
            guard path.bytes.contains(UInt8(ascii: "\\")) || String(validating: path.bytes, as: UTF8.self) == nil else { continue }
            recorded[legacyText(path), default: []].append((path, statement.optionalString(1)))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for (id, text) in pins {
            guard let ids = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) else { continue }
            let rewritten = ids.map { old -> String in
                guard old.contains("\\") else { return old }
                let files = recorded[old] ?? []
                if let own = files.first(where: { $0.pin == id }) { return own.path.description }
                if let only = files.first, files.allSatisfy({ $0.path == only.path }) { return only.path.description }
                return RawPath(old).description
            }
            guard rewritten != ids else { continue }
            try db.run("UPDATE locations SET photo_ids = ? WHERE id = ?",
                       [String(decoding: try encoder.encode(rewritten), as: UTF8.self), id])
        }
    }

    /// A path's text before schema 5: `description` without backslashes doubled.
    static func legacyText(_ path: RawPath) -> String {
        path.description.replacingOccurrences(of: "\\\\", with: "\\")
    }

    public static var latestVersion: Int { all.last?.version ?? 0 }

    enum MigrationError: Error, CustomStringConvertible {
        case newerSchema(found: Int, known: Int, path: String)

        var description: String {
            switch self {
            case let .newerSchema(found, known, path):
                return "\(path) has schema version \(found), but this pins knows only up to \(known): use a newer pins"
            }
        }
    }

    static func currentVersion(of connection: Connection) throws -> Int {
        let exists = try connection.scalarInt(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'") ?? 0
        guard exists > 0 else { return 0 }
        return Int(try connection.scalarInt("SELECT max(version) FROM schema_migrations") ?? 0)
    }

    /// Applies every migration the database lacks, up to `target` (tests stop early to build
    /// files "from an earlier migration").
    static func migrate(_ connection: Connection, upTo target: Int = latestVersion) throws {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                applied_at REAL NOT NULL
            )
            """)
        let current = try currentVersion(of: connection)
        guard current <= latestVersion else {
            throw MigrationError.newerSchema(found: current, known: latestVersion, path: connection.path)
        }
        for migration in all where migration.version > current && migration.version <= target {
            try connection.transaction {
                if !migration.sql.isEmpty { try connection.execute(migration.sql) }
                try migration.step?(connection)
                try connection.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                                   [migration.version, migration.name, Date().timeIntervalSince1970])
            }
        }
    }
}
