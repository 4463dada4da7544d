import Foundation
import PinCore
import PinFormats
import PinGrammar
import PinStore

/// What became of one record of a place file.
public enum PlaceDecision: String, Sendable, CaseIterable {
    /// A new pin.
    case created
    /// Its pin was updated: the record changed since it was imported.
    case updated
    /// Imported before and unchanged: nothing to do.
    case unchanged
    /// Skipped: no usable position (0,0, out of range, none).
    case noLocation
    /// Skipped: closer than the threshold to a pin (timeline visits; lists with --min-distance-km).
    case distance
    /// Skipped: the record could not be read (listed with its position in the file).
    case malformed
    /// Skipped: the record changed, but the person edited its pin since it was imported.
    case edited
    /// Skipped: its pin was deleted since it was imported (not made again).
    case deleted
    /// Skipped: the same record (same key) came earlier in this import.
    case duplicate

    var isSkip: Bool { ![.created, .updated, .unchanged].contains(self) }
    static let skipReasons: [PlaceDecision] = allCases.filter(\.isSkip)
}

/// One record, decided.
public struct PlaceItem: Sendable {
    /// The file as given on the command line.
    public var file: String
    var kind: PlaceFileKind
    public var position: String
    public var decision: PlaceDecision
    public var detail: String?
    public var title: String?
    public var coordinate: Coordinate?
    /// ISO 8601 in the pin's offset.
    public var date: String?
    public var country: String?
    /// The pin made or updated (a real run), or that it would be (a dry run: the planned id).
    public var pinID: UUID?
    /// The pin created is a place to go, not a visit (`Location.wanted`).
    var wanted = false
    /// Its place in the import (files in order, records in file order): the report's order.
    var sequence = 0
    /// Its file's place in the import's files.
    var fileIndex = 0
}

/// One file of the import.
public struct PlaceFileSummary: Sendable {
    public var file: String
    var kind: PlaceFileKind
    var records: Int
    /// Why the file stopped before its end (what came before is imported).
    public var error: String?
}

public struct PlacesImportReport: Sendable {
    public var dryRun: Bool
    public var runID: Int64?
    var startedAt: Date
    public var files: [PlaceFileSummary]
    /// Every record's outcome in report order, read from the import's scratch database.
    public var items: PlaceItems

    public func count(_ decision: PlaceDecision) -> Int { items.tally.count(decision) }
    /// How many of the pins created (or that would be) are wanted.
    var wantedCreated: Int { items.tally.wantedCreated }
    /// 65 (EX_DATAERR) when a file could not be read to its end; else 0.
    public var exitCode: Int32 { files.contains { $0.error != nil } ? ExitCode.dataError : ExitCode.success }

    /// Throws when the report's records could not all be read back from the import's scratch
    /// database (an I/O error in TMPDIR), as the photo import's report does: call once the report
    /// is written, whose lists then end early.
    public func checkReadBack() throws { try ScratchFile.checkReadBack() }
}

public struct PlacesImportOptions: Sendable {
    var files: [String]
    public var dryRun = false
    /// Place lists: skip a place closer than this (radians) to a pin; nil: never (two saved
    /// restaurants 300 m apart are two pins).
    public var listThreshold: Double?
    /// Timeline visits: the app's 5 km unless --min-distance-km.
    public var visitThreshold: Double = AngularDistance.appThreshold
    public var timeZones: (any TimeZoneLocating)?
    /// The time of the import (a record without a date is dated with it).
    var now = Date()
    /// `--wanted`: every record is a place the person wants to go (`Location.wanted`), not a
    /// visit. Google's Saved Places always are.
    public var wanted = false
    /// The names the files go by in the report and the run record, one per file (`pins serve`:
    /// an uploaded file's own name, not the path of the scratch file it was written to); nil:
    /// their paths.
    public var names: [String]?

    public init(files: [String]) { self.files = files }
}

/// Why `import-places` stopped before it changed anything (or, for a failed write, after
/// what it wrote was rolled back).
struct PlacesImportFailure: ExitStatusError {
    let message: String
    let exitCode: Int32
    var description: String { message }
    var exitStatus: Int32 { exitCode }
    init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }
}

