import Foundation
import PinCore
import PinMetadata
import Synchronization

enum ImportError: Error, CustomStringConvertible {
    case rootNotFound(String, String)
    /// The root holds far fewer of the files it had: most likely a share that is not mounted.
    case shrunk(root: String, known: Int, present: Int)
    /// The root holds no file at all (an empty folder, or a share that is not mounted).
    case empty(root: String)
    /// SIGINT or SIGTERM: the run stopped after its last whole batch.
    case interrupted(signal: Int32)
    /// The root went away while its files were being read (a share unmounted, the folder
    /// moved): the run stopped before deciding anything, so nothing of it was saved.
    case rootLost(root: String, reason: String)
    case storage(String)

    var description: String {
        switch self {
        case let .rootNotFound(path, reason): return "cannot import \(path): \(reason)"
        case let .shrunk(root, known, present):
            return "\(root) holds \(present) of the \(known) files an earlier run recorded there: is the share mounted? "
                + "Nothing was changed. If the files really went away, run again with --allow-shrink "
                + "(their pins are kept either way)."
        case let .empty(root):
            return "\(root) holds no file: is the share mounted? Nothing was changed. "
                + "Run again with --allow-shrink to import an empty folder."
        case let .interrupted(signal):
            return "stopped by \(signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)"): "
                + "what was saved is whole; the next run does the rest"
        case let .rootLost(root, reason):
            return "\(root) went away during the run (\(reason)): was the share unmounted or the folder moved? "
                + "The run stopped before deciding anything: nothing was saved, and the files not read are not recorded. "
                + "Run again once the folder is back."
        case let .storage(message): return message
        }
    }

    /// The folder is missing, empty or shrunken, or went away during the run: nothing was
    /// changed (exit 66).
    var isMissingInput: Bool {
        switch self {
        case .rootNotFound, .shrunk, .empty, .rootLost: return true
        case .storage, .interrupted: return false
        }
    }

    /// The run was cut short (a signal, the folder gone): `pins runs` says "interrupted".
    var isInterruption: Bool {
        switch self {
        case .interrupted, .rootLost: return true
        case .rootNotFound, .shrunk, .empty, .storage: return false
        }
    }
}

/// How far the run is, for progress lines.
public struct ImportProgress: Sendable {
    public enum Phase: String, Sendable { case scanning, reading, deciding, saving }
    public var phase: Phase
    public var done: Int
    public var total: Int
}

/// The import, in named stages (Stages/): walk the folder against the known files (`Survey`),
/// read the metadata of what is new or changed (`ReadStage`), set aside photos that were only
/// touched, moved or copied (`Reconciliation`), apply the app's rules in capture order
/// (`DecideStage`), and write the pins and records (`SaveStage`).
public struct ImportPipeline {
    public let options: ImportOptions
    public let creation: CreationService
    /// The database; nil when there is none yet (a dry run on a fresh machine).
    public let database: TransactionRunner?
    /// What the run saved so far (the save stage's committed batches): the run record of a run
    /// stopped midway says so.
    public let saved = SavedSoFar()

    public init(options: ImportOptions, creation: CreationService, database: TransactionRunner?) {
        self.options = options
        self.creation = creation
        self.database = database
    }

    /// Files read between two reconciliations (one database read each).
    static let reconcileBatch = 512

    /// The root folder as the run found it at its start: its device and inode, so that a share
    /// unmounted under it (the mount point is another folder) or the folder moved away (its
    /// path names nothing, or another folder) is told apart from a file that went away.
    struct RootWatch {
        let path: String
        let device: UInt64
        let inode: UInt64

        init(_ path: String) throws {
            var st = stat()
            guard stat(path, &st) == 0 else { throw ImportError.rootNotFound(path, String(cString: strerror(errno))) }
            self.path = path
            device = UInt64(st.st_dev)
            inode = UInt64(st.st_ino)
        }

        /// Why the root is not the folder the run started on any more; nil while it is.
        func lost() -> String? {
            var st = stat()
            guard stat(path, &st) == 0 else { return String(cString: strerror(errno)) }
            guard st.st_mode & S_IFMT == S_IFDIR, UInt64(st.st_dev) == device, UInt64(st.st_ino) == inode else {
                return "another folder is there now"
            }
            return nil
        }
    }

