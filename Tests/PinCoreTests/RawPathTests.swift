import TestSupport
import XCTest
@testable import PinCore

/// Issue 15 item 7: a path's text (JSON, photo ids, exports, the map page) is unambiguous and
/// gives the bytes back. Expected texts worked by hand from the rule in `RawPath.description`.
final class RawPathTests: XCTestCase {
    /// `a<FF>.jpg` (the byte 0xFF) and a name that really is `a\xFF.jpg` (four characters).
    let byteFF = RawPath(bytes: [0x61, 0xFF, 0x2E, 0x6A, 0x70, 0x67])
    let literal = RawPath(bytes: [0x61, 0x5C, 0x78, 0x46, 0x46, 0x2E, 0x6A, 0x70, 0x67])

    func testAByteThatIsNotUTF8AndTheSameCharactersGetDifferentTexts() {
        XCTAssertEqual(byteFF.description, #"a\xFF.jpg"#)
        XCTAssertEqual(literal.description, #"a\\xFF.jpg"#)
    }

    func testTextsAsHandWorked() {
        let cases: [([UInt8], String)] = [
            (Array("2023/IMG_0001.jpg".utf8), "2023/IMG_0001.jpg"),
            (Array("caf\u{E9}.jpg".utf8), "caf\u{E9}.jpg"),                 // UTF-8 é stays é
            ([0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6A, 0x70, 0x67], #"caf\xE9.jpg"#), // Latin-1 é is a byte
            ([0x5C], #"\\"#),
            ([0x5C, 0xFF], #"\\\xFF"#),
            ([0xE2, 0x82], #"\xE2\x82"#),                                   // a cut 3-byte sequence
            ([0xE2, 0x82, 0xAC, 0x5C, 0x6E], #"€\\n"#),
            ([0x0A], "\n"),                                                 // JSON escapes it, not this text
        ]
        for (bytes, text) in cases {
            XCTAssertEqual(RawPath(bytes: bytes).description, text, "\(bytes)")
            XCTAssertEqual(RawPath(escaped: text)?.bytes, bytes, text)
        }
    }

    func testTextReadsBackToTheSameBytes() {
        var generator = SeededRandom(seed: 1)
        // Every byte value, alone and around backslashes and valid sequences.
        for byte in 0...255 {
            for bytes in [[UInt8(byte)], [0x5C, UInt8(byte), 0x78], [UInt8(byte), 0xC3, 0xA9, UInt8(byte)]] {
                XCTAssertEqual(RawPath(escaped: RawPath(bytes: bytes).description)?.bytes, bytes)
            }
        }
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                [0x5C, 0x78, 0x46, 0xFF, 0xC3, 0xA9, 0x61][Int.random(in: 0...6, using: &generator)] as UInt8
            }
            XCTAssertEqual(RawPath(escaped: RawPath(bytes: bytes).description)?.bytes, bytes, "\(bytes)")
        }
    }

    func testTextThatNoPathHasIsRefused() {
        for text in [#"\"#, #"a\b"#, #"\x4"#, #"\xff"#, #"\xG0"#] {
            XCTAssertNil(RawPath(escaped: text), text)
        }
    }

    func testCStringHasTheBytesAndOneNUL() {
        // Short (stack buffer), empty, and 5,000 bytes (longer than any stack buffer), with a
        // byte that is not UTF-8.
        for bytes in [Array("2019/01/12/IMG_0001.jpg".utf8) + [0xFF], [], [UInt8](repeating: 0x61, count: 5_000)] {
            let copied = RawPath(bytes: bytes).withCString { c -> [UInt8] in
                XCTAssertEqual(strlen(c), bytes.count)
                return (0...bytes.count).map { UInt8(bitPattern: c[$0]) }
            }
            XCTAssertEqual(copied, bytes + [0])
        }
    }

    func testAppendingPutsOneSlash() {
        XCTAssertEqual(RawPath("/lib").appending(Array("a/b.jpg".utf8)).bytes, Array("/lib/a/b.jpg".utf8))
        XCTAssertEqual(RawPath("/").appending(Array("b.jpg".utf8)).bytes, Array("/b.jpg".utf8))
        XCTAssertEqual(RawPath("").appending(Array("b.jpg".utf8)).bytes, Array("b.jpg".utf8))
    }
}
