import XCTest
@testable import PinCore
@testable import PinPlaces
import PinStore

/// import-places' scratch database: records come back exactly, visits in time order, outcomes in
/// report order, and a spool larger than its cache goes to a file that has no name.
final class PlacesSpoolTests: XCTestCase {
    let files: [(path: String, kind: PlaceFileKind)] = [("/a/Timeline.json", .timeline), ("b.csv", .csv)]

    func record(_ position: String, date: PlaceDate?, type: VisitValues = .point) -> PlaceRecord {
        var r = PlaceRecord(position: position)
        r.date = date
        r.type = type
        return r
    }

    /// Every field of every case, and a date whose Double since 1970 is not its own (712,345,678.1
    /// s after 2001 is 1,690,652,478.1 s after 1970 only to the nearest Double): its digest too.
    func testEveryFieldOfARecordComesBack() throws {
        let d = Date(timeIntervalSinceReferenceDate: 712_345_678.1)
        XCTAssertNotEqual(Date(timeIntervalSince1970: d.timeIntervalSince1970).timeIntervalSinceReferenceDate.bitPattern,
                          d.timeIntervalSinceReferenceDate.bitPattern, "the date this test needs")
        var full = record("feature 7", date: .withOffset(d, -34200), type: VisitValues(type: .mountain, values: [.text("Matterhorn"), .number(4478), nil]))
        full.ownID = "ChIJ-x:2024-05-01T08:00:00Z"
        full.title = "Café \"é\""
        full.coordinate = Coordinate(latitude: -33.856784000000003, longitude: 151.215297)
        full.note = "line\nbreak"
        full.tags = ["a", ""]
        full.color = "#E53935"
        full.visitCount = 3
        full.photoIDs = ["p1", "p2"]
        full.edited = true
        var none = record("line 2", date: nil, type: VisitValues(type: .city, values: [.text("Kyoto"), nil]))
        none.locationIssue = "at 0,0 (no location)"
        none.tags = []
        let records = [full, none, record("3", date: .unknownOffset(d)), record("4", date: .utc(d)),
                       record("5", date: .wallClock("2024-05-01T12:00")),
                       record("6", date: nil, type: VisitValues(type: .city, values: [.text("Rome"), .text("Via 1")])),
                       record("7", date: nil, type: VisitValues(type: .mountain, values: [.text("K2"), nil, .number(8000.5)]))]
        for r in records {
            var w = ByteWriter()
            PlaceRecordCodec.encode(r, into: &w)
            let back = w.bytes.withUnsafeBytes { raw -> PlaceRecord in
                var cursor = ByteCursor(raw)
                defer { XCTAssertEqual(cursor.at, raw.count, "every byte read") }
                return PlaceRecordCodec.decode(&cursor)
            }
            XCTAssertEqual(back, r)
            XCTAssertEqual(back.digest, r.digest)
        }
    }

    func visit(_ sequence: Int, at instant: Double) -> PlacesImport.Pending {
        PlacesImport.Pending(fileIndex: 0, record: record("semanticSegment \(sequence)", date: nil), sequence: sequence, instant: instant)
    }

    /// By start time, then file order; no time (infinity) and NaN last, in file order.
    func testVisitsComeBackByTimeThenFileOrderInBatches() throws {
        let spool = try PlacesSpool(files: files)
        for (sequence, instant) in [(1, 300.0), (2, 100), (3, .infinity), (4, 100), (5, .nan), (6, -5), (8, 299.5)] {
            try spool.add(visit: visit(sequence, at: instant))
        }
        var batches: [[Int]] = []
        try spool.visitsInTimeOrder(3) { batch in
            batches.append(batch.map(\.sequence))
            XCTAssertEqual(batch.map(\.record.position), batch.map { "semanticSegment \($0.sequence)" })
        }
        XCTAssertEqual(batches, [[6, 2, 4], [8, 1, 3], [5]])
    }

