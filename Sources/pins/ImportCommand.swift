import Foundation
import PinApp
import PinCore
import PinData
import PinImport
import PinGrammar
import PinMetadata
import CSupport

let importSpec = CommandSpec(
    name: "import", summary: "Import a folder of photos as pins: one pin per visited place.",
    usage: "import [DIR] [--dry-run] [--json] [--report FILE] [--html FILE] [--db FILE] [options]",
    options: [
        OptionSpec(name: "--dry-run", value: nil, help: "Show what would be created and why every other photo is skipped; write nothing."),
        jsonOption,
        OptionSpec(name: "--report", value: "FILE", help: "Also write the full JSON report to FILE (- is stdout, then without the summary)."),
        OptionSpec(name: "--html", value: "FILE", help: "Also write the map page with this run drawn over it (see 'pins report'; - is stdout)."),
        dbOption,
        OptionSpec(name: "--jobs", value: "N", help: "Reads in flight, on threads apart from the cores (default: \(ImportOptions.defaultReadsInFlight); more for a slow share)."),
        OptionSpec(name: "--timezone", value: "ZONE", help: "Zone for capture times that carry none, e.g. Europe/Paris (default: this machine's)."),
        OptionSpec(name: "--min-interval", value: "SECONDS", help: "Skip a photo taken less than this after the last accepted one (default: 60)."),
        OptionSpec(name: "--min-distance-km", value: "KM", help: "Skip a photo closer than this to any pin (default: the app's 0.0007848 rad, 5 km)."),
        OptionSpec(name: "--follow-symlinks", value: nil, help: "Follow symbolic links (each folder is still walked once)."),
        OptionSpec(name: "--include-hidden", value: nil, help: "Also read hidden files and folders and macOS '._' files."),
        OptionSpec(name: "--include-system-folders", value: nil, help: "Also read NAS/OS folders (@eaDir, #recycle, #snapshot, .@__thumb, .Trashes, lost+found)."),
        OptionSpec(name: "--exclude", value: "GLOB", help: "Leave out names or relative paths matching GLOB; repeat for more.", repeatable: true),
        OptionSpec(name: "--no-videos", value: nil, help: "Leave videos out (by default they count as photos, as in the phone's library)."),
        OptionSpec(name: "--allow-shrink", value: nil, help: "Go on although the folder lost most of the files it had (default: stop; an unmounted share looks like that)."),
        OptionSpec(name: "--nice", value: nil, help: "Lower CPU and I/O priority (for a NAS that serves files at night)."),
        OptionSpec(name: "--quiet", value: nil, help: "No progress and no summary: only errors (for cron)."),
        OptionSpec(name: "--verbose", value: nil, help: "Also list every decision, one line per file."),
        OptionSpec(name: "--estimate-positions", value: nil, help: "Give photos without a position one from the photos around them that have one (also PINS_ESTIMATE=yes)."),
    ] + estimateLimitSpecs + trackOptionSpecs,
    details: """
    The rules are the iOS app's, in order, over photos sorted by capture time: a photo without
    a position is skipped (no location); one taken less than 60 s after the last accepted photo
    is skipped (interval); one closer than 5 km to any pin, including pins made earlier in the
    same run, is skipped (distance); every other photo becomes a pin with its country. Files
    that cannot be decoded are listed as unreadable and the run goes on. Files decided in an
    earlier run and unchanged since are not opened again. With --track, a track file that is
    new or changed since the last run on the folder has the photos skipped earlier for no
    location that fall in its time decided again; an unchanged one is not read, unless a
    photo of the run without a position falls in its time.

    Without DIR, the folder is PINS_LIBRARY (the environment's, else pins.conf's, which
    scripts/install --library writes): the nightly run. It then also writes the map page to
    PINS_PAGE when that is set, as --html does (not for a dry run; --html FILE wins).

    Exit codes: 0 the run completed (even with unreadable files); 1 the run stopped; 64 usage;
    66 the folder is missing, empty or lost most of its files (nothing changed; see
    --allow-shrink), or went away during the run (a share unmounted: the run is recorded as
    interrupted, nothing of it was saved); 74 the run completed but some folders could not be
    read, or some files went away before their read (named on stderr; what was known there
    keeps its state); 75 another import is using the database
    (nothing changed; try later); 130, 143 stopped by SIGINT or SIGTERM (what was saved is
    whole; the run is recorded as interrupted; a second signal stops it at once).
    """)

