import Foundation
import PinCore
import PinStore

/// Why an import session stopped, and the exit code it means (sysexits.h, documented in the
/// README and `pins import --help`); the run record keeps the same code.
public struct ImportFailure: ExitStatusError {
    public enum Kind: Int32, Sendable {
        /// The run stopped: a message says why.
        case failed = 1
        /// EX_NOINPUT: the folder is missing, empty or lost most of its files, or went away during
        /// the run; nothing changed.
        case noInput = 66
        /// EX_TEMPFAIL: another import holds the database; nothing changed, try later.
        case busy = 75
        /// SIGINT or SIGTERM: the exit code is 128 + the signal's number (130, 143).
        case interrupted = 128
    }

    public let kind: Kind
    public let message: String
    public let exitCode: Int32
    public var description: String { message }
    public var exitStatus: Int32 { exitCode }

    public init(_ kind: Kind, _ message: String, exitCode: Int32? = nil) {
        self.kind = kind
        self.message = message
        self.exitCode = exitCode ?? kind.rawValue
    }
}

/// One `pins import`, end to end: the run lock, the database (a dry run only reads, and never
/// creates one), the run record that `pins runs` lists and whose id every photo record and pin
/// of the run carries, the pipeline, and the report. A command calls `run` and prints.
public struct ImportSession {
    public let options: ImportOptions
    public let databasePath: String
    public let creation: CreationService

    public init(options: ImportOptions, databasePath: String, creation: CreationService) {
        self.options = options
        self.databasePath = databasePath
        self.creation = creation
    }

    /// Runs the import. `warning` gets what does not stop the run (the end of the run could not
    /// be recorded); a stop is thrown as `ImportFailure`.
    public func run(progress: @escaping @Sendable (ImportProgress) -> Void = { _ in },
                    warning: (String) -> Void = { _ in }) async throws -> ImportReport {
        // A folder that is not there stops the run before anything is made: no lock file, no
        // database, no folder for it (exit 66, as when the pipeline finds it missing).
        if !options.dryRun {
            do {
                _ = try ImportPipeline.canonicalRoot(options.root)
            } catch let error as ImportError {
                throw ImportFailure(.noInput, error.description)
            }
        }
        // The first import of a folder with no file at all (an empty folder, a share that is not
        // mounted) stops before the database is made: its "Nothing was changed" holds for the
        // disk too (no database, no lock file). With a database the walk finds it (exit 66 too).
        if !options.dryRun, !options.allowShrink, !FileManager.default.fileExists(atPath: databasePath),
           Self.holdsNoFile(options.root, options: options.scan) {
            let root = (try? ImportPipeline.canonicalRoot(options.root)) ?? options.root
            throw ImportFailure(.noInput, ImportError.empty(root: root).description)
        }
        // One import at a time per database; a dry run writes nothing and needs no lock.
        let lock = options.dryRun ? nil : try takeLock()
        defer { withExtendedLifetime(lock) {} }
        let database = try openDatabase()
        let runID = try database.flatMap { try startRun(in: $0) }
        // The photo links follow once, at the run's last write (finishRun), not per batch.
        database?.defersPhotoLinks = true
        // A batch's pages in the page cache (PinDatabase.importCacheKiB).
        if !options.dryRun { try? database?.useImportCache() }
        let pipeline = ImportPipeline(options: options, creation: creation, database: database)
        var report: ImportReport
        do {
            report = try await pipeline.run(runID: runID, progress: progress)
        } catch let error as ImportError {
            let failure: ImportFailure
            if case let .interrupted(signal) = error {
                failure = ImportFailure(.interrupted, error.description, exitCode: 128 + signal)
            } else {
                failure = ImportFailure(error.isMissingInput ? .noInput : .failed, error.description)
            }
            // A run that stopped on its database (deleted, full disk) cannot record that either:
            // the reason is said once, by the failure.
            if let error = finishRun(runID, in: database, status: error.isInterruption ? .interrupted : .failed,
                                     exitCode: failure.exitCode, report: nil, saved: pipeline.saved),
               !failure.message.contains("\(error)") {
                warning("could not record that the run stopped: \(error)")
            }
            throw failure
        }
        report.runID = runID
        // The links the save stage made: the last write counts the visits from them when it can.
        database?.runLinks = pipeline.saved.runLinks
        if let error = finishRun(runID, in: database, status: .completed, exitCode: report.exitCode, report: report) {
            warning("could not record the end of the run (its pins are saved): \(error)")
            report.runEndRecorded = false
        }
        return report
    }

