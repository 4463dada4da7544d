import Foundation
import PinCore
import PinStore

/// The connections a use case opens: one per call, closed when the call returns (see `PinApp`).
extension PinApp {
    /// For scripts/bench alone: with PINS_BENCH_WITHOUT_PLACES=1 the importer, `add` and `edit`
    /// resolve countries but name no place, as before places, to measure what places cost an
    /// import (issue 23: at most 3 %). Harmless on a database that matters: the pins it makes
    /// wait for their places as those stored before places do (`PlacesLeftOpen`), and the next
    /// pins run without the switch that opens the database for writing gives them theirs
    /// (`PlaceBackfill`; their titles stay the country's name).
    static let benchWithoutPlaces = ProcessInfo.processInfo.environment["PINS_BENCH_WITHOUT_PLACES"] == "1"

    /// The places the creation services name.
    private var creationPlaces: any PlaceLocating { Self.benchWithoutPlaces ? PlacesLeftOpen() : places }

    /// Before a call creates the database: a folder the person named (`--db`, `$PINS_DB`)
    /// must exist (a typo is not a `mkdir`); the default location's folder is made when missing.
    func requireDatabaseFolder() throws {
        guard databasePathNamed, !FileManager.default.fileExists(atPath: databasePath) else { return }
        let parent = PathParts.folder(of: databasePath)
        var isFolder: ObjCBool = false
        if parent == "." || (FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder) && isFolder.boolValue) { return }
        throw AppFailure("there is no folder \(parent) for the database \(databasePath): check --db or PINS_DB "
            + "(pins makes no folder for a path it is given)")
    }

    /// True when the database file exists (nothing is stored before the first import or add).
    public var databaseExists: Bool { FileManager.default.fileExists(atPath: databasePath) }

    /// The database, opened (created, migrated) for writing: a connection of this call alone.
    func openForWriting() throws -> PinDatabase {
        try requireDatabaseFolder()
        do {
            // Checked again unless the file is as this process's last write left it (`writing`).
            let stamp = FileStamp(path: databasePath)
            let db = try PinDatabase(path: databasePath, checkedAlready: stamp != nil && stamp == checkedStamp.withLock { $0 })
            try backfillPlaces(db)
            return db
        } catch let error where !(error is ExitStatusError) {
            throw AppFailure("cannot open the database \(databasePath): \(error)")
        }
    }

    /// For a long-lived writer (`pins serve`): a database of an older schema is migrated now,
    /// once, as the first write would migrate it (each migration a transaction of its own).
    /// Until then reads go through a migrated copy in memory (the whole file, tens of MB at
    /// 100,000 pins, made again each time the file changes) and the change log is the copy's,
    /// so every request reads every pin.
    /// Returns what the person should know when the file cannot be migrated (read-only, held
    /// by a repair, damaged): reads then go on through the copy; nil otherwise.
    public func migrateOlderSchema() -> String? {
        guard databaseExists else { return nil }
        do {
            guard try PinDatabase.hasOlderSchema(path: databasePath) else { return nil }
            _ = try writing { _ in () }
            return nil
        } catch {
            return "the database \(databasePath) has an older schema and could not be brought up to date (\(error)): "
                + "requests read a migrated copy of it in memory, made again when the file changes, until a write succeeds"
        }
    }

    /// `body` with a connection open for writing, one writing call of this process at a time.
    /// The file's stamp is kept after each write that succeeded (its connection closed): the
    /// next open for writing leaves out the check of every table while the file is unchanged
    /// since (pins serve's edits: 120 ms of CPU each at 100,000 pins, most of it that check).
    /// Another process's write, a replaced file or a failed write: checked again.
    func writing<T>(_ body: (PinDatabase) throws -> T) throws -> T {
        writerLock.lock()
        defer { writerLock.unlock() }
        do {
            let result = try write(body)
            checkedStamp.withLock { $0 = FileStamp(path: databasePath) }
            return result
        } catch {
            checkedStamp.withLock { $0 = nil }
            throw error
        }
    }

    /// `body` with a connection of its own, closed when it returns.
    private func write<T>(_ body: (PinDatabase) throws -> T) throws -> T {
        let db = try openForWriting()
        return try withExtendedLifetime(db) { try body(db) }
    }

    /// Pins stored before pins knew places get their place, region and new title (where pins
    /// made the title: `PlaceBackfill`), once, in one transaction, at the first open for
    /// writing by a pins with a gazetteer.
    /// Without a readable Places.bin they wait (a warning says why): a call that needs no
    /// place still works, and a pin is never marked resolved without the gazetteer.
    private func backfillPlaces(_ db: PinDatabase) throws {
        guard !Self.benchWithoutPlaces, try db.hasPinsWithoutPlaces() else { return }
        do {
            try places.prepare()
        } catch {
            warnings(AppWarning("\(error); the pins stored before places get theirs when it can be read"))
            return
        }
        let backfill = PlaceBackfill(creation: try lazyCreationService())
        _ = try db.write { repos in try backfill.run(in: repos) }
    }

    /// The database for reading only, or nil when the file does not exist (nothing stored yet):
    /// calls that only read never create it.
    func openForReadingIfExists() throws -> PinDatabase? {
        guard databaseExists else { return nil }
        do {
            return try PinDatabase(readOnlyPath: databasePath)
        } catch let error where !(error is ExitStatusError) {
            throw AppFailure("cannot read the database \(databasePath): \(error)")
        }
    }

    /// The database for a call that shows what is stored (list, stats, runs): a missing
    /// file is an error naming the path (a mistyped --db is not "No pins.").
    public func openForReading() throws -> PinDatabase {
        guard let database = try openForReadingIfExists() else {
            throw AppFailure("there is no database at \(databasePath): check --db or PINS_DB "
                + "(pins creates it at the first 'pins import' or 'pins add')")
        }
        return database
    }

    /// With the outlines loaded now (`add` needs the country for the title).
    func creationService() throws -> CreationService {
        try locator.prepare()
        return try lazyCreationService()
    }

    /// For the importer and delete: the outlines are loaded only if something needs a country.
    func lazyCreationService() throws -> CreationService {
        _ = try Self.data()
        return CreationService(locator: locator, countries: CountryService(catalog: try catalog()), places: creationPlaces, ids: .system)
    }

    /// Resolves a pin id or a unique prefix of one (as `pins list` shows it, at least 4 characters).
    func resolvePinID(_ text: String, in db: PinDatabase) throws -> UUID {
        if let id = UUID(uuidString: text) { return id }
        // Only hex digits and dashes: LIKE would read '_' and '%' as wildcards.
        guard text.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { throw AppFailure("no pin with id \(text)") }
        guard text.count >= 4 else {
            throw AppFailure("the id prefix '\(text)' is too short: give at least 4 characters of the id ('pins list' shows 8)")
        }
        let matches = try db.pinIDs(startingWith: text)
        if matches.count > 1 { throw AppFailure("'\(text)' matches \(matches.count) pins; give more of the id") }
        guard let id = matches.first else { throw AppFailure("no pin with id \(text)") }
        return id
    }
}