func runImport(_ args: ParsedArguments) async throws {
    guard args.positionals.count <= 1 else {
        throw UsageError("import takes one folder, got \(args.positionals.count) arguments", command: "import")
    }
    // The settings file is checked first, whatever comes from it: a broken line is an error
    // even for a dry run that would go on without a database.
    _ = try InstalledSettings.load()
    let (root, configuredPage) = try importRoot(args)
    let options = try importOptions(args, root: root)
    if args.has("--quiet") && args.has("--verbose") { throw UsageError("--quiet and --verbose exclude each other", command: "import") }
    if args.has("--nice") { ImportProcess.lowerPriority { Out.error("pins import: --nice: \($0)") } }

    let outputs = try ReportOutputs(args, command: "import", page: configuredPage)
    let deps = try importDependencies(args, dryRun: options.dryRun)
    let printer = ProgressPrinter(quiet: args.has("--quiet") || args.has("--json"))
    let stopSignals = ImportProcess.stopOnSignals(options.stop) { Out.error("pins import: \($0)") }
    defer { stopSignals.forEach { $0.cancel() } }
    let report: ImportReport
    do {
        defer { printer.finish() }
        report = try await deps.app.importPhotos(options, progress: printer.update, warning: { Out.error("pins import: \($0)") })
    } catch let failure as ImportFailure {
        let hint = failure.kind == .noInput ? ContainerImage.missingInputHint(root: options.root) : ""
        throw CommandFailure(failure.message + hint, code: failure.exitStatus)
    }
    if let tracks = options.tracks { reportTrackProblems(report.tracks, paths: tracks.paths, command: "import") }
    if let hint = report.cameraZoneHint { Out.error("pins import: \(TerminalText.escaped(hint))") }
    if let hint = report.placedAtAnotherInstantHint { Out.error("pins import: \(TerminalText.escaped(hint))") }
    try outputs.write(json: { ImportReportJSON.write(report, to: $0) },
                      text: { ImportReportText.write(report, catalog: try deps.catalog(), verbose: args.has("--verbose"), to: $0) },
                      page: { try writeRunPage(report, to: $0, deps: deps) })
    // The nightly run (no DIR) says where its map page went (issue 40); --quiet keeps cron silent.
    if let page = configuredPage, !args.has("--quiet"), !args.has("--json"), !outputs.toStandardOutput {
        Out.print("Wrote the map page \(TerminalText.quoted(page)) (PINS_PAGE)")
    }
    try report.checkReadBack()
    try reportProblems(of: report)
}

/// The folder to import: DIR, or without it the library of the settings (the nightly run),
/// with its map page (PINS_PAGE, unless a dry run or --html).
private func importRoot(_ args: ParsedArguments) throws -> (root: String, page: RawPath?) {
    if let folder = args.positionals.first { return (folder, nil) }
    guard let library = try InstalledSettings.value("PINS_LIBRARY") else {
        throw UsageError("missing DIR: the folder to import (or PINS_LIBRARY in the environment or in "
                         + "\(InstalledSettings.location()?.path ?? "pins.conf"))", command: "import")
    }
    if !args.has("--dry-run"), args.value("--html") == nil, let page = try InstalledSettings.value("PINS_PAGE") {
        return (library, RawPath(page))
    }
    return (library, nil)
}

/// The run's options from the command line.
private func importOptions(_ args: ParsedArguments, root: String) throws -> ImportOptions {
    var options = ImportOptions(root: root)
    options.dryRun = args.has("--dry-run")
    options.jobs = try args.int("--jobs", range: 1...256) ?? options.jobs
    options.minInterval = try args.double("--min-interval", range: 0...(86_400 * 366)) ?? CaptureInterval.appMinimum
    if let km = try args.double("--min-distance-km", range: 0.001...10_000) {
        options.threshold = AngularDistance.angle(forKilometres: km)
    }
    if let zone = args.value("--timezone") {
        guard let tz = TimeZone(identifier: zone) else {
            throw UsageError("--timezone expects a zone name such as UTC or Europe/Paris, got '\(zone)'", command: "import")
        }
        options.timeZone = tz
    }
    options.timeZones = LazyTimeZones()
    (options.estimateLimits, options.estimates) = try estimateSettings(args, command: "import")
    options.tracks = try trackOptions(args, command: "import", estimating: options.estimates)
    (options.cameraTimeZone, options.cameraClockOffset) = try cameraClock(args, command: "import")
    options.scan = ScanOptions(followSymlinks: args.has("--follow-symlinks"), includeHidden: args.has("--include-hidden"),
                               includeSystemFolders: args.has("--include-system-folders"), excludes: args.all("--exclude"))

    options.allowShrink = args.has("--allow-shrink")
    options.includeVideos = !args.has("--no-videos")
    return options
}

