import Foundation
import PinCore
import PinMetadata
import PinReport
import PinStore

/// How many photos of a kind have a real preview, and why the others have none.
public struct PreviewCounts: Sendable, Equatable {
    public var photos = 0
    public var previews = 0
    public var placeholders: [PreviewReason: Int] = [:]

    mutating func add<T>(_ result: Result<T, PreviewReason>) {
        photos += 1
        switch result {
        case .success: previews += 1
        case let .failure(reason): placeholders[reason, default: 0] += 1
        }
    }
}

/// What `pins previews` did and found.
public struct PreviewSummary: Sendable {
    public var kinds: [PreviewKind: PreviewCounts] = [:]
    public var total = PreviewCounts()
    /// Previews and placeholders made by this run (the others were in the cache).
    public var made = 0
    /// Photos left for the next run by the run's limit (counted in no kind).
    public var left = 0
    /// The decoders a photo needed and this machine lacks, each once.
    public var missingTools: [String] = []
    /// The decoder each kind lacks (for the text's rows).
    public var missingTool: [PreviewKind: String] = [:]
    public var cacheFolder: String
    /// What the cache folder holds after the run (at most its cap).
    public var cacheBytes: Int64 = 0
}

extension PinApp {
    /// The default preview folder: `previews` beside the database.
    public var defaultPreviewFolder: String { PathParts.folder(of: databasePath) + "/previews" }

    /// Makes the previews the pins' photos lack (`pins previews`, and the nightly run after its
    /// import): a photo whose preview or reason is in the cache is not read again (a preview is
    /// only looked for, not read: a night with nothing new reads no picture), but one that
    /// lacked its decoder is tried again once the decoder is there. `limit`: at most that many
    /// made in this run; the others are counted in `left` and made by the next.
    public func makePreviews(cache: PreviewCache, maker: PreviewMaker = .onPath(), limit: Int? = nil) throws -> PreviewSummary {
        let photos = try openForReading().linkedPhotos()
        var summary = PreviewSummary(cacheFolder: cache.folder)
        var missing = Set<String>()
        for photo in photos {
            let kind = PreviewKind(format: photo.format, path: photo.path)
            let result: Result<Void, PreviewReason>
            if let known = cache.known(photo), !Self.decoderCame(known, kind: kind, maker: maker) {
                result = known
            } else if let limit, summary.made >= limit {
                summary.left += 1
                continue
            } else {
                // `known` has looked already: nothing kept, or a reason the decoder now here undoes.
                result = try makeAndKeep(photo, kind: kind, cache: cache, maker: maker).map { _ in () }
                summary.made += 1
                if summary.made % 1_000 == 0 { cache.trim() }
            }
            if case .failure(.noDecoder) = result, let tool = maker.missingTool(for: kind) {
                missing.insert(tool)
                summary.missingTool[kind] = tool
            }
            summary.kinds[kind, default: PreviewCounts()].add(result)
            summary.total.add(result)
        }
        summary.missingTools = missing.sorted()
        summary.cacheBytes = cache.trim()
        return summary
    }

    /// True when `known` says the photo lacked its decoder and the decoder is here now.
    static func decoderCame<T>(_ known: Result<T, PreviewReason>, kind: PreviewKind, maker: PreviewMaker) -> Bool {
        guard case .failure(.noDecoder) = known else { return false }
        return maker.missingTool(for: kind) == nil
    }

    /// The preview of photo `photoID` (a photo that belongs to a pin), made now when the cache
    /// lacks it; a placeholder that says why when there is none; nil for no such photo. For
    /// `pins serve`.
    public func preview(photoID: Int64, cache: PreviewCache, maker: PreviewMaker = .onPath()) throws -> Preview? {
        guard let photo = try openForReading().linkedPhoto(id: photoID) else { return nil }
        let kind = PreviewKind(format: photo.format, path: photo.path)
        switch try previewResult(photo, kind: kind, cache: cache, maker: maker) {
        case let .success(preview): return preview
        case let .failure(reason):
            return PreviewMaker.placeholder(kind: kind, reason: reason, tool: maker.missingTool(for: kind), detail: placeholderDetail(photo, kind: kind))
        }
    }

    /// The third line of a placeholder: a video's duration, read from its container's metadata
    /// (a video without a poster frame still says how long it is).
    func placeholderDetail(_ photo: LinkedPhoto, kind: PreviewKind) -> String? {
        guard kind == .video, let seconds = VideoDuration.seconds(path: photo.path) else { return nil }
        return VideoDuration.text(seconds)
    }

