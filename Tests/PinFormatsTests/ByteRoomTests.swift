import PinFormats
import XCTest

/// `ByteRoom`: what does not fit its first room is written again in a larger one, whole; JSON
/// strings escaped as the hand-written texts say.
final class ByteRoomTests: XCTestCase {
    func testWhatDoesNotFitIsWrittenAgainWhole() {
        var out: [UInt8] = Array("x".utf8)
        let long = String(repeating: "abcdefgh", count: 5_000)  // 40,000 bytes: past the first rooms
        var tries = 0
        ByteRoom.append(to: &out) { room in
            tries += 1
            room.put(UInt8(ascii: "<"))
            room.put(long)
            room.put(Array(">".utf8))
        }
        XCTAssertEqual(out.count, 1 + 40_002)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "x<" + long + ">")
        XCTAssertEqual(tries, 6, "1 KiB, then 4, 8, 16, 32, 64 KiB")
    }

    func testJSONStringsAreEscapedAsWrittenHere() {
        var out: [UInt8] = []
        ByteRoom.append(to: &out) { room in
            room.putJSONString("a\"b\\c\nd\re\tf\u{1}g\u{1f}h\u{7f} \u{e9}\u{1F3D4}")
            room.put(UInt8(ascii: ","))
            room.putJSONString("plain")
        }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), #""a\"b\\c\nd\re\tf\u0001g\u001fh"# + "\u{7f} \u{e9}\u{1F3D4}\",\"plain\"")
        var long: [UInt8] = []
        JSONText.appendString(String(repeating: "\"", count: 3_000), to: &long)
        XCTAssertEqual(long.count, 6_002)
    }
}
