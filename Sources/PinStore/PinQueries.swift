import Foundation
import PinCore

/// A photo record behind a pin, as `pins show` lists it.
public struct PinPhotoRecord: Sendable {
    public var path: RawPath
    public var takenAt: Date?
    public var utcOffsetSeconds: Int?
    public var timeSource: TimeSource?
    public var coordinate: Coordinate?
    public var runID: Int64?
    public var missing: Bool
    /// The decision's one line: for a photo placed by a track, which one and how far its fix was.
    public var detail: String?
}

extension PinDatabase {
    /// Whether some pin was stored before pins knew places and waits for `PlaceBackfill`
    /// (a partial index answers: cheap enough for every open).
    public func hasPinsWithoutPlaces() throws -> Bool {
        try connection.scalarInt("SELECT EXISTS (SELECT 1 FROM locations WHERE places_resolved = 0)") == 1
    }

    /// The `import-places` runs, each with the files it read as `runs` records them (its root
    /// is "places: FILE, FILE"): their pins are imported places, not pins made by hand.
    public func placesRuns() throws -> [Int64: String] {
        let prefix = PlacesRunRoot.prefix
        let rows = try connection.query("SELECT id, root FROM runs WHERE substr(root, 1, ?) = ?", [prefix.count, prefix]) { s in
            (s.int64(0), String(s.string(1).dropFirst(prefix.count)))
        }
        return Dictionary(rows, uniquingKeysWith: { a, _ in a })
    }

    /// The photos that belong to a pin (`PhotoLinks`), by capture time (undated last), then path.
    public func photos(ofPin id: UUID) throws -> [PinPhotoRecord] {
        try connection.query("""
            SELECT path, taken_at, utc_offset, time_source, latitude, longitude, run_id, missing, detail FROM photos
            WHERE pin = (SELECT rowid FROM locations WHERE id = ?) ORDER BY taken_at IS NULL, taken_at, path
            """, [id.lowercasedText]) { s in
            PinPhotoRecord(path: RawPath(bytes: s.blob(0)), takenAt: s.optionalDouble(1).map(Date.init(timeIntervalSince1970:)),
                           utcOffsetSeconds: s.isNull(2) ? nil : s.int(2), timeSource: try s.optionalValue(3, as: TimeSource.self),
                           coordinate: s.isNull(4) ? nil : Coordinate(latitude: s.double(4), longitude: s.double(5)),
                           runID: s.isNull(6) ? nil : s.int64(6), missing: s.int(7) != 0, detail: s.optionalString(8))
        }
    }
}

/// One photo record of a run, as `pins runs show` lists it.
public struct RunPhotoRecord: Sendable {
    public var path: RawPath
    public var decision: PhotoDecision
    public var detail: String?
    public var locationID: UUID?
}

/// What undoing a run removes and keeps.
public struct RunUndoResult: Sendable {
    public var run: ImportRunRecord
    /// Pins the run created and nobody edited since: removed.
    public var removed: [Location]
    /// Pins the run created that the user edited since: kept, with their photos' decisions.
    public var kept: [Location]
    /// Photo records forgotten, so the next import decides those photos again.
    public var forgottenPhotos: Int
    /// Wanted places a photo or a timeline visit of the run marked visited, still as the run
    /// left them: wanted again, with the date and fields they had before.
    public var wantedAgain: [Location] = []
    /// Other pins the run changed (a place file's changed record), still as the run left them:
    /// given back as they were.
    public var restored: [Location] = []
    /// Pins the run changed that were edited, or changed by a later run, since: left as they are.
    public var changedSince: [Location] = []
    /// The files the run wrote beside the photos (`pins sidecars`), and what became of each.
    public var files: [UndoneFile] = []
    /// pins' own temporaries that killed runs left in the folders of those files, removed.
    public var leftoversRemoved = 0
}

/// How a photo's decision says it marked a wanted pin visited (the end of its detail, after
/// "0.52 km from pin 'TITLE'"): what `undoRun` finds those photos by.
public enum WantedVisitMark {
    public static let detailSuffix = ", a wanted place: it marks it visited"
}

public enum RunUndoError: Error, CustomStringConvertible {
    case noSuchRun(Int64)
    case stillRunning(Int64)

