import Foundation
import PinCore
import PinMetadata

/// Stage 2: the metadata of the files to read, `jobs` reads in flight on the I/O pool
/// (`ReadPool`: threads of their own, apart from Swift's one-per-core cooperative threads).
/// Each file becomes an item: a photo (decision `.noLocation` until the rules say otherwise),
/// an unreadable file with its reason, or not media.
///
/// The walk feeds it: files to read go straight to the pool as their folders are walked
/// (`submit`, from `Survey`), so reading starts with the first folder and goes on while the
/// walk does. With a `consumer` (the import's: its reconciliation runs in the walk's read of
/// the database), every file goes to the pool and each item goes to the consumer during the
/// walk as soon as it is read, in the walk's order; the walk waits when `lead` files are read
/// ahead of it or waiting to be read, so memory stays bounded and reads never idle while the
/// walk goes on. Without one, the first `lead` files go to the pool and the rest to the walk's
/// list on disk (`FilesToRead`), read after the walk (`read(rest:)`), in the same order. Which
/// files go where depends only on their count, never on timing: the order of the items is the walk's.
final class ReadStage {
    /// What a thread hands back for one file.
    enum Outcome: Sendable {
        case photo(PhotoMetadata)
        case unreadable(String)
        case notMedia
        /// The file (or a sidecar of it) could not be opened, is not there any more, or its file
        /// system went away (`FileLost`): no decision, the file stays unread (the next run tries
        /// it again). The text says which, for the run's problems.
        case lost(String)
    }

    struct Job: Sendable {
        let entry: FileEntry
        /// Its sidecars, relative to the root.
        let sidecars: [RawPath]
        /// What the database knew of it (a changed file), for the reconciliation.
        var known: KnownPhoto?
    }

    /// Takes each file's item, with what the database knew of the file, in the walk's order.
    typealias Consumer = (ImportItem, KnownPhoto?) -> Void

    /// Files between two progress updates.
    static let progressEvery = 256

    /// Files taken from the list at once (it is on disk): a few MB of entries.
    static let chunk = 16384

    /// How much nicer the pool's threads make themselves once the walk met a cold cache
    /// (`ColdCache.met`). The walk is then the run's critical path: one thread waiting
    /// for one folder after the other, whose files the readers wait for. Among 32 runnable
    /// readers decoding on 2 cores it got a small share of the CPU: in a cold dry run of
    /// 100,000 files it ended at 4.0 s of 4.3 s (a cold walk alone takes 1.5-2.4 s); with the
    /// readers at +10 it ended at 2.9 s of 3.4 s. A warm run never meets a cold cache: its
    /// readers keep the caller's priority.
    static let coldNice: Int32 = 10

