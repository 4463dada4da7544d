@testable import PinCore
import XCTest

/// What reaches a terminal from user text: escapes written out, never obeyed.
final class TerminalTextTests: XCTestCase {
    func testEscapeBellAndBidirectionalOverridesAreWrittenOut() {
        XCTAssertEqual(TerminalText.escaped("a\u{1B}[31mred\u{07}"), "a\\033[31mred\\a")
        // U+202E RIGHT-TO-LEFT OVERRIDE is E2 80 AE in UTF-8; U+2067 RIGHT-TO-LEFT ISOLATE E2 81 A7.
        XCTAssertEqual(TerminalText.escaped("x\u{202E}gpj.exe"), "x\\342\\200\\256gpj.exe")
        XCTAssertEqual(TerminalText.escaped("\u{2067}y"), "\\342\\201\\247y")
        // C1 CSI (U+009B) is C2 9B.
        XCTAssertEqual(TerminalText.escaped("\u{9B}2J"), "\\302\\2332J")
        // Plain text, accents, CJK and Arabic with its marks stay as they are.
        for plain in ["Zürich", "京都", "Kraków, Poland", "مكة\u{200F}"] {
            XCTAssertEqual(TerminalText.escaped(plain), plain)
        }
    }

    func testFileNamesAreQuotedWithTheSameRule() {
        XCTAssertEqual(TerminalText.quoted(RawPath("photo\u{202E}gpj.exe")), "\"photo\\342\\200\\256gpj.exe\"")
        XCTAssertEqual(TerminalText.quoted(RawPath("plain.jpg")), "plain.jpg")
    }

    func testMessagesKeepTheirLineBreaks() {
        XCTAssertEqual(TerminalText.escapedLines("got '\u{1B}[2J'\nRun 'pins --help'"), "got '\\033[2J'\nRun 'pins --help'")
        XCTAssertEqual(TerminalText.escapedLines("one\ntwo\n"), "one\ntwo\n")
    }
}
