import XCTest
@testable import PinFormats

/// The one JSON writer sits beside the one reader (issue 35 item 3): what it writes, worked out
/// by hand from RFC 8259, and read back by `JSONReader` to the values written.
final class JSONTextTests: XCTestCase {
    func testTheWriterWritesRFC8259TextTheReaderReadsBack() throws {
        // Keys sorted; a control character as \u with four hex digits, the short escapes for
        // quote, backslash, newline, tab; integral doubles without a fraction, others shortest.
        let value: [String: Any] = ["z": [1, 2.5, 3.0, true, NSNull()] as [Any], "a": "q\"b\\n\n\t\u{1F}é"]
        let text = JSONText.string(value)
        XCTAssertEqual(text, #"{"a":"q\"b\\n\n\t\u001fé","z":[1,2.5,3,true,null]}"#)
        let r = JSONReader(input: MemoryInput(text, chunk: 3))
        var read: [String] = []
        while let t = try r.next() {
            switch t {
            case .key, .string, .number: read.append("\(t) \(r.string)")
            default: read.append("\(t)")
            }
        }
        XCTAssertEqual(read, ["objectStart", "key a", "string q\"b\\n\n\t\u{1F}é", "key z", "arrayStart", "number 1",
                              "number 2.5", "number 3", "true", "null", "arrayEnd", "objectEnd"])
    }

    func testScriptSafeTextEscapesWhatCouldEndTheScriptElement() {
        XCTAssertEqual(JSONText.scriptSafe(#"{"a":"</script><!--&\#u{2028}"}"#),
                       #"{"a":"\u003c/script\u003e\u003c!--\u0026\u2028"}"#)
    }
}