    /// The root as an absolute, symlink-free path: photo records are keyed by it.
    static func canonicalRoot(_ path: String) throws -> String {
        guard let resolved = realpath(path, nil) else {
            throw ImportError.rootNotFound(path, String(cString: strerror(errno)))
        }
        defer { free(resolved) }
        var st = stat()
        guard stat(resolved, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
            throw ImportError.rootNotFound(path, "not a folder")
        }
        return String(cString: resolved)
    }

    /// The walk merged with the known files as both come (`Survey`), in the run's read of the
    /// database (`repos`, nil without one). Throws `.rootNotFound` when the root cannot be
    /// walked, `.empty`/`.shrunk` from the survey's guard, and storage errors.
    private func survey(root: String, rootPath: RawPath, reader: ReadStage, redecide: ((UnplacedPhoto) -> Bool)?,
                        in repos: Repositories?) throws -> Survey {
        let allowShrink = options.allowShrink
        func walk(_ known: KnownFileCursor) throws -> Survey {
            var survey = try Survey(root: rootPath, known: known)
            survey.reader = reader
            survey.redecide = redecide
            survey.stop = options.stop
            var scanOptions = options.scan
            scanOptions.statFiles = !survey.knowsNoFile
            do {
                try Scanner.walkAside(root: root, options: scanOptions, visitor: &survey)
            } catch let error as ScanError {
                throw ImportError.rootNotFound(options.root, "\(error)")
            }
            try survey.finish(allowShrink: allowShrink, walkIncomplete: !survey.problems.isEmpty)
            return survey
        }
        guard let repos else { return try walk(KnownFileCursor()) }
        var survey: Survey?
        // The walk's own errors pass through unchanged; the known files' are the database's.
        try readingDatabase { survey = try walk(try repos.photos.knownFiles(under: rootPath, unplaced: redecide != nil)) }
        return survey!
    }

    /// The run's tracks against what the database remembers of them for this root (`TrackRun`):
    /// the new and changed files are read here, before the walk, which asks it which photos
    /// skipped for "no location" are decided again.
    private static func trackRun(_ options: TrackOptions, root: RawPath, in repos: Repositories?) throws -> TrackRun {
        var records: [TrackRecord] = []
        if let repos { try readingDatabase { records = try repos.tracks.all(root: root) } }
        return TrackRun(options: options, root: root, records: records)
    }

    /// The instants for the tracks of the photos of `items` without a position.
    static func instantsToPlace(_ items: some Sequence<ImportItem>) -> [Double] {
        items.compactMap { item in
            guard item.isMedia, item.coordinate == nil, let m = item.metadata else { return nil }
            return TrackSet.instant(of: m)
        }
    }

    /// Runs `body` in one read of the database (nil without one): the walk, the reads and the
    /// reconciliation see one state of it, and the reconciliation of the files read during the
    /// walk needs no read of its own (SQLite's reads do not nest). The body's errors pass
    /// through unchanged.
    private func readingSnapshot(_ body: (Repositories?) throws -> Void) throws {
        guard let database else { return try body(nil) }
        var failure: Error?
        try readingDatabase {
            try database.read { repos in
                do { try body(repos) } catch { failure = error }
            }
        }
        if let failure { throw failure }
    }

