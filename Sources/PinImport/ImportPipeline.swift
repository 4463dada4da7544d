import Foundation
import PinCore
import PinMetadata

public struct ImportOptions: Sendable {
    public var root: String
    public var dryRun = false
    /// Files read at once (`--jobs`).
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    public var minInterval: Double = CaptureInterval.appMinimum
    public var threshold: Double = AngularDistance.appThreshold
    public var timeZone: TimeZone = .current
    public var scan = ScanOptions()
    /// Transactions hold this many decisions: a crash loses at most one batch of work, which
    /// the next run redoes.
    public var batchSize = 500
    /// Go on although the root lost most of the files it had (a share that is not mounted
    /// looks like that): `--allow-shrink`.
    public var allowShrink = false
    /// Videos take part in the rules, as in the phone's library; `--no-videos` leaves them out.
    public var includeVideos = true

    public init(root: String) { self.root = root }
}

public enum ImportError: Error, CustomStringConvertible {
    case rootNotFound(String, String)
    /// The root holds far fewer of the files it had: most likely a share that is not mounted.
    case shrunk(root: String, known: Int, present: Int)
    case storage(String)

    public var description: String {
        switch self {
        case let .rootNotFound(path, reason): return "cannot import \(path): \(reason)"
        case let .shrunk(root, known, present):
            return "\(root) holds \(present) of the \(known) files an earlier run recorded there: is the share mounted? "
                + "Nothing was changed. If the files really went away, run again with --allow-shrink "
                + "(their pins are kept either way)."
        case let .storage(message): return message
        }
    }