/// `pins import-places`: every record of the files becomes a pin through CreationService, as a
/// pin made by hand, or is skipped with its reason. Place lists first, in file order; then the
/// visits of timelines, by start time, under the app's distance rule. One run record
/// (`pins runs`), a run lock, and nothing written by a dry run. The visits wait for their turn,
/// and the outcomes for the report, in a scratch database (`PlacesSpool`), not in memory.
public struct PlacesImport {
    let options: PlacesImportOptions
    let databasePath: String
    let creation: CreationService
    /// Records decided and written per transaction.
    static let batchSize = 500

    public init(options: PlacesImportOptions, databasePath: String, creation: CreationService) {
        self.options = options
        self.databasePath = databasePath
        self.creation = creation
    }

    struct Pending {
        var fileIndex: Int
        var record: PlaceRecord
        var sequence: Int
        /// Visits are decided by this, then by `sequence` (file order).
        var instant: Double
    }

    /// A file of the import: its name (its path as given; "standard input" for `-`), its kind,
    /// its first bytes, and the path it is read from (a piped one's scratch copy).
    typealias FileHead = (path: String, kind: PlaceFileKind, head: [UInt8], source: String)

    public func run(warning: @escaping (String) -> Void = { _ in }) throws -> PlacesImportReport {
        // Piped files are read to their end first, before the lock (`PipedPlaces`).
        var pipes: [String: PipedPlaces] = [:]
        let kinds = try fileKinds(pipes: &pipes)
        let lock: RunLock? = options.dryRun ? nil : try takeLock()
        defer { withExtendedLifetime((lock, pipes)) {} }
        let database = try openDatabase()
        let spool: PlacesSpool
        do {
            spool = try PlacesSpool(files: kinds.enumerated().map { (name(of: $0.offset), $0.element.kind) })
        } catch {
            throw PlacesImportFailure("cannot make the import's scratch database: \(error); nothing was imported", exitCode: ExitCode.failure)
        }
        let startedAt = Date()
        var report = PlacesImportReport(dryRun: options.dryRun, runID: nil, startedAt: startedAt, files: [], items: PlaceItems())
        if let database, !options.dryRun {
            do {
                report.runID = try database.write { try $0.runs.start(root: runRoot, at: startedAt) }
            } catch {
                throw PlacesImportFailure("cannot record the run, so nothing would be saved: \(error)", exitCode: ExitCode.failure)
            }
        }
        var decider = try Decider(import: self, database: database, spool: spool, runID: report.runID, warning: warning)
        do {
            try read(kinds, decider: &decider, spool: spool, into: &report.files)
            // Visits follow the app's rules as photos do: by time (then file order).
            try spool.visitsInTimeOrder(Self.batchSize) { try decider.decide($0, kinds: kinds) }
        } catch {
            report.items = spool.items
            finish(report, database: database, status: .failed, exitCode: ExitCode.failure, warning: warning)
            if let failure = error as? PlacesImportFailure { throw failure }
            throw PlacesImportFailure("the import stopped: \(error); what earlier batches saved is kept (see 'pins runs')", exitCode: ExitCode.failure)
        }
        report.items = spool.items
        finish(report, database: database, status: .completed, exitCode: report.exitCode, warning: warning)
        return report
    }

    /// Every file found and its kind known before anything is written.
    private func fileKinds(pipes: inout [String: PipedPlaces]) throws -> [FileHead] {
        try options.files.enumerated().map { index, given in
            var shown = name(of: index), path = given, source = given
            if try PipedPlaces.isPipe(given) {
                // Read once, however often it is named.
                let piped = try pipes[given] ?? PipedPlaces(given)
                pipes[given] = piped
                shown = piped.name
                path = piped.name
                source = piped.path
            }
            let head: [UInt8]
            do {
                head = try PlaceFiles.head(of: source)
            } catch let error as FileUnavailable {
                // Not a regular file (a FIFO would hang the run), or not to be opened: refused.
                throw PlacesImportFailure("cannot read \(shown): \(error.reason); nothing was imported", exitCode: ExitCode.noInput)
            }
            guard let kind = PlaceFiles.kind(ofHead: head) else { throw Self.notAPlaceFile(shown, path: path, head: head) }
            return (path, kind, head, source)
        }
    }