    /// True only when the import's own walk (`Scanner`, with the run's scan options) finds no
    /// file below `root` and could read every folder; it stops at the first file, a folder it
    /// could not read, or after `emptyCheckFolders` folders (more is not "empty").
    static func holdsNoFile(_ root: String, options: ScanOptions) -> Bool {
        struct FirstFile: WalkVisitor {
            struct Stop: Error {}
            var folders = 0
            mutating func enterFolder(_ relative: [UInt8]) throws {
                folders += 1
                if folders > ImportSession.emptyCheckFolders { throw Stop() }
            }
            mutating func file(_ entry: FileEntry) throws { throw Stop() }
            mutating func leaveFolder(_ relative: [UInt8]) throws {}
            mutating func unseen(_ relative: [UInt8], problem: String?) throws { if problem != nil { throw Stop() } }
        }
        var options = options
        options.statFiles = false
        var visitor = FirstFile()
        do { try Scanner.walk(root: root, options: options, visitor: &visitor) } catch { return false }
        return true
    }
    static let emptyCheckFolders = 1_000

    /// For scripts/bench-photo-links alone: with PINS_BENCH_WITHOUT_PHOTO_LINKS=1 a run leaves
    /// linking its photos to the next write (the note stays), so the bench can set the cost of
    /// the pass against the import that has it, alternately, in the same binary.
    static let benchWithoutPhotoLinks = ProcessInfo.processInfo.environment["PINS_BENCH_WITHOUT_PHOTO_LINKS"] == "1"

    private func takeLock() throws -> RunLock {
        do {
            return try RunLock(databasePath: databasePath)
        } catch let failure as RunLock.Failure {
            if case .busy = failure { throw ImportFailure(.busy, failure.description) }
            throw ImportFailure(.failed, failure.description)
        }
    }

    /// A real run opens (creates, migrates) the database; a dry run reads an existing one
    /// without writing a byte to it, and goes without when there is none.
    private func openDatabase() throws -> PinDatabase? {
        if options.dryRun {
            guard FileManager.default.fileExists(atPath: databasePath) else { return nil }
            do {
                return try PinDatabase(readOnlyPath: databasePath)
            } catch {
                throw ImportFailure(.failed, "cannot read the database \(databasePath): \(error)")
            }
        }
        do {
            return try PinDatabase(path: databasePath)
        } catch let error as StorageError where error.reason == .busy || error.reason == .repairing {
            throw ImportFailure(.busy, error.reason == .busy ? "\(error); nothing was changed, try again later" : error.description)
        } catch let error as StorageError {
            throw ImportFailure(.failed, error.description)
        } catch {
            throw ImportFailure(.failed, "cannot open the database \(databasePath): \(error)")
        }
    }

    /// The run record is the first write: a database that cannot be written (read-only, held
    /// by another writer past the busy timeout) stops the run here, before any file is read,
    /// instead of after the whole library. Every run that goes on is recorded.
    private func startRun(in database: PinDatabase) throws -> Int64? {
        guard !options.dryRun else { return nil }
        let root = (try? ImportPipeline.canonicalRoot(options.root)) ?? options.root
        do {
            return try database.write { repos in
                let id = try repos.runs.start(root: root, at: Date())
                if options.estimates { try repos.runs.markEstimating(run: id) }
                return id
            }
        } catch let error as StorageError where error.reason == .busy {
            throw ImportFailure(.busy, "\(error); nothing was changed, try again later")
        } catch {
            throw ImportFailure(.failed, "cannot record the run, so nothing would be saved: \(error)")
        }
    }

    /// Records the end of a run for `pins runs`; returns why it could not.
    /// A completed run records its report's counts; one that stopped (`report` nil) what its
    /// committed batches saved (`saved`): the records and pins that are in the database.
    private func finishRun(_ runID: Int64?, in database: PinDatabase?, status: RunStatus, exitCode: Int32,
                           report: ImportReport?, saved: SavedSoFar = SavedSoFar()) -> Error? {
        guard let database, let runID else { return nil }
        database.defersPhotoLinks = Self.benchWithoutPhotoLinks
        // The batches' WAL back to its usual size (`PinDatabase.endImportWrites`); a failure
        // here leaves a larger WAL file, not a wrong database.
        try? database.endImportWrites()
        let record = ImportRunRecord(id: runID, root: report?.root ?? "", startedAt: report?.startedAt ?? Date(), finishedAt: Date(),
                                     status: status, exitCode: Int(exitCode), files: report?.files ?? saved.files,
                                     photos: report?.photos ?? saved.photos, created: report?.created ?? saved.created,
                                     skipped: report.map { report in
                                         Dictionary(uniqueKeysWithValues: ImportReport.skipReasons.map { ($0, report.count($0)) })
                                     } ?? Dictionary(uniqueKeysWithValues: ImportReport.skipReasons.map { ($0, saved.skipped[$0] ?? 0) }))
        do {
            try database.write { try $0.runs.finish(record) }
            return nil
        } catch {
            return error
        }
    }
}