    public var description: String {
        switch self {
        case let .noSuchRun(id): return "no import run \(id) (see 'pins runs')"
        case let .stillRunning(id): return "run \(id) is still running; undo it when it has finished"
        }
    }
}

extension PinDatabase {
    /// A run's record.
    public func run(id: Int64) throws -> ImportRunRecord? {
        try read { repos in try repos.runs.recent(limit: Int.max).first { $0.id == id } }
    }

    /// The photo records a run wrote, by path.
    public func photos(ofRun id: Int64) throws -> [RunPhotoRecord] {
        try read { _ in
            try connection.query("SELECT path, decision, detail, location_id FROM photos WHERE run_id = ? ORDER BY path", [id]) { s in
                RunPhotoRecord(path: RawPath(bytes: s.blob(0)), decision: try s.value(1, as: PhotoDecision.self),
                               detail: s.optionalString(2), locationID: s.optionalString(3).flatMap(UUID.init(uuidString:)))
            }
        }
    }

    /// The pins a run created, oldest first.
    public func pins(ofRun id: Int64) throws -> [Location] {
        try read { repos in try repos.locations.fetchAll(countryID: nil).filter { $0.runID == id } }
    }

    /// Undoes an import run in one transaction: removes the pins it created that were not edited
    /// since (their countries, cities and mountains counted down through `service`), forgets the
    /// run's photo decisions (but those of the kept pins) so the next import decides those photos
    /// again, and marks the run 'undone'. With `dryRun`, only says what it would do. The caller
    /// holds the run lock, so no import runs meanwhile.
    public func undoRun(_ id: Int64, service: LocationService, dryRun: Bool) throws -> RunUndoResult {
        let connection = self.connection
        let body = { (repos: Repositories) throws -> RunUndoResult in
            guard var run = try repos.runs.recent(limit: Int.max).first(where: { $0.id == id }) else { throw RunUndoError.noSuchRun(id) }
            let created = try repos.locations.fetchAll(countryID: nil).filter { $0.runID == id }
            // A pin from a place file that said it was edited (pins' own export of an edited pin)
            // carries that mark from its import on: only an edit after the import counts here.
            let imported = try Self.placeImportTimes(ofRun: id, connection)
            func editedSince(_ pin: Location) -> Bool {
                guard let edited = pin.editedAt else { return false }
                guard let importedAt = imported[pin.id] else { return true }
                return edited.timeIntervalSince1970 > importedAt
            }
            let removed = created.filter { !editedSince($0) }, kept = created.filter(editedSince)
            let keptIDs: [SQLBindable] = kept.map { $0.id.lowercasedText }
            let placeholders = keptIDs.map { _ in "?" }.joined(separator: ", ")
            let keptClause = keptIDs.isEmpty ? "" : " AND (location_id IS NULL OR location_id NOT IN (\(placeholders)))"
            let changes = try Self.changes(ofRun: id, removed: removed, repos, connection)
            let recorded = Set(changes.all.map(\.id))
            // Runs before schema 14 recorded no pin as it was: their wishes are found by the photo's words.
            let older = try Self.wantedAgain(byUndoing: run, removed: removed, repos, connection).filter { !recorded.contains($0.id) }
            var result = RunUndoResult(run: run, removed: removed, kept: kept, forgottenPhotos: 0,
                                       wantedAgain: changes.back.filter(\.wanted).map(\.before) + older,
                                       restored: changes.back.filter { !$0.wanted }.map(\.before), changedSince: changes.changedSince)
            if dryRun {
                result.forgottenPhotos = Int(try connection.scalarInt("SELECT count(*) FROM photos WHERE run_id = ?\(keptClause)", [id as SQLBindable] + keptIDs) ?? 0)
                return result
            }
            for pin in removed { try service.delete(id: pin.id, in: repos) }
            for change in changes.back {
                try service.restore(change.before, replacing: change.current, in: repos)
                // A pin a changed record updated: its record no longer says what the pin holds,
                // so the next import of that file updates it again.
                if !change.wanted { try connection.run("UPDATE place_records SET digest = '' WHERE location_id = ?", [change.id.lowercasedText]) }
            }
            for wish in older {
                guard let pin = try repos.locations.fetch(id: wish.id) else { continue }
                try service.save(wish, replacing: pin, in: repos)
            }
            try connection.run("DELETE FROM run_changes WHERE run_id = ?", [id])
            let forgotten = try connection.run("DELETE FROM photos WHERE run_id = ?\(keptClause)", [id as SQLBindable] + keptIDs)
            // The place records of the removed pins go too: importing the file again makes them again.
            try connection.run("DELETE FROM place_records WHERE run_id = ?\(keptClause)", [id as SQLBindable] + keptIDs)
            run.status = .undone
            try connection.run("UPDATE runs SET status = ? WHERE id = ?", [RunStatus.undone.rawValue, id])
            result.run = run
            result.forgottenPhotos = forgotten
            return result
        }
        return dryRun ? try read(body) : try write(body)
    }

