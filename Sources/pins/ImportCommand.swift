import Foundation
import PinCore
import PinImport
import PinMetadata
import PinStore
import CSupport

let importSpec = CommandSpec(
    name: "import", summary: "Import a folder of photos as pins: one pin per visited place.",
    usage: "import DIR [--dry-run] [--json] [--report FILE] [--db FILE] [options]",
    options: [
        OptionSpec(name: "--dry-run", value: nil, help: "Show what would be created and why every other photo is skipped; write nothing."),
        jsonOption,
        OptionSpec(name: "--report", value: "FILE", help: "Also write the full JSON report to FILE."),
        dbOption,
        OptionSpec(name: "--jobs", value: "N", help: "Files read at once (default: the number of cores)."),
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
    ],
    details: """
    The rules are the iOS app's, in order, over photos sorted by capture time: a photo without
    a position is skipped (noLocation); one taken less than 60 s after the last accepted photo
    is skipped (interval); one closer than 5 km to any pin, including pins made earlier in the
    same run, is skipped (distance); every other photo becomes a pin with its country. Files
    that cannot be decoded are listed as unreadable and the run goes on. Files decided in an
    earlier run and unchanged since are not opened again.

    Exit codes: 0 the run completed (even with unreadable files); 1 the run stopped; 64 usage;
    66 the folder is missing, empty or lost most of its files (nothing changed; see
    --allow-shrink); 75 another import is using the database (nothing changed; try later).
    """)

func runImport(_ args: ParsedArguments) async throws {
    guard args.positionals.count == 1 else {
        throw UsageError(args.positionals.isEmpty ? "missing DIR: the folder to import" : "import takes one folder, got \(args.positionals.count) arguments", command: "import")
    }
    var options = ImportOptions(root: args.positionals[0])
    options.dryRun = args.has("--dry-run")
    options.jobs = try args.int("--jobs", range: 1...256) ?? options.jobs
    options.minInterval = try args.double("--min-interval", range: 0...(86_400 * 366)) ?? 60
    if let km = try args.double("--min-distance-km", range: 0.001...10_000) {
        options.threshold = AngularDistance.angle(forKilometres: km)
    }
    if let zone = args.value("--timezone") {
        guard let tz = TimeZone(identifier: zone) else {
            throw UsageError("--timezone expects a zone name such as UTC or Europe/Paris, got '\(zone)'", command: "import")
        }
        options.timeZone = tz
    }
    options.scan = ScanOptions(followSymlinks: args.has("--follow-symlinks"), includeHidden: args.has("--include-hidden"),
                               includeSystemFolders: args.has("--include-system-folders"), excludes: args.all("--exclude"))

    options.allowShrink = args.has("--allow-shrink")
    options.includeVideos = !args.has("--no-videos")
    if args.has("--quiet") && args.has("--verbose") { throw UsageError("--quiet and --verbose exclude each other", command: "import") }
    if args.has("--nice") { lowerPriority() }

    let deps = try AppDependencies(databaseOption: args.value("--db"))
    let creation = try deps.lazyCreationService()
    // One import at a time per database; a dry run writes nothing and needs no lock.
    var lock: RunLock?
    if !options.dryRun {
        do {
            lock = try RunLock(databasePath: deps.databasePath)
        } catch let failure as RunLock.Failure {
            if case .busy = failure { throw CommandFailure(failure.description, code: ExitCode.busy) }
            throw CommandFailure(failure.description)
        }
    }
    defer { withExtendedLifetime(lock) {} }
    let database: PinDatabase? = options.dryRun ? try deps.existingDatabaseForReading() : try deps.database()
    let pipeline = ImportPipeline(options: options, creation: creation, database: database)
    let printer = ProgressPrinter(quiet: args.has("--quiet") || args.has("--json"))
    var runID: Int64?
    if !options.dryRun, let database {
        // Not being able to record the run is reported, not fatal: the import itself goes on.
        do {
            runID = try database.write { try $0.runs.start(root: (try? ImportPipeline.canonicalRoot(options.root)) ?? options.root, at: Date()) }
        } catch {
            Out.error("pins import: could not record the run: \(error)")
        }
    }
    let report: ImportReport
    do {
        report = try await pipeline.run(progress: printer.update)
        printer.finish()
    } catch let error as ImportError {
        printer.finish()
        let code: Int32
        switch error {
        case .rootNotFound, .shrunk: code = ExitCode.noInput
        case .storage: code = ExitCode.failure
        }
        recordRun(database, runID, status: "failed", code: code, report: nil)
        throw CommandFailure(error.description, code: code)
    }
    recordRun(database, runID, status: "completed", code: ExitCode.success, report: report)
    if let path = args.value("--report") {
        do {
            try writeAtomically(to: path) { sink in writeImportReport(report, to: sink) }
        } catch {
            throw CommandFailure("cannot write the report to \(path): \(error)")
        }
    }
    if args.has("--json") {
        let sink = BufferedSink(fd: 1)
        writeImportReport(report, to: sink)
        sink.flush()
    } else if !args.has("--quiet") {
        let sink = BufferedSink(fd: 1)
        writeImportSummary(report, catalog: try deps.catalog(), to: sink)
        if args.has("--verbose") {
            for item in report.items where item.decision != .notMedia {
                sink.write("\(item.decision.rawValue)\t\(item.entry.relativePath)" + (item.detail.map { "\t\($0)" } ?? "") + "\n")
            }
        }
        sink.flush()
    }
    for problem in report.problems {
        Out.error("pins import: cannot read \(problem.path): \(problem.reason)")
    }
}