    /// Files a thread opens ahead of reading them, on a cold cache (`MetadataReader.prefetch`):
    /// its whole batch, so that it waits for the disk once a batch instead of once a file (a
    /// cold dry run of 100,000 small files spent about a third of its system time blocking and
    /// waking per file). Fewer when the descriptors held ahead by all the threads would pass
    /// half the soft limit of open files (RLIMIT_NOFILE): the rest is for the database, the
    /// walk and the files being read. 0 (no prefetch) with the cache warm.
    static func prefetchedPerThread(jobs: Int, limit: Int? = nil) -> Int {
        var open = rlimit()
        let soft = limit ?? (getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &open) == 0 ? Int(clamping: open.rlim_cur) : 1024)
        return min(ReadPool.batch, soft / 2 / max(1, jobs))
    }

    /// Files handed to the pool and not yet consumed, at most: without a consumer, the files
    /// read while the walk goes on (their results wait for the walk to end); with one, how far
    /// the walk may go ahead of the items consumed. A few MB.
    static let lead = 32768
    private let lead: Int

    /// The pool's threads make each file's item (its compact form: what waits for the walk
    /// to end is a few hundred bytes a file, not the decoder's full metadata).
    private let feed: ReadFeed<Job, ImportItem>
    private let progress: @Sendable (ImportProgress) -> Void
    /// Set by `abandon`: reads not begun return at once.
    private let abandoned = StopRequest()
    /// Files submitted during the walk.
    private(set) var submitted = 0
    /// Items handed to the consumer so far.
    private(set) var consumed = 0
    /// Called before the first file is submitted (to load what the results will need meanwhile).
    var willRead: (() -> Void)?
    /// Set before the walk: takes the items as they are read, during the walk too (`submit`).
    var consumer: Consumer?
    /// Set by `halt`: why the run stops (the walk throws it at its next folder).
    private(set) var halted: Error?

    /// After a stop request the remaining files are not opened (the run is then abandoned).
    /// `beforeRead` (tests) is called on the reading thread before each file is read.
    init(root: RawPath, options: MetadataOptions, jobs: Int, stop: StopRequest = StopRequest(), lead: Int = ReadStage.lead,
         beforeRead: (@Sendable (FileEntry) -> Void)? = nil, progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) {
        self.progress = progress
        self.lead = lead
        let abandoned = self.abandoned
        // Room for every file read during the walk to wait, or for 4 batches per thread.
        let ahead = Self.prefetchedPerThread(jobs: jobs)
        feed = ReadFeed(threads: jobs, window: max(jobs * 4, lead / ReadPool.batch), coldNice: Self.coldNice, prefetch: { jobs in
            guard ahead > 0, ColdCache.met.load(ordering: .relaxed), stop.signal == nil, abandoned.signal == nil else { return }
            MetadataReader.prefetch(jobs.prefix(ahead).map { root.appending($0.entry.relativePath.bytes) })
        }) { job in
            if stop.signal != nil || abandoned.signal != nil { return ReadStage.item(job.entry, .notMedia) }
            beforeRead?(job.entry)
            let path = root.appending(job.entry.relativePath.bytes), sidecars = job.sidecars.map { root.appending($0.bytes) }
            guard job.entry.isStatted else {
                let (entry, outcome) = ReadStage.readUnstatted(job.entry, path: path, sidecars: sidecars, options: options)
                return ReadStage.item(entry, outcome)
            }
            return ReadStage.item(job.entry, ReadStage.readOne(path, modified: job.entry.modificationDate, sidecars: sidecars, options: options))
        }
    }

    /// True while the walk may hand files straight to the pool (`submit`): always with a
    /// consumer; without one, until `lead` of them, then the walk lists the rest on disk.
    var takesMore: Bool { consumer != nil || submitted < lead }

    /// A file to read, during the walk. With a consumer, the items read so far go to it, and
    /// the walk waits here while `lead` files are submitted and not consumed.
    func submit(_ entry: FileEntry, sidecars: [RawPath], known: KnownPhoto? = nil) {
        if submitted == 0 { willRead?() }
        submitted += 1
        feed.submit(Job(entry: entry, sidecars: sidecars, known: known))
        // Once a batch: a whole batch is what a thread claims.
        guard let consumer, submitted % ReadPool.batch == 0 else { return }
        func take(_ job: Job, _ item: ImportItem) {
            consumer(item, job.known)
            consumed += 1
        }
        // (A partial batch is not read before the walk ends: `drain` keeps at least one.)
        let keeping = max(lead, ReadPool.batch - 1)
        if submitted - consumed > keeping {
            feed.drain(keeping: keeping, take)
        } else {
            feed.takeReady(take)
        }
    }

    /// After the walk: the files submitted and not consumed yet, then `rest` (below `root`,
    /// each with its sidecars relative to the root; `known`: what the database knew of those
    /// it knew) `chunk` at a time. Each file's item goes to `consume` in that order as soon as
    /// it is read: nothing is kept here, and at most the pool's window of results waits.
    func read(rest: FilesToRead, known: [RawPath: KnownPhoto] = [:], consume: Consumer) {
        let total = submitted + rest.count
        func take(_ job: Job, _ item: ImportItem) {
            consume(item, job.known)
            consumed += 1
            if consumed % Self.progressEvery == 0 || consumed == total {
                progress(ImportProgress(phase: .reading, done: consumed, total: total))
            }
        }
        if rest.count > 0 && submitted == 0 { willRead?() }
        for (entries, sidecars) in rest.chunks(of: Self.chunk) {
            for (entry, sidecars) in zip(entries, sidecars) {
                feed.submit(Job(entry: entry, sidecars: sidecars, known: known[entry.relativePath]))
            }
            feed.drain(keeping: Self.chunk, take)
        }
        feed.finish(take)
    }

    /// From the consumer (on the walk's thread): the run must stop with `error` (its folder went
    /// away). Reads not begun are not made (their items come back as not media, for a consumer
    /// that ignores them from now on), and the walk throws `error` at its next folder.
    func halt(_ error: Error) {
        guard halted == nil else { return }
        halted = error
        abandoned.stop(signal: 0)
    }

    /// The run stops (the walk failed, or a stop was asked): reads not begun are not made.
    func abandon() {
        abandoned.stop(signal: 0)
        feed.abandon()
    }

    private static func item(_ entry: FileEntry, _ outcome: Outcome) -> ImportItem {
        if case let .lost(reason) = outcome { return .lost(entry, reason: reason) }
        var item = ImportItem(entry: entry, decision: .notMedia)
        switch outcome {
        case let .photo(metadata):
            item.metadata = metadata
            item.decision = .noLocation
        case let .unreadable(reason):
            item.error = reason
            item.decision = .unreadable
        case .notMedia, .lost:
            break
        }
        return item
    }

    /// A file the walk did not stat (`FileEntry.isStatted`): its entry gets the size, time and
    /// inode of the descriptor its reader opened; when it is opened but cannot be read, of an
    /// lstat of its path; when that fails too, size, time and inode 0. A file that cannot be
    /// opened is left unread (`FileLost`). The outcome is the one a statted file gets.
    static func readUnstatted(_ entry: FileEntry, path: RawPath, sidecars: [RawPath], options: MetadataOptions) -> (FileEntry, Outcome) {
        var status: FileStatus?
        let outcome: Outcome
        do {
            outcome = try MetadataReader.read(path: path, options: options, sidecars: sidecars, status: &status).map { .photo($0) } ?? .notMedia
        } catch let lost as FileLost {
            return (entry, .lost(lostReason(lost)))
        } catch {
            outcome = .unreadable("\(error)")
        }
        let found = status ?? FileStatus.of(path) ?? FileStatus(size: 0, modificationNanoseconds: 0, inode: 0, device: 0)
        return (entry.statted(found), outcome)
    }

    /// Why a file is left unread, as the run's problems name it.
    static func lostReason(_ lost: FileLost) -> String {
        lost.isGone ? "\(lost): gone since the walk listed it; not read"
            : "\(lost): not read, tried again at the next run"
    }

    static func readOne(_ path: RawPath, modified: Date, sidecars: [RawPath], options: MetadataOptions) -> Outcome {
        do {
            guard let metadata = try MetadataReader.read(path: path, modificationTime: modified, options: options, sidecars: sidecars)
            else { return .notMedia }
            return .photo(metadata)
        } catch let lost as FileLost {
            return .lost(lostReason(lost))
        } catch {
            return .unreadable("\(error)")
        }
    }
}

