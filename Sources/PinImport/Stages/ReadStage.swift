import Foundation
import PinCore
import PinMetadata

/// Stage 2: the metadata of the files to read, `jobs` reads in flight on the I/O pool
/// (`ReadPool`: threads of their own, apart from Swift's one-per-core cooperative threads).
/// Each file becomes an item: a photo (decision `.noLocation` until the rules say otherwise),
/// an unreadable file with its reason, or not media.
enum ReadStage {
    /// What a thread hands back for one file.
    enum Outcome: Sendable {
        case photo(PhotoMetadata)
        case unreadable(String)
        case notMedia
    }

    /// Files between two progress updates.
    static let progressEvery = 256

    /// Files taken from the list at once (it is on disk): a few MB of entries.
    static let chunk = 16384

    /// Reads `files` (below `root`, each with its sidecars relative to the root), `chunk` at a
    /// time. Each file's item goes to `consume` in file order as soon as it is read: nothing is
    /// kept here, and at most the pool's window of results waits.
    /// After a stop request the remaining files are not opened (the run is then abandoned).
    static func read(_ files: FilesToRead, root: RawPath, options: MetadataOptions, jobs: Int,
                     stop: StopRequest = StopRequest(), progress: @escaping @Sendable (ImportProgress) -> Void,
                     consume: (ImportItem) -> Void) {
        var done = 0
        for (entries, sidecars) in files.chunks(of: chunk) {
            read(entries, sidecars: sidecars, root: root, options: options, jobs: jobs, stop: stop) { i, item in
                consume(item)
                if (done + i + 1) % progressEvery == 0 || done + i + 1 == files.count {
                    progress(ImportProgress(phase: .reading, done: done + i + 1, total: files.count))
                }
            }
            done += entries.count
        }
    }

    /// Reads `entries` (`sidecars`: for each, its sidecars relative to the root) on the pool;
    /// `consume` gets each index and item in order.
    static func read(_ entries: [FileEntry], sidecars: [[RawPath]], root: RawPath, options: MetadataOptions, jobs: Int,
                     stop: StopRequest, consume: (Int, ImportItem) -> Void) {
        ReadPool.run(count: entries.count, threads: jobs, read: { i -> Outcome in
            if stop.signal != nil { return .notMedia }
            return readOne(root.appending(entries[i].relativePath.bytes), modified: entries[i].modificationDate,
                    sidecars: sidecars[i].map { root.appending($0.bytes) }, options: options)
        }, consume: { i, outcome in
            var item = ImportItem(entry: entries[i], decision: .notMedia)
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
            consume(i, item)
        })
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
