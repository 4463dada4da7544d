import Foundation
import PinCore
import PinData
import PinStore

/// Where the database lives: `--db`, else `$PINS_DB`, else `PINS_DB` in pins.conf (`Settings`),
/// else `$XDG_DATA_HOME/pins/pins.sqlite` (`~/.local/share/pins/pins.sqlite`).
func resolveDatabasePath(_ option: String?) throws -> String {
    try resolveDatabaseLocation(option).path
}

/// The database's path, and whether the person named it (`--db`, `$PINS_DB`, pins.conf) rather
/// than pins choosing its default: a folder pins chose it may make; one the person named must exist.
func resolveDatabaseLocation(_ option: String?) throws -> (path: String, named: Bool) {
    let env = ProcessInfo.processInfo.environment
    if let option, !option.isEmpty { return (option, true) }
    if let path = try InstalledSettings.value("PINS_DB") { return (path, true) }
    return (try defaultDatabasePath(env), false)
}

private func defaultDatabasePath(_ env: [String: String]) throws -> String {
    if let xdg = env["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/pins/pins.sqlite" }
    guard let home = env["HOME"], !home.isEmpty else {
        throw CommandFailure("cannot find a place for the database: set --db, PINS_DB or HOME")
    }
    return home + "/.local/share/pins/pins.sqlite"
}

/// Wires storage into services, as the app's AppDependencies does. Country data is loaded
/// and indexed once, on first use.
final class AppDependencies {
    let databasePath: String
    /// The country outlines, loaded and indexed on first use, once per process.
    private let locator = LazyCountryLocator { try AppDependencies.loadResolver() }
    /// The gazetteer (Places.bin), loaded on first use, once per process, with the outlines
    /// (the same locator's) to tell land from sea.
    private(set) lazy var places: LazyPlaceLocator = { [locator] in
        LazyPlaceLocator { try AppDependencies.loadPlaces(countries: try locator.resolver()) }
    }()
    private var cachedCatalog: CountryCatalog?
    private var cachedDatabase: PinDatabase?

    /// The installed data files (DataFiles.installed), or an error saying where pins looked.
    static func data() throws -> DataFiles { try installedData.get() }

    /// Looked for once per process: the binary's folder and PINS_DATA_DIR do not change while
    /// it runs, and each command asks for several files.
    private static let installedData = Result { try DataFiles.installed() }

    /// The country index read now, with no database: `pins locate`.
    static func loadResolver() throws -> CountryResolver { try data().countryResolver() }

    /// Places.bin and Regions.bin read and checked now; `countries` tells land from sea.
    static func loadPlaces(countries: CountryResolver) throws -> OutlinedRegionPlaces {
        try data().places(countries: countries)
    }

    /// For scripts/bench alone: with PINS_BENCH_WITHOUT_PLACES=1 the importer, `add` and `edit`
    /// resolve countries but name no place, as before places, to measure what places cost an
    /// import (issue 23: at most 3 %). Harmless on a database that matters: the pins it makes
    /// wait for their places as those stored before places do (`PlacesLeftOpen`), and the next
    /// pins run without the switch that opens the database for writing gives them theirs
    /// (`PlaceBackfill`; their titles stay the country's name).
    private static let benchWithoutPlaces = ProcessInfo.processInfo.environment["PINS_BENCH_WITHOUT_PLACES"] == "1"

    /// The places the creation services name.
    private var creationPlaces: any PlaceLocating { Self.benchWithoutPlaces ? PlacesLeftOpen() : places }

    /// The path came from `--db` or `$PINS_DB`, not the default.
    let databasePathNamed: Bool

    init(databaseOption: String?) throws {
        (databasePath, databasePathNamed) = try resolveDatabaseLocation(databaseOption)
    }