    /// Runs the import; `runID` (the session's run record) goes on every photo record and pin written.
    public func run(runID: Int64? = nil, progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) async throws -> ImportReport {
        let root = try Self.canonicalRoot(options.root)
        let rootPath = RawPath(root)
        let rootWatch = try RootWatch(root)
        var report = ImportReport(root: root, dryRun: options.dryRun)
        report.cameraClockGiven = options.cameraTimeZone != nil || options.tracks?.cameraTimeZone != nil
            || options.metadataOptions.cameraClockOffset != 0
        progress(ImportProgress(phase: .scanning, done: 0, total: 0))
        // 1. Walk and known files; the first files to read are read as the walk goes (`ReadStage`).
        let reader = ReadStage(root: rootPath, options: options.metadataOptions,
                               jobs: options.jobs, stop: options.stop, beforeRead: options.beforeRead, progress: progress)
        // New files may need countries: load the outlines on the other core while reading, from
        // the first file to read on. (The task captures the service, not the entries: it lives
        // until the rules need the outlines.) Not a child task: a stopped run must not wait for
        // the load to finish.
        let creation = self.creation
        var outlines: Task<Result<Void, Error>, Never>?
        reader.willRead = { outlines = Task.detached { Result { try creation.prepareCountries() } } }
        // 2-3. Read, and reconcile moves and touches batch by batch as the files come.
        let intake = ReadIntake(root: root, rootWatch: rootWatch, reader: reader, options: options, creation: creation)
        try readingSnapshot { repos in try walkAndRead(into: intake, reader: reader, report: &report, in: repos) }
        try options.stop.check()
        try intake.finish(into: &report)
        progress(ImportProgress(phase: .deciding, done: 0, total: report.read))

        // 4. Decide, in report order; each file goes to the report's records as it is decided.
        if case let .failure(error) = await outlines?.value ?? .success(()),
           intake.withCoordinate || intake.reconciled.corrected.contains(where: { $0.kind == .moved }) {
            throw ImportError.storage("cannot load the country outlines: \(error)")
        }
        try decide(intake, into: &report)

        // 5. Save.
        if !options.dryRun, let database {
            try SaveStage(root: rootPath, runID: runID, batchSize: options.batchSize, creation: creation, stop: options.stop, saved: saved,
                          tracks: intake.trackRun?.records(runID: runID) ?? [], clockOffset: options.metadataOptions.cameraClockOffset)
                .save(report.items, reconciled: intake.reconciled, database: database, progress: progress)
        }
        report.finishedAt = Date()
        return report
    }

    /// The walk, and the reads from the first files the walk finds on: the walk hands them to
    /// the reader, which hands the items back to `intake` as they are read (the walk waits
    /// when it is too far ahead); then the files the walk listed to read after it.
    private func walkAndRead(into intake: ReadIntake, reader: ReadStage, report: inout ImportReport, in repos: Repositories?) throws {
        let consume: ReadStage.Consumer = { item, known in intake.take(item, known: known, in: repos) }
        reader.consumer = consume
        defer { reader.consumer = nil }
        var survey: Survey
        do {
            intake.trackRun = try options.tracks.map { try Self.trackRun($0, root: intake.rootPath, in: repos) }
            survey = try self.survey(root: intake.root, rootPath: intake.rootPath, reader: reader, redecide: intake.trackRun?.redecides, in: repos)
            if let failure = intake.failure { throw failure }
            try options.stop.check()
        } catch {
            reader.abandon()
            throw error
        }
        report.files = survey.files
        report.problems = survey.problems
        report.outOfSight = survey.outOfSight
        report.unchanged = survey.unchanged
        report.read = reader.submitted + survey.toRead.count
        intake.reconciled.surveyed(survey)
        reader.read(rest: survey.toRead, known: survey.knownToRead, consume: consume)
        survey.toRead = FilesToRead()
        if let failure = intake.failure { throw failure }
        try intake.pass(in: repos)
        if options.estimates, let repos { report.read += try redecideAroundNewPhotos(intake, in: repos) }
        if report.cameraClockGiven, let repos {
            try readingDatabase { report.placedAtAnotherInstant = try placedAtAnotherInstant(under: intake.rootPath, readAgain: intake.knownRead, in: repos) }
        }
    }

