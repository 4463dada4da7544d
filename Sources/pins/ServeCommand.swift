import Foundation
import PinApp
import PinCore
import PinServe

let serveSpec = CommandSpec(
    name: "serve", summary: "Serve the map and its editing to a browser (loopback only unless a password is set).",
    usage: "serve [--listen ADDR:PORT] [--db FILE] [--library DIR]... [--basemap FILE.mbtiles] [--allow-host NAME]... [--trust-proxy] [--import-at HH:MM] | serve --set-password | serve --set-read-password | serve --health",
    options: [
        OptionSpec(name: "--listen", value: "ADDR:PORT", help: "Where to listen (default $PINS_LISTEN, else 127.0.0.1:8765). Any address but loopback needs a password."),
        dbOption,
        OptionSpec(name: "--library", value: "DIR", help: "A photo folder the browser may show photos of and import; repeat for more.", repeatable: true),
        OptionSpec(name: "--allow-host", value: "NAME", help: "A host name the browser uses to reach the server (nas.local); repeat for more. Addresses need none.", repeatable: true),
        OptionSpec(name: "--trust-proxy", value: nil, help: "Believe X-Forwarded-Host/-Proto/-For (a reverse proxy that does TLS is in front)."),
        OptionSpec(name: "--basemap", value: "FILE", help: "A raster MBTiles file (QGIS, GDAL, a tile provider): its tiles are drawn under the pins, offline, with its attribution."),
        OptionSpec(name: "--password-file", value: "FILE", help: "The passwords' hashes (default: pins-passwords beside the database)."),
        OptionSpec(name: "--set-password", value: nil, help: "Set the password (read from standard input, or asked twice on a terminal), then exit."),
        OptionSpec(name: "--set-read-password", value: nil, help: "Set the read-only password (family: may look, not change), then exit."),
        OptionSpec(name: "--import-at", value: "HH:MM", help: "Import each --library folder every day at this time (TZ's local time), as 'pins import DIR --quiet --nice'."),
        OptionSpec(name: "--health", value: nil, help: "Ask the service at --listen (or $PINS_LISTEN) whether it answers (GET /healthz); exit 0 if it does, 1 if not."),
    ],
    details: """
        A long-running service: the map page of 'pins report', live from the database (a change
        made by the command line, an import or another browser shows within seconds, no reload),
        and its editing: a long press (or a right-click) on the map adds a pin there, its place
        and title proposed; a pin dragged moves there, its place found again (with Undo); a pin's
        popup edits or deletes it (with Undo); the list recolours, tags or deletes the pins it
        shows; the Trips tab renames a trip; the Settings tab sets the colours and map style and
        lists the imports, each with its undo. Each change is the same call the command line
        makes.

        Who may come in: without a password pins serve listens on loopback only (127.0.0.1, ::1)
        and refuses any other address. With one, every browser signs in; the sessions are cookies
        (HttpOnly, SameSite=Strict); every change carries the session's token and must come from
        the server's own page (Origin); a host name must be localhost or given with --allow-host
        (DNS rebinding); failed sign-ins are slowed. The passwords are stored as Argon2id hashes
        (libsodium) in a file only the service user may read (0600). TLS is your reverse proxy's
        job: give --trust-proxy behind one.

        Photos are shown only from the --library folders, by pin, never by a path sent by the browser.

        --basemap FILE.mbtiles draws the tiles of a raster MBTiles file (made with QGIS or
        'gdal_translate -of MBTILES', or a tile provider's) under the pins, with the file's
        attribution; elsewhere, and without one, the offline base map. The file is opened
        read-only; one that is missing (exit 66) or no raster MBTiles (exit 65) stops the start.

        The password may also come from the environment, for a container or a service manager:
        PINS_PASSWORD, or PINS_PASSWORD_FILE naming a file that holds it (a Docker secret:
        /run/secrets/pins_password is read in the container image when present); likewise
        PINS_READ_PASSWORD and PINS_READ_PASSWORD_FILE. It is stored hashed as --set-password
        stores it (replacing the stored one when it differs) and removed from the environment.

        --import-at HH:MM runs the nightly import inside the service: at that local time each
        --library folder is imported by 'pins import DIR --db FILE --quiet --nice', one after the
        other, with the run lock (an import already running: that night is skipped, exit 75 in
        the log). Stopping the service stops a run in progress as SIGTERM stops 'pins import'.

        Examples:
          pins serve --library ~/Pictures
          printf '%s\\n' 'long passphrase' | pins serve --set-password --db /srv/pins/pins.sqlite
          pins serve --listen 0.0.0.0:8765 --db /srv/pins/pins.sqlite --library /srv/photos --allow-host nas.local
        """)