/// The database and services. A dry run reads the database when there is one, and needs
/// none: in a clean environment (no HOME, no PINS_DB) it compares with no pins at all.
private func importDependencies(_ args: ParsedArguments, dryRun: Bool) throws -> AppDependencies {
    do {
        return try AppDependencies(databaseOption: args.value("--db"))
    } catch let failure as CommandFailure where dryRun && args.value("--db") == nil {
        _ = failure
        return AppDependencies(withoutDatabase: ())
    }
}

/// The folders and files the run could not read, on stderr, and the exit code they give.
private func reportProblems(of report: ImportReport) throws {
    for problem in report.problems {
        Out.error("pins import: cannot read \(TerminalText.quoted(problem.path)): \(TerminalText.escaped(problem.reason))")
    }
    if !report.runEndRecorded { throw CommandFailure("the run completed but its end could not be recorded (above)") }
    if report.exitCode != 0 {
        let n = report.problems.count
        throw CommandFailure("\(n) folder\(n == 1 ? "" : "s") or file\(n == 1 ? "" : "s") could not be read (above); "
                             + "what was known there keeps its state", code: report.exitCode)
    }
}

// MARK: inspect

let inspectSpec = CommandSpec(
    name: "inspect", summary: "Show what pins reads from photos: position, capture time and their sources.",
    usage: "inspect PATH... [--timezone ZONE] [--track PATH...]",
    options: [
        OptionSpec(name: "--timezone", value: "ZONE", help: "Zone for capture times that carry none (default: this machine's)."),
        OptionSpec(name: "--include-hidden", value: nil, help: "In folders, also read hidden files."),
        OptionSpec(name: "--estimate-positions", value: nil, help: "Give photos without a position one from the photos around them that have one."),
    ] + estimateLimitSpecs + trackOptionSpecs,
    details: """
    Prints one JSON line per file: path, format, latitude, longitude, altitude, takenAt, timeSource, timeTag, error.
    With --track, a photo without a position of its own gets the tracks' (positionSource "track",
    trackFile, secondsToTrackFix) or the reason it gets none (trackIssue), by exiftool's rule.
    With --estimate-positions, a photo still without one gets the position of the photos of the
    same PATH taken around it that carry their own (positionSource "estimate", and estimate:
    "from IMG_0412.JPG (4 min before) and IMG_0415.JPG (3 min after), 1.2 km apart"), or the
    reason it gets none (estimateIssue): between two photos at most 30 min apart whose
    positions imply at most 250 km/h, else the nearest within 10 min. Every file is read
    before the first line is printed.
    """)

func runInspect(_ args: ParsedArguments) throws {
    guard !args.positionals.isEmpty else { throw UsageError("missing PATH: a file or folder to inspect", command: "inspect") }
    var zone = TimeZone.current
    if let name = args.value("--timezone") {
        guard let tz = TimeZone(identifier: name) else { throw UsageError("--timezone expects a zone name such as UTC or Europe/Paris, got '\(name)'", command: "inspect") }
        zone = tz
    }
    let tracks = try loadTracks(args, command: "inspect", timeZone: zone, estimating: args.has("--estimate-positions"))
    // The camera's zone and clock offset decide each photo's instant once (issue 36 item 1),
    // for the tracks and the estimates alike.
    let camera = try cameraClock(args, command: "inspect")
    let options = MetadataOptions(defaultTimeZone: camera.zone ?? zone, timeZones: LazyTimeZones(), cameraClockOffset: camera.offset)
    var failed = false
    for argument in args.positionals {
        let targets: [InspectTarget]
        do {
            targets = try Inspection.targets(for: argument, includeHidden: args.has("--include-hidden"))
        } catch let failure as Inspection.Failure {
            Out.error("pins inspect: \(failure)")
            failed = true
            continue
        }
        if args.has("--estimate-positions") {
            for object in Inspection.objects(of: targets, options: options, tracks: tracks, estimate: try estimateLimits(args, command: "inspect")) {
                Out.print(Out.json(object))
            }
            continue
        }
        for target in targets { Out.print(Out.json(Inspection.object(of: target, options: options, tracks: tracks))) }
    }
    if failed { throw CommandFailure("some paths could not be read") }
}