    /// Issue 36 item 4, nightly: the photos of the root an earlier run skipped for "no location"
    /// that a photo of this run with its own position now reaches (the phone's photos synced a
    /// night after the camera's) are read and decided again, as a new track's are
    /// (`TrackRun.redecides`): unchanged files only (a changed one was read already), marked as
    /// the tracks' are (`KnownPhoto.redecide`). So are those a run without estimates left
    /// without the photos around them (`unplacedPhotosMissedByEstimates`: the nightly runs
    /// before --estimate-positions or PINS_ESTIMATE=yes). Returns how many were read.
    private func redecideAroundNewPhotos(_ intake: ReadIntake, in repos: Repositories) throws -> Int {
        let reach = options.estimateLimits.reach
        let instants = intake.fixes.map(\.instant).sorted()
        var recorded: [(path: RawPath, known: KnownPhoto, takenAt: Double)] = [], missed: [(path: RawPath, known: KnownPhoto, takenAt: Double)] = []
        try readingDatabase {
            if let first = instants.first, let last = instants.last {
                recorded = try repos.photos.unplacedPhotos(under: intake.rootPath, from: first - reach, to: last + reach)
                    .filter { Self.anyWithin(instants, of: $0.takenAt, reach) }
            }
            // And those that runs without estimates left without the photos around them, and
            // those read in another zone than the camera's given now.
            missed = try repos.photos.unplacedPhotosMissedByEstimates(under: intake.rootPath, reach: reach)
                + unplacedInTheCameraZone(intake, reach: reach, in: repos)
        }
        var seen = Set(recorded.map(\.path))
        recorded += missed.filter { seen.insert($0.path).inserted }
        var files = FilesToRead(), known: [RawPath: KnownPhoto] = [:], sidecars: [[UInt8]: [[UInt8]]] = [:]
        for (path, record, _) in recorded where !intake.knownRead.contains(path) {
            guard let entry = Self.unchangedEntry(intake.rootPath, path, record.fingerprint) else { continue }
            let folder = path.bytes.lastIndex(of: UInt8(ascii: "/")).map { Array(path.bytes[..<$0]) } ?? []
            if sidecars[folder] == nil { sidecars[folder] = Self.sidecarNames(in: intake.rootPath.appending(folder)) }
            var again = record
            again.redecide = true
            known[path] = again
            try files.append(entry, sidecars: SidecarLookup.matching(path.lastComponent, in: folder, among: sidecars[folder]!))
        }
        guard !files.isEmpty else { return 0 }
        try files.finish()
        try options.stop.check()
        let reader = ReadStage(root: intake.rootPath, options: options.metadataOptions, jobs: options.jobs, stop: options.stop,
                               beforeRead: options.beforeRead)
        reader.read(rest: files, known: known) { item, known in intake.take(item, known: known, in: repos) }
        if let failure = intake.failure { throw failure }
        try intake.pass(in: repos)
        return files.count
    }

    /// Issue 36 item 5, the hint followed after a real import: the photos of the root an earlier
    /// run skipped for no location whose wall clock, read in this run's camera zone, is another
    /// instant than the one recorded (or is moved by this run's clock offset), and then falls
    /// within the estimates' reach of a photo with its own position, this run's or recorded.
    /// So are those whose record has another camera clock offset than this run's (a corrected
    /// `--camera-clock-offset`), at the instant this run's gives (`TrackRun.corrected`). A
    /// record from before schema 23 does not say its offset: it is tried at its instant moved
    /// by this run's, as the tracks do; one already moved by it lands there only by chance,
    /// and is then read again for nothing.
    private func unplacedInTheCameraZone(_ intake: ReadIntake, reach: Double,
                                         in repos: Repositories) throws -> [(path: RawPath, known: KnownPhoto, takenAt: Double)] {
        let offset = options.metadataOptions.cameraClockOffset
        let camera = cameraClock
        let fixes = intake.fixes.map(\.instant).sorted()
        var found: [(path: RawPath, known: KnownPhoto, takenAt: Double)] = []
        // A run without a camera zone or offset reads no assumed-zone photo again (its instant
        // is the recorded one) but those a run with an offset moved.
        let cameraGiven = camera.cameraTimeZone != nil || offset != 0
        for (path, known, photo) in try repos.photos.unplacedPhotosForTheCamera(under: intake.rootPath, clockOffset: offset,
                                                                              readAgainInAssumedZone: cameraGiven) {
            guard let recorded = photo.takenAt, let read = TrackRun.instant(of: photo, options: camera) else { continue }
            let instants = TrackRun.corrected(read, of: photo, options: camera).filter { $0 != recorded }
            let reached = try instants.contains { t in
                try Self.anyWithin(fixes, of: t, reach) || !repos.photos.recordedNeighbours(from: t - reach, to: t + reach).isEmpty
            }
            if reached { found.append((path, known, recorded)) }
        }
        return found
    }

    /// Whether one of `sorted` is within `reach` of `t`.
    static func anyWithin(_ sorted: [Double], of t: Double, _ reach: Double) -> Bool {
        let k = TrackRun.partition(sorted) { $0 < t - reach }
        return k < sorted.count && sorted[k] <= t + reach
    }