    /// Why a file whose first bytes are `head` (no place file) is refused: `PlaceFiles.notPlaceFile`.
    static func notAPlaceFile(_ shown: String, path: String, head: [UInt8]) -> PlacesImportFailure {
        PlacesImportFailure(PlaceFiles.notPlaceFile(shown, path: path, head: head), exitCode: ExitCode.usage)
    }

    /// Reads the files in order: the records of place lists are decided as they are read, a
    /// batch at a time; the visits of timelines are kept in the spool for their turn.
    private func read(_ kinds: [FileHead], decider: inout Decider, spool: PlacesSpool, into files: inout [PlaceFileSummary]) throws {
        var sequence = 0
        var lists: [Pending] = []
        for (index, file) in kinds.enumerated() {
            var summary = PlaceFileSummary(file: name(of: index), kind: file.kind, records: 0)
            do {
                try PlaceFiles.read(path: file.source, kind: file.kind, head: file.head) { event in
                    summary.records += 1
                    sequence += 1
                    switch event {
                    case let .malformed(position, reason):
                        try spool.add(PlaceItem(file: name(of: index), kind: file.kind, position: position, decision: .malformed,
                                                detail: reason, sequence: sequence, fileIndex: index))
                    case let .record(record):
                        let pending = Pending(fileIndex: index, record: record, sequence: sequence, instant: decider.instant(of: record))
                        if file.kind.isTimeline {
                            try spool.add(visit: pending)
                        } else {
                            lists.append(pending)
                        }
                        if lists.count >= Self.batchSize {
                            try decider.decide(lists, kinds: kinds)
                            lists.removeAll(keepingCapacity: true)
                        }
                    }
                }
            } catch let error as PlaceFileError {
                summary.error = error.reason
            } catch let error as FormatError {
                summary.error = error.description
            } catch let error as FileUnavailable {
                summary.error = error.description
            }
            files.append(summary)
        }
        try decider.decide(lists, kinds: kinds)
    }

    private func finish(_ report: PlacesImportReport, database: PinDatabase?, status: RunStatus, exitCode: Int32, warning: (String) -> Void) {
        guard let database, let runID = report.runID else { return }
        var skipped: [PhotoDecision: Int] = [.noLocation: report.count(.noLocation), .distance: report.count(.distance),
                                             .unreadable: report.count(.malformed)]
        skipped = skipped.filter { $0.value > 0 }
        let record = ImportRunRecord(id: runID, root: runRoot, startedAt: report.startedAt,
                                     finishedAt: Date(), status: status, exitCode: Int(exitCode), files: report.files.count,
                                     photos: report.items.count, created: report.count(.created), skipped: skipped)
        do {
            try database.write { try $0.runs.finish(record) }
        } catch {
            warning("could not record the end of the run (its pins are saved): \(error)")
        }
    }

    /// The name file `index` goes by in the report (`options.names`, else its path).
    func name(of index: Int) -> String {
        guard let names = options.names, index < names.count else { return options.files[index] == "-" ? "standard input" : options.files[index] }
        return names[index]
    }

    /// What `pins runs` shows in its FOLDER column: the files, absolute (or their `names`).
    var runRoot: String {
        if let names = options.names { return PlacesRunRoot.prefix + names.joined(separator: ", ") }
        return PlacesRunRoot.prefix + options.files.map { path -> String in
            if path == "-" { return "standard input" }
            guard let real = realpath(path, nil) else { return path }
            defer { free(real) }
            return String(cString: real)
        }.joined(separator: ", ")
    }

    private func takeLock() throws -> RunLock {
        do {
            return try RunLock(databasePath: databasePath)
        } catch let failure as RunLock.Failure {
            throw PlacesImportFailure(failure.description, exitCode: failure.exitStatus)
        }
    }

    private func openDatabase() throws -> PinDatabase? {
        do {
            if options.dryRun {
                guard FileManager.default.fileExists(atPath: databasePath) else { return nil }
                return try PinDatabase(readOnlyPath: databasePath)
            }
            return try PinDatabase(path: databasePath)
        } catch let error as StorageError where error.reason == .busy {
            throw PlacesImportFailure("\(error); nothing was changed, try again later", exitCode: ExitCode.busy)
        } catch {
            throw PlacesImportFailure("cannot open the database \(databasePath): \(error)", exitCode: ExitCode.failure)
        }
    }
}