// MARK: the estimates' limits

/// The options that change the estimates' limits (issue 36 item 4: "defaults named, documented
/// with why, and changeable"); each also a setting, in the environment or pins.conf. The
/// defaults the help names are `EstimateLimits`' own.
let estimateLimitSpecs = [
    OptionSpec(name: "--estimate-max-gap", value: "MIN",
               help: "Estimates: interpolate between two photos at most MIN minutes apart (default \(EstimateLimits.defaultWords.gap); PINS_ESTIMATE_MAX_GAP)."),
    OptionSpec(name: "--estimate-max-speed", value: "KMH",
               help: "Estimates: not between two photos further apart than KMH km/h would go (default \(EstimateLimits.defaultWords.speed); PINS_ESTIMATE_MAX_SPEED)."),
    OptionSpec(name: "--estimate-max-nearest", value: "MIN",
               help: "Estimates: else the nearest photo, at most MIN minutes away (default \(EstimateLimits.defaultWords.nearest); PINS_ESTIMATE_MAX_NEAREST)."),
]

/// Whether an import estimates positions, and within which limits: `--estimate-positions` or
/// PINS_ESTIMATE=yes (the environment's, else pins.conf's: the nightly run estimates when the
/// settings say so), the limits as `estimateLimits` finds them. The one reading of these
/// settings for `pins import` and for the imports `pins serve` starts from the browser (no
/// options there: `ParsedArguments(command: "serve")`), called as each import starts, so a
/// changed pins.conf applies to the next import without restarting the service.
func estimateSettings(_ args: ParsedArguments, command: String) throws -> (limits: EstimateLimits, estimates: Bool) {
    let setting = try checkedSetting("PINS_ESTIMATE", command: command)
    return (try estimateLimits(args, command: command), args.has("--estimate-positions") || setting == "yes")
}

/// The estimates' limits: each the option's, else the setting's (the environment's, else
/// pins.conf's), else `EstimateLimits`' default; a value out of its range is a usage error
/// naming where it came from.
func estimateLimits(_ args: ParsedArguments, command: String) throws -> EstimateLimits {
    var limits = EstimateLimits()
    func value(_ option: String, _ key: String) throws -> Double? {
        if let given = try args.double(option, range: InstalledSettings.numbers[key]!.values) { return given }
        return try checkedSetting(key, command: command).flatMap { DecimalNumber.parse($0, .plain) }
    }
    if let minutes = try value("--estimate-max-gap", "PINS_ESTIMATE_MAX_GAP") { limits.maxGap = minutes * 60 }
    if let kmh = try value("--estimate-max-speed", "PINS_ESTIMATE_MAX_SPEED") { limits.maxSpeedKmh = kmh }
    if let minutes = try value("--estimate-max-nearest", "PINS_ESTIMATE_MAX_NEAREST") { limits.maxNearest = minutes * 60 }
    return limits
}

/// The setting `key` (the environment's, else pins.conf's), checked as a line of pins.conf is
/// (`InstalledSettings.refusal`): the environment's value is not checked when pins.conf is read.
private func checkedSetting(_ key: String, command: String) throws -> String? {
    guard let value = try InstalledSettings.value(key) else { return nil }
    if let refusal = InstalledSettings.refusal(key, value) { throw UsageError(refusal, command: command) }
    return value
}

extension EstimateLimits {
    /// The defaults as the help and pins.conf's settings say them: minutes, km/h.
    static let defaultWords: (gap: String, speed: String, nearest: String) = {
        let limits = EstimateLimits()
        func words(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
        return (words(limits.maxGap / 60), words(limits.maxSpeedKmh), words(limits.maxNearest / 60))
    }()
}
