import XCTest
@testable import PinGrammar

/// XML 1.0 references, worked by hand from the spec (sections 2.2, 3.3.3, 4.1, 4.6); for each
/// text, Python's expat (`xml.etree.ElementTree.fromstring("<a>" + text + "</a>")`) gives the
/// same character or refuses the same reference.
final class XMLReferencesTests: XCTestCase {
    private func keep(_ text: String, attribute: Bool = false) -> String {
        var out: [UInt8] = []
        let problem = Array(text.utf8).withUnsafeBufferPointer {
            XMLReferences.decode($0, attribute: attribute, unresolved: .keep, into: &out)
        }
        XCTAssertNil(problem)
        return String(decoding: out, as: UTF8.self)
    }

    private func fail(_ text: String) -> XMLReferences.Problem? {
        var out: [UInt8] = []
        return Array(text.utf8).withUnsafeBufferPointer { XMLReferences.decode($0, attribute: false, unresolved: .fail, into: &out) }
    }

    func testPredefinedEntitiesAndCharacterReferences() {
        XCTAssertEqual(keep("&lt;&gt;&amp;&quot;&apos;"), "<>&\"'")
        XCTAssertEqual(keep("&#65;&#x41;&#x61;"), "AAa")
        XCTAssertEqual(keep("Caf&#233;"), "Café")
        // U+1F600 is F0 9F 98 80 in UTF-8.
        XCTAssertEqual(Array(keep("&#x1F600;").utf8), [0xF0, 0x9F, 0x98, 0x80])
        XCTAssertEqual(Array(keep("&#x20AC;&#2047;").utf8), [0xE2, 0x82, 0xAC, 0xDF, 0xBF])  // €, U+07FF
        XCTAssertNil(fail("a &amp; b &#x1F600;"))
    }

    /// Where the track readers' parser and XMP's reader differed before they shared this code:
    /// both read `&#X41;` and `&#+65;` as "A" (UInt32(_:radix:) takes a sign and both cases of x),
    /// both read `&#0;` as NUL, the track parser `&#xD800;` as U+FFFD; none is a reference by the
    /// spec (expat: "invalid token", "reference to invalid character number"). And a reference
    /// longer than 12 bytes was "unterminated" for both, though `&#x0000000041;` is "A".
    func testWhatIsNotAReferenceIsKeptOrRefused() {
        for text in ["&#X41;", "&#+65;", "&#0;", "&#xD800;", "&#x110000;", "&#;", "&foo;", "&nbsp;", "a & b", "&amp"] {
            XCTAssertEqual(keep(text), text, text)
            XCTAssertNotNil(fail(text), text)
        }
        XCTAssertEqual(keep("&#x0000000041;"), "A")
        XCTAssertEqual(fail("ab&foo;"), XMLReferences.Problem(offset: 2, reason: "unknown entity '&foo;'"))
        XCTAssertEqual(fail("a & b"), XMLReferences.Problem(offset: 2, reason: "unterminated entity"))
        XCTAssertEqual(fail("&#xD800;"), XMLReferences.Problem(offset: 0, reason: "character reference '&#xD800;' is not an XML character"))
        // A kept reference does not stop the ones after it.
        XCTAssertEqual(keep("&foo;&amp;&#0;&#x9;"), "&foo;&&#0;\t")
    }

    /// In an attribute value a tab, LF or CR as written becomes a space; as a reference it stays.
    func testAttributeWhiteSpace() {
        XCTAssertEqual(keep("x\ty\nz\rw&#x9;v", attribute: true), "x y z w\tv")
        XCTAssertEqual(keep("x\ty", attribute: false), "x\ty")
    }

    /// Line ends are normalised before anything else (section 2.11): CR LF and a lone CR become
    /// LF, in text and, before white space becomes spaces (3.3.3), in an attribute value, where
    /// CR LF is then one space, not two. A CR or LF written as a reference stays, in both.
    func testLineEndsAreNormalisedFirst() {
        XCTAssertEqual(keep("a\r\nb", attribute: true), "a b")
        XCTAssertEqual(keep("a\rb", attribute: true), "a b")
        XCTAssertEqual(keep("a&#13;&#10;b", attribute: true), "a\r\nb")
        XCTAssertEqual(keep("a\r\r\nb\n\rc\r", attribute: true), "a  b  c ")
        XCTAssertEqual(keep("a\r\nb"), "a\nb")
        XCTAssertEqual(keep("a\rb"), "a\nb")
        XCTAssertEqual(keep("a&#13;&#10;b&#xD;"), "a\r\nb\r")
        XCTAssertEqual(keep("a\r\r\nb\n\rc\r"), "a\n\nb\n\nc\n")
        XCTAssertEqual(keep("&amp;\r\n&lt;"), "&\n<")
        // CDATA: line ends only, an `&` is no reference there.
        var out: [UInt8] = []
        Array("a\r\n&amp;\rb\r\r\n".utf8).withUnsafeBufferPointer { XMLReferences.normaliseLineEnds($0, into: &out) }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "a\n&amp;\nb\n\n")
    }

    /// The writing side: what `escaped` writes, `decode` reads back as it was, in text and in an
    /// attribute value; characters XML cannot carry are left out (`.drop`) or written as U+FFFD
    /// (`.replace`).
    func testEscapedTextReadsBackAsItWas() {
        let text = "A & <B> 'C' \"D\" Café \u{1F600}"
        XCTAssertEqual(XMLReferences.escaped(text, notXML: .drop), "A &amp; &lt;B&gt; &apos;C&apos; &quot;D&quot; Café \u{1F600}")
        XCTAssertEqual(keep(XMLReferences.escaped(text, notXML: .drop)), text)
        XCTAssertEqual(keep(XMLReferences.escaped(text, notXML: .drop), attribute: true), text)
        XCTAssertEqual(XMLReferences.escaped("a\u{1}b\u{FFFE}c\td", notXML: .drop), "abc\td")
        // A CR as a reference: written as it is, it would read back as LF (section 2.11).
        XCTAssertEqual(XMLReferences.escaped("a\r\nb\rc", notXML: .drop), "a&#13;\nb&#13;c")
        XCTAssertEqual(keep(XMLReferences.escaped("a\r\nb\rc", notXML: .drop)), "a\r\nb\rc")
        XCTAssertEqual(XMLReferences.escaped("a\u{1}b\u{FFFF}c\td\u{1F}<", notXML: .replace), "a\u{FFFD}b\u{FFFD}c\td\u{FFFD}&lt;")
        // In an attribute value a tab and a line feed as references: written as they are, each
        // reads back as a space (section 3.3.3); in text they stay as they are.
        let lines = "IMG\t1\nIMG 2\r\n.jpg"
        XCTAssertEqual(XMLReferences.escaped(lines, notXML: .drop, attribute: true), "IMG&#9;1&#10;IMG 2&#13;&#10;.jpg")
        XCTAssertEqual(keep(XMLReferences.escaped(lines, notXML: .drop, attribute: true), attribute: true), lines)
        XCTAssertEqual(keep(XMLReferences.escaped(lines, notXML: .drop)), lines)
        XCTAssertEqual(XMLReferences.escaped("a\tb\nc", notXML: .drop), "a\tb\nc")
    }
}
