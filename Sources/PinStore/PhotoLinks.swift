import Foundation
import PinCore

/// A pin's photos and its visits (issue 39).
///
/// Every recorded photo with a position belongs to one pin (`photos.pin`, the pin's rowid in
/// `locations`; schema 18, see `Migrations`): the pin it made
/// (an accepted photo whose `location_id` still stands), else the pin nearest to it within the
/// distance rule's radius (`AngularDistance.appThreshold`, the 5 km that kept it from making a
/// pin of its own), else none. Pins made by hand or from place files take photos the same way.
///
/// The links follow the pins: triggers on `locations` (schema 9) note in `pending_work` that a
/// pin was made, moved or removed, and the write that did it links again before it commits
/// (`PinDatabase.write`), so a delete or an undo hands a pin's photos to the next nearest pin in
/// the same transaction. An import defers that to its last write: one pass for the run, not one
/// per batch of 500 decisions. A run killed before leaves the note, and the next write links.
///
/// Each pass also recounts the visits of every pin whose count no person gave (`visits_by_hand`
/// = 0): the number of stays among its photos (`Visits.stays`).
enum PhotoLinks {
    static let pending = "photo links"

    static func isStale(_ db: Connection) throws -> Bool {
        try db.scalarInt("SELECT EXISTS (SELECT 1 FROM pending_work WHERE name = ?)", [pending]) == 1
    }

    static func markStale(_ db: Connection) throws {
        try db.run("INSERT OR IGNORE INTO pending_work (name) VALUES (?)", [pending])
    }

    typealias Outcome = PhotoLinkOutcome

    /// The pins as the pass sees them: rowids, their spatial index (tag = position in `rows`),
    /// the tag of each id (an accepted photo names its own pin by id, `location_id`), and the
    /// visit counts the pass may replace.
    struct Pins {
        var rows: [Int64] = []
        var tags: [String: Int] = [:]
        var index = PinSpatialIndex(threshold: AngularDistance.appThreshold)
        var visits: [Int] = []
        var byHand: [Bool] = []
    }

    /// Links every photo, recounts visits, clears the note. Inside the caller's transaction.
    @discardableResult
    static func relink(_ db: Connection) throws -> Outcome {
        var pins = Pins()
        for pin in try pinsOldestFirst(db) {
            let tag = pins.rows.count
            pins.rows.append(pin.row)
            pins.tags[pin.id] = tag
            pins.visits.append(pin.visits)
            pins.byHand.append(pin.byHand)
            if pin.coordinate.isValid { pins.index.insert(pin.coordinate, tag: tag) }
        }
        var outcome = Outcome()
        let stays = try link(db, pins, &outcome)
        for tag in pins.rows.indices where !pins.byHand[tag] {
            try setVisits(of: pins.rows[tag], stays: stays[tag].count, stored: pins.visits[tag], db, &outcome)
        }
        try db.run("DELETE FROM pending_work WHERE name = ?", [pending])
        return outcome
    }

    /// A pin's visit count is its stays, at least 1 (for a pin whose count no person gave):
    /// written when it is not the stored one.
    private static func setVisits(of row: Int64, stays: Int, stored: Int, _ db: Connection, _ outcome: inout Outcome) throws {
        let count = max(1, stays)
        guard count != stored else { return }
        try db.run("UPDATE locations SET visit_count = ? WHERE rowid = ?", [count, row])
        outcome.visitsChanged += 1
    }

    /// The end of an import whose save stage linked every photo itself (`RunPhotoLinks`): only
    /// the visits are set, from the stays the run counted, for every pin whose count no person
    /// gave; then the note is cleared. What `relink` would do when every photo with a position
    /// is one the run saved, each with the pin it belongs to (see `PinDatabase.write`).
    @discardableResult
    static func finish(_ run: RunPhotoLinks, _ db: Connection) throws -> Outcome {
        var outcome = Outcome()
        // By the pins' rows, which the run's writes looked up (`pinRow`, kept while no other
        // connection wrote): no id is read as text.
        var stays: [Int64: Int] = [:]
        for (id, count) in run.visits {
            if let row = try db.pinRow(id) { stays[row] = count }
        }
        let pins = try db.query("SELECT rowid, visit_count FROM locations WHERE visits_by_hand = 0", []) {
            (row: $0.int64(0), visits: $0.int(1))
        }
        for pin in pins { try setVisits(of: pin.row, stays: stays[pin.row] ?? 0, stored: pin.visits, db, &outcome) }
        outcome.linked = run.linked
        try db.run("DELETE FROM pending_work WHERE name = ?", [pending])
        return outcome
    }

