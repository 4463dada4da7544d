import Foundation
import PinCore

/// The pins changed since a reader last read them (schema 19; schema 20: one row per pin per
/// write, see `heldSchema`). Triggers on `locations` and
/// `photos` append a pin's id to `pin_changes` whenever its stored form changes: its row (made,
/// edited, deleted) or a photo row that `SQLiteLocationRepository.columns` reads into it (its
/// photo count by `pin`, the pin's rowid; its offset by `location_id`). Any process's write is
/// logged, so a reader learns of the CLI's and the nightly import's changes as of its own.
/// (Since schema 24 a write of pins names the pins of the photo rows it inserts itself, at its
/// end: `writerNamesInsertsSchema`.)
///
/// `seq` is the rowid, never reused: the newest row is never pruned, so `max(seq)` only grows.
/// Every 256th row prunes the rows older than the last `kept`.
public enum PinChangeLog {
    static let kept = 10_000

    static let schema = """
        CREATE TABLE pin_changes (seq INTEGER PRIMARY KEY, pin_id TEXT NOT NULL);
        CREATE TRIGGER pin_changes_made AFTER INSERT ON locations
            BEGIN INSERT INTO pin_changes (pin_id) VALUES (NEW.id); END;
        CREATE TRIGGER pin_changes_edited AFTER UPDATE ON locations
            BEGIN INSERT INTO pin_changes (pin_id) SELECT OLD.id UNION SELECT NEW.id; END;
        CREATE TRIGGER pin_changes_removed AFTER DELETE ON locations
            BEGIN INSERT INTO pin_changes (pin_id) VALUES (OLD.id); END;
        CREATE TRIGGER pin_changes_photo_made AFTER INSERT ON photos
            WHEN NEW.pin IS NOT NULL OR NEW.location_id IS NOT NULL
            BEGIN INSERT INTO pin_changes (pin_id) SELECT x FROM (SELECT (SELECT id FROM locations WHERE rowid = NEW.pin) AS x
                UNION SELECT NEW.location_id) WHERE x IS NOT NULL; END;
        CREATE TRIGGER pin_changes_photo_changed AFTER UPDATE OF path, decision, utc_offset, location_id, pin ON photos
            WHEN OLD.pin IS NOT NEW.pin OR OLD.location_id IS NOT NEW.location_id
                OR (NEW.location_id IS NOT NULL AND (OLD.utc_offset IS NOT NEW.utc_offset OR OLD.decision IS NOT NEW.decision OR OLD.path IS NOT NEW.path))
            BEGIN INSERT INTO pin_changes (pin_id) SELECT x FROM (SELECT (SELECT id FROM locations WHERE rowid = OLD.pin) AS x
                UNION SELECT (SELECT id FROM locations WHERE rowid = NEW.pin) UNION SELECT OLD.location_id UNION SELECT NEW.location_id)
                WHERE x IS NOT NULL; END;
        CREATE TRIGGER pin_changes_photo_removed AFTER DELETE ON photos
            WHEN OLD.pin IS NOT NULL OR OLD.location_id IS NOT NULL
            BEGIN INSERT INTO pin_changes (pin_id) SELECT x FROM (SELECT (SELECT id FROM locations WHERE rowid = OLD.pin) AS x
                UNION SELECT OLD.location_id) WHERE x IS NOT NULL; END;
        CREATE TRIGGER pin_changes_pruned AFTER INSERT ON pin_changes WHEN NEW.seq % 256 = 0
            BEGIN DELETE FROM pin_changes WHERE seq <= NEW.seq - \(kept); END;
        """

