import Foundation
import PinCore
import PinMetadata

/// Stage 2: the metadata of the files to read, `jobs` reads in flight. Each file becomes an
/// item: a photo (decision `.noLocation` until the rules say otherwise), an unreadable file
/// with its reason, or not media.
enum ReadStage {
    /// Files per task: one task per file made the hand-over between threads cost more than the
    /// read itself (measured: 2.6 s of system time for 20,000 files with 2 jobs).
    static let filesPerTask = 32

    /// What a task hands back for one file.
    enum Outcome: Sendable {
        case photo(PhotoMetadata)
        case unreadable(String)
        case notMedia
    }

    /// Reads `entries` (below `root`; `all` is the whole walk, where their sidecars are found).
    /// Results go straight into the items: no second array of 200,000 metadata records.
    static func read(_ entries: [FileEntry], root: RawPath, all: [FileEntry], options: MetadataOptions, jobs: Int,
                     progress: @escaping @Sendable (ImportProgress) -> Void) async -> [ImportItem] {
        var items = entries.map { ImportItem(entry: $0, decision: .notMedia) }
        let sidecars = SidecarLookup.paths(for: entries, root: root, all: all)
        let total = items.count
        let chunks = stride(from: 0, to: total, by: filesPerTask).map { $0..<min(total, $0 + filesPerTask) }
        // A bounded task group: `jobs` tasks in flight, each reading a chunk; one in as one comes out.
        await withTaskGroup(of: (Range<Int>, [Outcome]).self) { group in
            var next = 0
            func add(_ range: Range<Int>) {
                let work = range.map { (root.appending(entries[$0].relativePath.bytes), entries[$0].modificationDate, sidecars[$0]) }
                group.addTask {
                    (range, work.map { path, modified, sidecars in readOne(path, modified: modified, sidecars: sidecars, options: options) })
                }
            }
            while next < min(max(1, jobs), chunks.count) { add(chunks[next]); next += 1 }
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
        return items
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
}