    /// A pin as the pass reads it; `createdAt` nil when `created_at` is not stored as a number
    /// (SQLite orders any other value after every number).
    private struct PinRow {
        var row: Int64
        var id: String
        var coordinate: Coordinate
        var visits: Int
        var byHand: Bool
        var createdAt: Double?
    }

    /// Every pin, oldest first (`ORDER BY created_at, id`): between two pins at the very same
    /// distance the older one keeps its photos. Read in rowid order first, which is that order
    /// whenever each pin was made after the one before it (an import's pins): SQLite's sort of
    /// every pin's columns cost as much as reading them. Else read again, sorted by SQLite.
    private static func pinsOldestFirst(_ db: Connection) throws -> [PinRow] {
        let sql = "SELECT rowid, id, latitude, longitude, visit_count, visits_by_hand, created_at FROM locations"
        let read = { (s: Statement) -> PinRow in
            var createdAt: Double?
            if case let .real(value) = s.value(6) { createdAt = value }
            return PinRow(row: s.int64(0), id: s.string(1), coordinate: Coordinate(latitude: s.double(2), longitude: s.double(3)),
                          visits: s.int(4), byHand: s.int(5) != 0, createdAt: createdAt)
        }
        let rows = try db.query(sql, [], read)
        // SQLite's order: by the number, then by the id's bytes (BINARY).
        let ordered = zip(rows, rows.dropFirst()).allSatisfy { older, newer in
            guard let a = older.createdAt, let b = newer.createdAt else { return false }
            return a < b || (a == b && older.id.utf8.lexicographicallyPrecedes(newer.id.utf8))
        }
        return ordered ? rows : try db.query(sql + " ORDER BY created_at, id", [], read)
    }

    /// One read of the photos with a position: each one's pin, written where it changed; returns
    /// the stays among each pin's photos (by tag) for the visits. The rows come in rowid order,
    /// which is mostly the order of a walk (an import writes its photos in time order): nearest
    /// pins are looked up along it (`NearestPinWalk`).
    private static func link(_ db: Connection, _ pins: Pins, _ outcome: inout Outcome) throws -> [Visits.Stays] {
        var stays = [Visits.Stays](repeating: Visits.Stays(), count: pins.rows.count)
        var walk = NearestPinWalk()
        var changes: [(rowid: Int64, pin: Int64?)] = []
        // The table read in rowid order, page after page: SQLite would rather go through
        // photos_own_position (by time), looking each row up in the table. The decision is
        // read here, not in a `WHERE decision IN (...)`, whose three text comparisons cost
        // SQLite more than the rest of the condition at each of the 100,000 rows of a library.
        let statement = try db.statement("""
            SELECT rowid, latitude, longitude, decision, location_id, pin, taken_at, utc_offset FROM photos NOT INDEXED
            WHERE latitude IS NOT NULL AND longitude IS NOT NULL
            """)
        while try statement.step() {
            let decision = statement.withText(3) { LinkedDecision($0) }
            guard decision != .other else { continue }
            let coordinate = Coordinate(latitude: statement.double(1), longitude: statement.double(2))
            var tag: Int?
            if decision == .accepted, let own = statement.optionalString(4) { tag = pins.tags[own] }
            if tag == nil, coordinate.isValid { tag = walk.nearest(to: coordinate, in: pins.index)?.tag }
            let stored = statement.isNull(5) ? nil : statement.int64(5)
            let pin = tag.map { pins.rows[$0] }
            if pin != stored { changes.append((statement.int64(0), pin)) }
            guard let tag else { continue }
            outcome.linked += 1
            if let takenAt = statement.optionalDouble(6) {
                stays[tag].add(Visits.localDay(takenAt, offsetSeconds: statement.isNull(7) ? nil : statement.int(7)))
            }
        }
        for change in changes {
            try db.run("UPDATE photos SET pin = ? WHERE rowid = ?", [change.pin, change.rowid])
        }
        outcome.changed = changes.count
        return stays
    }
}