/// The XMP and Takeout sidecars of files, found among the names of their folder.
enum SidecarLookup {
    /// As absolute paths. Sidecar files themselves (.xmp, .json) get none: they are not media
    /// and are read only as sidecars.
    static func paths(for entries: [FileEntry], root: RawPath, all: [FileEntry]) -> [[RawPath]] {
        names(for: entries, all: all).map { $0.map { root.appending($0.bytes) } }
    }

    /// As paths relative to the root.
    static func names(for entries: [FileEntry], all: [FileEntry]) -> [[RawPath]] {
        names(for: entries.map(\.relativePath), sidecars: all.lazy.map(\.relativePath).filter { Sidecars.isSidecarName($0.lastComponent) })
    }

    /// The sidecars of `paths` among `sidecars` (paths relative to the root, sidecar names only).
    static func names(for paths: [RawPath], sidecars: some Sequence<RawPath>) -> [[RawPath]] {
        func split(_ path: RawPath) -> (folder: ArraySlice<UInt8>, name: [UInt8]) {
            let bytes = path.bytes
            guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return ([], bytes) }
            return (bytes[..<slash], Array(bytes[(slash + 1)...]))
        }
        var sidecarNames: [ArraySlice<UInt8>: [[UInt8]]] = [:]
        for path in sidecars {
            let (folder, name) = split(path)
            sidecarNames[folder, default: []].append(name)
        }
        return paths.map { path in
            let (folder, name) = split(path)
            return matching(name, in: folder, among: sidecarNames[folder] ?? [])
        }
    }

    /// The sidecars of the file `name` in `folder` (relative to the root), among the sidecar
    /// names of that folder. A sidecar itself has none.
    static func matching<Folder: Collection<UInt8>>(_ name: [UInt8], in folder: Folder, among sidecarNames: [[UInt8]]) -> [RawPath] {
        guard !sidecarNames.isEmpty, !Sidecars.isSidecarName(name) else { return [] }
        return Sidecars.match(mediaName: name, siblings: sidecarNames).map { sidecar in
            RawPath(bytes: folder.isEmpty ? sidecar : Array(folder) + [UInt8(ascii: "/")] + sidecar)
        }
    }
}
