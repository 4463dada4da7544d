import Foundation
import PinCore
import PinGrammar
import PinMetadata

/// A photo's preview (issue 39 item 3): at most `PreviewMaker.longSide` px on its long side, or
/// a placeholder that says why there is none.
public struct Preview: Sendable, Equatable {
    public var bytes: [UInt8]
    /// `image/jpeg` or `image/png` for a real preview, `image/svg+xml` for a placeholder.
    public var mimeType: String
    /// nil for a real preview; why there is none for a placeholder.
    public var placeholder: PreviewReason?
}

/// Why a photo has no real preview.
public enum PreviewReason: String, Error, Sendable, CaseIterable, Codable, Comparable {
    /// The decoder for its kind is not on this machine (the static package on a bare NAS).
    case noDecoder
    /// The decoder is there but could not read the file.
    case decoderFailed
    /// The decoder was still at work at its time limit (a NAS busy with other work, a huge
    /// file): never kept in the cache, so the next run tries again.
    case decoderTimedOut
    /// The file is not where it was recorded.
    case fileMissing
    /// A kind pins makes no preview of (a file of no picture kind pins knows).
    case notSupported
    /// A raw file without a JPEG inside that a browser can show (or one kept where pins does
    /// not look yet: a maker note, CR3, CRW, MRW, X3F).
    case noEmbeddedPreview

    public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }

    public var words: String {
        switch self {
        case .noDecoder: return "no decoder on this machine"
        case .decoderFailed: return "the decoder could not read it"
        case .decoderTimedOut: return "the decoder took too long (tried again next run)"
        case .fileMissing: return "the file is missing"
        case .notSupported: return "no preview of this kind"
        case .noEmbeddedPreview: return "no preview inside the raw file"
        }
    }
}

/// The kinds `pins previews` counts by.
public enum PreviewKind: String, Sendable, CaseIterable, Codable, Comparable {
    case jpeg, png, webp, tiff, gif, heif, raw, video, other

    public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }

    /// The kind of a recorded photo: TIFF-based raws (CR2, NEF, ARW, DNG...) by their name.
    public init(format: FileKind?, path: RawPath) {
        switch format {
        case .jpeg?: self = .jpeg
        case .png?: self = .png
        case .webp?: self = .webp
        case .gif?: self = .gif
        case .heif?: self = .heif
        case .raf?, .mrw?, .crw?, .x3f?: self = .raw
        case .tiff?:
            let name = String(decoding: path.bytes.suffix(5), as: UTF8.self).lowercased()
            let raw = [".cr2", ".nef", ".arw", ".dng", ".pef", ".orf", ".rw2", ".srw", ".nrw", ".3fr", ".erf", ".kdc"]
            self = raw.contains { name.hasSuffix($0) } ? .raw : .tiff
        case let kind? where kind.isVideo: self = .video
        default: self = .other
        }
    }
}

/// Makes previews with the decoders found on the machine, each a tool called as its own process
/// (`ToolProcess`: no shell, the path's bytes as they are, a time limit, its output read from a
/// pipe or a scratch file in the cache):
/// - ImageMagick's `convert` for JPEG, PNG, WebP, TIFF, GIF and the other still kinds, and to
///   scale what the other decoders give;
/// - libheif's `heif-dec` (called `heif-convert` before libheif 1.16, as in Debian 12's
///   libheif-examples) for HEIC, HEIF and AVIF, as PhotoPrism calls it: libheif has no static
///   library in Debian 12, so a tool fits the static NAS binary better than a link, and where it
///   is missing the photo gets a placeholder instead of the binary failing to load;
/// - `ffmpeg` for a video's poster frame (the frame at 1 s, else the first), as Immich does;
/// - for a raw file, the largest JPEG it carries (`EmbeddedPreview`, pins' own reader), then
///   scaled by `convert`.
/// A tool that is missing is said once per run by the caller (`missingTool`).
public struct PreviewMaker: Sendable {
    /// The long side of a preview, in pixels.
    static let longSide = 256
    /// A tool gets this long per file (a damaged file must not hold the run).
    static let defaultTimeLimit: TimeInterval = 60
    var timeLimit = defaultTimeLimit

    public var convert: String?
    /// `heif-dec` or `heif-convert`.
    var heifConvert: String?
    public var ffmpeg: String?

    public init(convert: String?, heifConvert: String?, ffmpeg: String?) {
        self.convert = convert
        self.heifConvert = heifConvert
        self.ffmpeg = ffmpeg
    }

