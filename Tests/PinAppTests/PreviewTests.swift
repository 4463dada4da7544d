import Foundation
@testable import PinApp
@testable import PinCore
@testable import PinStore
import TestSupport
import XCTest

/// No country anywhere: the pin's country does not matter here.
private struct AtSea: CountryLocating {
    func countryCode(at point: Coordinate) -> String? { nil }
}

/// Issue 39 item 3: previews of real HEIC, TIFF, JPEG and video files made in the test by
/// heif-enc, ImageMagick and ffmpeg from one picture of four coloured quadrants (640 × 480);
/// each preview is compared with what the decoder says of the source: 256 × 192 (the long side
/// 256, the aspect kept) and the colour at the centre of each quadrant, read back by ImageMagick.
final class PreviewTests: XCTestCase {
    static let tools = ["/usr/bin/convert", "/usr/bin/heif-enc", "/usr/bin/heif-convert", "/usr/bin/ffmpeg"]
    let quadrants: [(x: Int, y: Int, rgb: [Int])] = [(64, 48, [255, 0, 0]), (192, 48, [0, 255, 0]),
                                                       (64, 144, [0, 0, 255]), (192, 144, [255, 255, 0])]
    var dir: URL!

    override func setUpWithError() throws {
        for tool in Self.tools where !FileManager.default.isExecutableFile(atPath: tool) {
            // A missing decoder fails the test, never skips it: scripts/setup installs them all.
            XCTFail("\(tool) is missing: run scripts/setup")
            throw CocoaError(.fileNoSuchFile)
        }
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-previews-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { [dir] in try? FileManager.default.removeItem(at: dir!) }
        setenv("PINS_DATA_DIR", Repository.url("Resources").path, 1)
    }

    @discardableResult
    func tool(_ path: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(path) \(arguments)")
        return String(decoding: data, as: UTF8.self)
    }