/// The rules and the writes, batch by batch.
struct Decider {
    let options: PlacesImportOptions
    let creation: CreationService
    let database: PinDatabase?
    /// Where the outcomes go, and the keys seen in this import.
    let spool: PlacesSpool
    let runID: Int64?
    var listIndex: PinSpatialIndex?
    var visitIndex: PinSpatialIndex
    /// Titles of the pins in the indexes, by tag.
    var titles: [String] = []
    /// The wanted pins (places to go) no visit of this import has marked visited yet, by tag.
    var wantedTags: [Int: UUID] = [:]
    var zoneWarned = false
    var cutWarnings = 0
    let warning: (String) -> Void

    init(import job: PlacesImport, database: PinDatabase?, spool: PlacesSpool, runID: Int64?, warning: @escaping (String) -> Void) throws {
        self.options = job.options
        self.creation = job.creation
        self.database = database
        self.spool = spool
        self.runID = runID
        self.warning = warning
        listIndex = options.listThreshold.map { PinSpatialIndex(threshold: $0) }
        visitIndex = PinSpatialIndex(threshold: options.visitThreshold)
        if let database {
            let pins = try database.read { try $0.locations.fetchCoordinates() }
            for pin in pins {
                if pin.wanted { wantedTags[titles.count] = pin.id }
                insert(pin.coordinate, title: pin.title)
            }
        }
    }

    mutating func insert(_ coordinate: Coordinate, title: String) {
        listIndex?.insert(coordinate, tag: titles.count)
        visitIndex.insert(coordinate, tag: titles.count)
        titles.append(title)
    }

    /// A record's time for ordering visits (a record without one last).
    func instant(of record: PlaceRecord) -> Double {
        switch record.date {
        case let .withOffset(d, _), let .unknownOffset(d), let .utc(d): return d.timeIntervalSince1970
        case let .wallClock(text): return ISO8601.parse(text)?.date.timeIntervalSince1970 ?? .infinity
        case nil: return .infinity
        }
    }

    /// The pin's date and offset for a record at `coordinate`.
    mutating func dateAndOffset(_ record: PlaceRecord, at coordinate: Coordinate) -> (Date, Int?) {
        func zone() -> TimeZone? {
            guard let zones = options.timeZones else { return nil }
            do {
                return try zones.timeZone(at: coordinate)
            } catch {
                if !zoneWarned {
                    zoneWarned = true
                    warning("\(error): dates without an offset are kept in UTC")
                }
                return nil
            }
        }
        switch record.date {
        case let .withOffset(d, o): return (d, o)
        case let .unknownOffset(d): return (d, nil)
        case let .utc(d): return (d, zone().map { $0.secondsFromGMT(for: d) })
        case let .wallClock(text):
            guard let zone = zone(), let local = ISO8601.parse(text, defaultZone: zone) else {
                return (ISO8601.parse(text)?.date ?? options.now, nil)
            }
            return (local.date, zone.secondsFromGMT(for: local.date))
        case nil:
            return (options.now, zone().map { $0.secondsFromGMT(for: options.now) })
        }
    }

    /// A batch in one transaction; its outcomes to the spool once it is committed.
    mutating func decide(_ batch: [PlacesImport.Pending], kinds: [PlacesImport.FileHead]) throws {
        guard !batch.isEmpty else { return }
        let items: [PlaceItem]
        if let database {
            if options.dryRun {
                items = try database.readPlaces { repos, records in try decideAll(batch, kinds: kinds, repos: repos, records: records) }
            } else {
                items = try database.writePlaces { repos, records in try decideAll(batch, kinds: kinds, repos: repos, records: records) }
            }
        } else {
            items = try decideAll(batch, kinds: kinds, repos: nil, records: nil)
        }
        for item in items { try spool.add(item) }
    }