    /// The cached result, else one made now and kept.
    func previewResult(_ photo: LinkedPhoto, kind: PreviewKind, cache: PreviewCache,
                       maker: PreviewMaker) throws -> Result<Preview, PreviewReason> {
        if let stored = cache.stored(photo), !Self.decoderCame(stored, kind: kind, maker: maker) { return stored }
        return try makeAndKeep(photo, kind: kind, cache: cache, maker: maker)
    }

    /// The preview made now, and kept with its reason unless the next run should try again.
    func makeAndKeep(_ photo: LinkedPhoto, kind: PreviewKind, cache: PreviewCache,
                     maker: PreviewMaker) throws -> Result<Preview, PreviewReason> {
        // Where the file is: the recorded path, its bytes as they are (pins never writes beside it).
        try FileManager.default.createDirectory(atPath: cache.folder, withIntermediateDirectories: true)
        let result = maker.make(photo.path, kind: kind, scratch: cache.folder)
        // A missing file may come back (an unmounted share), a decoder at its time limit may
        // finish on a quieter night: their reasons are not kept, so the next run tries again.
        if result != .failure(.fileMissing) && result != .failure(.decoderTimedOut) { try cache.store(result, for: photo) }
        return result
    }
}

extension PinApp {
    /// Each pin's strip: its first photos' ids, and with `embed` the previews the cache already
    /// holds (a page never makes one: `pins previews` does), the newest pins' first until
    /// `PageRenderer.stripPageCap` is spent.
    func attachStrips(to pins: inout [PagePin], embed: Bool) throws {
        var byPin: [UUID: [LinkedPhoto]] = [:]
        // A dry run's page may have no database yet: then no strips (never an error, never a new file).
        guard FileManager.default.fileExists(atPath: databasePath) else { return }
        for photo in try openForReading().firstLinkedPhotos(perPin: PageRenderer.stripLength) { byPin[photo.pinID, default: []].append(photo) }
        guard !byPin.isEmpty else { return }
        let cache = PreviewCache(folder: defaultPreviewFolder)
        var budget = embed ? PageRenderer.stripPageCap : 0
        for index in pins.indices.reversed() {
            guard let photos = byPin[pins[index].location.id] else { continue }
            pins[index].strip = photos.map { photo in
                guard budget > 0, case let .success(preview)? = cache.stored(photo), preview.mimeType == "image/jpeg",
                      preview.bytes.count <= PageRenderer.stripPreviewCap, preview.bytes.count <= budget else { return StripPhoto(id: photo.id) }
                budget -= preview.bytes.count
                return StripPhoto(id: photo.id, jpeg: preview.bytes)
            }
        }
    }

    /// The recorded path of photo `photoID` when it belongs to a pin (for the server's check
    /// that it lies in a --library folder before anything reads it).
    public func linkedPhotoPath(photoID: Int64) throws -> RawPath? {
        try openForReading().linkedPhoto(id: photoID)?.path
    }
}

extension PinApp {
    /// Photo `photoID` as a browser opens it (`pins serve`): for a HEIC/HEIF/AVIF a full-size
    /// JPEG made by libheif and kept in the preview folder (made once; a HEIC of 3 MB gives a
    /// JPEG of about as much), for a raw its largest embedded JPEG; `.success(nil)` for a kind a
    /// browser shows as it is (the server sends the file); nil for no such photo.
    public func browserCopy(photoID: Int64, cache: PreviewCache, maker: PreviewMaker = .onPath()) throws -> Result<Preview?, PreviewReason>? {
        guard let photo = try openForReading().linkedPhoto(id: photoID) else { return nil }
        let kind = PreviewKind(format: photo.format, path: photo.path)
        if kind == .heif, let kept = cache.storedFull(photo) { return .success(Preview(bytes: kept, mimeType: "image/jpeg", placeholder: nil)) }
        try FileManager.default.createDirectory(atPath: cache.folder, withIntermediateDirectories: true)
        switch maker.browserCopy(photo.path, kind: kind, scratch: cache.folder) {
        case nil: return .success(nil)
        case let .failure(reason)?: return .failure(reason)
        case let .success(copy)?:
            if kind == .heif {
                try cache.storeFull(copy.bytes, for: photo)
                cache.trim()
            }
            return .success(copy)
        }
    }
}
