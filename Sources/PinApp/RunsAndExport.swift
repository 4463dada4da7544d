import Foundation
import PinCore
import PinReport
import PinStore

/// A run as `pins runs` lists it: its record, and its status as it is now (a run recorded as
/// running whose process is gone is interrupted).
public struct RunSummary: Sendable {
    public let record: ImportRunRecord
    public let status: RunStatus
}

/// A run with what it did: the pins it created and the photos it skipped, with why.
public struct RunDetail: Sendable {
    public let record: ImportRunRecord
    public let created: [Location]
    public let skipped: [RunPhotoRecord]
    /// The files it wrote beside the photos (`pins sidecars`), and whether it created each.
    public var files: [(path: RawPath, created: Bool)] = []
}

/// The use cases of import runs (list, show, undo) and of exports.
extension PinApp {
    /// The newest `limit` runs, newest first.
    public func runs(limit: Int) throws -> [RunSummary] {
        let runs = try openForReading().read { try $0.runs.recent(limit: limit) }
        let lockHeld = RunLock.isHeld(databasePath: databasePath)
        // 'running' in the table but nobody holds the lock: the process is gone.
        return runs.map { RunSummary(record: $0, status: $0.status == .running && !lockHeld ? .interrupted : $0.status) }
    }

    /// Run `id`: the pins it created and the photos it skipped.
    public func run(_ id: Int64) throws -> RunDetail {
        let db = try openForReading()
        guard let run = try db.run(id: id) else { throw AppFailure("no import run \(id) (see 'pins runs')") }
        var detail = RunDetail(record: run, created: try db.pins(ofRun: id),
                               skipped: try db.photos(ofRun: id).filter { $0.decision != .accepted })
        detail.files = try db.writtenFiles(ofRun: id)
        return detail
    }

    /// Removes the pins run `id` created that nobody edited since, counts their countries,
    /// cities and mountains down, and forgets the run's decisions (the next import decides those
    /// photos again); `dryRun` says what it would do and changes nothing. No import may run
    /// meanwhile: the run lock is held (another holder is error 75, as for a second import).
    public func undoRun(_ id: Int64, dryRun: Bool) throws -> RunUndoResult {
        guard databaseExists else {
            throw AppFailure("no import run \(id): the database \(databasePath) does not exist")
        }
        let undo = { (db: PinDatabase) throws -> RunUndoResult in
            do {
                // The files first: a run that is not there is the store's error, below.
                let files = try Self.undoFiles(try db.fileWrites(ofRun: id), run: id, dryRun: dryRun, db)
                var result = try db.undoRun(id, service: LocationService(creation: try self.lazyCreationService()), dryRun: dryRun)
                (result.files, result.leftoversRemoved) = files
                return result
            } catch let error as RunUndoError {
                throw AppFailure(error.description)
            }
        }
        if dryRun { return try undo(try openForReading()) }
        let lock = try RunLock(databasePath: databasePath)
        defer { withExtendedLifetime(lock) {} }
        return try writing(undo)
    }

    /// The pins with what an export shows beside them: country names, the map colour, each
    /// pin's trip, and (`withOutlines`) the outlines of the countries they are in.
    public func exportInput(_ pins: [Location], withOutlines: Bool) throws -> ExportInput {
        let catalog = try catalog()
        var names: [String: String] = [:]
        for code in Set(pins.compactMap(\.countryID)) { names[code] = catalog[code]?.name ?? code }
        let settings = try openForReadingIfExists()?.read { try $0.settings.load() } ?? Settings()
        var trips: [UUID: (id: String, title: String)] = [:]
        for trip in try storedTrips() {
            for id in trip.pinIDs { trips[id] = (trip.id, trip.title) }
        }
        var countries: [ExportCountry] = []
        // The visited countries: a place someone only wants to go (`wanted`) visits none.
        let visits = pins.filter { !$0.wanted }
        if withOutlines, !visits.allSatisfy({ $0.countryID == nil }) {
            var counts: [String: Int] = [:]
            for code in visits.compactMap(\.countryID) { counts[code, default: 0] += 1 }
            countries = try Self.data().countryOutlineJSON(of: Set(counts.keys)).map { code, geometry in
                ExportCountry(code: code, name: names[code] ?? code, pinCount: counts[code] ?? 0, geometryJSON: geometry)
            }.sorted { $0.code < $1.code }
        }
        return ExportInput(pins: pins, countryNames: names, countries: countries, fillColor: settings.mapFillColor, trips: trips)
    }
}