    /// The file at `path` below `root` as the walk would give it, when it is still the one
    /// recorded (same size, modification time and inode); nil otherwise (changed or gone: the
    /// walk saw to it).
    static func unchangedEntry(_ root: RawPath, _ path: RawPath, _ recorded: PhotoFingerprint) -> FileEntry? {
        var st = stat()
        guard root.appending(path.bytes).withCString({ stat($0, &st) }) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        let status = FileStatus(st)
        let entry = FileEntry(relativePath: path, size: status.size, modificationNanoseconds: status.modificationNanoseconds,
                              inode: status.inode, device: status.device)
        return entry.fingerprint == recorded ? entry : nil
    }

    /// The names of the XMP and Takeout sidecars in one folder (not below it).
    static func sidecarNames(in folder: RawPath) -> [[UInt8]] {
        let fd = folder.withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        return sidecarNames(inOpenFolder: fd)
    }

    /// The names of the sidecars in the folder open as `fd` (`pins sidecars` opens it without
    /// following a link); `fd` stays open.
    public static func sidecarNames(inOpenFolder fd: Int32) -> [[UInt8]] {
        names(inOpenFolder: fd, where: Sidecars.isSidecarName)
    }

    /// The names in the folder open as `fd` that `keep` takes, read through a copy of `fd` from
    /// the start (a copy shares the folder's read position, which an earlier listing leaves at
    /// its end); `fd` stays open. Empty when the folder cannot be read.
    public static func names(inOpenFolder fd: Int32, where keep: ([UInt8]) -> Bool) -> [[UInt8]] {
        let copy = dup(fd)
        guard copy >= 0 else { return [] }
        guard let dir = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(dir) }
        rewinddir(dir)
        var names: [[UInt8]] = []
        while let entry = readdir(dir) {
            let name: [UInt8] = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                return Array(bytes[0..<(bytes.firstIndex(of: 0) ?? bytes.count)])
            }
            if keep(name) { names.append(name) }
        }
        return names
    }

    /// The rules over the photos `intake` sorted, after the pins that follow their photo's
    /// corrected metadata are planned; every item goes to the report's records as it is decided.
    private func decide(_ intake: ReadIntake, into report: inout ImportReport) throws {
        try PinCorrection.plan(&intake.reconciled.corrected, timeZone: options.timeZone, creation: creation)
        report.corrected = intake.reconciled.corrected.filter { $0.kind != .same }
        var sorted = try intake.sorter.sorted()
        var decided = DecidedFiles.Writer()
        if options.estimates || options.dryRun, let span = intake.unplacedSpan {
            let limits = options.estimateLimits
            var neighbours = intake.fixes
            try readingSnapshot { repos in neighbours += try Self.recordedNeighbours(around: span, limits: limits, in: repos) }
            intake.decide.estimator = PositionEstimator(neighbours, limits: limits)
            intake.decide.applyEstimates = options.estimates
        }
        try intake.decide.decide(&sorted, history: intake.history, redecided: intake.redecided, root: intake.rootPath, into: &decided)
        report.videosLeftOut = intake.decide.videosLeftOut
        report.items = try decided.finish()
        report.estimated = intake.decide.estimated
        report.estimating = options.estimates
        report.estimatesPossible = intake.decide.estimatesPossible
        // One hint at most: the tracks' (said at the end of the reads) first.
        if report.cameraZoneHint == nil, options.estimates { report.cameraZoneHint = try zoneHint(intake) }
    }

    /// The camera zone's hint from the photos around (issue 36 item 5). The estimator read the
    /// recorded photos within its reach of the photos to place only; a camera 2 h off the
    /// phone's photos an earlier run recorded needs those within the shifts' reach: read here,
    /// for the hint alone, when enough photos were missed to say something.
    private func zoneHint(_ intake: ReadIntake) throws -> String? {
        let guess = intake.decide.zoneGuess
        guard let span = guess.sampleSpan else { return nil }
        let limits = options.estimateLimits
        let around = (span.lowerBound - CameraZoneGuess.maxShift)...(span.upperBound + CameraZoneGuess.maxShift)
        var neighbours = intake.fixes
        try readingSnapshot { repos in neighbours += try Self.recordedNeighbours(around: around, limits: limits, in: repos) }
        let placer = NeighbourPlacer(estimator: PositionEstimator(neighbours, limits: limits), clockOffset: options.metadataOptions.cameraClockOffset)
        return guess.hint(placer, zones: options.timeZones)
    }
}

