import Foundation
import XCTest

/// `pins previews` as a person runs it on a machine that has ImageMagick but neither libheif's
/// tool nor ffmpeg (PATH holds `convert` alone): six photos of Florence made by the real tools,
/// imported, then counted by hand:
///   a.jpg, b.jpg   JPEG            2 previews
///   c.dng          the DNG of scripts/fixtures-previews (a JPEG inside)   1 preview
///   d.NEF          a TIFF without any JPEG inside (ImageMagick's)          no preview inside
///   e.heic         heif-enc's                                              no decoder (heif-convert)
///   f.mp4          ffmpeg's, 2 s                                           no decoder (ffmpeg)
/// So 3 of 6 have a preview; placeholders: noDecoder 2, noEmbeddedPreview 1; each missing
/// decoder is said once on stderr; a second run makes none.
final class PreviewsCLITests: XCTestCase {
    let florence = ["-GPSLatitude=43.7731", "-GPSLatitudeRef=N", "-GPSLongitude=11.2560", "-GPSLongitudeRef=E",
                    "-DateTimeOriginal=2024:05:01 14:00:00", "-OffsetTimeOriginal=+02:00"]

    @discardableResult
    func tool(_ path: String, _ arguments: [String]) throws -> Int32 {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            XCTFail("\(path) is missing: run scripts/setup")
            throw CLI.Failure.setup
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(path) \(arguments)")
        return process.terminationStatus
    }

