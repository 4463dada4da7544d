import Foundation
import PinCore
@testable import PinMetadata
import XCTest

/// Every input scripts/fuzz found crashing, slow or memory-hungry is kept in Fixtures/fuzz/<target>/
/// and read here the way its fuzz target (Fuzz/*.swift) reads it: no crash, and within the time a
/// photo may take.
final class FuzzRegressionTests: XCTestCase {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let utc = MetadataOptions(defaultTimeZone: TimeZone(identifier: "UTC")!)

    func inputs(_ target: String) throws -> [(String, [UInt8])] {
        let dir = Self.repo.appendingPathComponent("Fixtures/fuzz/\(target)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return try names.sorted().map { ($0, [UInt8](try Data(contentsOf: dir.appendingPathComponent($0)))) }
    }

    /// Runs `body` on each input of `target`, each within `seconds`.
    func each(_ target: String, seconds: Double = 2, _ body: ([UInt8]) -> Void) throws {
        for (name, bytes) in try inputs(target) {
            let start = Date()
            body(bytes)
            XCTAssertLessThan(Date().timeIntervalSince(start), seconds, "\(target)/\(name) is slow")
        }
    }

    func testMetadata() throws {
        try each("metadata") { bytes in
            _ = MetadataReader.sniff(bytes)
            _ = try? MetadataReader.read(bytes: bytes, modificationTime: nil, options: utc)
        }
    }

    func testXMP() throws {
        try each("xmp") { bytes in
            _ = XMP.parse(bytes, options: utc)
        }
    }

    func testTakeout() throws {
        try each("takeout") { bytes in
            _ = TakeoutSidecar.parse(bytes)
        }
    }

    func testSidecars() throws {
        try each("sidecars") { bytes in
            let parts = bytes.split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
            guard let media = parts.first else { return }
            _ = Sidecars.match(mediaName: media, siblings: Array(parts.dropFirst()))
            for name in parts.dropFirst() { _ = Sidecars.classify(sidecarName: name, mediaName: media) }
        }
    }
}
