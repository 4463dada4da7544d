import Foundation
import PinCore
import PinMetadata

public struct ImportOptions: Sendable {
    public var root: String
    public var dryRun = false
    /// Files read at once (`--jobs`).
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    public var minInterval: Double = 60
    public var threshold: Double = AngularDistance.appThreshold
    public var timeZone: TimeZone = .current
    public var scan = ScanOptions()
    /// Transactions hold this many decisions: a crash loses at most one batch of work, which
    /// the next run redoes.
    public var batchSize = 500

    public init(root: String) { self.root = root }
}

/// What happened to one file of the run.
public struct ImportItem: Sendable {
    public let entry: FileEntry
    public var metadata: PhotoMetadata?
    /// Set for unreadable files: the one-line reason.
    public var error: String?
    public var decision: PhotoDecision
    public var verdict: ImportFilters.Verdict?
    public var country: String?
    public var title: String?
    public var locationID: UUID?

    public var detail: String? {
        if let error { return error }
        switch verdict {
        case .none, .accepted?: return nil
        case let .noLocation(reason)?: return reason
        case let .interval(seconds, previous)?:
            return String(format: "%.3g s after %@ (accepted)", seconds, previous).replacingOccurrences(of: "  ", with: " ")
        case let .distance(km, _, pin)?:
            return String(format: "%.2f km from pin '%@'", km, pin)
        }
    }
}

public struct ImportReport: Sendable {
    public var root: String
    public var dryRun: Bool
    /// Regular files seen under the root (hidden, system and excluded entries left out).
    public var files = 0
    /// Files already decided in an earlier run and unchanged since: not opened.
    public var unchanged = 0
    /// Every file decided in this run, in the order the rules saw them, unreadable files last.
    public var items: [ImportItem] = []
    /// Folders or files the walk could not read.
    public var problems: [(path: RawPath, reason: String)] = []
    public var startedAt = Date()
    public var finishedAt = Date()

    public var photos: Int { items.filter { $0.decision != .notMedia }.count }
    public var created: Int { items.filter { $0.decision == .accepted }.count }
    public func count(_ decision: PhotoDecision) -> Int { items.filter { $0.decision == decision }.count }
    public var withLocation: Int { items.filter { $0.metadata?.coordinate != nil }.count }
}

public enum ImportError: Error, CustomStringConvertible {
    case rootNotFound(String, String)
    case storage(String)