/// Nice 10 and the idle I/O class: the NAS keeps serving files while pins runs.
func lowerPriority() {
    if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) != 0 {
        Out.error("pins import: --nice: cannot lower the CPU priority: \(String(cString: strerror(errno)))")
    }
    if pins_set_idle_io_priority() != 0 {
        Out.error("pins import: --nice: cannot lower the I/O priority: \(String(cString: strerror(errno)))")
    }
}

/// Records the end of a run for `pins runs`; a failure to record is reported, not fatal.
func recordRun(_ database: PinDatabase?, _ runID: Int64?, status: String, code: Int32, report: ImportReport?) {
    guard let database, let runID else { return }
    var skipped: [String: Int] = [:]
    if let report {
        for decision in [PhotoDecision.noLocation, .interval, .distance, .unreadable] { skipped[decision.rawValue] = report.count(decision) }
    }
    let record = ImportRunRecord(id: runID, root: report?.root ?? "", startedAt: report?.startedAt ?? Date(), finishedAt: Date(),
                                 status: status, exitCode: Int(code), files: report?.files ?? 0, photos: report?.photos ?? 0,
                                 created: report?.created ?? 0, skipped: skipped)
    do {
        try database.write { try $0.runs.finish(record) }
    } catch {
        Out.error("pins import: could not record the run: \(error)")
    }
}

/// Writes through a temporary file in the same folder, then renames it over `path`: a reader
/// never sees half a report, and a failure leaves no temporary file behind.
func writeAtomically(to path: String, _ body: (BufferedSink) -> Void) throws {
    let folder = (path as NSString).deletingLastPathComponent
    let temporary = (folder.isEmpty ? "." : folder) + "/.\((path as NSString).lastPathComponent).\(getpid()).tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw CommandFailure(String(cString: strerror(errno))) }
    let sink = BufferedSink(fd: fd)
    body(sink)
    sink.flush()
    let failed = sink.failed || fsync(fd) != 0
    close(fd)
    if failed || rename(temporary, path) != 0 {
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        throw CommandFailure(reason)
    }
}

/// The JSON report, written piece by piece: one pin or skipped photo per line inside its
/// array, so a report of 200,000 photos never exists whole in memory. Top-level keys in
/// sorted order, as everywhere else.
func writeImportReport(_ report: ImportReport, to sink: BufferedSink) {
    var skipped: [String: Int] = [:]
    for decision in [PhotoDecision.noLocation, .interval, .distance, .unreadable] { skipped[decision.rawValue] = report.count(decision) }
    let counts: [String: Any] = [
        "files": report.files, "photos": report.photos, "created": report.created, "unchanged": report.unchanged,
        "read": report.read, "moved": report.moved, "touched": report.touched, "missing": report.missing,
        "videosLeftOut": report.videosLeftOut, "withLocation": report.withLocation, "skipped": skipped,
    ]
    sink.write("{\"counts\":" + Out.json(counts) + ",\"dryRun\":" + (report.dryRun ? "true" : "false") + ",\"pins\":[")
    var first = true
    for item in report.items where item.decision == .accepted {
        let m = item.metadata!
        let pin: [String: Any] = [
            "photo": item.entry.relativePath.description, "latitude": m.coordinate!.latitude, "longitude": m.coordinate!.longitude,
            "takenAt": takenAtText(item), "timeSource": m.timeSource.rawValue, "country": orNull(item.country),
            "format": m.format, "positionSource": orNull(m.positionSource),
            "title": orNull(item.title),
            // A dry run creates no pin, so there is no id to show.
            "id": report.dryRun ? NSNull() : orNull(item.locationID?.uuidString.lowercased()),
        ]
        sink.write((first ? "\n" : ",\n") + Out.json(pin))
        first = false
    }
    sink.write("],\"problems\":" + Out.json(report.problems.map { ["path": $0.path.description, "reason": $0.reason] })
               + ",\"root\":" + Out.json(report.root) + ",\"skipped\":[")
    first = true
    for item in report.items where item.decision != .accepted && item.decision != .notMedia {
        var object: [String: Any] = ["photo": item.entry.relativePath.description, "reason": item.decision.rawValue,
                                     "detail": orNull(item.detail)]
        if let m = item.metadata {
            object["takenAt"] = takenAtText(item)
            object["timeSource"] = m.timeSource.rawValue
            if let c = m.coordinate {
                object["latitude"] = c.latitude
                object["longitude"] = c.longitude
            }
        }
        sink.write((first ? "\n" : ",\n") + Out.json(object))
        first = false
    }
    sink.write("]}\n")
}

