import Foundation
import PinCore
import PinApp
import PinData

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
/// and the application layer (`PinApp`) over it, whose use cases the commands call. The only
/// file of the CLI that knows the stores are there (it names no repository: PinApp opens them).
final class AppDependencies {
    let app: PinApp

    /// The command running, for the warnings a use case gives about the request
    /// ("pins add: warning: ..."); set once by `run` in main.swift before the command starts.
    nonisolated(unsafe) static var commandName = ""

    /// Prints a use case's warning on stderr, as the command's own.
    static let printWarning: @Sendable (AppWarning) -> Void = { warning in
        Out.error((warning.general ? "pins" : "pins \(AppDependencies.commandName)") + ": warning: \(warning)")
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

    func catalog() throws -> CountryCatalog { try app.catalog() }
}
