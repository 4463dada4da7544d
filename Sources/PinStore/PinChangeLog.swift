import Foundation
import PinCore

/// The pins changed since a reader last read them (schema 19). Triggers on `locations` and
/// `photos` append a pin's id to `pin_changes` whenever its stored form changes: its row (made,
/// edited, deleted) or a photo row that `SQLiteLocationRepository.columns` reads into it (its
/// photo count by `pin`, the pin's rowid; its offset by `location_id`). Any process's write is
/// logged, so a reader learns of the CLI's and the nightly import's changes as of its own.
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