    /// Schema 20: one row per pin per write, where schema 19 wrote one per changed row (a
    /// 100,000-file import logged about 90,000 rows, one per photo linked to a pin, and each
    /// was a trigger's write inside the photo's upsert: the statement then journals its pages,
    /// SQLite allocates and frees its in-memory statement journal's first chunk, 4 MiB (see
    /// `Connection.statementJournalSpillBytes`), the most of what linking photos cost an import).
    ///
    /// The triggers now name a pin in `pin_changes_held` (its id the key: a pin named twice is
    /// one row). Outside a held write, `pin_changes_held_now` moves it to the log at once: any
    /// writer that does not hold (plain SQL, another tool, a migration, a repair) logs as in
    /// schema 19. `PinDatabase.write` holds: it puts the empty id in the table first, so the
    /// names stay there, and moves them to the log in one statement just before its commit
    /// (`release`). The holding row never commits (a failed write rolls it back with the
    /// rest), and the log's new rows commit with the changes they name, so a reader that read
    /// up to `seq` S (any process: it reads committed pages only) finds every pin the write
    /// changed after S. Skipping a pin because the log's newest row already names it would
    /// not do: a reader may have read that row before this change.
    static let heldSchema = """
        CREATE TABLE pin_changes_held (pin_id TEXT PRIMARY KEY) WITHOUT ROWID;
        CREATE TRIGGER pin_changes_held_now AFTER INSERT ON pin_changes_held
            WHEN NOT EXISTS (SELECT 1 FROM pin_changes_held WHERE pin_id = '')
            BEGIN INSERT INTO pin_changes (pin_id) VALUES (NEW.pin_id); DELETE FROM pin_changes_held WHERE pin_id = NEW.pin_id; END;
        DROP TRIGGER pin_changes_made;
        DROP TRIGGER pin_changes_edited;
        DROP TRIGGER pin_changes_removed;
        DROP TRIGGER pin_changes_photo_made;
        DROP TRIGGER pin_changes_photo_changed;
        DROP TRIGGER pin_changes_photo_removed;
        CREATE TRIGGER pin_changes_made AFTER INSERT ON locations
            BEGIN INSERT OR IGNORE INTO pin_changes_held (pin_id) VALUES (NEW.id); END;
        CREATE TRIGGER pin_changes_edited AFTER UPDATE ON locations
            WHEN NOT EXISTS (SELECT 1 FROM pin_changes_held WHERE pin_id = OLD.id) OR NOT EXISTS (SELECT 1 FROM pin_changes_held WHERE pin_id = NEW.id)
            BEGIN INSERT OR IGNORE INTO pin_changes_held (pin_id) VALUES (OLD.id);
                INSERT OR IGNORE INTO pin_changes_held (pin_id) SELECT NEW.id WHERE NEW.id IS NOT OLD.id; END;
        CREATE TRIGGER pin_changes_removed AFTER DELETE ON locations
            BEGIN INSERT OR IGNORE INTO pin_changes_held (pin_id) VALUES (OLD.id); END;
        CREATE TRIGGER pin_changes_photo_made AFTER INSERT ON photos
            WHEN \(unheld("NEW.pin", "NEW.location_id"))
            BEGIN INSERT OR IGNORE INTO pin_changes_held (pin_id) SELECT id FROM locations WHERE rowid = NEW.pin;
                INSERT OR IGNORE INTO pin_changes_held (pin_id) SELECT NEW.location_id
                    WHERE NEW.location_id IS NOT NULL AND NEW.location_id IS NOT (SELECT id FROM locations WHERE rowid = NEW.pin); END;
        CREATE TRIGGER pin_changes_photo_changed AFTER UPDATE OF path, decision, utc_offset, location_id, pin ON photos
            WHEN (OLD.pin IS NOT NEW.pin OR OLD.location_id IS NOT NEW.location_id
                OR (NEW.location_id IS NOT NULL AND (OLD.utc_offset IS NOT NEW.utc_offset OR OLD.decision IS NOT NEW.decision OR OLD.path IS NOT NEW.path)))
                AND (\(unheld("OLD.pin", "OLD.location_id")) OR \(unheld("NEW.pin", "NEW.location_id")))
            BEGIN INSERT OR IGNORE INTO pin_changes_held (pin_id) SELECT id FROM locations WHERE rowid = OLD.pin;
                INSERT OR IGNORE INTO pin_changes_held (pin_id) SELECT id FROM locations WHERE rowid = NEW.pin AND NEW.pin IS NOT OLD.pin;
                INSERT OR IGNORE INTO pin_changes_held (pin_id) SELECT OLD.location_id WHERE OLD.location_id IS NOT NULL;
                INSERT OR IGNORE INTO pin_changes_held (pin_id) SELECT NEW.location_id
                    WHERE NEW.location_id IS NOT NULL AND NEW.location_id IS NOT OLD.location_id; END;
        CREATE TRIGGER pin_changes_photo_removed AFTER DELETE ON photos
            WHEN \(unheld("OLD.pin", "OLD.location_id"))
            BEGIN INSERT OR IGNORE INTO pin_changes_held (pin_id) SELECT id FROM locations WHERE rowid = OLD.pin;
                INSERT OR IGNORE INTO pin_changes_held (pin_id) SELECT OLD.location_id
                    WHERE OLD.location_id IS NOT NULL AND OLD.location_id IS NOT (SELECT id FROM locations WHERE rowid = OLD.pin); END;
        """