    /// The tools found on `PATH` (libheif's under its new name first).
    public static func onPath(_ path: String? = ProcessInfo.processInfo.environment["PATH"]) -> PreviewMaker {
        let folders = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        func find(_ name: String) -> String? {
            folders.lazy.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        return PreviewMaker(convert: find("convert"), heifConvert: find("heif-dec") ?? find("heif-convert"), ffmpeg: find("ffmpeg"))
    }

    /// The tools a kind needs, by name, and where each is (nil: missing).
    func needs(_ kind: PreviewKind) -> [(name: String, path: String?)] {
        switch kind {
        case .heif: return [(heifConvert.map { PathParts.name(of: $0) } ?? "heif-convert", heifConvert), ("convert", convert)]
        case .video: return [("ffmpeg", ffmpeg)]
        default: return [("convert", convert)]
        }
    }

    /// The first tool a kind needs that this machine lacks.
    public func missingTool(for kind: PreviewKind) -> String? {
        needs(kind).first { $0.path == nil }?.name
    }

    /// The preview of the file at `path`, made in `scratch` (a folder of the cache: a tool that
    /// writes a file writes it there, and it is removed before this returns).
    public func make(_ path: RawPath, kind: PreviewKind, scratch: String) -> Result<Preview, PreviewReason> {
        var info = stat()
        guard path.withCString({ stat($0, &info) }) == 0 else { return .failure(.fileMissing) }
        // A raw without a preview inside says so, decoder or not.
        if kind == .raw { return raw(path, scratch: scratch) }
        guard missingTool(for: kind) == nil else { return .failure(.noDecoder) }
        switch kind {
        case .heif: return heif(path, scratch: scratch)
        case .video: return video(path, scratch: scratch)
        default: return scaled(path.bytes + Array("[0]".utf8), scratch: scratch)
        }
    }

    /// A still picture scaled by ImageMagick: `[0]` the first frame or page, `>` only ever
    /// smaller, the orientation applied (`orient` first sets it, for a raw's JPEG), the metadata
    /// left out.
    func scaled(_ input: [UInt8], orient: String? = nil, scratch: String?) -> Result<Preview, PreviewReason> {
        let side = Self.longSide
        let orientation = orient.map { ["-orient", $0] } ?? []
        let arguments = [input] + (orientation + ["-auto-orient", "-thumbnail", "\(side)x\(side)>", "-strip", "-quality", "82", "jpg:-"]).map { Array($0.utf8) }
        guard let convert else { return .failure(.noDecoder) }
        switch ToolProcess.run(convert, arguments, timeLimit: timeLimit, scratch: scratch) {
        case let .success(bytes) where !bytes.isEmpty: return .success(Preview(bytes: bytes, mimeType: "image/jpeg", placeholder: nil))
        case .failure(.timedOut): return .failure(.decoderTimedOut)
        default: return .failure(.decoderFailed)
        }
    }

    /// HEIC/HEIF/AVIF: libheif decodes the primary image to a PNG in the scratch folder (a file
    /// with several top-level images gets `-1`, `-2`... after its name: the first is taken).
    func heif(_ path: RawPath, scratch: String) -> Result<Preview, PreviewReason> {
        guard let heifConvert else { return .failure(.noDecoder) }
        let stem = scratch + "/.heif-\(UUID().uuidString)"
        defer {
            for name in [stem + ".png", stem + "-1.png", stem + "-2.png"] { try? FileManager.default.removeItem(atPath: name) }
        }
        switch ToolProcess.run(heifConvert, [path.bytes, Array((stem + ".png").utf8)], timeLimit: timeLimit, scratch: scratch) {
        case .success: break
        case .failure(.timedOut): return .failure(.decoderTimedOut)
        case .failure: return .failure(.decoderFailed)
        }
        guard let decoded = [stem + ".png", stem + "-1.png"].first(where: FileManager.default.fileExists) else { return .failure(.decoderFailed) }
        return scaled(Array(decoded.utf8), scratch: scratch)
    }

    /// A raw file: its largest viewable embedded JPEG, written to the scratch folder and scaled,
    /// turned as the raw's IFD0 says (the embedded JPEG's own Orientation is often missing).
    func raw(_ path: RawPath, scratch: String) -> Result<Preview, PreviewReason> {
        guard let found = try? EmbeddedPreview.read(path: path) else { return .failure(.noEmbeddedPreview) }
        guard convert != nil else { return .failure(.noDecoder) }
        let file = scratch + "/.raw-\(UUID().uuidString).jpg"
        defer { try? FileManager.default.removeItem(atPath: file) }
        guard FileManager.default.createFile(atPath: file, contents: Data(found.jpeg)) else { return .failure(.decoderFailed) }
        let names = ["TopLeft", "TopRight", "BottomRight", "BottomLeft", "LeftTop", "RightTop", "RightBottom", "LeftBottom"]
        return scaled(Array(("jpg:" + file).utf8), orient: found.orientation.map { names[$0 - 1] }, scratch: scratch)
    }

    /// A video's poster frame: the frame at 1 s (past a fade from black), else the first.
    func video(_ path: RawPath, scratch: String?) -> Result<Preview, PreviewReason> {
        guard let ffmpeg else { return .failure(.noDecoder) }
        let side = Self.longSide
        let scale = "scale=w=\(side):h=\(side):force_original_aspect_ratio=decrease"
        // `file:` so that a name with a colon is never read as a protocol.
        let input = Array("file:".utf8) + path.bytes
        for start in ["1", "0"] {
            let arguments = [["-nostdin", "-v", "error", "-ss", start, "-i"].map { Array($0.utf8) }, [input],
                             ["-frames:v", "1", "-vf", scale, "-f", "image2pipe", "-c:v", "mjpeg", "-q:v", "4", "-"].map { Array($0.utf8) }]
            switch ToolProcess.run(ffmpeg, arguments.flatMap { $0 }, timeLimit: timeLimit, scratch: scratch) {
            case let .success(bytes) where !bytes.isEmpty: return .success(Preview(bytes: bytes, mimeType: "image/jpeg", placeholder: nil))
            case .failure(.timedOut): return .failure(.decoderTimedOut)
            default: continue
            }
        }
        return .failure(.decoderFailed)
    }

    /// The photo itself as a browser shows it: a HEIC/HEIF/AVIF decoded by libheif to a JPEG
    /// at full size (quality 90), a raw's largest embedded JPEG as it is; nil for the kinds a
    /// browser shows as they are, or that have no such copy (videos).
    public func browserCopy(_ path: RawPath, kind: PreviewKind, scratch: String) -> Result<Preview, PreviewReason>? {
        switch kind {
        case .raw:
            guard let found = try? EmbeddedPreview.read(path: path) else { return .failure(.noEmbeddedPreview) }
            return .success(Preview(bytes: found.jpeg, mimeType: "image/jpeg", placeholder: nil))
        case .heif:
            guard let heifConvert else { return .failure(.noDecoder) }
            let stem = scratch + "/.full-\(UUID().uuidString)"
            defer {
                for name in [stem + ".jpg", stem + "-1.jpg", stem + "-2.jpg"] { try? FileManager.default.removeItem(atPath: name) }
            }
            let decoding = ToolProcess.run(heifConvert, [Array("-q".utf8), Array("90".utf8), path.bytes, Array((stem + ".jpg").utf8)],
                                           timeLimit: timeLimit, scratch: scratch)
            if decoding == .failure(.timedOut) { return .failure(.decoderTimedOut) }
            guard case .success = decoding,
                  let decoded = [stem + ".jpg", stem + "-1.jpg"].first(where: FileManager.default.fileExists),
                  let bytes = FileManager.default.contents(atPath: decoded) else { return .failure(.decoderFailed) }
            return .success(Preview(bytes: Array(bytes), mimeType: "image/jpeg", placeholder: nil))
        default:
            return nil
        }
    }

    /// A placeholder: the kind and why it has no preview, as a small SVG; `detail` is a third
    /// line (a video's duration).
    public static func placeholder(kind: PreviewKind, reason: PreviewReason, tool: String?, detail: String? = nil) -> Preview {
        var why = reason.words
        if reason == .noDecoder, let tool { why += " (\(tool))" }
        let third = detail.map {
            "<text x=\"128\" y=\"146\" font-family=\"sans-serif\" font-size=\"18\" text-anchor=\"middle\" fill=\"#424242\">\(xmlText($0))</text>"
        } ?? ""
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(longSide)" height="\(longSide * 3 / 4)" viewBox="0 0 256 192">\
            <rect width="256" height="192" fill="#e0e0e0"/>\
            <text x="128" y="88" font-family="sans-serif" font-size="22" text-anchor="middle" fill="#424242">\(kind.rawValue.uppercased())</text>\
            <text x="128" y="118" font-family="sans-serif" font-size="12" text-anchor="middle" fill="#616161">\(xmlText(why))</text>\(third)</svg>
            """
        return Preview(bytes: Array(svg.utf8), mimeType: "image/svg+xml", placeholder: reason)
    }

    /// `text` as SVG (XML) character data, by the one XML escape (`XMLReferences.escaped`).
    static func xmlText(_ text: String) -> String {
        XMLReferences.escaped(text, notXML: .replace)
    }
}
