@testable import PinReport
import XCTest

/// The text escapes of the exports, by hand-worked strings.
final class ExportTextTests: XCTestCase {
    /// A KML description is HTML: the five characters as entities (`'` as `&#39;`), each line
    /// feed a `<br>` (two in a row two, one at the end one), a carriage return left out (CRLF
    /// is one break), other text as it is.
    func testHTMLTextEscapesTheFiveAndBreaksLines() {
        XCTAssertEqual(htmlText(#"a & b < c > d "e" 'f'"#), "a &amp; b &lt; c &gt; d &quot;e&quot; &#39;f&#39;")
        XCTAssertEqual(htmlText("one\r\ntwo\n\nthree\n"), "one<br>two<br><br>three<br>")
        XCTAssertEqual(htmlText("\r"), "")
        XCTAssertEqual(htmlText("Île-de-France\u{301}\n<b>"), "Île-de-France\u{301}<br>&lt;b&gt;")
        XCTAssertEqual(htmlText(""), "")
    }

    /// XML text: the five entities, a CR as `&#13;`, a character XML cannot carry as U+FFFD.
    func testXMLEscapedReplacesWhatXMLCannotCarry() {
        XCTAssertEqual(xmlEscaped("a&b<c>\"d\"'e'"), "a&amp;b&lt;c&gt;&quot;d&quot;&apos;e&apos;")
        XCTAssertEqual(xmlEscaped("x\u{1}y\rz"), "x\u{FFFD}y&#13;z")
    }
}