    /// The folder is missing, empty or shrunken: nothing was changed (exit 66).
    public var isMissingInput: Bool {
        switch self {
        case .rootNotFound, .shrunk: return true
        case .storage: return false
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

/// The import: walk, read metadata N files at once, order, apply the app's rules, create pins
/// through CreationService, record every considered file.
public struct ImportPipeline {
    public let options: ImportOptions
    public let creation: CreationService
    /// The database; nil when there is none yet (a dry run on a fresh machine).
    public let database: TransactionRunner?

    public init(options: ImportOptions, creation: CreationService, database: TransactionRunner?) {
        self.options = options
        self.creation = creation
        self.database = database
    }

    /// The root as an absolute, symlink-free path: photo records are keyed by it.
    public static func canonicalRoot(_ path: String) throws -> String {
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

    /// Runs the import; `runID` (the session's run record) goes on every photo record and pin written.
    public func run(runID: Int64? = nil, progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) async throws -> ImportReport {
        let root = try Self.canonicalRoot(options.root)
        let rootPath = RawPath(root)
        var report = ImportReport(root: root, dryRun: options.dryRun)
        progress(ImportProgress(phase: .scanning, done: 0, total: 0))
        // The walk (system calls on one core) and the database read (the other core) overlap.
        let scanOptions = options.scan
        async let walked = Result { try Scanner.scan(root: root, options: scanOptions) }

        // What earlier runs left: known files, accepted photos, every pin.
        var known: [RawPath: KnownPhoto] = [:]
        var earlierAccepted: [AcceptedPhoto] = []
        var pins: [ImportFilters.ExistingPin] = []
        if let database {
            try Self.readingDatabase {
                try database.read { repos in
                    known = try repos.photos.known(under: rootPath)
                    earlierAccepted = try repos.photos.acceptedPhotos()
                    pins = try repos.locations.fetchCoordinates().map { .init(title: $0.title, coordinate: $0.coordinate) }
                }
            }
        }
        let scan: ScanResult
        switch await walked {
        case let .success(result): scan = result
        case let .failure(error): throw ImportError.rootNotFound(options.root, "\(error)")
        }
        report.files = scan.files.count
        report.problems = scan.problems

        // A share that is not mounted looks like an empty or shrunken folder: stop before
        // anything is marked missing. Known files are keyed by their path below the root, so
        // the nightly case builds no absolute path for a file it does not read.
        var livePresent = 0
        var fresh: [Int] = []
        var reappeared: [(RawPath, PhotoFingerprint)] = []
        for (i, entry) in scan.files.enumerated() {
            guard let record = known[entry.relativePath] else {
                fresh.append(i)
                continue
            }
            if !record.missing { livePresent += 1 }
            // Unchanged files are not opened; files that came back are only marked present again.
            if record.fingerprint == entry.fingerprint {
                report.unchanged += 1
                if record.missing { reappeared.append((rootPath.appending(entry.relativePath.bytes), entry.fingerprint)) }
            } else {
                fresh.append(i)
            }
        }
        // A sidecar that is new or changed makes its photo count as changed: the person edited
        // where or when it was taken (the digest, which covers sidecars, then decides).
        let changedSidecars = Set(fresh.lazy.map { scan.files[$0].relativePath }.filter { Sidecars.isSidecarName($0.lastComponent) })
        if !changedSidecars.isEmpty {
            let unchanged = scan.files.indices.filter { i in
                !Sidecars.isSidecarName(scan.files[i].relativePath.lastComponent) && known[scan.files[i].relativePath]?.fingerprint == scan.files[i].fingerprint
            }
            let matched = Self.sidecarNames(for: unchanged.map { scan.files[$0] }, all: scan.files)
            for (k, i) in unchanged.enumerated() where matched[k].contains(where: changedSidecars.contains) {
                fresh.append(i)
                report.unchanged -= 1
            }
            fresh.sort()
        }
        let knownLive = known.reduce(0) { $0 + ($1.value.missing ? 0 : 1) }
        if !options.allowShrink, knownLive > 0, scan.files.isEmpty || livePresent * 2 < knownLive {
            throw ImportError.shrunk(root: root, known: knownLive, present: livePresent)
        }
        var vanished: [RawPath] = []
        if livePresent < knownLive {
            let present = Set(scan.files.map(\.relativePath))
            vanished = known.filter { !$0.value.missing && !present.contains($0.key) }.keys.sorted().map { rootPath.appending($0.bytes) }
        }

        let entries = fresh.map { scan.files[$0] }
        func absolute(_ i: Int) -> RawPath { rootPath.appending(entries[i].relativePath.bytes) }
        report.read = entries.count
        let sidecars = Self.sidecars(for: entries, root: rootPath, all: scan.files)
        // New files may need countries: load the outlines on the other core while reading.
        let creation = self.creation
        async let outlines = Result { if !entries.isEmpty { try creation.prepareCountries() } }

        // Read metadata, N files at once.
        // Results go straight into the items: no second array of 200,000 metadata records.
        var items = entries.map { ImportItem(entry: $0, decision: .notMedia) }
        await readAll(into: &items, root: rootPath, sidecars: sidecars, progress: progress)
        progress(ImportProgress(phase: .deciding, done: 0, total: entries.count))

        // The same photo under another name or path, or touched but unchanged: not decided again.
        var refreshed = reappeared
        var moves: [(from: RawPath, to: PhotoRecord)] = []
        var undecided = Set(items.indices)
        if let database {
            let vanishedSet = Set(vanished)
            try Self.readingDatabase {
                try database.read { repos in
                    for i in items.indices {
                        guard let metadata = items[i].metadata, let digest = metadata.metadataDigest else { continue }
                        if !options.includeVideos, metadata.format == FileKind.quicktime.rawValue { continue }
                        if let previous = known[entries[i].relativePath], previous.digest == digest {
                            refreshed.append((absolute(i), entries[i].fingerprint))
                            report.touched += 1
                            undecided.remove(i)
                        } else if known[entries[i].relativePath] == nil,
                                  var record = try repos.photos.find(size: entries[i].size, digest: digest),
                                  record.path != absolute(i) {
                            // A move when the old file is gone, a copy when it is still there.
                            let old = record.path
                            record.path = absolute(i)
                            record.fingerprint = entries[i].fingerprint
                            let gone = vanishedSet.contains(old) || old.withCString { access($0, F_OK) } != 0
                            moves.append((from: gone ? old : RawPath(bytes: []), to: record))
                            report.moved += 1
                            undecided.remove(i)
                        }
                    }
                }
            }
        }

        // Files that moved are not missing: their records follow them.
        let movedFrom = Set(moves.map(\.from))
        vanished.removeAll { movedFrom.contains($0) }
        report.missing = vanished.count

        // Order and decide.
        var candidates: [ImportFilters.Candidate] = []
        for i in undecided.sorted() {
            guard let metadata = items[i].metadata else { continue }
            if !options.includeVideos, metadata.format == FileKind.quicktime.rawValue {
                items[i].decision = .notMedia
                report.videosLeftOut += 1
                continue
            }
            let instant = (metadata.takenAt ?? entries[i].modificationDate).timeIntervalSince1970
            candidates.append(.init(index: i, instant: instant, path: entries[i].relativePath, coordinate: metadata.coordinate,
                                    locationIssue: metadata.locationIssue))
        }
        if case let .failure(error) = await outlines, candidates.contains(where: { $0.coordinate != nil }) {
            throw ImportError.storage("cannot load the country outlines: \(error)")
        }
        // A photo decided again (its content changed) is not "previously accepted" to itself.
        if !candidates.isEmpty, !earlierAccepted.isEmpty {
            let redecided = Set(candidates.map { entries[$0.index].relativePath })
            let prefix = rootPath.bytes + [UInt8(ascii: "/")]
            earlierAccepted.removeAll { accepted in
                accepted.path.bytes.starts(with: prefix)
                    && redecided.contains(RawPath(bytes: Array(accepted.path.bytes.dropFirst(prefix.count))))
            }
        }
        var filters = ImportFilters(minInterval: options.minInterval, threshold: options.threshold,
                                    existingPins: pins, earlierAccepted: earlierAccepted)
        var order: [Int] = []
        for candidate in ImportFilters.ordered(candidates) {
            let i = candidate.index
            let verdict = filters.decide(candidate, label: entries[i].relativePath.description)
            items[i].verdict = verdict
            items[i].decision = verdict.decision
            if verdict == .accepted, let coordinate = candidate.coordinate {
                let takenAt = Date(timeIntervalSince1970: candidate.instant)
                let offset = items[i].metadata!.utcOffsetSeconds ?? options.timeZone.secondsFromGMT(for: takenAt)
                items[i].pin = try creation.planPhotoPin(at: coordinate, takenAt: takenAt, utcOffsetSeconds: offset)
            }
            order.append(i)
        }
        // Unreadable files and non-media last, by path.
        let rest = undecided.filter { items[$0].verdict == nil }.sorted { entries[$0].relativePath < entries[$1].relativePath }
        // In place: a second copy of 200,000 items would double the run's memory.
        let processing = order + rest
        items.permute(to: processing)
        items.removeLast(items.count - processing.count)
        report.items = items
        items = []

        if !options.dryRun, let database {
            try save(report.items, root: rootPath, runID: runID, vanished: vanished, refreshed: refreshed, moves: moves,
                     database: database, progress: progress)
        }
        report.finishedAt = Date()
        return report
    }

    /// Runs a database read, reporting any failure as a storage error of the import.
    private static func readingDatabase(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            throw ImportError.storage("cannot read the database: \(error)")
        }
    }

    /// Files per task: one task per file made the hand-over between threads cost more than the
    /// read itself (measured: 2.6 s of system time for 20,000 files with 2 jobs).
    static let filesPerTask = 32

    /// A bounded task group: `jobs` tasks in flight, each reading a chunk of files; one in as
    /// one comes out.
    private func readAll(into items: inout [ImportItem], root: RawPath, sidecars: [[RawPath]],
                         progress: @escaping @Sendable (ImportProgress) -> Void) async {
        /// What a task hands back for one file.
        enum Outcome: Sendable {
            case photo(PhotoMetadata)
            case unreadable(String)
            case notMedia
        }
        let metadataOptions = MetadataOptions(defaultTimeZone: options.timeZone)
        let jobs = max(1, options.jobs)
        let total = items.count
        let chunks = stride(from: 0, to: total, by: Self.filesPerTask).map { $0..<min(total, $0 + Self.filesPerTask) }
        await withTaskGroup(of: (Range<Int>, [Outcome]).self) { group in
            var next = 0
            func add(_ range: Range<Int>) {
                let work = range.map { (root.appending(items[$0].entry.relativePath.bytes), items[$0].entry.modificationDate, sidecars[$0]) }
                group.addTask {
                    (range, work.map { path, modified, sidecars -> Outcome in
                        do {
                            guard let metadata = try MetadataReader.read(path: path, modificationTime: modified,
                                                                         options: metadataOptions, sidecars: sidecars)
                            else { return .notMedia }
                            return .photo(metadata)
                        } catch {
                            return .unreadable("\(error)")
                        }
                    })
                }
            }
            while next < min(jobs, chunks.count) { add(chunks[next]); next += 1 }
            var done = 0
            while let (range, results) = await group.next() {
                for (i, outcome) in zip(range, results) {
                    switch outcome {
                    case let .photo(metadata):
                        items[i].metadata = metadata
                        items[i].decision = .noLocation
                    case let .unreadable(reason):
                        items[i].error = reason
                        items[i].decision = .unreadable
                    case .notMedia:
                        break
                    }
                }
                done += range.count
                progress(ImportProgress(phase: .reading, done: done, total: total))
                if next < chunks.count { add(chunks[next]); next += 1 }
            }
        }
    }

    /// The XMP and Takeout sidecars of each file, from the names in its folder, as absolute
    /// paths. Sidecar files themselves (.xmp, .json) get none: they are not media and are read
    /// only as sidecars.
    public static func sidecars(for entries: [FileEntry], root: RawPath, all: [FileEntry]) -> [[RawPath]] {
        sidecarNames(for: entries, all: all).map { $0.map { root.appending($0.bytes) } }
    }

    /// The same, as paths relative to the root.
    static func sidecarNames(for entries: [FileEntry], all: [FileEntry]) -> [[RawPath]] {
        func split(_ path: RawPath) -> (folder: ArraySlice<UInt8>, name: [UInt8]) {
            let bytes = path.bytes
            guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return ([], bytes) }
            return (bytes[..<slash], Array(bytes[(slash + 1)...]))
        }
        var sidecarNames: [ArraySlice<UInt8>: [[UInt8]]] = [:]
        for entry in all {
            let (folder, name) = split(entry.relativePath)
            if Sidecars.isSidecarName(name) { sidecarNames[folder, default: []].append(name) }
        }
        return entries.map { entry in
            let (folder, name) = split(entry.relativePath)
            guard let candidates = sidecarNames[folder], !Sidecars.isSidecarName(name) else { return [] }
            return Sidecars.match(mediaName: name, siblings: candidates).map { sidecar in
                RawPath(bytes: folder.isEmpty ? sidecar : Array(folder) + [UInt8(ascii: "/")] + sidecar)
            }
        }
    }

    /// Writes in order: missing marks, refreshed fingerprints and moves in one transaction, then
    /// pins and photo records, `batchSize` decisions per transaction. A run killed at any point
    /// leaves whole batches; the next run decides the rest from them.
    private func save(_ items: [ImportItem], root: RawPath, runID: Int64?, vanished: [RawPath], refreshed: [(RawPath, PhotoFingerprint)],
                      moves: [(from: RawPath, to: PhotoRecord)], database: TransactionRunner,
                      progress: @escaping @Sendable (ImportProgress) -> Void) throws {
        do {
            if !vanished.isEmpty || !refreshed.isEmpty || !moves.isEmpty {
                try database.write { repos in
                    try repos.photos.markMissing(vanished)
                    for (path, fingerprint) in refreshed { try repos.photos.refresh(path, fingerprint: fingerprint) }
                    for move in moves {
                        if move.from.bytes.isEmpty {
                            try repos.photos.save(move.to, runID: runID)
                        } else {
                            try repos.photos.move(from: move.from, to: move.to, runID: runID)
                            // The pin's photo identity follows the file.
                            if let id = move.to.locationID, var pin = try repos.locations.fetch(id: id) {
                                let old = move.from.description, new = move.to.path.description
                                if pin.photoIDs.contains(old) {
                                    pin.photoIDs = pin.photoIDs.map { $0 == old ? new : $0 }
                                    try repos.locations.update(pin)
                                }
                            }
                        }
                    }
                }
            }
            var start = 0
            while start < items.count {
                let range = start..<min(items.count, start + options.batchSize)
                try database.write { repos in
                    for k in range {
                        let item = items[k], path = root.appending(item.entry.relativePath.bytes)
                        var locationID: UUID?
                        if item.decision == .accepted, let metadata = item.metadata, let coordinate = metadata.coordinate,
                           let plan = item.pin {
                            let draft = LocationDraft(title: plan.title, coordinate: coordinate, type: .point,
                                                      date: metadata.takenAt ?? item.entry.modificationDate,
                                                      photoIDs: [path.description], runID: runID)
                            locationID = try creation.create(draft, planned: plan, in: repos).id
                        }
                        try repos.photos.save(PhotoRecord(
                            path: path, fingerprint: item.entry.fingerprint, digest: item.metadata?.metadataDigest,
                            format: item.metadata?.format,
                            takenAt: item.metadata.map { $0.takenAt ?? item.entry.modificationDate },
                            timeSource: item.metadata?.timeSource.rawValue, utcOffsetSeconds: item.metadata?.utcOffsetSeconds,
                            coordinate: item.metadata?.coordinate, decision: item.decision, detail: item.detail,
                            locationID: locationID), runID: runID)
                    }
                }
                start = range.upperBound
                progress(ImportProgress(phase: .saving, done: start, total: items.count))
            }
        } catch {
            throw ImportError.storage("cannot save to the database: \(error)")
        }
    }
}

extension Array {
    /// Reorders the array in place so that element k becomes the old element `order[k]`;
    /// indices not in `order` end up after `order.count`. O(n) swaps, no second array of
    /// elements.
    mutating func permute(to order: [Int]) {
        precondition(Set(order).count == order.count && order.allSatisfy { indices.contains($0) }, "not a partial permutation")
        // Complete the order with the indices it leaves out, then follow cycles.
        var target = order
        var used = [Bool](repeating: false, count: count)
        for i in order { used[i] = true }
        for i in indices where !used[i] { target.append(i) }
        var done = [Bool](repeating: false, count: count)
        for start in indices where !done[start] {
            // Position p receives old element target[p]; walk the cycle from `start`.
            var p = start
            let saved = self[start]
            while true {
                done[p] = true
                let source = target[p]
                if source == start {
                    self[p] = saved
                    break
                }
                self[p] = self[source]
                p = source
            }
        }
    }
}
