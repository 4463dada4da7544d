import Foundation
import TestSupport
import XCTest
@testable import PinCore

/// Inputs scripts/fuzz kept for the rules target (Fixtures/fuzz/rules/), replayed the way
/// Fuzz/Rules.swift reads them: 8 bytes of options, then 25-byte records.
final class RulesFuzzRegressionTests: XCTestCase {
    static let repo = Repository.root

    func replay(_ bytes: [UInt8]) -> [ImportRules.Verdict] {
        bytes.withUnsafeBytes { RulesFuzzInput.decide($0) }
    }

    /// The seed scripts/fuzz starts from (three photos around Paris, one pin at the Eiffel Tower),
    /// decided by hand, so the replay here is known to read records as the fuzz target does.
    static func seed() -> [UInt8] {
        var data = [UInt8]()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data += $0 } }
        func record(_ tag: UInt8, _ instant: Double, _ lat: Double, _ lon: Double) {
            data.append(tag)
            for d in [instant, lat, lon] { withUnsafeBytes(of: d.bitPattern.littleEndian) { data += $0 } }
        }
        u32(0x0010_0000)  // interval: 1,048,576 / 4,294,967,295 × 366 days = 7,720.3 s
        u32(0x8000_0000)  // distance: 0.001 km × 10^(7 × 0.5) = 3.162 km
        record(0, 1.7e9, 48.8566, 2.3522)
        record(0, 1.7e9 + 30, 48.8567, 2.3523)
        record(0, 1.7e9 + 90, 48.86, 2.35)
        record(1, 0, 48.8584, 2.2945)
        return data
    }

    func testTheSeedIsDecidedAsWorkedByHand() {
        let data = Self.seed()
        let verdicts = replay(data).map(\.decision)
        // The first is 4.226 km from the pin (≥ 3.162 km): accepted. The others come 30 s and 90 s
        // after it, within the 7,720 s interval.
        XCTAssertEqual(verdicts, [.accepted, .interval, .interval])
    }

    /// The kept inputs (Fixtures/fuzz/rules, which must hold some) and the seed: no
    /// crash, no delay. An empty or missing folder fails (it would replay nothing).
    func testKeptInputsAreDecidedWithoutCrashOrDelay() throws {
        let fuzz = Self.repo.appendingPathComponent("Fixtures/fuzz")
        XCTAssertTrue(FileManager.default.fileExists(atPath: fuzz.appendingPathComponent("README.md").path), "no \(fuzz.path)")
        let dir = fuzz.appendingPathComponent("rules")
        var inputs: [(String, [UInt8])] = [("seed", Self.seed())]
        // A folder that is missing or empty would replay nothing and pass (issue 40 item 17:
        // xmp, takeout and sidecars were): it fails, naming how to fill it.
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.path), "Fixtures/fuzz/rules is missing: scripts/fuzz --keep 20 rules")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()) ?? []
        XCTAssertFalse(names.isEmpty, "Fixtures/fuzz/rules holds no input: scripts/fuzz --keep 20 rules")
        inputs += try names.map { ($0, [UInt8](try Data(contentsOf: dir.appendingPathComponent($0)))) }
        for (name, bytes) in inputs {
            let start = Date()
            // One verdict per photo record (tag bits 0 and 2 clear), whatever its numbers.
            let photos = stride(from: 8, through: bytes.count - RulesFuzzInput.recordSize, by: RulesFuzzInput.recordSize)
                .filter { bytes[$0] & 0b101 == 0 }.count
            XCTAssertEqual(replay(bytes).count, photos, name)
            XCTAssertLessThan(Date().timeIntervalSince(start), 2, name)
        }
    }
}
