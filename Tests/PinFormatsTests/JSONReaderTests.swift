import XCTest
@testable import PinFormats

final class JSONReaderTests: XCTestCase {
    /// Every token with its text, as one line each: the reader's whole output for `text`.
    private func tokens(_ text: String, chunk: Int = .max) throws -> [String] {
        let r = JSONReader(input: MemoryInput(text, chunk: chunk), bufferSize: 16)
        var out: [String] = []
        while let t = try r.next() {
            switch t {
            case .key: out.append("key \(r.string)")
            case .string: out.append("string \(r.string)")
            case .number: out.append("number \(r.string)")
            default: out.append("\(t)")
            }
        }
        return out
    }

    func testTokensOfANestedDocumentAtEveryChunkSize() throws {
        let text = #"{"locations": [{"latitudeE7": 414216106, "timestampMs": "1393177470000", "a": [true, false, null, -1.5e3, 0]}], "e": {}, "f": []}"#
        let expected = ["objectStart", "key locations", "arrayStart", "objectStart", "key latitudeE7",
                        "number 414216106", "key timestampMs", "string 1393177470000", "key a", "arrayStart",
                        "true", "false", "null", "number -1.5e3", "number 0", "arrayEnd", "objectEnd", "arrayEnd",
                        "key e", "objectStart", "objectEnd", "key f", "arrayStart", "arrayEnd", "objectEnd"]
        for chunk in [1, 2, 3, 7, 1000] {
            XCTAssertEqual(try tokens(text, chunk: chunk), expected, "chunk \(chunk)")
        }
    }

    func testEscapesAreDecoded() throws {
        // RFC 8259 section 7: the two-character escapes, \u with a surrogate pair (U+1F600), a
        // lone surrogate (becomes U+FFFD).
        let r = JSONReader(input: MemoryInput(#"["a\"b\\c\/d\n\t", "\u00e9\ud83d\ude00", "\ud800x"]"#, chunk: 3))
        XCTAssertEqual(try r.next(), .arrayStart)
        XCTAssertEqual(try r.next(), .string)
        XCTAssertEqual(r.string, "a\"b\\c/d\n\t")
        XCTAssertEqual(try r.next(), .string)
        XCTAssertEqual(r.string, "é😀")
        XCTAssertEqual(try r.next(), .string)
        XCTAssertEqual(r.string, "\u{FFFD}x")
        XCTAssertEqual(try r.next(), .arrayEnd)
        XCTAssertNil(try r.next())
    }

    func testNumbersAndNumericStrings() throws {
        let r = JSONReader(input: MemoryInput(#"[414216106, -21684775, 48.8566, "1393177470000", 1e400, "x"]"#))
        _ = try r.next()
        _ = try r.next(); XCTAssertEqual(r.int64, 414216106)
        _ = try r.next(); XCTAssertEqual(r.int64, -21684775); XCTAssertEqual(r.double, -21684775)
        _ = try r.next(); XCTAssertNil(r.int64); XCTAssertEqual(r.double, 48.8566)
        _ = try r.next(); XCTAssertEqual(r.int64, 1393177470000); XCTAssertTrue(r.matches("1393177470000"))
        _ = try r.next(); XCTAssertNil(r.double, "an infinite value is no number")
        _ = try r.next(); XCTAssertNil(r.double); XCTAssertTrue(r.matches("x")); XCTAssertFalse(r.matches("xy"))
    }

    func testSkipValueSkipsWholeContainers() throws {
        let r = JSONReader(input: MemoryInput(#"{"activity": [{"type": [1, {"a": 2}]}], "b": 3, "c": {"d": [4]}, "e": 5}"#, chunk: 2))
        XCTAssertEqual(try r.next(), .objectStart)
        XCTAssertEqual(try r.next(), .key); XCTAssertTrue(r.matches("activity"))
        try r.skipValue()
        XCTAssertEqual(try r.next(), .key); XCTAssertTrue(r.matches("b"))
        try r.skipValue()
        XCTAssertEqual(try r.next(), .key); XCTAssertTrue(r.matches("c"))
        XCTAssertEqual(try r.next(), .objectStart)
        try r.skipValue()
        XCTAssertEqual(r.depth, 1)
        XCTAssertEqual(try r.next(), .key); XCTAssertTrue(r.matches("e"))
        XCTAssertEqual(try r.next(), .number); XCTAssertEqual(r.int64, 5)
        XCTAssertEqual(try r.next(), .objectEnd)
        XCTAssertNil(try r.next())
    }

    func testMalformedInputIsAnErrorWithItsOffset() {
        let cases: [(String, String, Int64)] = [
            (#"{"a" 1}"#, "expected ':'", 5),
            (#"{"a": 1 "b": 2}"#, "expected ',' or '}'", 8),
            (#"[1, 2"#, "ends inside an array", 5),
            (#"[01]"#, "not a number", 1),
            (#"[1.]"#, "not a number", 1),
            (#"["a\x"]"#, "bad escape", 3),
            ("[\"a\u{01}\"]", "control character", 3),
            (#"[tru]"#, "not a JSON value", 1),
            (#"[truex]"#, "not a JSON value", 5),
            (#"{"a": 1}}"#, "more text after", 8),
            (#"{"a": 1,}"#, "expected a member name", 8),
            (#"[1,]"#, "where a value was expected", 3),
            ("", "empty input", 0),
            (#"{1: 2}"#, "expected a member name", 1),
        ]
        for (text, reason, offset) in cases {
            let r = JSONReader(input: MemoryInput(text, chunk: 2))
            do {
                while try r.next() != nil {}
                XCTFail("accepted \(text)")
            } catch let e as FormatError {
                XCTAssertTrue(e.reason.contains(reason), "\(text): \(e.reason)")
                XCTAssertEqual(e.offset, offset, "\(text): \(e)")
            } catch { XCTFail("\(error)") }
        }
    }

    func testEveryPrefixOfADocumentFailsCleanly() {
        let text = #"{"locations": [{"latitudeE7": 1, "s": "a\u00e9", "t": true}]}"#
        let bytes = Array(text.utf8)
        for n in 0..<bytes.count {
            let r = JSONReader(input: MemoryInput(Array(bytes[0..<n])))
            XCTAssertThrowsError(try { while try r.next() != nil {} }(), "prefix of \(n) bytes")
        }
    }

    func testNestingDeeperThanTheLimitIsRefused() {
        let text = String(repeating: "[", count: JSONLimits.maxDepth + 1)
        let r = JSONReader(input: MemoryInput(text))
        XCTAssertThrowsError(try { while try r.next() != nil {} }()) { e in
            XCTAssertTrue("\(e)".contains("nested deeper"), "\(e)")
        }
    }

    func testALongStringGrowsTheWindow() throws {
        let long = String(repeating: "x", count: 100_000)
        let r = JSONReader(input: MemoryInput("[\"\(long)\"]", chunk: 4096), bufferSize: 16)
        _ = try r.next()
        XCTAssertEqual(try r.next(), .string)
        XCTAssertEqual(r.string.count, 100_000)
    }
}