func runServe(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "serve") }
    let database = try resolveDatabasePath(args.value("--db"))
    let passwordPath = args.value("--password-file") ?? (PathParts.folder(of: database) + "/pins-passwords")
    if args.has("--set-password") || args.has("--set-read-password") {
        guard !(args.has("--set-password") && args.has("--set-read-password")) else {
            throw UsageError("give --set-password or --set-read-password, not both", command: "serve")
        }
        try setPassword(role: args.has("--set-password") ? .full : .read, file: passwordPath)
        return
    }
    let (address, port) = try listenOption(args.value("--listen") ?? ServeEnvironment.listen ?? "127.0.0.1:8765")
    if args.has("--health") { return try healthCheck(address, port) }
    let importAt = try args.value("--import-at").map { text in
        guard let time = DailyTime.parse(text) else { throw UsageError("--import-at expects HH:MM (03:00), got '\(text)'", command: "serve") }
        return time
    }
    try ServeEnvironment.storePasswords(file: passwordPath)
    let passwords = try PasswordFile.load(passwordPath).flatMap { $0.hashes[.full] == nil ? nil : $0 }
    guard passwords != nil || ServeAddress.isLoopback(address) else {
        throw UsageError("listening on \(address) needs a password: set one with 'pins serve --set-password', "
            + "or give it in PINS_PASSWORD or in a file named by PINS_PASSWORD_FILE "
            + (ContainerImage.isActive ? "(docker run -e PINS_PASSWORD=..., or a secret pins_password in compose.yaml)" : "(or listen on 127.0.0.1)"),
            command: "serve")
    }
    let libraries = try args.all("--library").map { try libraryFolder($0) }
    let basemap = try args.value("--basemap").map { try PinApp.basemap(at: $0) }
    if importAt != nil, libraries.isEmpty { throw UsageError("--import-at needs a --library folder to import", command: "serve") }
    let gate = Gate(passwordRequired: passwords != nil, hostNames: Set(["localhost"] + args.all("--allow-host")), trustProxy: args.has("--trust-proxy"))
    let location = try resolveDatabaseLocation(args.value("--db"))
    let app = PinApp(databasePath: location.path, named: location.named) { Out.error("pins serve: warning: \($0)") }
    if let warning = app.migrateOlderSchema() { Out.error("pins serve: warning: \(warning)") }
    // The browser's imports read the estimates' settings as `pins import` does (the nightly
    // run is a `pins import` child, which reads them itself).
    let backend = AppBackend(app: app, libraries: libraries, basemap: basemap) {
        try estimateSettings(ParsedArguments(command: "serve"), command: "serve")
    }
    let service = Service(gate: gate, passwords: passwords, backend: backend)
    let server: EventServer
    do {
        server = try EventServer(address: address, port: port, limits: ServerLimits(), handler: service.handle)
    } catch {
        throw CommandFailure("\(error)", code: ExitCode.failure)
    }
    Out.error("pins serve: http://\(Listen.text(address, server.port))/ (database \(database)"
        + (passwords == nil ? ", no password: loopback only" : ", password from \(passwordPath)")
        + (basemap.map { ", base map \($0.path), zoom \($0.minZoom) to \($0.maxZoom))" } ?? ")"))
    let nightly = importAt.map { nightlyImport(at: $0, libraries: libraries, database: database) }
    nightly?.start()
    server.run()
    nightly?.stop()
    // An import started from the browser ends as `pins import` does on SIGTERM: the batch
    // being saved is finished, the run recorded as interrupted.
    backend.stopImports(waitingUpTo: 20)
    Out.error("pins serve: stopped")
}

/// `ADDR:PORT`, `[v6]:PORT` or `PORT` (loopback).
func listenOption(_ text: String) throws -> (String, UInt16) {
    var address = "127.0.0.1", portText = Substring(text)
    if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
        address = String(text[text.index(after: text.startIndex)..<close])
        portText = text[text.index(after: close)...].drop { $0 == ":" }
    } else if let colon = text.lastIndex(of: ":") {
        address = String(text[..<colon])
        portText = text[text.index(after: colon)...]
    }
    guard !address.isEmpty, let port = UInt16(portText) else {
        throw UsageError("--listen expects ADDR:PORT (127.0.0.1:8765, [::1]:8765), got '\(text)'", command: "serve")
    }
    return (address, port)
}

/// A --library folder: it must exist; kept by its real path (symbolic links resolved), the root
/// every photo served must lie under.
func libraryFolder(_ text: String) throws -> String {
    guard let real = realpath(text, nil) else { throw CommandFailure("--library \(text): no such folder", code: ExitCode.noInput) }
    defer { free(real) }
    var isFolder: ObjCBool = false
    let path = String(cString: real)
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
        throw CommandFailure("--library \(text) is not a folder", code: ExitCode.noInput)
    }
    return path
}

/// Reads the password (stdin when it is not a terminal; else asked twice with the echo off) and
/// writes its Argon2id hash into the password file, keeping the other role's.
func setPassword(role: Role, file: String) throws {
    let password = try readPassword()
    guard password.count >= 8 else { throw CommandFailure("the password is shorter than 8 characters; nothing was changed") }
    var passwords = try PasswordFile.load(file) ?? PasswordFile()
    passwords.hashes[role] = try Crypto.hash(password: password)
    try passwords.save(file)
    Out.error("pins serve: the \(role == .full ? "" : "read-only ")password is set (\(file))")
}

private func readPassword() throws -> String {
    guard isatty(0) != 0 else {
        guard let line = readLine(strippingNewline: true) else { throw CommandFailure("no password on standard input") }
        return line
    }
    let first = try askWithoutEcho("Password: "), second = try askWithoutEcho("Again: ")
    guard first == second else { throw CommandFailure("the two passwords differ; nothing was changed") }
    return first
}

private func askWithoutEcho(_ prompt: String) throws -> String {
    var saved = termios()
    tcgetattr(0, &saved)
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO)
    tcsetattr(0, TCSANOW, &quiet)
    defer {
        tcsetattr(0, TCSANOW, &saved)
        Out.error("")
    }
    FileHandle.standardError.write(Data(prompt.utf8))
    guard let line = readLine(strippingNewline: true) else { throw CommandFailure("no password given") }
    return line
}
