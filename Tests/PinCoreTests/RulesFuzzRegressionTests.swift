import Foundation
import TestSupport
import XCTest
@testable import PinCore

/// Inputs scripts/fuzz kept for the rules target (Fixtures/fuzz/rules/), replayed the way
/// Fuzz/Rules.swift reads them: 8 bytes of options, then 25-byte records.
final class RulesFuzzRegressionTests: XCTestCase {
    static let repo = Repository.root

    func replay(_ bytes: [UInt8]) -> [ImportRules.Verdict] {
        bytes.withUnsafeBytes { raw -> [ImportRules.Verdict] in
            func double(_ at: Int) -> Double { Double(bitPattern: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
            var minInterval = CaptureInterval.appMinimum, threshold = AngularDistance.appThreshold, offset = 0
            if raw.count >= 8 {
                let a = raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self)
                let b = raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
                minInterval = Double(a) / Double(UInt32.max) * 86_400 * 366
                threshold = AngularDistance.angle(forKilometres: 0.001 * pow(10, 7 * Double(b) / Double(UInt32.max)))
                offset = 8
            }
            var pins: [ImportRules.ExistingPin] = [], earlier: [AcceptedPhoto] = [], candidates: [ImportRules.Candidate] = []
            while offset + 25 <= raw.count {
                let tag = raw[offset]
                let coordinate = Coordinate(latitude: double(offset + 9), longitude: double(offset + 17))
                let path = RawPath("/p/\(candidates.count).jpg")
                if tag & 1 != 0 {
                    pins.append(.init(title: "pin \(pins.count)", coordinate: coordinate))
                } else if tag & 4 != 0 {
                    earlier.append(AcceptedPhoto(instant: double(offset + 1), path: path))
                } else {
                    candidates.append(.init(index: candidates.count, instant: double(offset + 1), path: path,
                                            coordinate: tag & 2 != 0 ? nil : coordinate))
                }
                offset += 25
            }
            var filters = ImportRules(minInterval: minInterval, threshold: threshold, existingPins: pins, earlierAccepted: earlier)
            return ImportRules.ordered(candidates).map { filters.decide($0, label: $0.path.description) }
        }
    }

    /// The seed scripts/fuzz starts from (three photos around Paris, one pin at the Eiffel Tower),
    /// decided by hand, so the replay here is known to read records as the fuzz target does.
    func testTheSeedIsDecidedAsWorkedByHand() {
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
        let verdicts = replay(data).map(\.decision)
        // The first is 4.226 km from the pin (≥ 3.162 km): accepted. The others come 30 s and 90 s
        // after it, within the 7,720 s interval.
        XCTAssertEqual(verdicts, [.accepted, .interval, .interval])
    }

    func testKeptInputsAreDecidedWithoutCrashOrDelay() throws {
        let fuzz = Self.repo.appendingPathComponent("Fixtures/fuzz")
        XCTAssertTrue(FileManager.default.fileExists(atPath: fuzz.appendingPathComponent("README.md").path), "no \(fuzz.path)")
        let dir = fuzz.appendingPathComponent("rules")
        guard FileManager.default.fileExists(atPath: dir.path) else {
            throw XCTSkip("Fixtures/fuzz/rules does not exist: scripts/fuzz has kept no input of the rules yet")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertFalse(names.isEmpty, "Fixtures/fuzz/rules holds no input")
        for name in names {
            let start = Date()
            _ = replay([UInt8](try Data(contentsOf: dir.appendingPathComponent(name))))
            XCTAssertLessThan(Date().timeIntervalSince(start), 2, name)
        }
    }
}