/// What an import's save stage worked out while it saved the photo records of a first import
/// (no photo with a position was recorded before it): each record was written with the pin it
/// belongs to among every pin there is at the run's end, the pins it made in later batches
/// included (set when they were made, `PhotoRepository.link`), so the last write only sets the
/// visits, from the stays the run counted (`PhotoLinks.finish`), instead of reading every record
/// again.
public struct RunPhotoLinks: Sendable {
    /// The stays (`Visits.stays`) among the photos linked to each pin that has any.
    public var visits: [UUID: Int]
    /// Photos linked to a pin.
    public var linked: Int

    public init(visits: [UUID: Int], linked: Int) {
        self.visits = visits
        self.linked = linked
    }
}

/// A photo record's decision as the linking pass reads it: a photo with a position is linked
/// when it was accepted (to the pin it made) or skipped for being near a pin in time or in
/// space (`interval`, `distance`: to the nearest pin). The three stored values are 8 bytes
/// each, compared as one word; any other text (the other decisions) is `other`.
public enum LinkedDecision: Sendable {
    case accepted, skipped, other

    /// Which decisions are linked, and how: the one place it is said (the pass reads it from
    /// the stored text, an import's save stage from its decisions).
    public init(_ decision: PhotoDecision) {
        switch decision {
        case .accepted: self = .accepted
        case .interval, .distance: self = .skipped
        case .noLocation, .unreadable, .notMedia: self = .other
        }
    }

    /// The stored text of each linked decision as one word, with what it means.
    private static let words: [(word: UInt64, linked: LinkedDecision)] = PhotoDecision.allCases.compactMap { decision in
        let linked = LinkedDecision(decision)
        guard linked != .other else { return nil }
        let bytes = Array(decision.rawValue.utf8)
        precondition(bytes.count == 8, "\(decision) is not 8 bytes")
        return (bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }, linked)
    }

    init(_ text: UnsafeRawBufferPointer) {
        self = .other
        guard text.count == 8, let start = text.baseAddress else { return }
        let word = start.loadUnaligned(as: UInt64.self)
        for entry in Self.words where entry.word == word {
            self = entry.linked
            return
        }
    }
}

/// What a pass of `PhotoLinks` changed.
struct PhotoLinkOutcome: Equatable, Sendable {
    /// Photos that now belong to a pin.
    var linked = 0
    /// Photo records whose pin changed (a link made, moved or removed).
    var changed = 0
    /// Pins whose visit count changed.
    var visitsChanged = 0
}

extension PinDatabase {
    /// Links every photo to its pin and recounts visits now, in one write (what a write that
    /// changes pins does by itself; tests and the bench call it after saving photo records).
    @discardableResult
    func linkPhotos() throws -> PhotoLinkOutcome {
        try connection.transaction { try PhotoLinks.relink(connection) }
    }
}

/// What a visit is (README "Visits"): a stay, the days with a photo at the pin taken together
/// when they follow one another. Two photos on the same local day, or on consecutive days,
/// are one visit; a day without a photo between two days with one ends a visit.
public enum Visits {
    /// Seconds in a day: a photo's day is its local date, its instant plus its own UTC offset.
    static let secondsPerDay = 86_400.0
    /// The most days between two days with photos of one stay: 1, the next calendar day.
    public static let maxGapDays = 1

    /// The local day number (days since 1970-01-01 in the photo's own offset; UTC when the
    /// photo gave none) of a photo taken at `instant`.
    public static func localDay(_ instant: Double, offsetSeconds: Int?) -> Int {
        Int(((instant + Double(offsetSeconds ?? 0)) / secondsPerDay).rounded(.down))
    }

    /// The number of stays among days (any order, repeats allowed): 0 for none.
    public static func stays(_ days: [Int]) -> Int {
        var stays = Stays()
        for day in days { stays.add(day) }
        return stays.count
    }

    /// The stays among days added one by one, in any order: each stay kept as its span of days
    /// (first...last), the spans sorted and each more than `maxGapDays` before the next, so
    /// that the count is the spans'. Days mostly come in order (a library's photos in time
    /// order): a day at or after the last span's first day extends it or starts the next, with
    /// no array for a pin's first stay; an earlier day (photos across time zones, whose local
    /// days do not follow their instants) is merged in among the spans.
    public struct Stays: Sendable, Equatable {
        private var last: ClosedRange<Int>?
        private var earlier: [ClosedRange<Int>] = []