    /// Without a database (a dry run before any), every record is new.
    mutating func decideAll(_ batch: [PlacesImport.Pending], kinds: [PlacesImport.FileHead],
                            repos: Repositories?, records: PlaceRecordTable?) throws -> [PlaceItem] {
        var items: [PlaceItem] = []
        for pending in batch {
            let file = kinds[pending.fileIndex]
            var item = try decideOne(pending.record, file: spool.files[pending.fileIndex].path, kind: file.kind, repos: repos, records: records)
            item.sequence = pending.sequence
            item.fileIndex = pending.fileIndex
            items.append(item)
        }
        return items
    }

    mutating func decideOne(_ record: PlaceRecord, file: String, kind: PlaceFileKind, repos: Repositories?,
                            records: PlaceRecordTable?) throws -> PlaceItem {
        var item = PlaceItem(file: file, kind: kind, position: record.position, decision: .created, title: record.title,
                             coordinate: record.coordinate)
        guard let coordinate = record.coordinate else {
            item.decision = .noLocation
            item.detail = record.locationIssue ?? "no coordinates"
            return item
        }
        let key = record.key(kind: kind)
        guard try spool.firstSeen(key) else {
            item.decision = .duplicate
            item.detail = "the same record as one earlier in this import"
            return item
        }
        let (date, offset) = dateAndOffset(record, at: coordinate)
        guard ISO8601.canWrite(date, offsetSeconds: offset) else {
            // A year 0 or 10000 (in UTC or in its own offset) could not be written back by any
            // export, nor read again: refused here, by its record.
            item.decision = .malformed
            let t = date.timeIntervalSince1970
            // Clamped to ±31 million years, where `CivilDate`'s arithmetic stays within Int.
            let year = { CivilDate.split(seconds: Int(saturating: min(1e15, max(-1e15, $0)).rounded(.down))).year }
            let years = Set([year(t), year(t + Double(offset ?? 0))].filter { !(1...9999).contains($0) })
            item.detail = "dated in the year \(years.sorted().map(String.init).joined(separator: " and ")) (UTC or its own offset): outside the years 1 to 9999 pins reads and writes"
            return item
        }
        item.date = ISO8601.format(date, offsetSeconds: offset)
        item.detail = record.textNote
        if let cut = record.textNote, cutWarnings < 10 {
            // On stderr too (the first 10 of a run): a cut is not a choice the person made.
            cutWarnings += 1
            warning("\(file) \(record.position): \(cut)" + (cutWarnings == 10 ? " (further cuts: --report or --json)" : ""))
        }
        let visit = Visit(record: record, key: key, coordinate: coordinate, date: date, offset: offset,
                          wanted: options.wanted || kind == .savedPlaces || record.wanted)
        if let records, let repos, let stored = try records.fetch(key: key) {
            return try decideImported(visit, stored: stored, item: item, repos: repos, records: records)
        }
        let threshold = kind.isTimeline ? visitIndex : listIndex
        if let index = threshold, let match = index.nearest(to: coordinate) {
            item.decision = .distance
            let metres = match.radians * AngularDistance.earthRadiusKm * 1000
            item.detail = String(format: "%.0f m from '%@'", metres, titles[match.entry.tag])
            // A visit of a timeline is a visit: near a wanted place, as a photo, it marks it visited.
            if kind.isTimeline, let id = wantedTags.removeValue(forKey: match.entry.tag) {
                item.detail! += ", a wanted place: it marks it visited"
                if let repos, !options.dryRun { try markVisited(id, by: visit, in: repos) }
            }
            return item
        }
        return try create(visit, item: item, repos: repos, records: records)
    }

    /// A wanted pin a timeline visit was near: now a visit, dated by it (its start, in its
    /// offset), the rest as it was; nothing when it is gone or no longer wanted.
    private func markVisited(_ id: UUID, by visit: Visit, in repos: Repositories) throws {
        guard let pin = try repos.locations.fetch(id: id), pin.wanted else { return }
        var visited = pin
        visited.wanted = false
        visited.date = visit.date
        if let offset = visit.offset { visited.utcOffsetSeconds = offset }
        let saved = try LocationService(creation: creation).save(visited, replacing: pin, in: repos)
        if let runID { try repos.runs.recordChange(run: runID, before: pin, after: saved) }
    }

