import Foundation
import PinCore
import PinData
import PinImport
import PinPlaces
import PinReport
import PinStore

/// An import as the page shows it (`pins serve`): the run drawn over the map, the same
/// `RunOverlay` `pins import --html` and `pins import-places --html` draw, with its page title.
/// Bounded whatever the run's size (the overlay's lists are capped as the run page's are).
public struct ImportOutcome: Sendable {
    public let title: String
    public let overlay: RunOverlay
    /// The run record of a real run (`pins runs`), nil for a dry run.
    public let runID: Int64?
}

/// The imports `pins serve` starts: the same use cases as the CLI (`importPhotos`,
/// `importPlaces`), with the CLI's default options, returned as the page draws them.
extension PinApp {
    /// `pins import ROOT [--dry-run]` with the command's defaults, and the estimates the
    /// settings ask for (`estimates`, `estimateLimits`: what `pins import` reads from PINS_ESTIMATE
    /// and pins.conf, read by the caller as the import starts); `stop` ends it early (the
    /// server stopping). The report's records are read for the overlay, then checked as the
    /// CLI checks them (`checkReadBack`).
    public func importPhotosForPage(root: String, dryRun: Bool, estimates: Bool = false,
                                    estimateLimits: EstimateLimits = EstimateLimits(), stop: StopRequest,
                                    progress: @escaping @Sendable (ImportProgress) -> Void,
                                    warning: (String) -> Void) async throws -> ImportOutcome {
        var options = ImportOptions(root: root)
        options.dryRun = dryRun
        options.estimates = estimates
        options.estimateLimits = estimateLimits
        options.timeZones = LazyTimeZones()
        options.stop = stop
        let report = try await importPhotos(options, progress: progress, warning: warning)
        let outcome = ImportOutcome(title: "pins: " + (report.dryRun ? "dry run of " : "import of ") + report.root,
                                    overlay: report.runOverlay, runID: report.runID)
        try report.checkReadBack()
        return outcome
    }

    /// `pins import-places FILE [--dry-run] [--wanted]` of a file named `name` (an upload kept
    /// at `path`): the report and the run record say `name`.
    public func importPlacesForPage(path: String, name: String, wanted: Bool, dryRun: Bool,
                                    warning: @escaping (String) -> Void) throws -> ImportOutcome {
        var options = PlacesImportOptions(files: [path])
        options.names = [name]
        options.dryRun = dryRun
        options.wanted = wanted
        options.timeZones = LazyTimeZones()
        let report = try importPlaces(options, warning: warning)
        let outcome = ImportOutcome(title: "pins: " + (report.dryRun ? "dry run of " : "import of ") + report.runRoot,
                                    overlay: report.runOverlay, runID: report.runID)
        try report.checkReadBack()
        if let error = report.files.compactMap(\.error).first {
            // As the CLI says it (exit 65): what came before the damage is imported.
            warning("\(name): \(error); the records before it were imported")
        }
        return outcome
    }

    /// The data islands of the map page with an import's run drawn over it (`pins import --html`
    /// writes the page).
    public func pageInput(outcome: ImportOutcome) throws -> PageInput {
        try pageInput(title: outcome.title, filterDescription: nil, run: outcome.overlay, islandsOnly: true)
    }

    /// Nil when bytes starting with `head` are a place file pins reads; else why not, in the
    /// words `pins import-places` uses (`name` the file's name).
    public static func placeFileRefusal(name: String, head: [UInt8]) -> String? {
        PlaceFiles.refusal(name, path: name, head: head)
    }

    /// The import holding the run lock now (this process's or another's: the nightly
    /// `pins import`), with its run record's start and folder when it has one; nil when none runs.
    public func runningImport() -> RunningImport? {
        guard databaseExists, RunLock.isHeld(databasePath: databasePath) else { return nil }
        let newest = try? openForReading().read { try $0.runs.recent(limit: 1) }.first
        guard let run = newest, run.status == .running else { return RunningImport(startedAt: nil, root: nil) }
        return RunningImport(startedAt: run.startedAt, root: run.root)
    }
}

/// An import running now, as `PinApp.runningImport` finds it.
public struct RunningImport: Sendable {
    public let startedAt: Date?
    public let root: String?
}