    /// Schema 21: the same triggers, each naming a pin only when it is not held yet (`NOT
    /// EXISTS`) instead of through `INSERT OR IGNORE`. SQLite gives a trigger's statements the
    /// conflict policy of the statement that fired it when that one has its own: the photos'
    /// upsert (`ON CONFLICT(path) DO UPDATE`, a photo read again) turned the IGNORE into an
    /// error, and an import that read a changed sidecar failed with "UNIQUE constraint failed:
    /// pin_changes_held.pin_id" (schema 20, c05f6c4). Outside a held write a named pin leaves the
    /// table at once, so the same pin named twice by one trigger is kept out as schema 20 did.
    static let heldOnceSchema: String = {
        func held(_ id: String, from: String? = nil, where condition: String? = nil) -> String {
            "INSERT INTO pin_changes_held (pin_id) SELECT \(id)" + (from.map { " FROM \($0)" } ?? "")
                + " WHERE " + (condition.map { "(\($0)) AND " } ?? "")
                + "\(id) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pin_changes_held h WHERE h.pin_id = \(id));"
        }
        func heldRow(_ row: String) -> String { held("l.id", from: "locations l", where: "l.rowid = \(row)") }
        return """
            DROP TRIGGER pin_changes_made;
            DROP TRIGGER pin_changes_edited;
            DROP TRIGGER pin_changes_removed;
            DROP TRIGGER pin_changes_photo_made;
            DROP TRIGGER pin_changes_photo_changed;
            DROP TRIGGER pin_changes_photo_removed;
            CREATE TRIGGER pin_changes_made AFTER INSERT ON locations
                BEGIN \(held("NEW.id")) END;
            CREATE TRIGGER pin_changes_edited AFTER UPDATE ON locations
                WHEN NOT EXISTS (SELECT 1 FROM pin_changes_held WHERE pin_id = OLD.id) OR NOT EXISTS (SELECT 1 FROM pin_changes_held WHERE pin_id = NEW.id)
                BEGIN \(held("OLD.id")) \(held("NEW.id", where: "NEW.id IS NOT OLD.id")) END;
            CREATE TRIGGER pin_changes_removed AFTER DELETE ON locations
                BEGIN \(held("OLD.id")) END;
            CREATE TRIGGER pin_changes_photo_made AFTER INSERT ON photos
                WHEN \(unheld("NEW.pin", "NEW.location_id"))
                BEGIN \(heldRow("NEW.pin"))
                    \(held("NEW.location_id", where: "NEW.location_id IS NOT (SELECT id FROM locations WHERE rowid = NEW.pin)")) END;
            CREATE TRIGGER pin_changes_photo_changed AFTER UPDATE OF path, decision, utc_offset, location_id, pin ON photos
                WHEN (OLD.pin IS NOT NEW.pin OR OLD.location_id IS NOT NEW.location_id
                    OR (NEW.location_id IS NOT NULL AND (OLD.utc_offset IS NOT NEW.utc_offset OR OLD.decision IS NOT NEW.decision OR OLD.path IS NOT NEW.path)))
                    AND (\(unheld("OLD.pin", "OLD.location_id")) OR \(unheld("NEW.pin", "NEW.location_id")))
                BEGIN \(heldRow("OLD.pin")) \(held("l.id", from: "locations l", where: "l.rowid = NEW.pin AND NEW.pin IS NOT OLD.pin"))
                    \(held("OLD.location_id")) \(held("NEW.location_id", where: "NEW.location_id IS NOT OLD.location_id")) END;
            CREATE TRIGGER pin_changes_photo_removed AFTER DELETE ON photos
                WHEN \(unheld("OLD.pin", "OLD.location_id"))
                BEGIN \(heldRow("OLD.pin"))
                    \(held("OLD.location_id", where: "OLD.location_id IS NOT (SELECT id FROM locations WHERE rowid = OLD.pin)")) END;
            """
    }()