    func library(_ dir: URL) throws -> String {
        let root = dir.appendingPathComponent("photos").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let png = dir.appendingPathComponent("quad.png").path
        try tool("/usr/bin/convert", ["-size", "320x240", "xc:red", "-size", "320x240", "xc:lime", "+append", "-define", "png:color-type=2", png])
        try tool("/usr/bin/convert", [png, root + "/a.jpg"])
        try tool("/usr/bin/convert", [png, root + "/b.jpg"])
        try tool("/usr/bin/convert", [png, dir.appendingPathComponent("d.tif").path])
        try tool("/usr/bin/heif-enc", ["-q", "80", "-o", root + "/e.heic", png])
        for name in ["a.jpg", "b.jpg", "e.heic"] { try tool("/usr/bin/exiftool", ["-q", "-overwrite_original"] + florence + [root + "/" + name]) }
        // ExifTool writes a TIFF by its name: the GPS goes in before it is called a NEF.
        try tool("/usr/bin/exiftool", ["-q", "-overwrite_original"] + florence + [dir.appendingPathComponent("d.tif").path])
        try FileManager.default.moveItem(atPath: dir.appendingPathComponent("d.tif").path, toPath: root + "/d.NEF")
        try FileManager.default.copyItem(atPath: CLI.repo.appendingPathComponent("Fixtures/previews/dng-preview-subifd-rotated.dng").path,
                                         toPath: root + "/c.dng")
        try tool("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-loop", "1", "-i", png, "-t", "2", "-r", "10", "-c:v", "libx264",
                                     "-pix_fmt", "yuv420p", "-metadata", "location=+43.7731+011.2560/",
                                     "-metadata", "creation_time=2024-05-01T12:00:00Z", root + "/f.mp4"])
        return root
    }

    func testCountsPerKindAndReasonInTextAndJSONWithTwoDecodersMissing() throws {
        let dir = try CLI.temporaryDirectory(self)
        let root = try library(dir)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let imported = try CLI.run(["import", root, "--quiet", "--db", db])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let bin = dir.appendingPathComponent("bin").path
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin + "/convert", withDestinationPath: "/usr/bin/convert")
        let env = ["PATH": bin]
        let cache = dir.appendingPathComponent("cache").path

        let json = try CLI.run(["previews", "--json", "--cache", cache, "--db", db], environment: env)
        XCTAssertEqual(json.status, 0, json.stderr)
        let object = try XCTUnwrap(try CLI.json(json.stdout) as? [String: Any])
        XCTAssertEqual(object["photos"] as? Int, 6)
        XCTAssertEqual(object["previews"] as? Int, 3)
        XCTAssertEqual(object["placeholders"] as? [String: Int], ["noDecoder": 2, "noEmbeddedPreview": 1])
        XCTAssertEqual(object["made"] as? Int, 6)
        XCTAssertEqual(object["missingDecoders"] as? [String], ["ffmpeg", "heif-convert"])
        let kinds = try XCTUnwrap(object["kinds"] as? [String: [String: Any]])
        XCTAssertEqual(kinds["jpeg"]?["previews"] as? Int, 2)
        XCTAssertEqual(kinds["raw"]?["photos"] as? Int, 2)
        XCTAssertEqual(kinds["raw"]?["previews"] as? Int, 1)
        XCTAssertEqual(kinds["raw"]?["placeholders"] as? [String: Int], ["noEmbeddedPreview": 1])
        XCTAssertEqual(kinds["heif"]?["placeholders"] as? [String: Int], ["noDecoder": 1])
        XCTAssertEqual(kinds["video"]?["placeholders"] as? [String: Int], ["noDecoder": 1])
        // Each missing decoder said once, however many photos needed it.
        let said = json.stderr.split(separator: "\n")
        XCTAssertEqual(said.filter { $0.hasPrefix("pins previews: ffmpeg is not on this machine") }.count, 1, json.stderr)
        XCTAssertEqual(said.filter { $0.hasPrefix("pins previews: heif-convert is not on this machine") }.count, 1, json.stderr)
        XCTAssertEqual(said.count, 2, json.stderr)

        // The second run (text) finds everything in the cache and makes none.
        let text = try CLI.run(["previews", "--cache", cache, "--db", db], environment: env)
        XCTAssertEqual(text.status, 0, text.stderr)
        let rows = text.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        XCTAssertEqual(Array(rows.prefix(5)), [
            "KIND PHOTOS PREVIEWS PLACEHOLDERS",
            "jpeg 2 2 -",
            "heif 1 0 1 no decoder on this machine (heif-convert)",
            "raw 2 1 1 no preview inside the raw file",
            "video 1 0 1 no decoder on this machine (ffmpeg)",
        ], text.stdout)
        XCTAssertTrue(text.stdout.contains("3 of 6 photos have a preview; 0 made now; \(cache) holds "), text.stdout)
        // Nothing was written beside the photos.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root).sorted(),
                       ["a.jpg", "b.jpg", "c.dng", "d.NEF", "e.heic", "f.mp4"])
    }

    /// --max bounds a run (the nightly run's 2,000): of the six photos, the first run makes 4
    /// and leaves 2, counted apart ("left", in no kind); the next makes those 2; the third none.
    func testMaxBoundsARunAndTheNextRunMakesTheRest() throws {
        let dir = try CLI.temporaryDirectory(self)
        let root = try library(dir)
        let db = dir.appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try CLI.run(["import", root, "--quiet", "--db", db]).status, 0)
        let cache = dir.appendingPathComponent("cache").path
        var seen: [[Int?]] = []
        for _ in 1...3 {
            let run = try CLI.run(["previews", "--json", "--max", "4", "--nice", "--cache", cache, "--db", db])
            XCTAssertEqual(run.status, 0, run.stderr)
            let object = try XCTUnwrap(try CLI.json(run.stdout) as? [String: Any], run.stdout)
            seen.append([object["made"] as? Int, object["left"] as? Int, object["photos"] as? Int])
        }
        XCTAssertEqual(seen, [[4, 2, 4], [2, 0, 6], [0, 0, 6]])
        let quiet = try CLI.run(["previews", "--quiet", "--cache", cache, "--db", db])
        XCTAssertEqual(quiet.status, 0)
        XCTAssertEqual(quiet.stdout, "")
        XCTAssertEqual(try CLI.run(["previews", "--max", "0", "--db", db]).status, 64)
    }
}