func takenAtText(_ item: ImportItem) -> String {
    let date = item.metadata?.takenAt ?? item.entry.modificationDate
    return ISO8601.format(date, offsetSeconds: item.metadata?.utcOffsetSeconds)
}

/// Lists longer than this are cut in the text summary (the JSON report has everything).
let summaryListLimit = 20

/// The text report, written as it is made: the tables of a 200,000-photo dry run are never
/// held whole (widths come from a first pass over the rows, the text from a second).
func writeImportSummary(_ report: ImportReport, catalog: CountryCatalog, to sink: BufferedSink) {
    func line(_ text: String) { sink.write(text + "\n") }
    let verb = report.dryRun ? "would be created" : "created"
    line("pins import \(report.root)" + (report.dryRun ? " (dry run: nothing written)" : ""))
    line("  files      \(report.files)" + (report.unchanged > 0 ? " (\(report.unchanged) unchanged since an earlier run, not read)" : ""))
    if report.moved > 0 { line("  moved      \(report.moved) already imported under another name or folder: not decided again") }
    if report.touched > 0 { line("  touched    \(report.touched) with a new date but the same metadata: not decided again") }
    if report.missing > 0 { line("  missing    \(report.missing) gone since an earlier run (their pins are kept)") }
    if report.videosLeftOut > 0 { line("  videos     \(report.videosLeftOut) left out (--no-videos)") }
    line("  photos     \(report.photos), \(report.withLocation) with a position")
    line("  pins       \(report.created) \(verb)")
    line("  skipped    no location \(report.count(.noLocation)), interval \(report.count(.interval)), distance \(report.count(.distance)), unreadable \(report.count(.unreadable))")
    var countries: [String: Int] = [:]
    var atSea = 0
    for item in report.items where item.decision == .accepted {
        if let c = item.country { countries[c, default: 0] += 1 } else { atSea += 1 }
    }
    if !countries.isEmpty || atSea > 0 {
        let parts = countries.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\(catalog[$0.key]?.name ?? $0.key) \($0.value)" }
        line("  countries  " + (parts + (atSea > 0 ? ["at sea \(atSea)"] : [])).joined(separator: ", "))
    }
    if report.dryRun {
        let accepted = report.items.lazy.filter { $0.decision == .accepted }
        if !accepted.isEmpty {
            line("")
            line("Pins that would be created:")
            writeTable(["TAKEN AT", "CC", "LATITUDE", "LONGITUDE", "PHOTO"], accepted.map { item -> [String] in
                let c = item.metadata!.coordinate!
                return [takenAtText(item), item.country ?? "-", formatDegrees(c.latitude), formatDegrees(c.longitude),
                        item.entry.relativePath.description]
            }, to: sink)
        }
        // The other half of a dry run's answer: why each photo makes no pin.
        let skipped = report.items.lazy.filter { $0.decision != .accepted && $0.decision != .notMedia && $0.decision != .unreadable }
        if !skipped.isEmpty {
            line("")
            line("Photos that would be skipped:")
            writeTable(["REASON", "PHOTO", "WHY"],
                       skipped.map { [$0.decision.rawValue, $0.entry.relativePath.description, $0.detail ?? ""] }, to: sink)
        }
    }
    let unreadable = report.items.lazy.filter { $0.decision == .unreadable }
    if !unreadable.isEmpty {
        line("")
        line("Unreadable files:")
        for item in unreadable.prefix(summaryListLimit) { line("  \(item.entry.relativePath): \(item.detail ?? "")") }
        if unreadable.count > summaryListLimit { line("  ... and \(unreadable.count - summaryListLimit) more (see --report or --json)") }
    }
}

