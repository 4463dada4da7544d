import Foundation
import PinCore
import PinApp
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

/// The wiring of the CLI: where the database is (`--db`, `$PINS_DB`, pins.conf, the default),
/// and the application layer (`PinApp`) over it, whose use cases the commands call. The
/// commands not yet moved to `PinApp` (import, import-places, runs, check, export, locate) reach
/// the database here, through one connection kept for the process.
final class AppDependencies {
    let app: PinApp
    var databasePath: String { app.databasePath }
    private var cachedDatabase: PinDatabase?

    /// The command running, for the warnings a use case gives about the request
    /// ("pins add: warning: ..."); set once by `run` in main.swift before the command starts.
    nonisolated(unsafe) static var commandName = ""

    /// Prints a use case's warning on stderr, as the command's own.
    static let printWarning: @Sendable (AppWarning) -> Void = { warning in
        Out.error((warning.general ? "pins" : "pins \(AppDependencies.commandName)") + ": warning: \(warning)")
    }

    /// The installed data files (DataFiles.installed), or an error saying where pins looked.
    static func data() throws -> DataFiles { try PinApp.data() }

    /// The country index read now, with no database: `pins locate`.
    static func loadResolver() throws -> CountryResolver { try data().countryResolver() }

    /// Places.bin and Regions.bin read and checked now; `countries` tells land from sea.
    static func loadPlaces(countries: CountryResolver) throws -> OutlinedRegionPlaces {
        try data().places(countries: countries)
    }

    init(databaseOption: String?) throws {
        let (path, named) = try resolveDatabaseLocation(databaseOption)
        app = PinApp(databasePath: path, named: named, warnings: Self.printWarning)
    }

    /// No database anywhere (a dry run where none can be found): the empty path, which no
    /// file has, so every read finds nothing stored.
    init(withoutDatabase: Void) {
        app = PinApp(databasePath: "", named: false, warnings: Self.printWarning)
    }

    /// The gazetteer, loaded on first use, once per process.
    var places: LazyPlaceLocator { app.places }

    func requireDatabaseFolder() throws { try app.requireDatabaseFolder() }

    /// The country outlines, loaded and indexed on first use (through the same locator the
    /// services get, so a process loads them at most once).
    func resolver() throws -> CountryResolver { try app.countryResolver() }

    func catalog() throws -> CountryCatalog { try app.catalog() }

    /// Countries.json, read and parsed; a damaged file is named.
    static func loadCatalog() throws -> CountryCatalog { try PinApp.loadCatalog() }

    /// The database, opened (created, migrated) for writing, once per process.
    func database() throws -> PinDatabase {
        if let cachedDatabase { return cachedDatabase }
        let db = try app.openForWriting()
        cachedDatabase = db
        return db
    }

    /// The database for reading only, or nil when the file does not exist (nothing stored yet).
    func existingDatabaseForReading() throws -> PinDatabase? { try app.openForReadingIfExists() }

    /// The database for a command that shows what is stored: a missing file is an error naming the path.
    func databaseForReading() throws -> PinDatabase { try app.openForReading() }

    /// For the importer: the outlines are loaded only if something needs a country.
    func lazyCreationService() throws -> CreationService { try app.lazyCreationService() }
}
