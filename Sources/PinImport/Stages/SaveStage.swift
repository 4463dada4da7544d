import Foundation
import PinCore
import PinStore

/// Stage 5: the writes. First, in one transaction, missing marks, refreshed fingerprints and
/// moves; then pins and photo records, `batchSize` decisions per transaction. A run killed at
/// any point leaves whole batches; the next run decides the rest from them. Every record and
/// pin written carries `runID`.
struct SaveStage {
    var root: RawPath
    var runID: Int64?
    var batchSize: Int
    var creation: CreationService
    /// Checked between batches: a stop request ends the run after the batch being written.
    var stop = StopRequest()
    /// What the committed transactions hold so far: a run stopped midway records that.
    var saved = SavedSoFar()
    /// The run's track files as it found them (`TrackRun.records`): written once every decision
    /// is, so that a run stopped before reads them again next time and decides again the
    /// photos it did not save.
    var tracks: [TrackRecord] = []
    /// The run's camera clock offset, noted on each record it reads (`PhotoRecord.clockOffset`).
    var clockOffset: Double = 0

    /// `items`: the decided files, read back from their records one batch at a time.
    func save(_ items: DecidedFiles, reconciled: Reconciliation, database: TransactionRunner,
              progress: @escaping @Sendable (ImportProgress) -> Void) throws {
        do {
            // Nothing is saved from records cut short by a failed read-back (the walk's spill).
            try ScratchFile.checkReadBack()
            try saveBookkeeping(reconciled, database: database)
            saved.files += reconciled.moves.count
            if !reconciled.corrected.isEmpty {
                try database.write { repos in try saveCorrections(reconciled.corrected, in: repos) }
                saved.files += reconciled.corrected.count
            }
            // scripts/bench-photo-links measures the import without any linking: none here either.
            var pins = ImportSession.benchWithoutPhotoLinks ? nil : NearestPins(runPins: items.tally.pinCoordinates)
            var files = items.makeIterator()
            var batch: [ImportItem] = []
            var done = 0
            do {
                while true {
                    batch.removeAll(keepingCapacity: true)
                    while batch.count < max(1, batchSize), let item = files.next() { batch.append(item) }
                    guard !batch.isEmpty else { break }
                    try stop.check()
                    try ScratchFile.checkReadBack()
                    var written: [PhotoDecision] = []
                    try database.write { repos in
                        try pins?.load(repos)
                        // The batch's pins first, then its records in order: a skipped photo is
                        // written with the nearest pin of its own batch too (see `makePin`).
                        var made: [UUID?] = []
                        var released: [PhotoRecord] = []
                        for item in batch { made.append(try makePin(item, in: repos, pins: &pins, released: &released)) }
                        // The batch's records, written together (`PhotoRepository.saveAll`).
                        var records: [PhotoRecord] = []
                        records.reserveCapacity(batch.count + released.count)
                        for (item, pin) in zip(batch, made) {
                            if let decision = try saveDecision(item, madePin: pin, in: repos, pins: &pins, records: &records) {
                                written.append(decision)
                            }
                        }
                        // Photos of earlier batches held for the pins this batch made.
                        records += released
                        written += released.map(\.decision)
                        try repos.photos.saveAll(records, runID: runID)
                    }
                    saved.add(written)
                    done += batch.count
                    progress(ImportProgress(phase: .saving, done: done, total: items.count))
                }
            } catch {
                // Stopped (or failed) with photos held for pins not made: they are written
                // without, as every decided photo of the batches written is (a write that fails
                // here does not hide why the run ended).
                try? saveHeld(&pins, database: database)
                throw error
            }
            try saveHeld(&pins, database: database)
            if !tracks.isEmpty {
                try stop.check()
                try database.write { repos in
                    for record in tracks { try repos.tracks.save(record) }
                }
            }
            // Moved and corrected records were saved without `pins`: only a run without them
            // hands its links on.
            if reconciled.moves.isEmpty, reconciled.corrected.isEmpty { saved.runLinks = pins?.runLinks }
        } catch let error as ImportError {
            throw error
        } catch {
            throw ImportError.storage("cannot save to the database: \(error)")
        }
    }

