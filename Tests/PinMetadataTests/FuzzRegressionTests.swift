import Foundation
import PinCore
@testable import PinMetadata
import TestSupport
import XCTest

/// Every input scripts/fuzz found crashing, slow or memory-hungry is kept in Fixtures/fuzz/<target>/
/// and read here the way its fuzz target (Fuzz/*.swift) reads it: no crash, and within the time a
/// photo may take.
final class FuzzRegressionTests: XCTestCase {
    static let repo = Repository.root
    let utc = MetadataOptions(defaultTimeZone: TimeZone(identifier: "UTC")!)

    /// The kept inputs of `target`. Fixtures/fuzz must exist (a wrong repository root would
    /// otherwise replay nothing and pass); a target that has kept nothing yet is skipped, and
    /// says so; a folder without a file fails.
    func inputs(_ target: String) throws -> [(String, [UInt8])] {
        let fuzz = Self.repo.appendingPathComponent("Fixtures/fuzz")
        XCTAssertTrue(FileManager.default.fileExists(atPath: fuzz.appendingPathComponent("README.md").path), "no \(fuzz.path)")
        let dir = fuzz.appendingPathComponent(target)
        guard FileManager.default.fileExists(atPath: dir.path) else {
            throw XCTSkip("Fixtures/fuzz/\(target) does not exist: scripts/fuzz has kept no input of this target yet")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertFalse(names.isEmpty, "Fixtures/fuzz/\(target) holds no input")
        return try names.map { ($0, [UInt8](try Data(contentsOf: dir.appendingPathComponent($0)))) }
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
    /// PinCoreTests) replays: a folder scripts/fuzz fills for a new target is not left unread.
    func testEveryFolderOfKeptInputsIsATargetThatIsReplayed() throws {
        let fuzz = Self.repo.appendingPathComponent("Fixtures/fuzz")
        let folders = try FileManager.default.contentsOfDirectory(atPath: fuzz.path).filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: fuzz.appendingPathComponent($0).path, isDirectory: &isFolder) && isFolder.boolValue
        }
        XCTAssertTrue(folders.contains("metadata"), "Fixtures/fuzz/metadata holds the inputs kept so far")
        XCTAssertEqual(Set(folders).subtracting(["metadata", "xmp", "takeout", "sidecars", "rules"]), [])
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