    /// The wanted pins run `run`'s photos marked visited (their records say so, `WantedVisitMark`),
    /// as they are to be once it is undone: wanted again. Not a pin the undo removes, one wanted
    /// already, or one edited since the run started (the edit decides). Its date stays the
    /// photo's: the date it had before is not kept.
    static func wantedAgain(byUndoing run: ImportRunRecord, removed: [Location], _ repos: Repositories,
                            _ connection: Connection) throws -> [Location] {
        let suffix = WantedVisitMark.detailSuffix
        let ids = try connection.query("""
            SELECT DISTINCT location_id FROM photos WHERE run_id = ? AND location_id IS NOT NULL
            AND substr(detail, -?) = ?
            """, [run.id, suffix.utf8.count, suffix]) { UUID(uuidString: $0.string(0)) }
        let removedIDs = Set(removed.map(\.id))
        var wishes: [Location] = []
        for case let id? in ids where !removedIDs.contains(id) {
            guard let pin = try repos.locations.fetch(id: id), !pin.wanted else { continue }
            if let edited = pin.editedAt, edited >= run.startedAt { continue }
            var wish = pin
            wish.wanted = true
            wishes.append(wish)
        }
        return wishes
    }

    /// A pin run `id` changed (`run_changes`): as it was before, as the run left it, as it is.
    struct RunChange {
        var before: Location
        var after: Location
        var current: Location
        var id: UUID { before.id }
        /// The run made a wanted place visited: the undo makes it wanted again.
        var wanted: Bool { before.wanted && !after.wanted }
    }

    /// The pins run `id` changed that still exist and that the undo does not remove: `back`,
    /// those still as the run left them (given back as they were), and `changedSince`, those
    /// edited or changed by a later run since (left alone: that change decides).
    static func changes(ofRun id: Int64, removed: [Location], _ repos: Repositories, _ connection: Connection) throws
        -> (back: [RunChange], changedSince: [Location], all: [Location]) {
        let decoder = JSONDecoder()
        let rows = try connection.query("SELECT before, after FROM run_changes WHERE run_id = ? ORDER BY location_id", [id]) {
            (try decoder.decode(Location.self, from: Data($0.string(0).utf8)), try decoder.decode(Location.self, from: Data($0.string(1).utf8)))
        }
        let removedIDs = Set(removed.map(\.id))
        var back: [RunChange] = [], changedSince: [Location] = []
        for (before, after) in rows where !removedIDs.contains(before.id) {
            guard let current = try repos.locations.fetch(id: before.id) else { continue }
            if sameAsLeft(current, after) {
                back.append(RunChange(before: before, after: after, current: current))
            } else {
                changedSince.append(current)
            }
        }
        return (back, changedSince, rows.map(\.0))
    }

    /// Whether `pin` is as a run left it (`after`): `LocationService.isAsLeft`.
    static func sameAsLeft(_ pin: Location, _ after: Location) -> Bool {
        LocationService.isAsLeft(pin, after)
    }

    /// When each pin of run `id` that came from a place file was imported, by pin id.
    static func placeImportTimes(ofRun id: Int64, _ connection: Connection) throws -> [UUID: Double] {
        var times: [UUID: Double] = [:]
        for (pin, at) in try connection.query("SELECT location_id, imported_at FROM place_records WHERE run_id = ? AND location_id IS NOT NULL",
                                              [id], { ($0.string(0), $0.double(1)) }) {
            if let uuid = UUID(uuidString: pin) { times[uuid] = at }
        }
        return times
    }
}
