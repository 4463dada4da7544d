import Foundation
import PinCore
import PinImport
import PinPlaces
import PinStore

/// Names for the stores' values a front end shows (a check's findings, a repair's tables), so a
/// front end needs no import of PinStore.
public typealias DatabaseExamination = DatabaseCheck.Examination
public typealias DatabaseMending = DatabaseCheck.Mending
public typealias DatabaseRepair = DatabaseCheck.Repair
public typealias RepairedTable = DatabaseCheck.TableCopy

/// The use cases that run the import machinery (PinImport) and the database check.
extension PinApp {
    /// Imports the photos of `options.root` (or, `options.dryRun`, says what it would do): the
    /// import session of PinImport end to end, with its run lock and run record. `progress` is
    /// called from the session's thread; `warning` gets what does not stop the run. A stop is
    /// thrown as `ImportFailure`.
    public func importPhotos(_ options: ImportOptions, progress: @escaping @Sendable (ImportProgress) -> Void = { _ in },
                             warning: (String) -> Void = { _ in }) async throws -> ImportReport {
        if !options.dryRun { try requireDatabaseFolder() }
        let session = ImportSession(options: options, databasePath: databasePath, creation: try lazyCreationService())
        return try await session.run(progress: progress, warning: warning)
    }

    /// Imports the places of `options.files` (GeoJSON, KML, GPX, CSV, Google's exports) as pins
    /// through the same creation flow as photos.
    public func importPlaces(_ options: PlacesImportOptions, warning: @escaping (String) -> Void = { _ in }) throws -> PlacesImportReport {
        let job = PlacesImport(options: options, databasePath: databasePath, creation: try lazyCreationService())
        return try job.run(warning: warning)
    }

    /// `pins check`: SQLite's integrity check, then a recount of every country, city and
    /// mountain from the pins. Writes nothing.
    public func examineDatabase(forRepair: Bool) throws -> DatabaseExamination {
        guard databaseExists else { throw AppFailure("there is no database at \(databasePath): check --db or PINS_DB") }
        return try DatabaseCheck.examine(path: databasePath, forRepair: forRepair)
    }

    /// `pins check --repair` of what `examineDatabase` found wrong: counts made true in place, or
    /// a damaged file's readable rows copied into a new file (the damaged one kept beside it).
    /// No other writer runs meanwhile; `held` runs once the repair holds the file (tests).
    public func mendDatabase(_ found: DatabaseExamination, held: () -> Void = {}) throws -> DatabaseMending {
        // The catalog names the countries a repair makes again; a recount needs none.
        let catalog = found.needsOnlyRecount ? nil : try catalog()
        return try DatabaseCheck.mend(path: databasePath, found, countries: { id in catalog?[id].map { ($0.name, $0.continent) } },
                                      held: held)
    }
}