    /// The photos still held for a pin the run did not make (`NearestPins.link`), written
    /// without one: the linking pass links them (the run hands on no links then).
    func saveHeld(_ pins: inout NearestPins?, database: TransactionRunner) throws {
        guard let held = pins?.takeHeld(), !held.isEmpty else { return }
        try database.write { repos in try repos.photos.saveAll(held, runID: runID) }
        saved.add(held.map(\.decision))
    }

    /// Missing marks, refreshed fingerprints, moves and copies.
    func saveBookkeeping(_ reconciled: Reconciliation, database: TransactionRunner) throws {
        guard !reconciled.missing.isEmpty || !reconciled.refreshed.isEmpty || !reconciled.moves.isEmpty else { return }
        try database.write { repos in
            try repos.photos.markMissing(reconciled.missing)
            for (path, fingerprint) in reconciled.refreshed { try repos.photos.refresh(path, fingerprint: fingerprint) }
            for move in reconciled.moves {
                guard let from = move.from else {
                    try repos.photos.save(move.to, runID: runID)
                    continue
                }
                try repos.photos.move(from: from, to: move.to, runID: runID)
                // The pin's photo identity follows the file.
                if let id = move.to.locationID, var pin = try repos.locations.fetch(id: id) {
                    let old = from.description, new = move.to.path.description
                    if pin.photoIDs.contains(old) {
                        pin.photoIDs = pin.photoIDs.map { $0 == old ? new : $0 }
                        try repos.locations.update(pin)
                    }
                }
            }
        }
    }

    /// Photos whose metadata was corrected: a moved one's unedited pin moves there (country
    /// resolved again, counts moved, new date, title made again), a pin whose photo lost its
    /// position stays; each record takes the new reading, still accepted, still naming its pin.
    func saveCorrections(_ corrections: [PinCorrection], in repos: Repositories) throws {
        for correction in corrections {
            if correction.kind == .moved, let plan = correction.plan, let coordinate = correction.to,
               let pin = try repos.locations.fetch(id: correction.pinID) {
                var moved = pin
                moved.coordinate = coordinate
                moved.title = plan.title
                if let takenAt = correction.record.takenAt { moved.date = takenAt }
                try LocationService(creation: creation).save(moved, replacing: pin, in: repos)
            }
            var record = correction.record
            record.clockOffset = clockOffset
            try repos.photos.save(record, runID: runID)
        }
    }

    /// An accepted photo's pin, made (nil for any other file). The save stage makes a batch's
    /// pins before it writes the batch's records, all in the batch's transaction: a photo the
    /// rules skipped is then written with the pin a later photo of its batch made when that one
    /// is nearer, where the linking pass at the run's end had to write it again (a 100,000-file
    /// scripts/gen-library --small import: 1,483 records rewritten by that pass instead of
    /// 4,348). The records keep their order; the pins theirs.
    /// The records of earlier batches held for the pin made here are added to `released`,
    /// linked to it.
    func makePin(_ item: ImportItem, in repos: Repositories, pins: inout NearestPins?,
                 released: inout [PhotoRecord]) throws -> UUID? {
        guard let coordinate = item.pinCoordinate, let plan = item.pin else { return nil }
        let path = root.appending(item.entry.relativePath.bytes)
        let draft = LocationDraft(title: plan.title, coordinate: coordinate, type: .point, date: item.takenAt,
                                  photoIDs: [path.description], runID: runID)
        let id = try creation.create(draft, planned: plan, in: repos).id
        if let held = pins?.made(id, at: coordinate) { released += held }
        return id
    }