    /// Before a command creates the database: a folder the person named (`--db`, `$PINS_DB`)
    /// must exist (a typo is not a `mkdir`); the default location's folder is made when missing.
    func requireDatabaseFolder() throws {
        guard databasePathNamed, !FileManager.default.fileExists(atPath: databasePath) else { return }
        let parent = PathParts.folder(of: databasePath)
        var isFolder: ObjCBool = false
        if parent == "." || (FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder) && isFolder.boolValue) { return }
        throw CommandFailure("there is no folder \(parent) for the database \(databasePath): check --db or PINS_DB "
            + "(pins makes no folder for a path it is given)")
    }

    /// No database anywhere (a dry run where none can be found): the empty path, which no
    /// file has, so every read finds nothing stored.
    init(withoutDatabase: Void) {
        databasePath = ""
        databasePathNamed = false
    }

    /// The country outlines, loaded and indexed on first use (through the same locator the
    /// services get, so a process loads them at most once).
    func resolver() throws -> CountryResolver {
        try locator.resolver()
    }

    func catalog() throws -> CountryCatalog {
        if let cachedCatalog { return cachedCatalog }
        let catalog = try Self.loadCatalog()
        cachedCatalog = catalog
        return catalog
    }

    /// Countries.json, read and parsed; a damaged file is named.
    static func loadCatalog() throws -> CountryCatalog { try data().catalog() }

    /// The database, opened (created, migrated) for writing.
    func database() throws -> PinDatabase {
        if let cachedDatabase { return cachedDatabase }
        try requireDatabaseFolder()
        do {
            let db = try PinDatabase(path: databasePath)
            cachedDatabase = db
            try backfillPlaces(db)
            return db
        } catch let error where !(error is ExitStatusError) {
            throw CommandFailure("cannot open the database \(databasePath): \(error)")
        }
    }

    /// Pins stored before pins knew places get their place, region and new title (where pins
    /// made the title: `PlaceBackfill`), once, in one transaction, at the first open for
    /// writing by a pins with a gazetteer.
    /// Without a readable Places.bin they wait (a warning says why): a command that needs no
    /// place still works, and a pin is never marked resolved without the gazetteer.
    private func backfillPlaces(_ db: PinDatabase) throws {
        guard !Self.benchWithoutPlaces, try db.hasPinsWithoutPlaces() else { return }
        do {
            try places.prepare()
        } catch {
            Out.error("pins: warning: \(error); the pins stored before places get theirs when it can be read")
            return
        }
        let backfill = PlaceBackfill(creation: try lazyCreationService())
        _ = try db.write { repos in try backfill.run(in: repos) }
    }

    /// The database for reading only, or nil when the file does not exist (nothing stored yet):
    /// commands that only read never create it.
    func existingDatabaseForReading() throws -> PinDatabase? {
        guard FileManager.default.fileExists(atPath: databasePath) else { return nil }
        do {
            return try PinDatabase(readOnlyPath: databasePath)
        } catch let error where !(error is ExitStatusError) {
            throw CommandFailure("cannot read the database \(databasePath): \(error)")
        }
    }

    /// The database for a command that shows what is stored (list, stats, runs): a missing
    /// file is an error naming the path (a mistyped --db is not "No pins.").
    func databaseForReading() throws -> PinDatabase {
        guard let database = try existingDatabaseForReading() else {
            throw CommandFailure("there is no database at \(databasePath): check --db or PINS_DB "
                + "(pins creates it at the first 'pins import' or 'pins add')")
        }
        return database
    }

    /// With the outlines loaded now (`pins add` needs the country for the title).
    func creationService() throws -> CreationService {
        try locator.prepare()
        return try lazyCreationService()
    }

    /// For a command that resolves one position (`add`, `edit --lat --lon`): the whole index,
    /// now that it loads in milliseconds.
    func creationService(near coordinate: Coordinate) throws -> CreationService {
        try creationService()
    }

    /// For the importer and delete: the outlines are loaded only if something needs a country.
    func lazyCreationService() throws -> CreationService {
        _ = try Self.data()
        return CreationService(locator: locator, countries: CountryService(catalog: try catalog()), places: creationPlaces, ids: .system)
    }
}