    /// Schema 22: the same names of the same pins, each trigger naming one pin with `INSERT
    /// ... VALUES`, its "not held yet" in the trigger's `WHEN`. Schema 21's `INSERT INTO
    /// pin_changes_held SELECT ...` wrote a table with a trigger (`pin_changes_held_now`), so
    /// SQLite copied the `SELECT`'s row into a temporary table first, with a b-tree and a page
    /// cache of its own, made and freed at every firing: a pin made, a pin's first photo in
    /// each write (4,262 times in a
    /// 100,000-file import with photo links, each freeing pages glibc gave back and faulted in
    /// again). A trigger's `WHEN` is read when it fires, after the triggers before it have
    /// named theirs, so two triggers of one row name a pin once (as schema 21's guards did,
    /// kept here, outside a held write too).
    static let heldInWhenSchema: String = {
        let table = "pin_changes_held"
        func unheldID(_ id: String) -> String { "\(id) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(table) WHERE pin_id = \(id))" }
        // That row is a pin (a photo's `pin` may name a deleted one until the links are made
        // again: the body would insert NULL) and its id is not held.
        func unheldRow(_ row: String) -> String {
            "EXISTS (SELECT 1 FROM locations l WHERE l.rowid = \(row) AND l.id NOT IN (SELECT pin_id FROM \(table)))"
        }
        func pinID(_ row: String) -> String { "(SELECT id FROM locations WHERE rowid = \(row))" }
        func trigger(_ name: String, _ event: String, _ conditions: [String], _ body: String) -> String {
            "CREATE TRIGGER \(name) \(event)\n    WHEN \(conditions.map { "(\($0))" }.joined(separator: " AND "))\n    BEGIN INSERT INTO \(table) (pin_id) \(body); END;"
        }
        func byID(_ id: String) -> String { "VALUES (\(id))" }
        func byRow(_ row: String) -> String { "VALUES (\(pinID(row)))" }
        let changed = """
            OLD.pin IS NOT NEW.pin OR OLD.location_id IS NOT NEW.location_id
                OR (NEW.location_id IS NOT NULL AND (OLD.utc_offset IS NOT NEW.utc_offset OR OLD.decision IS NOT NEW.decision OR OLD.path IS NOT NEW.path))
            """
        let photoUpdate = "AFTER UPDATE OF path, decision, utc_offset, location_id, pin ON photos"
        return [
            "DROP TRIGGER pin_changes_made;", "DROP TRIGGER pin_changes_edited;", "DROP TRIGGER pin_changes_removed;",
            "DROP TRIGGER pin_changes_photo_made;", "DROP TRIGGER pin_changes_photo_changed;", "DROP TRIGGER pin_changes_photo_removed;",
            trigger("pin_changes_made", "AFTER INSERT ON locations", [unheldID("NEW.id")], byID("NEW.id")),
            trigger("pin_changes_edited", "AFTER UPDATE ON locations", [unheldID("OLD.id")], byID("OLD.id")),
            trigger("pin_changes_edited_id", "AFTER UPDATE ON locations", ["NEW.id IS NOT OLD.id", unheldID("NEW.id")], byID("NEW.id")),
            trigger("pin_changes_removed", "AFTER DELETE ON locations", [unheldID("OLD.id")], byID("OLD.id")),
            trigger("pin_changes_photo_made", "AFTER INSERT ON photos", [unheldRow("NEW.pin")], byRow("NEW.pin")),
            trigger("pin_changes_photo_made_at", "AFTER INSERT ON photos",
                    ["NEW.location_id IS NOT (SELECT id FROM locations WHERE rowid = NEW.pin)", unheldID("NEW.location_id")], byID("NEW.location_id")),
            trigger("pin_changes_photo_changed", photoUpdate, [changed, unheldRow("OLD.pin")], byRow("OLD.pin")),
            trigger("pin_changes_photo_changed_to", photoUpdate, [changed, "NEW.pin IS NOT OLD.pin", unheldRow("NEW.pin")], byRow("NEW.pin")),
            trigger("pin_changes_photo_changed_at", photoUpdate, [changed, unheldID("OLD.location_id")], byID("OLD.location_id")),
            trigger("pin_changes_photo_changed_at_new", photoUpdate,
                    [changed, "NEW.location_id IS NOT OLD.location_id", unheldID("NEW.location_id")], byID("NEW.location_id")),
            trigger("pin_changes_photo_removed", "AFTER DELETE ON photos", [unheldRow("OLD.pin")], byRow("OLD.pin")),
            trigger("pin_changes_photo_removed_at", "AFTER DELETE ON photos",
                    ["OLD.location_id IS NOT (SELECT id FROM locations WHERE rowid = OLD.pin)", unheldID("OLD.location_id")], byID("OLD.location_id")),
        ].joined(separator: "\n")
    }()