    /// One decided file's record, added to `records` (the batch's, which the batch writes at its
    /// end); `madePin` is the pin `makePin` made for it. `pins` (lent in place, not copied for
    /// each record) gives its link and keeps its day. Returns the decision, or nil when the
    /// record is held for a pin a later batch makes.
    func saveDecision(_ item: ImportItem, madePin: UUID?, in repos: Repositories, pins: inout NearestPins?,
                      records: inout [PhotoRecord]) throws -> PhotoDecision? {
        let path = root.appending(item.entry.relativePath.bytes)
        var locationID = madePin
        if case let .visits(_, _, _, _, pinID)? = item.verdict, let metadata = item.metadata {
            // A pin's edit reads its stored photos: the records before this one are written
            // first, as when each was written in turn.
            try repos.photos.saveAll(records, runID: runID)
            records.removeAll(keepingCapacity: true)
            locationID = try markVisited(pinID, takenAt: item.takenAt, offset: metadata.utcOffsetSeconds, in: repos)
        }
        var record = PhotoRecord(
            path: path, fingerprint: item.entry.fingerprint, digest: item.metadata?.metadataDigest,
            format: item.metadata?.format, takenAt: item.metadata.map { _ in item.takenAt },
            timeSource: item.metadata?.timeSource, utcOffsetSeconds: item.metadata?.utcOffsetSeconds,
            coordinate: item.metadata?.coordinate, decision: item.decision, detail: item.detail ?? Self.trackDetail(item),
            locationID: locationID, positionSource: item.positionSource)
        record.clockOffset = clockOffset
        // The pin it belongs to among every pin there will be at the run's end. A record whose
        // pin a later batch makes is held and written by that batch, with it: written now, it
        // would be written again then, its table page and its index pages with it, in a
        // transaction of its own batch's.
        if pins?.link(&record) == false { return nil }
        records.append(record)
        return record.decision
    }

    /// A wanted pin a photo was taken near: now a visit, dated by the photo (the moment the
    /// person was there, in the photo's offset), its title and the rest as they were. The
    /// photo's record points at it (`pins show` lists it). Nil when the pin is gone or was
    /// already made visited (by an edit since the run read it).
    func markVisited(_ id: UUID, takenAt: Date, offset: Int?, in repos: Repositories) throws -> UUID? {
        guard let pin = try repos.locations.fetch(id: id), pin.wanted else { return nil }
        var visited = pin
        visited.wanted = false
        visited.date = takenAt
        if let offset { visited.utcOffsetSeconds = offset }
        let saved = try LocationService(creation: creation).save(visited, replacing: pin, in: repos)
        if let runID { try repos.runs.recordChange(run: runID, before: pin, after: saved) }
        return id
    }

    /// An accepted photo placed by a track keeps which track and how far its fix was, for
    /// `pins show` (issue 29: the source of a position is said wherever the pin is read).
    static func trackDetail(_ item: ImportItem) -> String? {
        if let estimate = item.estimateDetail { return "position from the photos around it: \(estimate)" }
        return item.trackFix.map { "position from the track \($0.file), nearest fix \(Int(saturating: $0.seconds.rounded())) s away" }
    }
}

/// The records and pins a run's committed transactions hold so far, for the run record of a
/// run stopped midway (SIGTERM during the save): `pins runs` shows what it saved, not 0.
/// Updated by the save stage after each commit, read by the session once the run stopped.
public final class SavedSoFar: @unchecked Sendable {
    // Written and read on the run's own task, one after the other: no lock.
    /// Photo records written (decisions, moves and copies, corrections).
    public internal(set) var files = 0
    /// Of the decisions written, the photos (not the other files).
    public internal(set) var photos = 0
    /// Pins made.
    public internal(set) var created = 0
    /// Decisions written per skip reason.
    public internal(set) var skipped: [PhotoDecision: Int] = [:]
    /// The links of a run that saved every decision (`NearestPins.runLinks`), for its last write.
    public internal(set) var runLinks: RunPhotoLinks?

    public init() {}

    /// The decisions of the records a committed transaction wrote.
    func add(_ decisions: [PhotoDecision]) {
        files += decisions.count
        for decision in decisions {
            switch decision {
            case .accepted:
                created += 1
                photos += 1
            case .notMedia:
                break
            default:
                photos += 1
                skipped[decision, default: 0] += 1
            }
        }
    }
}

