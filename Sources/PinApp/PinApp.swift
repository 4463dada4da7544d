import Foundation
import Synchronization
import PinCore
import PinData
import PinStore

/// The application layer: one use case per thing a person does with pins (add, edit, delete,
/// list, show, stats, settings, the map page, ...), called alike by the CLI and by `pins serve`.
/// Each takes plain values and returns plain values; it never reads arguments, prints, exits or
/// knows HTTP; it throws `ExitStatusError`s (`AppFailure`, `InvalidRequest`, the stores' and data
/// files' own). What a use case has to say besides its result (a data file it could not read and
/// did without) goes to `warnings`, which the front end prints or logs.
///
/// Threads (the rules, said once; THREADS.md beside this file says why):
/// - one `PinApp` per database, shared by every thread of a process: all it keeps is the data
///   files, loaded once (behind the locators' locks) and the country catalog (behind `lock`);
/// - each call opens its own SQLite connection and closes it when it returns (connections are
///   opened without SQLite's mutex, so one never crosses threads): readers read a snapshot (WAL)
///   while a writer writes;
/// - the writing use cases of one process take `writerLock` in turn, so two threads never wait
///   on each other inside SQLite; against another process (or a long import, whose batches are
///   short transactions), SQLite's own lock with its 5 s busy timeout decides.
public final class PinApp: Sendable {
    /// The database file (it need not exist: commands that only read find nothing stored).
    public let databasePath: String
    /// The path was given (`--db`, `$PINS_DB`, pins.conf), not pins' default: its folder must exist.
    let databasePathNamed: Bool
    /// Says what a use case did without (a data file it could not read); never an error.
    let warnings: @Sendable (AppWarning) -> Void
    /// The country outlines, loaded and indexed on first use, once per process.
    let locator: LazyCountryLocator
    /// The gazetteer (Places.bin), loaded on first use, with the outlines to tell land from sea.
    public let places: LazyPlaceLocator
    private let lock = NSLock()
    /// Guarded by `lock`.
    nonisolated(unsafe) private var cachedCatalog: CountryCatalog?
    let writerLock = NSLock()
    /// The database file as this process's last write left it, checked (`writing`); nil: check
    /// at the next open for writing.
    let checkedStamp = Mutex<FileStamp?>(nil)
    /// The trips last found, by their inputs (`TripCache`).
    let tripCache = TripCache()
    /// The trips and each pin's trip last given by `tripsAndTheirPins`.
    let lastTrips = Mutex<StoredTrips?>(nil)
    /// The place names and region counts of the map page's visited countries, last made
    /// (`addPlaceLabels`): the same countries, the same labels. pins serve makes the map data
    /// again after every change, and a title or colour edit changes no country.
    let placeLabels = Mutex<(countries: [String], labels: [Place], regionCounts: [String: Int])?>(nil)

    public init(databasePath: String, named: Bool, warnings: @escaping @Sendable (AppWarning) -> Void = { _ in }) {
        self.databasePath = databasePath
        self.databasePathNamed = named
        GuardedFiles.guardDatabase(at: databasePath)  // no output file may be it (issue 40, item 2)
        self.warnings = warnings
        let locator = LazyCountryLocator { try PinApp.data().countryResolver() }
        self.locator = locator
        self.places = LazyPlaceLocator { try PinApp.data().places(onLand: DataFiles.onLand(locator)) }
    }

    /// The installed data files (DataFiles.installed), or an error saying where pins looked.
    public static func data() throws -> DataFiles { try installedData.get() }

    /// Looked for once per process: the binary's folder and PINS_DATA_DIR do not change while
    /// it runs, and each command asks for several files.
    private static let installedData = Result { try DataFiles.installed() }

    /// Countries.json, read and parsed; a damaged file is named. Needs no database: a front end
    /// checks a country code with it before anything is opened.
    public static func loadCatalog() throws -> CountryCatalog { try data().catalog() }

    /// The country catalog, read once per `PinApp`.
    public func catalog() throws -> CountryCatalog {
        lock.lock()
        defer { lock.unlock() }
        if let cachedCatalog { return cachedCatalog }
        let catalog = try Self.loadCatalog()
        cachedCatalog = catalog
        return catalog
    }

    /// The country outlines, loaded and indexed now (`pins locate`).
    public func countryResolver() throws -> CountryResolver { try locator.resolver() }
}

/// Something a use case did without, for the front end to say: `general` ones are about the
/// process ("pins: warning: ..."), the others about the request ("pins add: warning: ...").
public struct AppWarning: Sendable, CustomStringConvertible {
    public let description: String
    public let general: Bool
    init(_ description: String, general: Bool = true) {
        self.description = description
        self.general = general
    }
}

/// A request that cannot be carried out as asked (a failure of the command: exit 1, or `code`).
struct AppFailure: ExitStatusError {
    let description: String
    let exitStatus: Int32
    init(_ message: String, code: Int32 = ExitCode.failure) {
        description = message
        exitStatus = code
    }
}

/// A request that is wrong in itself, whatever is stored (a mountain without a name): the
/// CLI's usage error (64), the server's 400.
public struct InvalidRequest: ExitStatusError {
    public let description: String
    public var exitStatus: Int32 { ExitCode.usage }
    public init(_ message: String) { description = message }
}