    /// Schema 24: a write of pins names the pins of the photo rows it inserts itself, in one
    /// statement at its end (`release`), instead of the two photo insert triggers running their
    /// lookups at every row: an import's batch inserts 500 photo records, and the triggers' `WHEN`
    /// looked up each one's pin (twice) and whether it was held, a tenth of what linking photos
    /// cost an import. `hold` writes the largest photo rowid there is (`pin_changes_from`) and
    /// the insert triggers leave alone every row above it; `release` names the pin (`pin`, by
    /// its row) and the `location_id` of every photo row above it. Rowids of rows the write
    /// inserts are above it (SQLite gives a new row the largest rowid plus one), but for a row
    /// inserted after the write deleted the largest ones (a photo moved: its record deleted,
    /// then made again): that one's rowid may be at or below it, and its triggers name its pins
    /// as before. The row in `pin_changes_from` never commits (`release` deletes it, a failed
    /// write rolls it back): any other writer (plain SQL, another tool, a migration, a repair)
    /// finds the table empty, and its inserts are named by the triggers as before. pins' own
    /// upserts do not ask the triggers at all when their rows land above the mark
    /// (`ownInsertReads`).
    static let writerNamesInsertsSchema: String = {
        let table = "pin_changes_held"
        // Not a row the write that holds names at its end.
        let notNamedAtEnd = "NOT EXISTS (SELECT 1 FROM pin_changes_from WHERE NEW.rowid > photo)"
        let unheldRow = "EXISTS (SELECT 1 FROM locations l WHERE l.rowid = NEW.pin AND l.id NOT IN (SELECT pin_id FROM \(table)))"
        let unheldID = "NEW.location_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(table) WHERE pin_id = NEW.location_id)"
        return """
            CREATE TABLE pin_changes_from (photo INTEGER NOT NULL);
            DROP TRIGGER pin_changes_photo_made;
            DROP TRIGGER pin_changes_photo_made_at;
            CREATE TRIGGER pin_changes_photo_made AFTER INSERT ON photos
                WHEN (NEW.pin IS NOT NULL) AND (\(notNamedAtEnd)) AND (\(unheldRow))
                BEGIN INSERT INTO \(table) (pin_id) VALUES ((SELECT id FROM locations WHERE rowid = NEW.pin)); END;
            CREATE TRIGGER pin_changes_photo_made_at AFTER INSERT ON photos
                WHEN (NEW.location_id IS NOT NULL) AND (\(notNamedAtEnd))
                    AND (NEW.location_id IS NOT (SELECT id FROM locations WHERE rowid = NEW.pin)) AND (\(unheldID))
                BEGIN INSERT INTO \(table) (pin_id) VALUES (NEW.location_id); END;
            """
    }()

