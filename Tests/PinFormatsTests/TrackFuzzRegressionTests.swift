import Foundation
import TestSupport
import XCTest
@testable import PinFormats
@testable import PinGrammar

/// The inputs scripts/fuzz's tracks target keeps (Fixtures/fuzz/tracks/, which must hold some) and
/// the seeds it starts from (the track fixtures), read the way Fuzz/Tracks.swift reads them:
/// sniffed and read as that format, then read again as the format the first byte picks. No crash,
/// no delay, and every point a reader gives is valid.
final class TrackFuzzRegressionTests: XCTestCase {
    static let repo = Repository.root

    struct Sink: TimelineSink {
        var points = 0, invalid = 0
        mutating func point(_ p: TrackPoint) { points += 1; if !p.isValid { invalid += 1 } }
        mutating func visit(_ v: TimelineVisit) {}
    }

    /// As Fuzz/Tracks.swift: the points read.
    static func replay(_ bytes: [UInt8]) -> Sink {
        var sink = Sink()
        func read(_ input: [UInt8], as format: TrackFileFormat) {
            var notes = TrackNotes()
            try? TrackFiles.read(bytes: input, format: format, into: &sink, notes: &notes)
            _ = notes.summary
        }
        if let format = TrackFiles.sniff(Array(bytes.prefix(TrackFiles.sniffBytes))) { read(bytes, as: format) }
        if let first = bytes.first {
            let formats = TrackFileFormat.allCases
            read(Array(bytes.dropFirst()), as: formats[Int(first) % formats.count])
        }
        return sink
    }

    /// scripts/fuzz's seeds of the tracks target: Fixtures/tracks but the photos and the schema.
    func seeds() throws -> [(String, [UInt8])] {
        let dir = Self.repo.appendingPathComponent("Fixtures/tracks")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
            .filter { !$0.hasSuffix(".xsd") && !$0.hasSuffix(".jpg") }
        return try names.compactMap { name in
            let url = dir.appendingPathComponent(name)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue else { return nil }
            return (name, [UInt8](try Data(contentsOf: url)))
        }
    }

    func testTheSeedsGiveTheirFixes() throws {
        let seeds = Dictionary(uniqueKeysWithValues: try seeds())
        XCTAssertGreaterThanOrEqual(seeds.count, 10)
        // Sniffed and read: segments.gpx's six timed fixes (its first byte '<', 60, forces the
        // format at 60 % 11 = 5, OwnTracks, which finds no line of its own in the rest).
        XCTAssertEqual(Self.replay(try XCTUnwrap(seeds["segments.gpx"])).points, 6)
        XCTAssertEqual(Self.replay(try XCTUnwrap(seeds["gpsbabel-segments.kmz"])).points, 6)
    }

    func testKeptInputsAndSeedsReadWithoutCrashOrDelay() throws {
        let fuzz = Self.repo.appendingPathComponent("Fixtures/fuzz")
        XCTAssertTrue(FileManager.default.fileExists(atPath: fuzz.appendingPathComponent("README.md").path), "no \(fuzz.path)")
        var inputs = try seeds()
        let dir = fuzz.appendingPathComponent("tracks")
        // A folder that is missing or empty would replay nothing and pass (issue 40 item 17:
        // xmp, takeout and sidecars were): it fails, naming how to fill it.
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.path), "Fixtures/fuzz/tracks is missing: scripts/fuzz --keep 20 tracks")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()) ?? []
        XCTAssertFalse(names.isEmpty, "Fixtures/fuzz/tracks holds no input: scripts/fuzz --keep 20 tracks")
        inputs += try names.map { ($0, [UInt8](try Data(contentsOf: dir.appendingPathComponent($0)))) }
        for (name, bytes) in inputs {
            let start = Date()
            let sink = Self.replay(bytes)
            XCTAssertEqual(sink.invalid, 0, name)
            XCTAssertLessThan(Date().timeIntervalSince(start), 2, "tracks/\(name) is slow")
        }
    }
}
