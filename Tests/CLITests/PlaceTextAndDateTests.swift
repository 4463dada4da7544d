import Foundation
import XCTest

/// Issue 40 items 3, 4, 5 and 13: text with control characters, CSV records past the reader's
/// bounds, dates outside what pins can write back, and a known offset of 0, through
/// `import-places`, `list` and `export`. Each file is written here, byte for byte.
final class PlaceTextAndDateTests: XCTestCase {
    struct Env {
        let dir: URL
        let db: String
        @discardableResult
        func pins(_ args: [String], status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> Run {
            let run = try CLI.run(args + ["--db", db])
            XCTAssertEqual(run.status, status, "\(args): \(run.stderr)", file: file, line: line)
            return run
        }
        func json(_ args: [String], status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
            try CLI.json(try pins(args, status: status, file: file, line: line).stdout) as! [String: Any]
        }
        func list() throws -> [[String: Any]] { try CLI.json(try pins(["list", "--json"]).stdout) as! [[String: Any]] }
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let url = dir.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return url.path
        }
    }

    func env() throws -> Env {
        let dir = try CLI.temporaryDirectory(self)
        return Env(dir: dir, db: dir.appendingPathComponent("pins.sqlite").path)
    }

    /// A NUL cut the text where SQLite was given it (`a\0bcdef` stored as `a`), and the record's
    /// digest with it, so every later import said "updated" and dated an undated record now.
    /// Control characters but TAB, LF and CR are dropped where a file's text is read.
    func testControlCharactersAreDroppedAndAReimportChangesNothing() throws {
        let e = try env()
        let csv = try e.write("nul.csv", Array("title,latitude,longitude,notes\r\n".utf8) + Array("a".utf8) + [0]
            + Array("bcdef,48.85,2.35,\"x\u{1B}[31my\tz\nw\"\r\nundated\u{7F},45.1,7.6,\r\n".utf8))
        let geojson = try e.write("nul.geojson", Array(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"g\u0000h\u0001i"},"geometry":{"type":"Point","coordinates":[139.7,35.6]}}]}"#.utf8))
        let first = try e.json(["import-places", csv, geojson, "--json"])
        XCTAssertEqual((first["counts"] as! [String: Any])["created"] as? Int, 3)
        let pins = try e.list()
        XCTAssertEqual(Set(pins.map { $0["title"] as! String }), ["abcdef", "undated", "ghi"])
        XCTAssertEqual(pins.first { $0["title"] as? String == "abcdef" }?["note"] as? String, "x[31my\tz\nw")
        let undatedBefore = pins.first { $0["title"] as? String == "undated" }?["date"] as? String
        for _ in 0..<2 {
            let again = try e.json(["import-places", csv, geojson, "--json"])
            let counts = again["counts"] as! [String: Any]
            XCTAssertEqual(counts["unchanged"] as? Int, 3, "\(again)")
            XCTAssertEqual(counts["updated"] as? Int ?? 0, 0, "\(again)")
        }
        XCTAssertEqual(try e.list().first { $0["title"] as? String == "undated" }?["date"] as? String, undatedBefore)
    }

    /// Titles past 1,000 characters and notes past 65,536 are cut, and the report says so.
    func testLongTextIsCutAndTheRecordNamed() throws {
        let e = try env()
        let long = String(repeating: "é", count: 1_500), note = String(repeating: "n", count: 70_000)
        let csv = try e.write("long.csv", Array("title,latitude,longitude,notes\n\(long),48.85,2.35,\(note)\n".utf8))
        let run = try e.json(["import-places", csv, "--json"])
        let created = run["pins"] as! [[String: Any]]
        XCTAssertEqual(created.first?["detail"] as? String, "title cut to 1000 characters; note cut to 65536 characters", "\(run)")
        let pin = try e.list()[0]
        XCTAssertEqual(pin["title"] as? String, String(repeating: "é", count: 1_000))
        XCTAssertEqual((pin["note"] as? String)?.count, 65_536)
    }

    /// A field over 1 MiB, or more than 10,000 fields, ended the file ("1 record, 1 malformed",
    /// exit 0): now that record is named and the rows after it are read. A quote left open
    /// runs to the end of the file: where rows end after it cannot be known, so the file stops
    /// there with 65, naming the line.
    func testACSVRecordPastABoundIsNamedAndTheRowsAfterItAreRead() throws {
        let e = try env()
        let huge = String(repeating: "x", count: (1 << 20) + 1)
        let many = Array(repeating: "f", count: 10_001).joined(separator: ",")
        let csv = try e.write("bounds.csv", Array("title,latitude,longitude\none,48.85,2.35\n\(huge),1,1\ntwo,45.1,7.6\n\(many)\n\"quoted\nover lines \(huge)\",3,3\nthree,35.6,139.7\n".utf8))
        let run = try e.json(["import-places", csv, "--json"])
        XCTAssertEqual((run["pins"] as! [[String: Any]]).map { $0["title"] as! String }, ["one", "two", "three"])
        let skipped = (run["skipped"] as! [[String: Any]]).map { "\($0["position"]!): \($0["detail"]!)" }
        XCTAssertEqual(skipped, ["line 3: a field longer than 1048576 bytes",
                                 "line 5: more than 10000 fields in one record",
                                 "line 6: a field longer than 1048576 bytes"])
        let open = try e.write("open.csv", Array("title,latitude,longitude\nfour,1.5,1.5\n\"open,2,2\nfive,3.5,3.5\n".utf8))
        let stopped = try e.pins(["import-places", open], status: 65)
        XCTAssertTrue(stopped.stderr.contains("line 3: a quoted field is not closed before the end of the file; reading stopped there; the records before it were imported"), stopped.stderr)
        XCTAssertEqual(Set(try e.list().map { $0["title"] as! String }), ["one", "two", "three", "four"])
    }

    /// One calendar, proleptic Gregorian: a date before 1582 went through Foundation's Julian
    /// calendar on the way in and came back 10 days later at every export and import. Dates pins
    /// cannot write (year 0, the year 10000 in UTC) are refused by their record.
    func testOldDatesRoundTripAndDatesPinsCannotWriteAreRefused() throws {
        let e = try env()
        let csv = try e.write("dates.csv", Array("""
            title,latitude,longitude,date
            old,48.85,2.35,1500-03-01T12:00:00+01:00
            year zero,45.1,7.6,0000-06-01T00:00:00Z
            last day,35.6,139.7,9999-12-31T12:00:00+09:00
            past the end,40.7,-74.0,9999-12-31T23:00:00-05:00
            leap,-33.8,151.2,1600-02-29T10:00:00+10:00
            no such day,-33.9,18.4,1700-02-29T10:00:00+02:00

            """.utf8))
        let run = try e.json(["import-places", csv, "--json"])
        XCTAssertEqual((run["pins"] as! [[String: Any]]).map { $0["title"] as! String }, ["old", "last day", "leap"])
        let skipped = (run["skipped"] as! [[String: Any]]).map { "\($0["position"]!) \($0["reason"]!)" }
        XCTAssertEqual(skipped, ["line 3 malformed", "line 5 malformed", "line 7 malformed"])
        XCTAssertTrue(((run["skipped"] as! [[String: Any]])[0]["detail"] as! String).contains("in the years 1 to 9999"))
        let dates = Dictionary(uniqueKeysWithValues: try e.list().map { ($0["title"] as! String, $0["date"] as! String) })
        XCTAssertEqual(dates, ["old": "1500-03-01T12:00:00+01:00", "last day": "9999-12-31T12:00:00+09:00", "leap": "1600-02-29T10:00:00+10:00"])
        // Exported and imported again: the same dates (not 10 days later), the same CSV.
        let first = e.dir.appendingPathComponent("first.csv"), second = e.dir.appendingPathComponent("second.csv")
        try e.pins(["export", "--format", "csv", "--out", first.path])
        let other = Env(dir: e.dir, db: e.dir.appendingPathComponent("other.sqlite").path)
        try other.pins(["import-places", first.path, "--quiet"])
        try other.pins(["export", "--format", "csv", "--out", second.path])
        try ImportPlacesTests.assertSameButIDs(first, second, idPattern: "^[0-9a-f-]{36},")
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: try other.list().map { ($0["title"] as! String, $0["date"] as! String) }), dates)
        // `add` refuses what it could not write, with 64.
        let zero = try e.pins(["add", "--lat", "1", "--lon", "1", "--date", "0000-12-31T00:00:00Z"], status: 64)
        XCTAssertTrue(zero.stderr.contains("in the years 1 to 9999"), zero.stderr)
    }

    /// Item 13: a pin whose offset is known to be 0 came back from its CSV without `utcOffset`
    /// (the export wrote `Z`, which also means "unknown"). It is written `+00:00` now.
    func testAKnownZeroOffsetSurvivesACSVRoundTrip() throws {
        let e = try env()
        try e.pins(["add", "--lat", "51.4779", "--lon", "-0.0015", "--title", "Greenwich", "--date", "2024-01-15T12:00:00+00:00"])
        let before = try e.list()[0]
        XCTAssertEqual(before["utcOffset"] as? Int, 0)
        let csv = e.dir.appendingPathComponent("zero.csv")
        try e.pins(["export", "--format", "csv", "--out", csv.path])
        XCTAssertTrue(try String(contentsOf: csv, encoding: .utf8).contains(",2024-01-15T12:00:00+00:00,"))
        let other = Env(dir: e.dir, db: e.dir.appendingPathComponent("other.sqlite").path)
        try other.pins(["import-places", csv.path, "--quiet"])
        let after = try other.list()[0]
        XCTAssertEqual(after["date"] as? String, "2024-01-15T12:00:00Z")
        XCTAssertEqual(after["utcOffset"] as? Int, 0)
    }
}