extension ImportPipeline {
    /// The photos earlier runs recorded with their own position, in any folder, taken within
    /// the estimates' reach of `span` (the run's photos without a position): the run's own are
    /// in the estimator already (the same photo twice is one neighbour: `PositionEstimator`).
    static func recordedNeighbours(around span: ClosedRange<Double>, limits: EstimateLimits,
                                   in repos: Repositories?) throws -> [NeighbourPhoto] {
        guard let repos else { return [] }
        let reach = limits.reach
        var found: [NeighbourPhoto] = []
        try readingDatabase {
            found = try repos.photos.recordedNeighbours(from: span.lowerBound - reach, to: span.upperBound + reach).map {
                NeighbourPhoto(instant: $0.instant, coordinate: $0.coordinate,
                               name: String(decoding: $0.path.lastComponent, as: UTF8.self))
            }
        }
        return found
    }
}

/// Where the read items go, on the session's thread, batch by batch as they come (during the
/// walk too): a file lost since the walk listed it is set aside (or stops the run when the
/// root itself went away); the others are reconciled (moves, touches), placed from the tracks,
/// and what is left to the rules goes into the sorter (`ItemSorter`: on disk, in sorted runs).
private final class ReadIntake {
    let root: String
    let rootPath: RawPath
    let rootWatch: ImportPipeline.RootWatch
    let reader: ReadStage
    let includeVideos: Bool
    var trackRun: TrackRun?
    var reconciled = Reconciliation()
    var decide: DecideStage
    var sorter = ItemSorter(isCandidate: DecideStage.isCandidate)
    // The rules' history, read at the first photo to decide (a night with only touched or
    // moved files does not read it); and the photos an earlier run accepted that are decided
    // again (their content changed): they do not count as their own previous photo.
    var history = ImportHistory()
    private var historyRead = false
    private var acceptedHere: Set<RawPath> = []
    var redecided: Set<RawPath> = []
    /// Some photo to decide has a position (the country outlines are needed).
    var withCoordinate = false
    var lost: [(path: RawPath, reason: String)] = []
    var placedFromTracks = 0
    /// The photos with a position of their own and a capture time, for the estimates (issue 36
    /// item 4); gathered only when the run estimates or counts estimates.
    var fixes: [NeighbourPhoto] = []
    let gathersFixes: Bool
    /// The instants of the photos to decide without a position and with a capture time: the
    /// recorded neighbours read are those around them.
    var unplacedSpan: ClosedRange<Double>?
    /// The files of the run the database knew (changed ones, those decided again for the
    /// tracks): not read a second time for the estimates' re-decision, and not among those
    /// placed at another instant (`placedAtAnotherInstant`). Noted only when one of those asks.
    var knownRead: Set<RawPath> = []
    let notesKnownRead: Bool
    /// The camera photos without offsets the tracks missed (issue 36 item 5).
    var zoneGuess = CameraZoneGuess()
    let timeZones: (any TimeZoneLocating)?
    /// The items read since the last pass, and what the database knew of those it knew.
    private var batch: [ImportItem] = []
    private var batchKnown: [RawPath: KnownPhoto] = [:]
    /// Why the run stops, met while taking items (the reader's consumer cannot throw).
    private(set) var failure: Error?

    init(root: String, rootWatch: ImportPipeline.RootWatch, reader: ReadStage, options: ImportOptions, creation: CreationService) {
        self.root = root
        rootPath = RawPath(root)
        self.rootWatch = rootWatch
        self.reader = reader
        includeVideos = options.includeVideos
        timeZones = options.timeZones
        gathersFixes = options.estimates || options.dryRun
        notesKnownRead = gathersFixes || options.cameraTimeZone != nil || options.tracks?.cameraTimeZone != nil
            || options.metadataOptions.cameraClockOffset != 0
        decide = DecideStage(minInterval: options.minInterval, threshold: options.threshold,
                             includeVideos: options.includeVideos, timeZone: options.timeZone,
                             plan: { try creation.planPhotoPin(at: $0, takenAt: $1, utcOffsetSeconds: $2) })
    }