    /// The source picture and its copies in each kind, made by the real tools.
    func sources() throws -> [String: String] {
        // Truecolour (colour type 2): heif-enc 1.15 reads the palette of a 5-colour PNG wrongly
        // (its red became red, its lime blue, its blue lime), so the source is given as RGB.
        let png = dir.appendingPathComponent("quad.png").path
        try tool("/usr/bin/convert", ["-size", "320x240", "xc:red", "-size", "320x240", "xc:lime", "+append",
                                      "(", "-size", "320x240", "xc:blue", "-size", "320x240", "xc:yellow", "+append", ")",
                                      "-append", "+repage", "-define", "png:color-type=2", png])
        var files = ["png": png]
        files["jpeg"] = dir.appendingPathComponent("quad.jpg").path
        try tool("/usr/bin/convert", [png, "-quality", "92", files["jpeg"]!])
        files["tiff"] = dir.appendingPathComponent("quad.tif").path
        try tool("/usr/bin/convert", [png, files["tiff"]!])
        files["heif"] = dir.appendingPathComponent("quad.heic").path
        try tool("/usr/bin/heif-enc", ["-q", "90", "-o", files["heif"]!, png])
        files["video"] = dir.appendingPathComponent("quad.mp4").path
        try tool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-loop", "1", "-i", png, "-t", "2", "-r", "10",
                                     "-c:v", "libx264", "-pix_fmt", "yuv420p", files["video"]!])
        return files
    }

    /// A database with one pin and the files as its photos (their kinds as the import records them).
    func app(_ files: [(path: String, format: FileKind)]) throws -> PinApp {
        try app(files.map { (RawPath($0.path), $0.format) })
    }

    func app(_ files: [(path: RawPath, format: FileKind)]) throws -> PinApp {
        let path = dir.appendingPathComponent("pins.sqlite").path
        let db = try PinDatabase(path: path)
        let creation = CreationService(locator: AtSea(), countries: CountryService(catalog: CountryCatalog(entries: [])), ids: .system)
        let pin = try creation.create(LocationDraft(title: "Here", coordinate: Coordinate(latitude: 45, longitude: 5),
                                                    date: Date(timeIntervalSince1970: 1_700_000_000)), using: db)
        try db.write { repos in
            for (n, file) in files.enumerated() {
                try repos.photos.save(PhotoRecord(path: file.path, fingerprint: PhotoFingerprint(size: Int64(n), modificationNanoseconds: 1, inode: 1),
                                                  format: file.format, coordinate: Coordinate(latitude: 45, longitude: 5.001),
                                                  decision: .distance), runID: nil)
            }
        }
        _ = pin
        try db.linkPhotos()
        return PinApp(databasePath: path, named: true)
    }

    var maker: PreviewMaker { PreviewMaker(convert: "/usr/bin/convert", heifConvert: "/usr/bin/heif-convert", ffmpeg: "/usr/bin/ffmpeg") }

    /// Width and height, and the colour at each quadrant's centre, of a picture, as ImageMagick reads it.
    func look(_ bytes: [UInt8], ext: String, at points: [(x: Int, y: Int)]? = nil) throws -> (size: String, colours: [[Int]]) {
        let file = dir.appendingPathComponent("look-\(UUID().uuidString).\(ext)").path
        FileManager.default.createFile(atPath: file, contents: Data(bytes))
        let size = try tool("/usr/bin/convert", [file, "-format", "%wx%h", "info:"])
        let colours = try (points ?? quadrants.map { ($0.x, $0.y) }).map { q -> [Int] in
            let text = try tool("/usr/bin/convert", [file, "-format", "%[fx:int(255*p{\(q.x),\(q.y)}.r)],%[fx:int(255*p{\(q.x),\(q.y)}.g)],%[fx:int(255*p{\(q.x),\(q.y)}.b)]", "info:"])
            return text.split(separator: ",").compactMap { Int($0) }
        }
        return (size, colours)
    }

    func testEveryKindGetsA256PixelPreviewWithTheSourcesColours() throws {
        let files = try sources()
        let app = try app([(files["jpeg"]!, .jpeg), (files["png"]!, .png), (files["tiff"]!, .tiff),
                           (files["heif"]!, .heif), (files["video"]!, .quicktime)])
        let cache = PreviewCache(folder: dir.appendingPathComponent("cache").path)
        let summary = try app.makePreviews(cache: cache, maker: maker)
        XCTAssertEqual(summary.total.photos, 5)
        XCTAssertEqual(summary.total.previews, 5, "\(summary.kinds)")
        XCTAssertEqual(summary.made, 5)
        for id in Int64(1)...5 {
            let preview = try XCTUnwrap(try app.preview(photoID: id, cache: cache, maker: maker))
            XCTAssertNil(preview.placeholder)
            let seen = try look(preview.bytes, ext: preview.mimeType == "image/png" ? "png" : "jpg")
            XCTAssertEqual(seen.size, "256x192", "photo \(id)")
            for (colour, quadrant) in zip(seen.colours, quadrants) {
                // Lossy codecs (JPEG, HEVC, H.264 in 4:2:0) move a flat colour by a few steps.
                XCTAssertEqual(colour.count, 3)
                for (got, want) in zip(colour, quadrant.rgb) { XCTAssertLessThan(abs(got - want), 24, "photo \(id): \(colour) for \(quadrant.rgb)") }
            }
        }
        // A second run finds them all in the cache and makes none; the photos were not written to.
        XCTAssertEqual(try app.makePreviews(cache: cache, maker: maker).made, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("quad") }.count, 5)
    }

    func testAMissingDecoderAMissingFileAndARawGetPlaceholdersThatSayWhy() throws {
        let files = try sources()
        let app = try app([(files["heif"]!, .heif), (dir.appendingPathComponent("gone.jpg").path, .jpeg),
                           (dir.appendingPathComponent("IMG_0001.NEF").path, .tiff)])
        FileManager.default.createFile(atPath: dir.appendingPathComponent("IMG_0001.NEF").path, contents: Data([0x4D, 0x4D, 0, 42]))
        let cache = PreviewCache(folder: dir.appendingPathComponent("cache").path)
        let bare = PreviewMaker(convert: nil, heifConvert: nil, ffmpeg: nil)
        let summary = try app.makePreviews(cache: cache, maker: bare)
        XCTAssertEqual(summary.total.previews, 0)
        XCTAssertEqual(summary.total.placeholders, [.noDecoder: 1, .fileMissing: 1, .noEmbeddedPreview: 1])
        XCTAssertEqual(summary.missingTools, ["heif-convert"])
        let placeholder = try XCTUnwrap(try app.preview(photoID: 1, cache: cache, maker: bare))
        XCTAssertEqual(placeholder.mimeType, "image/svg+xml")
        XCTAssertTrue(String(decoding: placeholder.bytes, as: UTF8.self).contains("no decoder on this machine (heif-convert)"))
        // The decoder installed, the next run makes the preview it lacked.
        let again = try app.makePreviews(cache: cache, maker: maker)
        XCTAssertEqual(again.kinds[.heif]?.previews, 1)
        XCTAssertEqual(again.made, 1 + 1, "the HEIC, and the missing file looked for again")
    }

    /// A stand-in decoder: a shell script in the test's folder.
    func script(_ name: String, _ body: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(path, 0o755), 0)
        return path
    }

    /// A decoder still at work at its time limit (a NAS busy with its own work) is no verdict on
    /// the file: its reason is not kept and the next run, the decoder quick again, makes the
    /// previews. A decoder that fails (exits 1) is one: kept, and not tried again.
    func testADecoderThatTimesOutIsTriedAgainNextRunOneThatFailsIsNot() throws {
        let files = try sources()
        let app = try app([(files["jpeg"]!, .jpeg), (files["png"]!, .png)])
        let folder = dir.appendingPathComponent("cache").path
        var busy = PreviewMaker(convert: try script("slow-convert", "exec sleep 30"), heifConvert: nil, ffmpeg: nil)
        busy.timeLimit = 0.5
        let started = Date()
        let first = try app.makePreviews(cache: PreviewCache(folder: folder), maker: busy)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "each slow decoder is killed at its limit")
        XCTAssertEqual(first.total.placeholders, [.decoderTimedOut: 2])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".why") }, [])
        let second = try app.makePreviews(cache: PreviewCache(folder: folder), maker: maker)
        XCTAssertEqual(second.made, 2)
        XCTAssertEqual(second.total.previews, 2)

        let other = dir.appendingPathComponent("cache-2").path
        let broken = PreviewMaker(convert: try script("broken-convert", "exit 1"), heifConvert: nil, ffmpeg: nil)
        XCTAssertEqual(try app.makePreviews(cache: PreviewCache(folder: other), maker: broken).total.placeholders, [.decoderFailed: 2])
        let after = try app.makePreviews(cache: PreviewCache(folder: other), maker: maker)
        XCTAssertEqual(after.made, 0)
        XCTAssertEqual(after.total.placeholders, [.decoderFailed: 2])
    }

    /// A decoder killed at its time limit leaves no temporary file anywhere: each tool run gets a
    /// folder of its own in the scratch folder (MAGICK_TEMPORARY_PATH and TMPDIR name it), removed
    /// when the tool has ended. Before, a killed ImageMagick left its pixel cache in the system's
    /// temporary folder (here `outside`, what this process's MAGICK_TEMPORARY_PATH and TMPDIR
    /// name): 288 MB for a 6000 × 6000 photo, at every killed run. First a stand-in that writes
    /// its temporary file where it is told and hangs, then the real `convert` on an 8000 × 8000
    /// PNG (a pixel cache of 512 MB on disk under Debian's ImageMagick policy), killed at 0.3 s.
    func testADecoderKilledAtItsTimeLimitLeavesNoTemporaryFile() throws {
        let outside = dir.appendingPathComponent("outside").path, scratch = dir.appendingPathComponent("scratch").path
        for folder in [outside, scratch] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let big = dir.appendingPathComponent("big.png").path
        try tool("/usr/bin/convert", ["-size", "8000x8000", "xc:red", "-define", "png:color-type=2", big])
        let saved = ["MAGICK_TEMPORARY_PATH", "TMPDIR"].map { ($0, ProcessInfo.processInfo.environment[$0]) }
        for (name, _) in saved { setenv(name, outside, 1) }
        defer { for (name, value) in saved { if let value { setenv(name, value, 1) } else { unsetenv(name) } } }

        let standIn = try script("hanging-convert", #"echo pixels > "${MAGICK_TEMPORARY_PATH:-/nonexistent}/magick-standin" && exec sleep 30"#)
        for convert in [standIn, "/usr/bin/convert"] {
            var killed = PreviewMaker(convert: convert, heifConvert: nil, ffmpeg: nil)
            killed.timeLimit = convert == standIn ? 0.5 : 0.3
            guard case .failure(let reason) = killed.make(RawPath(big), kind: .png, scratch: scratch) else { return XCTFail("\(convert): a preview") }
            XCTAssertEqual(reason, .decoderTimedOut, convert)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [], convert)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch), [], convert)
        }
    }

    func testTheCacheStaysUnderItsCap() throws {
        let files = try sources()
        let app = try app([(files["jpeg"]!, .jpeg), (files["png"]!, .png), (files["tiff"]!, .tiff)])
        let folder = dir.appendingPathComponent("cache").path
        let summary = try app.makePreviews(cache: PreviewCache(folder: folder, capBytes: 1), maker: maker)
        XCTAssertEqual(summary.made, 3)
        XCTAssertLessThanOrEqual(summary.cacheBytes, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }, [])
    }

    func near(_ got: [Int], _ want: [Int], _ what: String) {
        XCTAssertEqual(got.count, 3, what)
        for (g, w) in zip(got, want) { XCTAssertLessThan(abs(g - w), 24, "\(what): \(got) for \(want)") }
    }

    /// The DNG of scripts/fixtures-previews: IFD0 says turn 90 degrees clockwise; the largest
    /// JPEG is the lossless raw data (no browser shows it), the one to take the 640x480
    /// quadrants. So the preview is 192x256 with blue red / yellow lime (worked by hand), and
    /// it matches ExifTool's PreviewImage turned and scaled by ImageMagick.
    func testARawsPreviewIsItsLargestViewableEmbeddedJPEGTurnedAsTheRawSays() throws {
        let dng = Repository.url("Fixtures/previews/dng-preview-subifd-rotated.dng").path
        let raf = Repository.url("Fixtures/formats/containers/other/fujifilm-embedded-jpeg.raf").path
        let app = try app([(dng, .tiff), (raf, .raf)])
        let cache = PreviewCache(folder: dir.appendingPathComponent("cache").path)
        let summary = try app.makePreviews(cache: cache, maker: maker)
        XCTAssertEqual(summary.kinds[.raw]?.previews, 2, "\(summary.kinds)")
        let preview = try XCTUnwrap(try app.preview(photoID: 1, cache: cache, maker: maker))
        let turned: [(x: Int, y: Int)] = [(48, 64), (144, 64), (48, 192), (144, 192)]
        let seen = try look(preview.bytes, ext: "jpg", at: turned)
        XCTAssertEqual(seen.size, "192x256")
        for (got, want) in zip(seen.colours, [[0, 0, 255], [255, 0, 0], [255, 255, 0], [0, 255, 0]]) { near(got, want, "DNG") }
        // ExifTool's own extraction, turned and scaled by ImageMagick: the same picture.
        for (file, turn, name) in [(dng, "90", "PreviewImage"), (raf, "0", "PreviewImage")] {
            let extracted = dir.appendingPathComponent("exiftool-\(UUID().uuidString).jpg").path
            try tool("/bin/sh", ["-c", "exiftool -b -\(name) \"$0\" > \"$1\"", file, extracted])
            let expected = dir.appendingPathComponent("expected-\(UUID().uuidString).jpg").path
            try tool("/usr/bin/convert", [extracted, "-rotate", turn, "-thumbnail", "256x256>", expected])
            let theirs = try look(Array(try Data(contentsOf: URL(fileURLWithPath: expected))), ext: "jpg", at: [(4, 4), (8, 8)])
            let ours = try look(try XCTUnwrap(try app.preview(photoID: file == dng ? 1 : 2, cache: cache, maker: maker)).bytes, ext: "jpg",
                                at: [(4, 4), (8, 8)])
            XCTAssertEqual(ours.size, theirs.size, file)
            for (got, want) in zip(ours.colours, theirs.colours) { near(got, want, file) }
        }
    }

    /// A name that is not UTF-8 (Latin-1 e-acute, as an old camera card writes it) reaches the
    /// decoder as the bytes it is: a String would have made it U+FFFD and the tool would not
    /// find the file.
    func testANameThatIsNotUTF8ReachesTheDecoderAsItsBytes() throws {
        let files = try sources()
        let name = Array(dir.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".jpg".utf8)
        let copy = try XCTUnwrap(FileManager.default.contents(atPath: files["jpeg"]!))
        let fd = name.withUnsafeBufferPointer { b in
            (Array(b) + [0]).withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_WRONLY | O_CREAT, 0o644) }
        }
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = copy.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let app = try app([(RawPath(bytes: name), FileKind.jpeg)])
        let cache = PreviewCache(folder: dir.appendingPathComponent("cache").path)
        XCTAssertEqual(try app.makePreviews(cache: cache, maker: maker).total.previews, 1)
        let seen = try look(try XCTUnwrap(try app.preview(photoID: 1, cache: cache, maker: maker)).bytes, ext: "jpg")
        XCTAssertEqual(seen.size, "256x192")
        for (got, q) in zip(seen.colours, quadrants) { near(got, q.rgb, "caf\\xE9.jpg") }
    }

    /// Without ffmpeg a video's placeholder says how long it is: 2 s of MP4 (mvhd) and 3 s of
    /// Matroska (Info Duration), as ffmpeg wrote them.
    func testAVideoWithoutItsDecoderSaysItsDuration() throws {
        let files = try sources()
        let mkv = dir.appendingPathComponent("quad.mkv").path
        try tool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-loop", "1", "-i", files["png"]!, "-t", "3", "-r", "10",
                                     "-c:v", "libx264", "-pix_fmt", "yuv420p", mkv])
        let app = try app([(files["video"]!, .quicktime), (mkv, .matroska)])
        let cache = PreviewCache(folder: dir.appendingPathComponent("cache").path)
        let noFFmpeg = PreviewMaker(convert: "/usr/bin/convert", heifConvert: "/usr/bin/heif-convert", ffmpeg: nil)
        let summary = try app.makePreviews(cache: cache, maker: noFFmpeg)
        XCTAssertEqual(summary.kinds[.video]?.placeholders, [.noDecoder: 2])
        XCTAssertEqual(summary.missingTools, ["ffmpeg"])
        for (id, duration) in [(Int64(1), "0:02"), (2, "0:03")] {
            let svg = String(decoding: try XCTUnwrap(try app.preview(photoID: id, cache: cache, maker: noFFmpeg)).bytes, as: UTF8.self)
            XCTAssertTrue(svg.contains("no decoder on this machine (ffmpeg)"), svg)
            XCTAssertTrue(svg.contains(">\(duration)</text>"), svg)
        }
    }
}