        public init() {}

        public var count: Int { earlier.count + (last == nil ? 0 : 1) }

        /// The spans, first to last.
        public var spans: [ClosedRange<Int>] { earlier + (last.map { [$0] } ?? []) }

        public mutating func add(_ day: Int) { add(day...day) }

        /// The stays of `other` too (as if each of its days were added).
        public mutating func add(_ other: Stays) {
            for span in other.earlier { add(span) }
            if let span = other.last { add(span) }
        }

        /// Days `span` (consecutive: one stay).
        public mutating func add(_ span: ClosedRange<Int>) {
            guard let current = last else {
                last = span
                return
            }
            if span.lowerBound >= current.lowerBound {
                // The spans before `current` end more than maxGapDays before it starts: only
                // `current` can take these days.
                if span.lowerBound - current.upperBound <= maxGapDays {
                    last = current.lowerBound...max(current.upperBound, span.upperBound)
                } else {
                    earlier.append(current)
                    last = span
                }
                return
            }
            var all = earlier
            all.append(current)
            all.insert(span, at: all.firstIndex { $0.lowerBound > span.lowerBound } ?? all.count)
            var merged: [ClosedRange<Int>] = []
            for next in all {
                if let previous = merged.last, next.lowerBound - previous.upperBound <= maxGapDays {
                    merged[merged.count - 1] = previous.lowerBound...max(previous.upperBound, next.upperBound)
                } else {
                    merged.append(next)
                }
            }
            last = merged.removeLast()
            earlier = merged
        }
    }
}

/// A photo that belongs to a pin, as its preview needs it (`pins previews`, `pins serve`).
public struct LinkedPhoto: Sendable, Hashable {
    /// The record's row id: the photo's id while its record stands (a move makes a new one).
    public var id: Int64
    public var path: RawPath
    public var format: FileKind?
    public var fingerprint: PhotoFingerprint
    public var missing: Bool
    /// The pin it belongs to.
    public var pinID: UUID
}

extension PinDatabase {
    /// A linked photo's columns, its pin's id from the pin's row (`p`: photos, `l`: locations).
    private static let linkedColumns = "p.rowid, p.path, p.format, p.size, p.mtime_ns, p.inode, p.missing, l.id"
    private static let linkedPhotos = "photos p JOIN locations l ON l.rowid = p.pin"

    private static func linkedPhoto(_ s: Statement) throws -> LinkedPhoto? {
        guard let pin = UUID(uuidString: s.string(7)) else { return nil }
        return LinkedPhoto(id: s.int64(0), path: RawPath(bytes: s.blob(1)), format: try s.optionalValue(2, as: FileKind.self),
                           fingerprint: PhotoFingerprint(size: s.int64(3), modificationNanoseconds: s.int64(4),
                                                         inode: UInt64(bitPattern: s.int64(5))),
                           missing: s.int(6) != 0, pinID: pin)
    }

    /// Every photo that belongs to a pin, by path.
    public func linkedPhotos() throws -> [LinkedPhoto] {
        try read { _ in
            try connection.query("SELECT \(Self.linkedColumns) FROM \(Self.linkedPhotos) ORDER BY p.path", [], Self.linkedPhoto)
        }.compactMap { $0 }
    }

    /// The first `count` photos of each pin (by path): a popup's strip of previews.
    public func firstLinkedPhotos(perPin count: Int) throws -> [LinkedPhoto] {
        let sql = "SELECT \(Self.linkedColumns) FROM (SELECT rowid, *, row_number() OVER (PARTITION BY pin ORDER BY path) AS n "
            + "FROM photos WHERE pin IS NOT NULL) p JOIN locations l ON l.rowid = p.pin WHERE p.n <= ? ORDER BY l.id, p.path"
        return try read { _ in try connection.query(sql, [count], Self.linkedPhoto) }.compactMap { $0 }
    }

    /// The photo of record `id`, when it belongs to a pin.
    public func linkedPhoto(id: Int64) throws -> LinkedPhoto? {
        try read { _ in
            try connection.query("SELECT \(Self.linkedColumns) FROM \(Self.linkedPhotos) WHERE p.rowid = ?", [id], Self.linkedPhoto)
        }.first ?? nil
    }
}