    public var description: String {
        switch self {
        case let .rootNotFound(path, reason): return "cannot import \(path): \(reason)"
        case let .storage(message): return message
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

    public func run(progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) async throws -> ImportReport {
        let root = try Self.canonicalRoot(options.root)
        let rootPath = RawPath(root)
        var report = ImportReport(root: root, dryRun: options.dryRun)
        progress(ImportProgress(phase: .scanning, done: 0, total: 0))
        let scan: ScanResult
        do {
            scan = try Scanner.scan(root: root, options: options.scan)
        } catch {
            throw ImportError.rootNotFound(options.root, "\(error)")
        }
        report.files = scan.files.count
        report.problems = scan.problems

        // What earlier runs left: known files, accepted photos, every pin.
        var known: [RawPath: PhotoFingerprint] = [:]
        var earlierAccepted: [AcceptedPhoto] = []
        var pins: [ImportFilters.ExistingPin] = []
        if let database {
            do {
                try database.read { repos in
                    known = try repos.photos.fingerprints(under: rootPath)
                    earlierAccepted = try repos.photos.acceptedPhotos()
                    pins = try repos.locations.fetchCoordinates().map { .init(title: $0.title, coordinate: $0.coordinate) }
                }
            } catch {
                throw ImportError.storage("cannot read the database: \(error)")
            }
        }
        let fresh = scan.files.filter { known[rootPath.appending($0.relativePath.bytes)] != $0.fingerprint }
        report.unchanged = scan.files.count - fresh.count

        // Read metadata, N files at once.
        let outcomes = await readAll(fresh, root: rootPath, progress: progress)

        // Order and decide.
        progress(ImportProgress(phase: .deciding, done: 0, total: fresh.count))
        var items = fresh.indices.map { i -> ImportItem in
            switch outcomes[i] {
            case let .photo(metadata): return ImportItem(entry: fresh[i], metadata: metadata, decision: .noLocation)
            case let .unreadable(reason): return ImportItem(entry: fresh[i], error: reason, decision: .unreadable)
            case .notMedia: return ImportItem(entry: fresh[i], decision: .notMedia)
            }
        }
        let candidates = items.indices.compactMap { i -> ImportFilters.Candidate? in
            guard let metadata = items[i].metadata else { return nil }
            let instant = (metadata.takenAt ?? fresh[i].modificationDate).timeIntervalSince1970
            return .init(index: i, instant: instant, path: fresh[i].relativePath, coordinate: metadata.coordinate,
                         locationIssue: metadata.locationIssue)
        }
        var filters = ImportFilters(minInterval: options.minInterval, threshold: options.threshold,
                                    existingPins: pins, earlierAccepted: earlierAccepted)
        var order: [Int] = []
        for candidate in ImportFilters.ordered(candidates) {
            let i = candidate.index
            let verdict = filters.decide(candidate, label: fresh[i].relativePath.description)
            items[i].verdict = verdict
            items[i].decision = verdict.decision
            if verdict == .accepted, let coordinate = candidate.coordinate {
                items[i].country = creation.locator.countryCode(at: coordinate)
                items[i].title = title(country: items[i].country, coordinate: coordinate, metadata: items[i].metadata!,
                                       instant: candidate.instant)
                items[i].locationID = UUID()
            }
            order.append(i)
        }
        // Unreadable files and non-media last, by path.
        let rest = items.indices.filter { items[$0].metadata == nil }.sorted { fresh[$0].relativePath < fresh[$1].relativePath }
        report.items = (order + rest).map { items[$0] }

        if !options.dryRun, let database {
            try save(report.items, root: rootPath, database: database, progress: progress)
        }
        report.finishedAt = Date()
        return report
    }

    enum ReadOutcome: Sendable {
        case photo(PhotoMetadata)
        case unreadable(String)
        case notMedia
    }

    /// A bounded task group: `jobs` reads in flight, one in as one comes out.
    private func readAll(_ files: [FileEntry], root: RawPath,
                         progress: @escaping @Sendable (ImportProgress) -> Void) async -> [ReadOutcome] {
        var outcomes = [ReadOutcome](repeating: .notMedia, count: files.count)
        let metadataOptions = MetadataOptions(defaultTimeZone: options.timeZone)
        let jobs = max(1, options.jobs)
        await withTaskGroup(of: (Int, ReadOutcome).self) { group in
            var next = 0
            func add(_ i: Int) {
                let entry = files[i]
                let path = root.appending(entry.relativePath.bytes)
                group.addTask {
                    do {
                        guard let metadata = try MetadataReader.read(path: path, modificationTime: entry.modificationDate,
                                                                     options: metadataOptions)
                        else { return (i, .notMedia) }
                        return (i, .photo(metadata))
                    } catch {
                        return (i, .unreadable("\(error)"))
                    }
                }
            }
            while next < min(jobs, files.count) { add(next); next += 1 }
            var done = 0
            while let (i, outcome) = await group.next() {
                outcomes[i] = outcome
                done += 1
                if done % 256 == 0 || done == files.count { progress(ImportProgress(phase: .reading, done: done, total: files.count)) }
                if next < files.count { add(next); next += 1 }
            }
        }
        return outcomes
    }

    /// "France, 2023-07-14": the country and the local date of capture.
    private func title(country: String?, coordinate: Coordinate, metadata: PhotoMetadata, instant: Double) -> String {
        let offset = metadata.utcOffsetSeconds ?? options.timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: instant))
        let day = String(ISO8601.format(Date(timeIntervalSince1970: instant), offsetSeconds: offset).prefix(10))
        let place = country.map { creation.countries.catalog[$0]?.name ?? $0 } ?? "At sea"
        return "\(place), \(day)"
    }

    /// Writes pins and photo records in order, `batchSize` decisions per transaction.
    private func save(_ items: [ImportItem], root: RawPath, database: TransactionRunner,
                      progress: @escaping @Sendable (ImportProgress) -> Void) throws {
        var start = 0
        while start < items.count {
            let batch = items[start..<min(items.count, start + options.batchSize)]
            do {
                try database.write { repos in
                    for item in batch {
                        let path = root.appending(item.entry.relativePath.bytes)
                        var locationID: UUID?
                        if item.decision == .accepted, let metadata = item.metadata, let coordinate = metadata.coordinate,
                           let id = item.locationID {
                            let draft = LocationDraft(title: item.title ?? path.description, coordinate: coordinate, type: .point,
                                                      date: metadata.takenAt ?? item.entry.modificationDate,
                                                      photoIDs: [path.description])
                            locationID = try creation.create(draft, in: repos, id: id).id
                        }
                        try repos.photos.save(PhotoRecord(
                            path: path, fingerprint: item.entry.fingerprint, digest: item.metadata?.metadataDigest,
                            format: item.metadata?.format, takenAt: item.metadata?.takenAt ?? (item.metadata != nil ? item.entry.modificationDate : nil),
                            timeSource: item.metadata?.timeSource.rawValue, utcOffsetSeconds: item.metadata?.utcOffsetSeconds,
                            coordinate: item.metadata?.coordinate, decision: item.decision, detail: item.detail,
                            locationID: locationID), runID: nil)
                    }
                }
            } catch {
                throw ImportError.storage("cannot save to the database: \(error)")
            }
            start += batch.count
            progress(ImportProgress(phase: .saving, done: start, total: items.count))
        }
    }
}