/// An indented text table over rows made on demand (twice: widths, then text).
func writeTable<Rows: Sequence>(_ header: [String], _ rows: Rows, to sink: BufferedSink) where Rows.Element == [String] {
    var widths = header.map(\.count)
    for row in rows { for (c, cell) in row.enumerated() { widths[c] = max(widths[c], cell.count) } }
    func write(_ row: [String]) {
        var text = " "
        for (c, cell) in row.enumerated() {
            text += " " + cell
            if c < row.count - 1 { text += String(repeating: " ", count: widths[c] - cell.count + 1) }
        }
        sink.write(text + "\n")
    }
    write(header)
    for row in rows { write(row) }
}

// MARK: inspect

let inspectSpec = CommandSpec(
    name: "inspect", summary: "Show what pins reads from photos: position, capture time and their sources.",
    usage: "inspect PATH... [--timezone ZONE]",
    options: [
        OptionSpec(name: "--timezone", value: "ZONE", help: "Zone for capture times that carry none (default: this machine's)."),
        OptionSpec(name: "--include-hidden", value: nil, help: "In folders, also read hidden files."),
    ],
    details: "Prints one JSON line per file: path, format, latitude, longitude, altitude, takenAt, timeSource, timeTag, error.")

func runInspect(_ args: ParsedArguments) throws {
    guard !args.positionals.isEmpty else { throw UsageError("missing PATH: a file or folder to inspect", command: "inspect") }
    var zone = TimeZone.current
    if let name = args.value("--timezone") {
        guard let tz = TimeZone(identifier: name) else { throw UsageError("--timezone expects a zone name such as UTC or Europe/Paris, got '\(name)'", command: "inspect") }
        zone = tz
    }
    let options = MetadataOptions(defaultTimeZone: zone)
    var failed = false
    for argument in args.positionals {
        var st = stat()
        guard stat(argument, &st) == 0 else {
            Out.error("pins inspect: \(argument): \(String(cString: strerror(errno)))")
            failed = true
            continue
        }
        // What to report: every file below a folder, or the one file named (followed if it is
        // a link), each with its sidecars from the names beside it.
        var targets: [(path: RawPath, shown: String, modified: Date, sidecars: [RawPath])] = []
        if st.st_mode & S_IFMT == S_IFDIR {
            let scan = try Scanner.scan(root: argument, options: ScanOptions(includeHidden: args.has("--include-hidden")))
            let sidecars = ImportPipeline.sidecars(for: scan.files, root: RawPath(argument), all: scan.files)
            for (entry, found) in zip(scan.files, sidecars) {
                let path = RawPath(argument).appending(entry.relativePath.bytes)
                targets.append((path, path.description, entry.modificationDate, found))
            }
        } else {
            let parent = (argument as NSString).deletingLastPathComponent
            let folder = parent.isEmpty ? "." : parent
            let name = Array((argument as NSString).lastPathComponent.utf8)
            let siblings = sidecarNames(in: folder)
            let found = siblings.isEmpty ? [] : Sidecars.match(mediaName: name, siblings: siblings).map { RawPath(folder).appending($0) }
            let modified = Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
            targets.append((RawPath(argument), argument, modified, found))
        }
        for (path, shown, modified, sidecarPaths) in targets {
            var object: [String: Any] = ["path": shown]
            if !sidecarPaths.isEmpty { object["sidecars"] = sidecarPaths.map { $0.description } }
            do {
                if let m = try MetadataReader.read(path: path, modificationTime: modified, options: options, sidecars: sidecarPaths) {
                    object["format"] = m.format
                    object["latitude"] = orNull(m.coordinate?.latitude)
                    object["longitude"] = orNull(m.coordinate?.longitude)
                    object["altitude"] = orNull(m.altitude)
                    object["positionSource"] = orNull(m.positionSource)
                    object["locationIssue"] = orNull(m.locationIssue)
                    object["takenAt"] = orNull(m.takenAt.map { ISO8601.format($0, offsetSeconds: m.utcOffsetSeconds) })
                    object["timeSource"] = m.timeSource.rawValue
                    object["timeTag"] = orNull(m.timeTag)
                    object["warnings"] = m.warnings
                    object["error"] = NSNull()
                } else {
                    object["format"] = NSNull()
                    object["error"] = "not a photo or video (unrecognised content)"
                }
            } catch {
                object["format"] = NSNull()
                object["error"] = "\(error)"
            }
            Out.print(Out.json(object))
        }
    }
    if failed { throw CommandFailure("some paths could not be read") }
}

/// Names of the XMP and Takeout sidecars in one folder (not below it).
func sidecarNames(in folder: String) -> [[UInt8]] {
    guard let dir = opendir(folder) else { return [] }
    defer { closedir(dir) }
    var names: [[UInt8]] = []
    while let entry = readdir(dir) {
        let name: [UInt8] = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            return Array(bytes[0..<(bytes.firstIndex(of: 0) ?? bytes.count)])
        }
        if Sidecars.isSidecarName(name) { names.append(name) }
    }
    return names
}
