import TestSupport
import XCTest
@testable import PinCore
@testable import PinMetadata
@testable import PinImport

/// The run's files on disk: every field comes back from its record, and the sorter gives the
/// order a plain in-memory sort gives, over several runs and merge passes.
final class DecidedFilesTests: XCTestCase {
    func entry(_ path: [UInt8], size: Int64 = 10) -> FileEntry {
        FileEntry(relativePath: RawPath(bytes: path), size: size, modificationNanoseconds: -1_234_567_890_123, inode: .max, device: 7)
    }

    /// The fields of metadata the import keeps, as text.
    func fields(_ m: PhotoMetadata) -> [String] {
        [m.format.rawValue, "\(String(describing: m.coordinate))", m.locationIssue ?? "-", m.positionSource?.rawValue ?? "-",
         "\(m.takenAt.map { $0.timeIntervalSinceReferenceDate.bitPattern } ?? 0)", "\(m.utcOffsetSeconds ?? 1)", m.timeSource.rawValue,
         m.metadataDigest ?? "-"]
    }

    func testEveryFieldComesBackFromItsRecord() throws {
        // A name that is not UTF-8, a digest that is not 16 hex digits, a pin at sea, each verdict.
        let m = PhotoMetadata(format: .matroska, coordinate: Coordinate(latitude: -33.856784000000003, longitude: 151.215297),
                              locationIssue: "0,0 (no fix)", positionSource: .takeout,
                              takenAt: Date(timeIntervalSinceReferenceDate: 712_345_678.125), utcOffsetSeconds: -34200,
                              timeSource: .gpsInferredOffset, metadataDigest: "Not-Hex")
        let id = UUID(uuidString: "0F601B8A-1C2D-4E5F-8A9B-0C1D2E3F4A5B")!
        let verdicts: [ImportRules.Verdict?] = [
            nil, .accepted, .noLocation(reason: "no GPS position"), .interval(seconds: 59.5, previous: "/lib/é.jpg"),
            .distance(kilometres: 4.999, radians: 0.0007847, pin: "Café \"x\"", pinCoordinate: Coordinate(latitude: 1.5, longitude: -0.25)),
        ]
        var items: [ImportItem] = []
        for (k, verdict) in verdicts.enumerated() {
            items.append(ImportItem(entry: entry([0x61, 0xFF, 0x2F, UInt8(0x30 + k)]), metadata: m, decision: verdict?.decision ?? .noLocation,
                                    verdict: verdict, pin: verdict == .accepted ? PinPlan(id: id, country: "JP", title: "Kyoto, Japan", place: PinPlace(placeID: 1857910, place: "Kyoto", region: "Kyoto", regionCode: "JP-26")) : nil))
        }
        items.append(ImportItem(entry: entry([0x7A], size: 0), error: "truncated: 3 bytes", decision: .unreadable))
        items.append(ImportItem(entry: entry(Array("b.xmp".utf8)), decision: .notMedia))
        let files = try DecidedFiles(items)
        let back = Array(files)
        XCTAssertEqual(back.count, items.count)
        for (a, b) in zip(items, back) {
            XCTAssertEqual(a.entry, b.entry)
            XCTAssertEqual(a.decision, b.decision)
            XCTAssertEqual(a.verdict, b.verdict)
            XCTAssertEqual(a.pin, b.pin)
            XCTAssertEqual(a.error, b.error)
            XCTAssertEqual(a.metadata.map(fields), b.metadata.map(fields))
            XCTAssertEqual(a.takenAt.timeIntervalSinceReferenceDate.bitPattern, b.takenAt.timeIntervalSinceReferenceDate.bitPattern)
            XCTAssertEqual(a.detail, b.detail)
        }
        XCTAssertEqual(back[4].detail, "4.99 km from pin 'Café \"x\"'", "4,999 m: whole metres, cut to 10 m")
        // Counts kept as written; a filter skips the others.
        XCTAssertEqual(files.tally.byDecision, [.noLocation: 2, .accepted: 1, .interval: 1, .distance: 1, .unreadable: 1, .notMedia: 1])
        XCTAssertEqual(files.tally.withLocation, 5)
        XCTAssertEqual(files.tally.notMedia, 0, "a sidecar is not counted as 'not media'")
        XCTAssertEqual(files.only([.unreadable, .accepted]).map(\.entry.relativePath.bytes), [[0x61, 0xFF, 0x2F, 0x31], [0x7A]])
        XCTAssertEqual(files.only([.unreadable, .accepted]).count, 2)
        XCTAssertEqual(Array(files).count, items.count, "read again: a second pass gives the same files")
    }

    func testTheSorterGivesTheRulesOrderOverManyRunsAndMergePasses() throws {
        // 500 items, instants with many ties, paths in random byte order; a third are not photos.
        var generator = SeededRandom(seed: 1)
        var items: [ImportItem] = []
        for k in 0..<500 {
            let path = (0..<Int.random(in: 1...6, using: &generator)).map { _ in UInt8.random(in: 0x2E...0x7A, using: &generator) } + [UInt8(k % 256), UInt8(k / 256)]
            if k % 3 == 0 {
                items.append(ImportItem(entry: entry(path), decision: k % 2 == 0 ? .notMedia : .unreadable))
            } else {
                let taken = Date(timeIntervalSince1970: Double(Int.random(in: 0..<40, using: &generator)))
                items.append(ImportItem(entry: entry(path), metadata: PhotoMetadata(format: .jpeg, takenAt: taken, timeSource: .exifOffset),
                                        decision: .noLocation))
            }
        }
        // What the rules' order is, worked out here: photos by (instant, path bytes), then the rest by path bytes.
        let photos = items.filter { $0.metadata != nil }.sorted {
            $0.takenAt != $1.takenAt ? $0.takenAt < $1.takenAt : $0.entry.relativePath.bytes.lexicographicallyPrecedes($1.entry.relativePath.bytes)
        }
        let rest = items.filter { $0.metadata == nil }.sorted { $0.entry.relativePath.bytes.lexicographicallyPrecedes($1.entry.relativePath.bytes) }
        let expected = (photos + rest).map(\.entry.relativePath)
        for (runLength, fanIn) in [(1000, 64), (7, 64), (7, 3), (1, 2)] {
            var sorter = ItemSorter(runLength: runLength, fanIn: fanIn, isCandidate: DecideStage.isCandidate)
            for item in items { try sorter.add(item) }
            var merged: [(Bool, ImportItem)] = []
            var sorted = try sorter.sorted()
            while let next = sorted.next() { merged.append(next) }
            XCTAssertEqual(merged.map(\.1.entry.relativePath), expected, "runs of \(runLength), \(fanIn) at once")
            XCTAssertEqual(merged.map(\.0), photos.map { _ in true } + rest.map { _ in false })
        }
    }

    func testANightWithNothingToDecideMakesNoScratchFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pins-no-scratch-\(UUID().uuidString)").path
        // A folder that does not exist: making a scratch file there would fail.
        setenv("TMPDIR", folder, 1)
        defer { unsetenv("TMPDIR") }
        let files = try DecidedFiles.Writer().finish()
        XCTAssertTrue(files.isEmpty)
        XCTAssertEqual(Array(files).count, 0)
        var sorter = ItemSorter(isCandidate: DecideStage.isCandidate)
        var sorted = try sorter.sorted()
        XCTAssertNil(sorted.next())
        XCTAssertThrowsError(try DecidedFiles([ImportItem(entry: entry([0x61]), decision: .notMedia)])) { error in
            XCTAssertEqual("\(error)", "cannot make a scratch file in \(folder): No such file or directory (TMPDIR chooses the folder)")
        }
    }
}