    /// A record as `decideOne` has read it: where and when, and its key in the records table.
    struct Visit {
        let record: PlaceRecord
        let key: String
        let coordinate: Coordinate
        let date: Date
        let offset: Int?
        /// A place to go, not a visit (Saved Places, `--wanted`, pins' own export saying so).
        let wanted: Bool
    }

    /// A record imported before: its pin deleted (not made again), unchanged, edited by hand
    /// since (kept as edited), or changed in the file (the pin updated).
    private func decideImported(_ visit: Visit, stored: PlaceRecordRow, item: PlaceItem, repos: Repositories,
                                 records: PlaceRecordTable) throws -> PlaceItem {
        var item = item
        guard let pinID = stored.locationID, let pin = try repos.locations.fetch(id: pinID) else {
            item.decision = .deleted
            item.detail = "its pin was deleted after it was imported; not made again"
            return item
        }
        item.pinID = pin.id
        item.country = pin.countryID
        item.title = pin.title
        let digest = visit.record.digest
        if stored.digest == digest {
            item.decision = .unchanged
            return item
        }
        if let edited = pin.editedAt, edited.timeIntervalSince1970 > stored.importedAt.timeIntervalSince1970 {
            item.decision = .edited
            item.detail = "changed in the file, but its pin was edited since it was imported; kept as edited"
            return item
        }
        let changed = updated(pin, from: visit)
        item.decision = .updated
        item.title = changed.title
        if !options.dryRun {
            let saved = try LocationService(creation: creation).save(changed, replacing: pin, in: repos)
            if let runID { try repos.runs.recordChange(run: runID, before: pin, after: saved) }
            item.country = saved.countryID
            try records.save(PlaceRecordRow(key: visit.key, digest: digest, locationID: pin.id, runID: stored.runID, importedAt: options.now))
        }
        return item
    }

    /// `pin` with what the record now says.
    private func updated(_ pin: Location, from visit: Visit) -> Location {
        let record = visit.record
        var changed = pin
        changed.title = record.title ?? pin.title
        changed.coordinate = visit.coordinate
        changed.type = LocationType(record.type, at: visit.coordinate)
        // A record without a date keeps its pin's (an undated record is dated when first made).
        if record.date != nil {
            changed.date = visit.date
            changed.utcOffsetSeconds = visit.offset
        }
        changed.color = record.color ?? pin.color
        changed.visitCount = record.visitCount ?? 1
        changed.visitsByHand = changed.visitCount > 1
        changed.note = record.note
        changed.tags = record.tags
        changed.photoIDs = record.photoIDs
        if record.edited { changed.editedAt = options.now }
        return changed
    }

    /// A new record far enough from every pin: a new pin through CreationService (only planned
    /// in a dry run), and a pin later records of this import are measured against.
    private mutating func create(_ visit: Visit, item: PlaceItem, repos: Repositories?, records: PlaceRecordTable?) throws -> PlaceItem {
        var item = item
        let record = visit.record, coordinate = visit.coordinate
        let plan = try creation.planPhotoPin(at: coordinate, takenAt: visit.date, utcOffsetSeconds: visit.offset ?? 0)
        var draft = LocationDraft(title: record.title ?? plan.title, coordinate: coordinate, type: LocationType(record.type, at: coordinate),
                                  date: visit.date, color: record.color, visitCount: record.visitCount ?? 1, note: record.note,
                                  tags: record.tags, photoIDs: record.photoIDs, runID: runID)
        draft.utcOffsetSeconds = visit.offset
        draft.wanted = visit.wanted
        let title = record.title ?? plan.title
        item.title = title
        item.country = plan.country
        item.pinID = plan.id
        item.wanted = visit.wanted
        if let repos, let records, !options.dryRun {
            let planned = PinPlan(id: plan.id, country: plan.country, title: title, place: plan.place)
            var location = try creation.create(draft, planned: planned, in: repos)
            if record.edited {
                location.editedAt = options.now
                try repos.locations.update(location)
            }
            try records.save(PlaceRecordRow(key: visit.key, digest: record.digest, locationID: location.id, runID: runID, importedAt: options.now))
        }
        if visit.wanted { wantedTags[titles.count] = plan.id }
        insert(coordinate, title: title)
        return item
    }
}
