import Foundation
import PinCore
import PinMetadata

/// Stage 2: the metadata of the files to read, `jobs` reads in flight on the I/O pool
/// (`ReadPool`: threads of their own, apart from Swift's one-per-core cooperative threads).
/// Each file becomes an item: a photo (decision `.noLocation` until the rules say otherwise),
/// an unreadable file with its reason, or not media.
///
/// The walk feeds it: the first `lead` files to read go straight to the pool as their folders
/// are walked (`submit`, from `Survey`), so reading starts with the first folder and goes on
/// on the other core while the walk does; the files after them go to the walk's list on disk
/// (`FilesToRead`) and are read after the walk (`read(rest:)`), in the same order. Which files
/// go where depends only on their count, never on timing: the order of the items is the walk's.
final class ReadStage {
    /// What a thread hands back for one file.
    enum Outcome: Sendable {
        case photo(PhotoMetadata)
        case unreadable(String)
        case notMedia
    }

    struct Job: Sendable {
        let entry: FileEntry
        /// Its sidecars, relative to the root.
        let sidecars: [RawPath]
    }

    /// Files between two progress updates.
    static let progressEvery = 256

    /// Files taken from the list at once (it is on disk): a few MB of entries.
    static let chunk = 16384

    /// Files read while the walk goes on, at most: their results wait for the walk to end (the
    /// reconciliation reads the database, which the walk is reading), a few MB.
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
    /// Called before the first file is submitted (to load what the results will need meanwhile).
    var willRead: (() -> Void)?

    /// After a stop request the remaining files are not opened (the run is then abandoned).
    init(root: RawPath, options: MetadataOptions, jobs: Int, stop: StopRequest = StopRequest(), lead: Int = ReadStage.lead,
         progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) {
        self.progress = progress
        self.lead = lead
        let abandoned = self.abandoned
        // Room for every file read during the walk to wait, or for 4 batches per thread.
        feed = ReadFeed(threads: jobs, window: max(jobs * 4, lead / ReadPool.batch)) { job in
            if stop.signal != nil || abandoned.signal != nil { return ReadStage.item(job.entry, .notMedia) }
            return ReadStage.item(job.entry, ReadStage.readOne(root.appending(job.entry.relativePath.bytes), modified: job.entry.modificationDate,
                                                               sidecars: job.sidecars.map { root.appending($0.bytes) }, options: options))
        }
    }

    /// True while the walk may hand files straight to the pool (`submit`); after `lead` of them,
    /// the walk lists the rest on disk.
    var takesMore: Bool { submitted < lead }

    /// A file to read, during the walk.
    func submit(_ entry: FileEntry, sidecars: [RawPath]) {
        if submitted == 0 { willRead?() }
        submitted += 1
        feed.submit(Job(entry: entry, sidecars: sidecars))
    }

    /// After the walk: the files submitted, then `rest` (below `root`, each with its sidecars
    /// relative to the root) `chunk` at a time. Each file's item goes to `consume` in that
    /// order as soon as it is read: nothing is kept here, and at most the pool's window of
    /// results waits.
    func read(rest: FilesToRead, consume: (ImportItem) -> Void) {
        let total = submitted + rest.count
        var done = 0
        func take(_ job: Job, _ item: ImportItem) {
            consume(item)
            done += 1
            if done % Self.progressEvery == 0 || done == total {
                progress(ImportProgress(phase: .reading, done: done, total: total))
            }
        }
        if rest.count > 0 && submitted == 0 { willRead?() }
        for (entries, sidecars) in rest.chunks(of: Self.chunk) {
            for (entry, sidecars) in zip(entries, sidecars) { feed.submit(Job(entry: entry, sidecars: sidecars)) }
            feed.drain(keeping: Self.chunk, take)
        }
        feed.finish(take)
    }

    /// The run stops (the walk failed, or a stop was asked): reads not begun are not made.
    func abandon() {
        abandoned.stop(signal: 0)
        feed.abandon()
    }

    private static func item(_ entry: FileEntry, _ outcome: Outcome) -> ImportItem {
        var item = ImportItem(entry: entry, decision: .notMedia)
        switch outcome {
        case let .photo(metadata):
            item.metadata = metadata
            item.decision = .noLocation
        case let .unreadable(reason):
            item.error = reason
            item.decision = .unreadable
        case .notMedia:
            break
        }
        return item
    }

    static func readOne(_ path: RawPath, modified: Date, sidecars: [RawPath], options: MetadataOptions) -> Outcome {
        do {
            guard let metadata = try MetadataReader.read(path: path, modificationTime: modified, options: options, sidecars: sidecars)
            else { return .notMedia }
            return .photo(metadata)
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
