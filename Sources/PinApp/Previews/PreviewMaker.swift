import Foundation
import PinCore

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
    /// The file is not where it was recorded.
    case fileMissing
    /// A kind pins makes no preview of yet (raw files: their embedded preview is not read yet).
    case notSupported

    public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }

    public var words: String {
        switch self {
        case .noDecoder: return "no decoder on this machine"
        case .decoderFailed: return "the decoder could not read it"
        case .fileMissing: return "the file is missing"
        case .notSupported: return "no preview of this kind yet"
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
/// (no shell, a time limit, its output read from a pipe or a scratch file in the cache):
/// - ImageMagick's `convert` for JPEG, PNG, WebP, TIFF, GIF and the other still kinds, and to
///   scale what the other decoders give;
/// - libheif's `heif-convert` (Debian libheif-examples) for HEIC, HEIF and AVIF, as PhotoPrism
///   calls it: libheif has no static library in Debian 12, so a tool fits the static NAS binary
///   better than a link, and where it is missing the photo gets a placeholder instead of the
///   binary failing to load;
/// - `ffmpeg` for a video's poster frame (the frame at 1 s, else the first), as Immich does.
/// A tool that is missing is said once per run by the caller (`missingTool`).
public struct PreviewMaker: Sendable {
    /// The long side of a preview, in pixels.
    public static let longSide = 256
    /// A tool gets this long per file (a damaged file must not hold the run).
    static let timeLimit: TimeInterval = 60

    public var convert: String?
    public var heifConvert: String?
    public var ffmpeg: String?

    public init(convert: String?, heifConvert: String?, ffmpeg: String?) {
        self.convert = convert
        self.heifConvert = heifConvert
        self.ffmpeg = ffmpeg
    }

    /// The tools found on `PATH`.
    public static func onPath(_ path: String? = ProcessInfo.processInfo.environment["PATH"]) -> PreviewMaker {
        let folders = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        func find(_ name: String) -> String? {
            folders.lazy.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        return PreviewMaker(convert: find("convert"), heifConvert: find("heif-convert"), ffmpeg: find("ffmpeg"))
    }

    /// The tools a kind needs, by name, and where each is (nil: missing); nil for a kind pins
    /// makes no preview of.
    func needs(_ kind: PreviewKind) -> [(name: String, path: String?)]? {
        switch kind {
        case .heif: return [("heif-convert", heifConvert), ("convert", convert)]
        case .video: return [("ffmpeg", ffmpeg)]
        case .raw: return nil
        default: return [("convert", convert)]
        }
    }

    /// The first tool a kind needs that this machine lacks.
    public func missingTool(for kind: PreviewKind) -> String? {
        needs(kind)?.first { $0.path == nil }?.name
    }

    /// The preview of the file at `path`, made in `scratch` (a folder of the cache: a tool that
    /// writes a file writes it there, and it is removed before this returns).
    public func make(_ path: String, kind: PreviewKind, scratch: String) -> Result<Preview, PreviewReason> {
        guard FileManager.default.fileExists(atPath: path) else { return .failure(.fileMissing) }
        guard needs(kind) != nil else { return .failure(.notSupported) }
        guard missingTool(for: kind) == nil else { return .failure(.noDecoder) }
        switch kind {
        case .heif: return heif(path, scratch: scratch)
        case .video: return video(path)
        default: return scaled(path)
        }
    }

    /// A still picture scaled by ImageMagick: `[0]` the first frame or page, `>` only ever
    /// smaller, the orientation applied, the metadata left out.
    func scaled(_ path: String) -> Result<Preview, PreviewReason> {
        let side = Self.longSide
        guard let convert, let bytes = Self.run(convert, [path + "[0]", "-auto-orient", "-thumbnail", "\(side)x\(side)>", "-strip",
                                                          "-quality", "82", "jpg:-"]), !bytes.isEmpty else { return .failure(.decoderFailed) }
        return .success(Preview(bytes: bytes, mimeType: "image/jpeg", placeholder: nil))
    }

    /// HEIC/HEIF/AVIF: libheif decodes the primary image to a PNG in the scratch folder (a file
    /// with several top-level images gets `-1`, `-2`... after its name: the first is taken).
    func heif(_ path: String, scratch: String) -> Result<Preview, PreviewReason> {
        guard let heifConvert else { return .failure(.noDecoder) }
        let stem = scratch + "/.heif-\(UUID().uuidString)"
        defer {
            for name in [stem + ".png", stem + "-1.png", stem + "-2.png"] { try? FileManager.default.removeItem(atPath: name) }
        }
        guard Self.run(heifConvert, [path, stem + ".png"]) != nil else { return .failure(.decoderFailed) }
        guard let decoded = [stem + ".png", stem + "-1.png"].first(where: FileManager.default.fileExists) else { return .failure(.decoderFailed) }
        return scaled(decoded)
    }

    /// A video's poster frame: the frame at 1 s (past a fade from black), else the first.
    func video(_ path: String) -> Result<Preview, PreviewReason> {
        guard let ffmpeg else { return .failure(.noDecoder) }
        let side = Self.longSide
        let scale = "scale=w=\(side):h=\(side):force_original_aspect_ratio=decrease"
        for start in ["1", "0"] {
            if let bytes = Self.run(ffmpeg, ["-nostdin", "-v", "error", "-ss", start, "-i", path, "-frames:v", "1", "-vf", scale,
                                            "-f", "image2pipe", "-c:v", "mjpeg", "-q:v", "4", "-"]), !bytes.isEmpty {
                return .success(Preview(bytes: bytes, mimeType: "image/jpeg", placeholder: nil))
            }
        }
        return .failure(.decoderFailed)
    }

    /// Runs `tool` with `arguments`; its standard output when it exits 0 within the time limit.
    static func run(_ tool: String, _ arguments: [String]) -> [UInt8]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let timer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit, execute: timer)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        timer.cancel()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else { return nil }
        return Array(data)
    }

    /// A placeholder: the kind and why it has no preview, as a small SVG.
    public static func placeholder(kind: PreviewKind, reason: PreviewReason, tool: String?) -> Preview {
        var why = reason.words
        if reason == .noDecoder, let tool { why += " (\(tool))" }
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(longSide)" height="\(longSide * 3 / 4)" viewBox="0 0 256 192">\
            <rect width="256" height="192" fill="#e0e0e0"/>\
            <text x="128" y="88" font-family="sans-serif" font-size="22" text-anchor="middle" fill="#424242">\(kind.rawValue.uppercased())</text>\
            <text x="128" y="118" font-family="sans-serif" font-size="12" text-anchor="middle" fill="#616161">\(xmlText(why))</text></svg>
            """
        return Preview(bytes: Array(svg.utf8), mimeType: "image/svg+xml", placeholder: reason)
    }

    static func xmlText(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