/// The pins by position while the save stage writes (issue 39), and the links it made: the
/// stored pins, read once, oldest first, then the pins the run will make (`Tally.pinCoordinates`),
/// so that each photo record is written with the pin it belongs to among every pin there is at
/// the run's end, as the linking pass (`PhotoLinks`) would link it. A photo whose pin a later
/// batch makes is held, and written by that batch with it (`made`).
///
/// What it hands on (`runLinks`): the stays among each pin's photos, so that a first import's
/// last write sets the visits without reading every record again (`RunPhotoLinks`).
/// A value the save stage owns and lends in place (`inout`): a class's stored index was copied
/// (each of its arrays retained and released) at every lookup.
struct NearestPins {
    private var index = PinSpatialIndex(threshold: AngularDistance.appThreshold)
    /// Each tag's pin: the stored ones, then the run's, nil until made.
    private var ids: [UUID?] = []
    /// Where the run makes its pins, in order, and the tag of the first.
    private let runPins: [Coordinate]
    private var runStart = 0
    private var made = 0
    private var loaded = false
    /// The stays among each tag's photos, and among the photos linked to their own pin by id.
    private var stays: [Visits.Stays] = []
    private var staysByID: [UUID: Visits.Stays] = [:]
    private var linked = 0
    /// Records held until their pin is made, by its tag.
    private var waiting: [Int: [PhotoRecord]] = [:]
    /// False once a pin was made that was not the next one planned: the links are then left to
    /// the linking pass, which makes them right whatever happened.
    private var asPlanned = true
    /// The lookups along the records' positions (`NearestPinWalk`): the index does not change
    /// once loaded (a pin made not as planned resets it), and photos of a burst are at the very
    /// same position or metres apart (59 % of the photos with a position in
    /// scripts/gen-library's at the previous one's).
    private var walk = NearestPinWalk()

    init(runPins: [Coordinate]) {
        self.runPins = runPins
    }

    mutating func load(_ repos: Repositories) throws {
        guard !loaded else { return }
        loaded = true
        for pin in try repos.locations.fetchCoordinates() { add(pin.coordinate, id: pin.id) }
        runStart = ids.count
        for coordinate in runPins { add(coordinate, id: nil) }
    }

    private mutating func add(_ coordinate: Coordinate, id: UUID?) {
        walk.reset()
        if coordinate.isValid { index.insert(coordinate, tag: ids.count) }
        ids.append(id)
        stays.append(Visits.Stays())
    }

    /// The run made pin `id` at `coordinate`: returns the records held for it, linked to it.
    mutating func made(_ id: UUID, at coordinate: Coordinate) -> [PhotoRecord] {
        let tag = runStart + made
        guard made < runPins.count, runPins[made].latitude == coordinate.latitude, runPins[made].longitude == coordinate.longitude else {
            asPlanned = false
            add(coordinate, id: id)
            return []
        }
        made += 1
        ids[tag] = id
        guard var held = waiting.removeValue(forKey: tag) else { return [] }
        for i in held.indices { held[i].pinID = id }
        return held
    }

    /// Every record still held (for pins not made), unlinked: the run then hands on no links.
    mutating func takeHeld() -> [PhotoRecord] {
        guard !waiting.isEmpty else { return [] }
        asPlanned = false
        let held = waiting.keys.sorted().flatMap { waiting[$0]! }
        waiting = [:]
        return held
    }

    /// Gives `record` the pin it belongs to (`PhotoRecord.pinID`), as `PhotoLinks.link` decides
    /// it: none for one that belongs to none or to its own pin (an accepted photo, by
    /// `locationID`). False when that pin is not made yet: the record is held, and `made` hands
    /// it back with its pin.
    mutating func link(_ record: inout PhotoRecord) -> Bool {
        record.pinID = nil
        let linked = LinkedDecision(record.decision)
        guard linked != .other, let coordinate = record.coordinate else { return true }
        let day = record.takenAt.map { Visits.localDay($0.timeIntervalSince1970, offsetSeconds: record.utcOffsetSeconds) }
        if linked == .accepted, let own = record.locationID {
            self.linked += 1
            if let day { staysByID[own, default: Visits.Stays()].add(day) }
            return true
        }
        guard coordinate.isValid, let tag = nearest(to: coordinate) else { return true }
        self.linked += 1
        if let day { stays[tag].add(day) }
        guard let id = ids[tag] else {
            waiting[tag, default: []].append(record)
            return false
        }
        record.pinID = id
        return true
    }

    /// The tag of the pin nearest to `coordinate` within the distance rule's threshold.
    private mutating func nearest(to coordinate: Coordinate) -> Int? {
        walk.nearest(to: coordinate, in: index)?.tag
    }

    /// The run's links, when every photo was linked as planned and every pin planned was made.
    var runLinks: RunPhotoLinks? {
        guard loaded, asPlanned, made == runPins.count, waiting.isEmpty else { return nil }
        var all = staysByID
        for (tag, id) in ids.enumerated() where stays[tag].count > 0 {
            if let id { all[id, default: Visits.Stays()].add(stays[tag]) }
        }
        return RunPhotoLinks(visits: all.mapValues(\.count), linked: linked)
    }
}