    /// A photo trigger's condition (schema 20): the photo names a pin (by its row, `pin`, or by
    /// its id, `location_id`) that the current write does not hold yet. Checked before the
    /// trigger's body runs, so that a write's photos after the first of each pin run no
    /// statement that writes: one that does makes SQLite keep the whole upsert's statement
    /// journal, whose first 4 MiB chunk (`Connection.statementJournalSpillBytes`) it allocates
    /// and frees again each time. Outside a held write nothing is held: always true when the
    /// photo names a pin. (A row whose pin is gone reads as not held: its body names nothing.)
    static func unheld(_ row: String, _ id: String) -> String {
        """
        ((\(row) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM locations l JOIN pin_changes_held h ON h.pin_id = l.id WHERE l.rowid = \(row)))
                OR (\(id) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pin_changes_held WHERE pin_id = \(id))))
        """
    }

    /// What the photo insert triggers (`writerNamesInsertsSchema`) read first, whether the new
    /// row names a pin: read as NULL (no pin) in the statements of a write that names the pins
    /// of the rows it inserts itself, when every row they insert lands above its mark
    /// (`Connection.photoInsertsNamedAbove`, `SQLitePhotoRepository.saveAll`). There the
    /// triggers' answer is known, nothing to name (`notNamedAtEnd` is false), and finding it
    /// out read `pin_changes_from` at every row with a pin: an import's 90,000 linked photos
    /// (88 M instructions of the 453 M linking added to a replay of the bench's upserts through
    /// libsqlite3). Any other statement, and every other program, runs the triggers whole.
    static let ownInsertReads: Set = [TriggerRead(trigger: "pin_changes_photo_made", table: "photos", column: "pin"),
                                 TriggerRead(trigger: "pin_changes_photo_made_at", table: "photos", column: "location_id")]

    /// Starts holding the names of the pins the current write transaction changes (schema 20);
    /// `namesInserts` (schema 24): and naming at its end those of the photo rows it inserts. At
    /// the largest rowid SQLite can give (it then picks new rowids at random) the triggers name
    /// them.
    static func hold(_ db: Connection, namesInserts: Bool) throws {
        try db.run("INSERT OR IGNORE INTO pin_changes_held (pin_id) VALUES ('')")
        guard namesInserts else { return }
        // max(rowid) alone: SQLite reads the last row only (in coalesce() it reads every row).
        let largest = try db.scalarInt("SELECT max(rowid) FROM photos") ?? 0
        guard largest < Int64.max else { return }
        try db.run("INSERT INTO pin_changes_from (photo) VALUES (?)", [largest])
        db.photoInsertsNamedAbove = largest
    }

    /// Logs each pin held since `hold` once, with (schema 24) the pins of the photo rows the
    /// write inserted (see `writerNamesInsertsSchema`), and stops holding: in the same
    /// transaction, before its commit.
    static func release(_ db: Connection, namesInserts: Bool) throws {
        guard namesInserts else {
            try db.run("INSERT INTO pin_changes (pin_id) SELECT pin_id FROM pin_changes_held WHERE pin_id <> '' ORDER BY pin_id")
            try db.run("DELETE FROM pin_changes_held")
            return
        }
        // No mark (the largest rowid): the triggers named every insert. The write's rows only,
        // by rowid: SQLite would rather read all of photos_location, or look up each pin's
        // photos in photos_pin, at every write.
        let from = try db.scalarInt("SELECT photo FROM pin_changes_from") ?? Int64.max
        try db.run("INSERT INTO pin_changes (pin_id) " + heldAndInserted, [from])
        try db.run("DELETE FROM pin_changes_held")
        try db.run("DELETE FROM pin_changes_from")
        db.photoInsertsNamedAbove = nil
    }

