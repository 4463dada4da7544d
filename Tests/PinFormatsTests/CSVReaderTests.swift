@testable import PinFormats
import XCTest

/// RFC 4180 section 2, rule by rule, with hand-written inputs; each read at every chunk size
/// from 1 byte (every token split across chunks) to the whole input.
final class CSVReaderTests: XCTestCase {
    func records(_ text: String, delimiter: Character = ",", file: StaticString = #filePath, line: UInt = #line) throws -> [[String]] {
        let bytes = Array(text.utf8)
        var first: [[String]]?
        for size in [1, 2, 3, 7, bytes.count + 1] {
            var reader = CSVReader(MemoryInput(bytes, chunk: size), delimiter: delimiter.asciiValue!)
            var out: [[String]] = []
            while let record = try reader.nextRecord() { out.append(record.fields) }
            if let first { XCTAssertEqual(out, first, "chunk size \(size)", file: file, line: line) } else { first = out }
        }
        return first ?? []
    }

    func testRule1And2RecordsOnLinesTheLastLineBreakOptional() throws {
        XCTAssertEqual(try records("aaa,bbb,ccc\r\nzzz,yyy,xxx\r\n"), [["aaa", "bbb", "ccc"], ["zzz", "yyy", "xxx"]])
        XCTAssertEqual(try records("aaa,bbb,ccc\r\nzzz,yyy,xxx"), [["aaa", "bbb", "ccc"], ["zzz", "yyy", "xxx"]])
        // LF and lone CR line ends, as spreadsheets on other systems write them.
        XCTAssertEqual(try records("a,b\nc,d\re,f\n"), [["a", "b"], ["c", "d"], ["e", "f"]])
    }

    func testRule4EmptyFieldsAndSpacesKept() throws {
        XCTAssertEqual(try records(",a, b ,\r\n"), [["", "a", " b ", ""]])
    }

    func testRule5To7QuotedFieldsWithCommasLineBreaksAndDoubledQuotes() throws {
        XCTAssertEqual(try records("\"aaa\",\"b\r\nbb\",\"c,cc\"\r\nzzz,\"y\"\"y\",\"\"\r\n"),
                       [["aaa", "b\r\nbb", "c,cc"], ["zzz", "y\"y", ""]])
    }

    func testLineNumbersCountLineBreaksInsideQuotes() throws {
        var reader = CSVReader(MemoryInput(Array("h\r\n\"a\nb\"\r\nc\r\n".utf8)))
        var lines: [Int] = []
        while let record = try reader.nextRecord() { lines.append(record.line) }
        XCTAssertEqual(lines, [1, 2, 4])
    }

    func testByteOrderMarkDroppedAndOnlyAtTheStart() throws {
        XCTAssertEqual(try records("\u{FEFF}lat,lon\r\n1,2\r\n"), [["lat", "lon"], ["1", "2"]])
        XCTAssertEqual(try records("a,\u{FEFF}b\r\n"), [["a", "\u{FEFF}b"]])
        // Only the first byte of a BOM: kept as text (not UTF-8: U+FFFD).
        XCTAssertEqual(try records("\u{EF}x"), [["\u{EF}x"]])
    }

    func testLenientQuotesAsReadersInPracticeReadThem() throws {
        XCTAssertEqual(try records("a\"b,\"c\"d\r\n"), [["a\"b", "cd"]])
    }

    func testSemicolonAndTabDelimitersSplitFieldsAndACommaStaysInside() throws {
        XCTAssertEqual(try records("lat;lon\r\n48,5;2\r\n", delimiter: ";"), [["lat", "lon"], ["48,5", "2"]])
        XCTAssertEqual(try records("a\tb\n", delimiter: "\t"), [["a", "b"]])
    }

    func testUnterminatedQuoteNamesItsLine() throws {
        var reader = CSVReader(MemoryInput(Array("a\r\nb\r\n\"open\r\nmore".utf8)))
        XCTAssertEqual(try reader.nextRecord()?.fields, ["a"])
        XCTAssertEqual(try reader.nextRecord()?.fields, ["b"])
        XCTAssertThrowsError(try reader.nextRecord()) { error in
            XCTAssertEqual(error as? CSVReader.Failure, .unterminatedQuote(line: 3))
        }
    }

    func testAFieldPastTheLimitIsAnErrorNotMemory() throws {
        var reader = CSVReader(MemoryInput([UInt8](repeating: UInt8(ascii: "x"), count: CSVReader.maxFieldBytes + 10), chunk: 65536))
        XCTAssertEqual(try reader.nextRecord(), CSVReader.Record(fields: [], line: 1, failure: .fieldTooLong(line: 1)))
        XCTAssertNil(try reader.nextRecord())
    }

    /// Issue 40 item 4: a record past a bound ended the file. It is read to its end by the same
    /// grammar (a quoted field's line breaks stay inside it), returned empty with its failure,
    /// and the next record is read where it starts.
    func testARecordPastABoundIsNamedAndTheNextOneRead() throws {
        let long = String(repeating: "x", count: CSVReader.maxFieldBytes + 1)
        let quotedLines = "\"" + String(repeating: "y\n", count: 600_000) + "\""
        let many = Array(repeating: "f", count: CSVReader.maxFields + 1).joined(separator: ",")
        let wide = Array(repeating: String(repeating: "w", count: CSVReader.maxFieldBytes - 1), count: 5).joined(separator: ",")
        let text = "a,b\n\(long),1\nc,d\n\(quotedLines),z\ne,f\n\(many)\ng,h\n\(wide)\ni,j"
        for chunk in [1 << 16, 4093] {
            var reader = CSVReader(MemoryInput(Array(text.utf8), chunk: chunk))
            var got: [CSVReader.Record] = []
            while let r = try reader.nextRecord() { got.append(r) }
            XCTAssertEqual(got, [
                CSVReader.Record(fields: ["a", "b"], line: 1),
                CSVReader.Record(fields: [], line: 2, failure: .fieldTooLong(line: 2)),
                CSVReader.Record(fields: ["c", "d"], line: 3),
                CSVReader.Record(fields: [], line: 4, failure: .fieldTooLong(line: 4)),
                // Line 4 holds the opening quote and 600,000 line breaks inside it: e,f is on 600,005.
                CSVReader.Record(fields: ["e", "f"], line: 600_005),
                CSVReader.Record(fields: [], line: 600_006, failure: .tooManyFields(line: 600_006)),
                CSVReader.Record(fields: ["g", "h"], line: 600_007),
                CSVReader.Record(fields: [], line: 600_008, failure: .recordTooLong(line: 600_008)),
                CSVReader.Record(fields: ["i", "j"], line: 600_009),
            ])
        }
    }

    func testInvalidUTF8ReadAsReplacementCharacters() throws {
        var reader = CSVReader(MemoryInput([0x61, 0xFF, 0x2C, 0x62]))
        XCTAssertEqual(try reader.nextRecord()?.fields, ["a\u{FFFD}", "b"])
    }
}