    /// Added in any order, read back by sequence; `only` keeps that order; the counts.
    func testOutcomesInReportOrderWithTheirCounts() throws {
        let spool = try PlacesSpool(files: files)
        let id = UUID(uuidString: "0F601B8A-1C2D-4E5F-8A9B-0C1D2E3F4A5B")!
        var made = PlaceItem(file: "b.csv", kind: .csv, position: "line 2", decision: .created, title: "Trevi",
                             coordinate: Coordinate(latitude: 41.9009, longitude: 12.4833), date: "2024-03-02T00:00:00+01:00",
                             country: "IT", pinID: id, sequence: 3, fileIndex: 1)
        try spool.add(made)
        try spool.add(PlaceItem(file: "/a/Timeline.json", kind: .timeline, position: "semanticSegment 2", decision: .distance,
                                detail: "120 m from 'Home'", coordinate: Coordinate(latitude: 47.3769, longitude: 8.5417), sequence: 2))
        try spool.add(PlaceItem(file: "/a/Timeline.json", kind: .timeline, position: "semanticSegment 1", decision: .malformed,
                                detail: "no startTime", sequence: 1))
        made.sequence = 4
        made.decision = .unchanged
        try spool.add(made)
        let items = spool.items
        XCTAssertEqual(items.map(\.position), ["semanticSegment 1", "semanticSegment 2", "line 2", "line 2"])
        XCTAssertEqual(items.map(\.file), ["/a/Timeline.json", "/a/Timeline.json", "b.csv", "b.csv"])
        XCTAssertEqual(items.only([.unchanged, .created]).map(\.sequence), [3, 4])
        XCTAssertEqual(items.only(PlaceDecision.skipReasons).map(\.decision), [.malformed, .distance])
        XCTAssertEqual([items.count, items.only([.created, .distance]).count, items.tally.count(.malformed), items.tally.count(.updated)],
                       [4, 2, 1, 0])
        let first = try XCTUnwrap(items.only([.created]).first { _ in true })
        XCTAssertEqual([first.title, first.date, first.country, first.detail], ["Trevi", "2024-03-02T00:00:00+01:00", "IT", nil])
        XCTAssertEqual(first.pinID, id)
        XCTAssertEqual(first.coordinate, Coordinate(latitude: 41.9009, longitude: 12.4833))
        XCTAssertEqual(Array(items.only([.distance])).first?.detail, "120 m from 'Home'")
        XCTAssertTrue(PlaceItems().isEmpty)
    }

    /// The open files of the process that SQLite made for a scratch database: unlinked.
    func scratchFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { fd in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)
            return target.flatMap { $0.contains("etilqs_") ? $0 : nil }
        }
    }

    /// 20 MB of keys and visits, over its 8 MB cache: on disk, in a file with no name, closed
    /// with the spool.
    func testASpoolLargerThanItsCacheIsAFileWithNoName() throws {
        XCTAssertEqual(try scratchFiles(), [])
        var spool: PlacesSpool? = try PlacesSpool(files: files)
        let note = String(repeating: "n", count: 150)
        for n in 0..<80_000 {
            var pending = visit(n + 1, at: Double(n % 1000))
            pending.record.note = note
            try spool!.add(visit: pending)
            XCTAssertTrue(try spool!.firstSeen("timeline:id:ChIJ\(n)"))
        }
        XCTAssertFalse(try spool!.firstSeen("timeline:id:ChIJ17"))
        let open = try scratchFiles()
        XCTAssertEqual(open.count, 1, "\(open)")
        XCTAssertTrue(open.allSatisfy { $0.hasSuffix(" (deleted)") }, "\(open)")
        var count = 0, last = -1.0
        try spool!.visitsInTimeOrder(500) { batch in
            for v in batch {
                XCTAssertGreaterThanOrEqual(v.instant, last)
                last = v.instant
            }
            count += batch.count
        }
        XCTAssertEqual(count, 80_000)
        spool = nil
        XCTAssertEqual(try scratchFiles(), [])
    }
}
