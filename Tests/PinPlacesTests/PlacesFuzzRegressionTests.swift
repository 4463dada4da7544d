import Foundation
import TestSupport
import XCTest
@testable import PinPlaces

/// The inputs kept in Fixtures/fuzz/places/ (crashes the places fuzz target or a reading of the
/// readers found) and the seeds scripts/fuzz starts that target from (Fixtures/places, files
/// under 256 KiB), read the way Fuzz/Places.swift reads them: as the kind sniffed from their
/// head, then as the kind their first byte picks, on the rest. No crash and no delay.
final class PlacesFuzzRegressionTests: XCTestCase {
    static let repo = Repository.root

    /// As Fuzz/Places.swift: the events of both readings.
    static func replay(_ bytes: [UInt8]) -> [PlaceReadEvent] {
        var events: [PlaceReadEvent] = []
        func read(_ input: [UInt8], as kind: PlaceFileKind) {
            try? PlaceFiles.read(bytes: input, kind: kind) { event in
                events.append(event)
                if case let .record(record) = event {
                    _ = record.key(kind: kind)
                    _ = record.digest
                }
            }
        }
        if let kind = PlaceFiles.kind(ofHead: Array(bytes.prefix(PlaceFiles.sniffBytes))) { read(bytes, as: kind) }
        if let first = bytes.first {
            let kinds = PlaceFileKind.allCases
            read(Array(bytes.dropFirst()), as: kinds[Int(first) % kinds.count])
        }
        return events
    }

    func files(in relative: String, below size: Int = .max) throws -> [(String, [UInt8])] {
        let dir = Self.repo.appendingPathComponent(relative)
        guard let walk = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey]) else { return [] }
        var found: [(String, [UInt8])] = []
        for case let url as URL in walk {
            let values = try url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey])
            guard values.isRegularFile == true, (values.fileSize ?? .max) < size else { continue }
            found.append((String(url.path.dropFirst(Self.repo.path.count + 1)), [UInt8](try Data(contentsOf: url))))
        }
        return found.sorted { $0.0 < $1.0 }
    }

    func testKeptInputsAndSeedsReadWithoutCrashOrDelay() throws {
        let kept = try files(in: "Fixtures/fuzz/places")
        XCTAssertFalse(kept.isEmpty, "Fixtures/fuzz/places holds the inputs kept so far")
        let seeds = try files(in: "Fixtures/places", below: 256 << 10)
        XCTAssertGreaterThanOrEqual(seeds.count, 15, "the place fixtures (a wrong repository root reads none)")
        for (name, bytes) in kept + seeds {
            let start = Date()
            _ = Self.replay(bytes)
            XCTAssertLessThan(Date().timeIntervalSince(start), 2, "\(name) is slow")
        }
    }

    /// A placeVisit whose `startTimestampMs` is a number no Int64 holds (1e300, and 1e400, which
    /// is no Double either) stopped the whole process (the key made of its place id and start
    /// was `String(Int64(ms))`): now it is a malformed record with its position, and the next
    /// visit is read.
    func testStartTimestampMsOutOfRangeIsAMalformedRecord() throws {
        let bytes = try XCTUnwrap(files(in: "Fixtures/fuzz/places").first { $0.0.hasSuffix("crash-semantic-startTimestampMs-out-of-range.json") }?.1)
        var events: [PlaceReadEvent] = []
        try PlaceFiles.read(bytes: bytes, kind: .semanticHistory) { events.append($0) }
        XCTAssertEqual(events.count, 3)
        XCTAssertEqual(events[0], .malformed(position: "timelineObject 1", reason: "startTimestampMs '1e300' is not a time in milliseconds"))
        XCTAssertEqual(events[1], .malformed(position: "timelineObject 2", reason: "startTimestampMs '1e400' is not a time in milliseconds"))
        guard case let .record(record) = events[2] else { return XCTFail("\(events[2])") }
        // 1646125200000 ms: 2022-03-01T09:00:00Z.
        XCTAssertEqual(record.date, .utc(Date(timeIntervalSince1970: 1_646_125_200)))
        XCTAssertEqual(record.ownID, "-@1646125200000")
        XCTAssertEqual(record.coordinate?.latitude, 48)
    }
}