    /// The reader's consumer: one item as it is read, with what the database knew of its file.
    func take(_ item: ImportItem, known: KnownPhoto?, in repos: Repositories?) {
        guard failure == nil else { return }
        // A file the walk listed that could not be opened or is not there any more is no
        // decision: left unread, named as a problem (its record, if any, keeps its state; the
        // next run tries it again). When the root itself went away, the run stops before
        // deciding anything.
        if item.isLost {
            if let reason = rootWatch.lost() {
                failure = ImportError.rootLost(root: root, reason: reason)
                reader.halt(failure!)
            } else {
                lost.append((item.entry.relativePath, item.error ?? "not found: gone since the walk listed it; not read"))
            }
            return
        }
        batch.append(item)
        if let known {
            batchKnown[item.entry.relativePath] = known
            if notesKnownRead { knownRead.insert(item.entry.relativePath) }
        }
        guard batch.count >= ImportPipeline.reconcileBatch else { return }
        do { try pass(in: repos) } catch { failure = error }
    }

    /// The items taken since the last pass: reconciled, then those left to the rules placed
    /// from the tracks and sorted.
    func pass(in repos: Repositories?) throws {
        let undecided = try reconciled.reconcile(batch, root: rootPath, known: batchKnown, includeVideos: includeVideos, in: repos)
        let tracks = tracks(for: undecided)
        for i in undecided {
            var item = batch[i]
            if let tracks, item.coordinate == nil {
                let placed = item.place(from: tracks)
                if placed { placedFromTracks += 1 }
                zoneGuess.note(item.metadata, placed: placed)
            }
            if batchKnown[item.entry.relativePath]?.redecide == true { item.markRetriedForTracks() }
            if gathersFixes, let c = item.coordinate, item.positionSource != .track, item.isMedia, !item.datedByFile {
                fixes.append(NeighbourPhoto(instant: item.takenAt.timeIntervalSince1970, coordinate: c,
                                            name: String(decoding: item.entry.relativePath.lastComponent, as: UTF8.self)))
            } else if gathersFixes, item.coordinate == nil, item.isMedia, !item.datedByFile {
                let t = item.takenAt.timeIntervalSince1970
                unplacedSpan = unplacedSpan.map { min($0.lowerBound, t)...max($0.upperBound, t) } ?? t...t
            }
            if decide.admit(&item) { try admitted(item, in: repos) }
            try sorter.add(item)
        }
        batch.removeAll(keepingCapacity: true)
        batchKnown.removeAll(keepingCapacity: true)
    }

    /// The tracks for the photos of the batch at `undecided`: the instants of the photos to
    /// place are needed only while track files wait to be read.
    private func tracks(for undecided: [Int]) -> TrackSet? {
        guard trackRun?.hasUnread == true else { return trackRun?.set }
        return trackRun!.tracks(for: ImportPipeline.instantsToPlace(undecided.lazy.map { self.batch[$0] }))
    }

    /// A photo the rules will decide: the history is read at the first one.
    private func admitted(_ item: ImportItem, in repos: Repositories?) throws {
        if !historyRead {
            try history.readRules(in: repos)
            historyRead = true
            acceptedHere = DecideStage.relativePaths(of: history.earlierAccepted, below: rootPath)
        }
        if acceptedHere.contains(item.entry.relativePath) { redecided.insert(item.entry.relativePath) }
        if item.coordinate != nil { withCoordinate = true }
    }

    /// Every file is read: the reconciliation's end, and its figures in `report`. Copies are
    /// told from moves by whether the old file is still there: all of it holds only if the
    /// root is still the folder the run started on.
    func finish(into report: inout ImportReport) throws {
        reconciled.finish()
        if let reason = rootWatch.lost() { throw ImportError.rootLost(root: root, reason: reason) }
        report.problems += lost
        report.read -= lost.count
        report.tracks = trackRun?.files ?? []
        // A track that could not be opened or read is no decision either: named, tried again.
        report.problems += report.tracks.filter(\.unavailable).map {
            (RawPath($0.path), "\($0.error ?? "cannot open"): track not read; tried again at the next run")
        }
        report.placedFromTracks = placedFromTracks
        if let set = trackRun?.set { report.cameraZoneHint = zoneGuess.hint(set, zones: timeZones) }
        report.touched = reconciled.touched
        report.copied = reconciled.moves.count { $0.from == nil }
        report.moved = reconciled.moves.count - report.copied
        report.missing = reconciled.missing.count
    }
}
