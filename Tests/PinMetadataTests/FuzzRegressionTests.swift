import Foundation
@testable import PinCore
@testable import PinMetadata
import TestSupport
import XCTest

/// Every input scripts/fuzz found crashing, slow or memory-hungry is kept in Fixtures/fuzz/<target>/
/// and read here the way its fuzz target (Fuzz/*.swift) reads it: no crash, and within the time a
/// photo may take.
final class FuzzRegressionTests: XCTestCase {
    static let repo = Repository.root
    let utc = MetadataOptions(defaultTimeZone: TimeZone(identifier: "UTC")!)

    /// The kept inputs of `target`, then the seeds scripts/fuzz starts it from (the fixtures
    /// it reads in real use, chosen as `seed()` there chooses them). Fixtures/fuzz must exist (a
    /// wrong repository root would otherwise replay nothing and pass), and so must the target's
    /// folder, with a file in it: `scripts/fuzz --keep N` keeps corpus inputs there.
    func inputs(_ target: String) throws -> [(String, [UInt8])] {
        let fuzz = Self.repo.appendingPathComponent("Fixtures/fuzz")
        XCTAssertTrue(FileManager.default.fileExists(atPath: fuzz.appendingPathComponent("README.md").path), "no \(fuzz.path)")
        let dir = fuzz.appendingPathComponent(target)
        var found: [(String, [UInt8])] = []
        // A folder that is missing or empty would replay nothing and pass (issue 40 item 17:
        // xmp, takeout and sidecars were): it fails, naming how to fill it.
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.path), "Fixtures/fuzz/\(target) is missing: scripts/fuzz --keep 20 \(target)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()) ?? []
        XCTAssertFalse(names.isEmpty, "Fixtures/fuzz/\(target) holds no input: scripts/fuzz --keep 20 \(target)")
        found += try names.map { ($0, [UInt8](try Data(contentsOf: dir.appendingPathComponent($0)))) }
        found += try seeds(target)
        XCTAssertFalse(found.isEmpty, "\(target): no kept input and no seed")
        return found
    }

    /// scripts/fuzz's seeds of `target`: XMP sidecars, JSON under 64 KiB (Takeout), and for the
    /// sidecar matcher one input per fixture with names beside it (its name, NUL, theirs).
    func seeds(_ target: String) throws -> [(String, [UInt8])] {
        let fixtures = Self.repo.appendingPathComponent("Fixtures")
        var folders: [URL: [String]] = [:]
        let walk = try XCTUnwrap(FileManager.default.enumerator(at: fixtures, includingPropertiesForKeys: [.isRegularFileKey]))
        for case let url as URL in walk where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            folders[url.deletingLastPathComponent(), default: []].append(url.lastPathComponent)
        }
        var seeds: [(String, [UInt8])] = []
        for (folder, files) in folders.sorted(by: { $0.key.path < $1.key.path }) {
            let files = files.sorted()
            for name in files {
                let lower = name.lowercased(), url = folder.appendingPathComponent(name)
                switch target {
                case "xmp" where lower.hasSuffix(".xmp"):
                    seeds.append((url.path, try Repository.bytes(String(url.path.dropFirst(Self.repo.path.count + 1)))))
                case "takeout" where lower.hasSuffix(".json"):
                    let size = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? .max
                    if size < 64 << 10 { seeds.append((url.path, [UInt8](try Data(contentsOf: url)))) }
                case "sidecars" where ![".json", ".xmp", ".md", ".txt", ".tsv"].contains(where: lower.hasSuffix):
                    let stem = String(name.split(separator: ".", omittingEmptySubsequences: false).first ?? "").prefix(6)
                    let near = files.filter { $0 != name && $0.hasPrefix(stem) }
                    guard !near.isEmpty else { continue }
                    seeds.append((url.path, Array(([name] + near).map { Array($0.utf8) }.joined(separator: [0]))))
                default: break
                }
            }
        }
        return seeds
    }

    /// Runs `body` on each input of `target`, each within `seconds`.
    func each(_ target: String, seconds: Double = 2, _ body: ([UInt8]) -> Void) throws {
        for (name, bytes) in try inputs(target) {
            let start = Date()
            body(bytes)
            XCTAssertLessThan(Date().timeIntervalSince(start), seconds, "\(target)/\(name) is slow")
        }
    }

    /// Each folder of Fixtures/fuzz is a target one of the tests here (or the rules' in
    /// PinCoreTests, the tracks' in PinFormatsTests) replays: a folder scripts/fuzz fills for a new target is not left unread.
    func testEveryFolderOfKeptInputsIsATargetThatIsReplayed() throws {
        let fuzz = Self.repo.appendingPathComponent("Fixtures/fuzz")
        let folders = try FileManager.default.contentsOfDirectory(atPath: fuzz.path).filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: fuzz.appendingPathComponent($0).path, isDirectory: &isFolder) && isFolder.boolValue
        }
        XCTAssertTrue(folders.contains("metadata"), "Fixtures/fuzz/metadata holds the inputs kept so far")
        // tracks: PinFormatsTests/TrackFuzzRegressionTests replays it; places:
        // PinPlacesTests/PlacesFuzzRegressionTests; windows: PinPlacesTests/WindowsFuzzRegressionTests.
        XCTAssertEqual(Set(folders).subtracting(["metadata", "xmp", "takeout", "sidecars", "rules", "tracks", "places", "windows"]), [])
    }

    func testKeptMetadataInputsReadWithoutCrashOrDelay() throws {
        try each("metadata") { bytes in
            _ = MetadataReader.sniff(bytes)
            _ = try? MetadataReader.read(bytes: bytes, modificationTime: nil, options: utc)
        }
    }

    func testKeptXMPInputsParseWithoutCrashOrDelay() throws {
        try each("xmp") { bytes in
            _ = XMP.parse(bytes, options: utc)
        }
    }

    func testKeptTakeoutInputsParseWithoutCrashOrDelay() throws {
        try each("takeout") { bytes in
            _ = TakeoutSidecar.parse(bytes)
        }
    }

    func testKeptSidecarNameInputsMatchWithoutCrashOrDelay() throws {
        try each("sidecars") { bytes in
            let parts = bytes.split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
            guard let media = parts.first else { return }
            _ = Sidecars.match(mediaName: media, siblings: Array(parts.dropFirst()))
            for name in parts.dropFirst() { _ = Sidecars.classify(sidecarName: name, mediaName: media) }
        }
    }
}