    /// The pins a write holds and those of the photo rows above rowid ?1, each once, in order.
    /// A batch's 500 photo rows name about 80 pins: their rows, each once (`IN`: integers), are
    /// looked up, not each photo's pin and its id put into the `UNION`'s table (the last batch
    /// of a 10,000-file scripts/gen-library --small import, this query alone under callgrind:
    /// 1.88 M instructions with photo links before, 1.46 M now; without links 1.13 M and 1.19 M).
    static let heldAndInserted = """
        SELECT pin_id FROM pin_changes_held WHERE pin_id <> ''
        UNION SELECT l.id FROM locations l WHERE l.rowid IN (SELECT p.pin FROM photos p NOT INDEXED WHERE p.rowid > ?1 AND p.pin IS NOT NULL)
        UNION SELECT p.location_id FROM photos p NOT INDEXED WHERE p.rowid > ?1 AND p.location_id IS NOT NULL
        ORDER BY 1
        """

    /// Whether the write names the pins of the photo rows it inserts itself (schema 24).
    static func namesInserts(_ db: Connection) throws -> Bool {
        try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'pin_changes_from'") ?? 0 > 0
    }

    /// Whether the file's log holds a write's changes until its end (schema 20).
    static func holds(_ db: Connection) throws -> Bool {
        try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'pin_changes_held'") ?? 0 > 0
    }

    /// More changed pins than this and a reader reads every pin again: one pass is cheaper.
    public static let patchLimit = 2_000
}

/// Every stored pin, with the change log's position they are as of (nil: no log).
public struct PinSnapshot: Sendable {
    public var seq: Int64?
    public var pins: [Location]

    public init(seq: Int64?, pins: [Location]) {
        self.seq = seq
        self.pins = pins
    }
}

/// The pins changed after `since` up to `seq`: each id with the pin as stored now (nil: deleted).
public struct PinChanges: Sendable {
    public var seq: Int64
    public var pins: [(id: UUID, pin: Location?)]

    public init(seq: Int64, pins: [(id: UUID, pin: Location?)]) {
        self.seq = seq
        self.pins = pins
    }
}

extension PinDatabase {
    /// Every pin (oldest first, by date then id) and the log's position, in one read.
    public func pinSnapshot() throws -> PinSnapshot {
        try read { repos in
            PinSnapshot(seq: try changeLogPosition(), pins: try repos.locations.fetchAll(countryID: nil))
        }
    }

    /// The pins changed since the log's position `since`, as stored now, in one read; nil
    /// when the log cannot tell (no log, pruned past `since`, a position ahead of the log's, or
    /// more than `PinChangeLog.patchLimit` pins): the reader reads everything again. (A file
    /// replaced by another is the reader's to notice: its positions mean nothing here.)
    public func pinChanges(since: Int64) throws -> PinChanges? {
        try read { repos in
            guard let latest = try changeLogPosition(), latest >= since else { return nil }
            guard latest > since else { return PinChanges(seq: latest, pins: []) }
            guard let first = try connection.scalarInt("SELECT min(seq) FROM pin_changes"), first <= since + 1 else { return nil }
            let ids = try connection.query("SELECT DISTINCT pin_id FROM pin_changes WHERE seq > ? AND seq <= ? LIMIT ?",
                                           [since, latest, PinChangeLog.patchLimit + 1]) { $0.string(0) }
            guard ids.count <= PinChangeLog.patchLimit else { return nil }
            var pins: [(id: UUID, pin: Location?)] = []
            for text in ids {
                guard let id = UUID(uuidString: text) else { return nil }
                pins.append((id, try repos.locations.fetch(id: id)))
            }
            return PinChanges(seq: latest, pins: pins)
        }
    }

    /// The newest row of the log (0 when empty), nil without one (a file of a schema before 19).
    private func changeLogPosition() throws -> Int64? {
        guard !readsACopy, try connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'pin_changes'") ?? 0 > 0 else {
            return nil
        }
        return try connection.scalarInt("SELECT coalesce(max(seq), 0) FROM pin_changes") ?? 0
    }
}
