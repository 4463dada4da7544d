import XCTest
@testable import PinFormats
@testable import PinGrammar

final class XMLPullParserTests: XCTestCase {
    private func events(_ text: String, chunk: Int = .max) throws -> [String] {
        let p = XMLPullParser(input: MemoryInput(text, chunk: chunk), bufferSize: 16)
        var out: [String] = []
        while let e = try p.next() {
            switch e {
            case .startElement:
                let attrs = p.attributes.map { " \($0.name)=\($0.value)" }.joined()
                out.append("<\(p.name)\(attrs)>")
            case .endElement: out.append("</\(p.name)>")
            case .text:
                let t = p.text.trimmingCharacters(in: .whitespacesAndNewlines)
                if !t.isEmpty { out.append("'\(t)'") }
            }
        }
        return out
    }

    func testAGPXDocumentAtEveryChunkSize() throws {
        let text = """
        \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE gpx [ <!ENTITY x "y"> ]>
        <!-- made by hand -->
        <gpx version="1.1" xmlns:gpxtpx='http://www.garmin.com/xmlschemas/TrackPointExtension/v1'>
          <trk><name>Caf&#233; &amp; &lt;bar&gt; &#x1F600; &nbsp;</name>
            <trkseg><trkpt lat="48.1" lon = '-2.5'><time>2024-05-01T10:00:00Z</time></trkpt><trkpt lat="1" lon="2"/></trkseg>
          </trk>
          <desc><![CDATA[a <b> & c]]></desc>
        </gpx>
        """
        let expected = ["<gpx version=1.1 xmlns:gpxtpx=http://www.garmin.com/xmlschemas/TrackPointExtension/v1>",
                        "<trk>", "<name>", "'Café & <bar> 😀 &nbsp;'", "</name>", "<trkseg>",
                        "<trkpt lat=48.1 lon=-2.5>", "<time>", "'2024-05-01T10:00:00Z'", "</time>", "</trkpt>",
                        "<trkpt lat=1 lon=2>", "</trkpt>", "</trkseg>", "</trk>", "<desc>", "'a <b> & c'",
                        "</desc>", "</gpx>"]
        for chunk in [1, 2, 5, 13, 10_000] {
            XCTAssertEqual(try events(text, chunk: chunk), expected, "chunk \(chunk)")
        }
    }

    func testLocalNamesAttributesAndReadText() throws {
        let p = XMLPullParser(input: MemoryInput(#"<kml><gx:Track><when>2024-01-01T00:00:00Z</when><gx:coord>2 1 0</gx:coord><a b:c="d"/></gx:Track></kml>"#, chunk: 3))
        XCTAssertEqual(try p.next(), .startElement)
        XCTAssertEqual(try p.next(), .startElement)
        XCTAssertEqual(p.name, "gx:Track")
        XCTAssertEqual(p.localName, "Track")
        XCTAssertEqual(try p.next(), .startElement)
        XCTAssertEqual(try p.readText(), "2024-01-01T00:00:00Z")
        XCTAssertEqual(try p.next(), .startElement)
        XCTAssertEqual(p.localName, "coord")
        XCTAssertEqual(try p.readText(), "2 1 0")
        XCTAssertEqual(try p.next(), .startElement)
        XCTAssertEqual(p.attribute("c"), "d")
        XCTAssertEqual(try p.next(), .endElement)
        XCTAssertEqual(p.name, "a")
        XCTAssertEqual(try p.next(), .endElement)
        XCTAssertEqual(p.depth, 1)
        XCTAssertEqual(try p.next(), .endElement)
        XCTAssertNil(try p.next())
    }

    func testMalformedDocumentsAreErrorsWithTheirOffset() {
        let cases: [(String, String, Int64)] = [
            ("<a><b></a>", "</a> closes <b>", 6),
            ("<a>", "ends inside <a>", 3),
            ("<a x=1/>", "not quoted", 5),
            ("<a x></a>", "has no '='", 4),
            ("<a/><b/>", "a second root", 4),
            ("<a/>text", "text after the root", 4),
            ("</a>", "closes nothing", 0),
            ("", "no root element", 0),
            ("<a><!-- x", "inside a comment", 7),
            ("<a x='<'/>", "'<' inside the value", 6),
        ]
        for (text, reason, offset) in cases {
            let p = XMLPullParser(input: MemoryInput(text, chunk: 2))
            do {
                while try p.next() != nil {}
                XCTFail("accepted \(text)")
            } catch let e as FormatError {
                XCTAssertTrue(e.reason.contains(reason), "\(text): \(e.reason)")
                XCTAssertEqual(e.offset, offset, "\(text): \(e)")
            } catch { XCTFail("\(error)") }
        }
    }

    func testEveryPrefixOfADocumentFailsCleanly() {
        let text = #"<?xml version="1.0"?><gpx><wpt lat="1" lon="2"><time>x</time></wpt><!--c--><![CDATA[d]]></gpx>"#
        let bytes = Array(text.utf8)
        for n in 0..<bytes.count {
            let p = XMLPullParser(input: MemoryInput(Array(bytes[0..<n])))
            XCTAssertThrowsError(try { while try p.next() != nil {} }(), "prefix of \(n) bytes")
        }
    }

    func testNestingDeeperThanTheLimitIsRefused() {
        let text = String(repeating: "<a>", count: XMLLimits.maxDepth + 1)
        let p = XMLPullParser(input: MemoryInput(text))
        XCTAssertThrowsError(try { while try p.next() != nil {} }()) { e in
            XCTAssertTrue("\(e)".contains("deeper"), "\(e)")
        }
    }

    /// Line ends as written are normalised (XML 1.0 section 2.11: CR LF and a lone CR become LF)
    /// in text, CDATA and attribute values, where the LF then becomes one space (3.3.3); a CR
    /// or LF written as a reference stays. By every accessor, at every chunk size (a CR LF
    /// split between two reads).
    func testLineEndsAreNormalised() throws {
        let doc = "<kml><Placemark a=\"1\r\n2\" b='1\r2' c=\"1&#13;&#10;2\"><name>x\r\ny\rz&#13;</name>"
            + "<description>p\r\nq<![CDATA[\r\n&amp;\r]]>r\r\n</description><when>s\r\nt</when></Placemark></kml>"
        for chunk in [1, 2, 3, 7, 10_000] {
            let p = XMLPullParser(input: MemoryInput(doc, chunk: chunk), bufferSize: 16)
            XCTAssertEqual(try p.next(), .startElement)
            XCTAssertEqual(try p.next(), .startElement)
            XCTAssertEqual(p.attributes.map(\.value), ["1 2", "1 2", "1\r\n2"], "chunk \(chunk)")
            XCTAssertEqual(p.attribute("a"), "1 2")
            XCTAssertEqual(p.withAttribute("a") { String(decoding: $0, as: UTF8.self) }, "1 2")
            XCTAssertEqual(p.withAttribute("b") { String(decoding: $0, as: UTF8.self) }, "1 2")
            XCTAssertEqual(p.withAttribute("c") { String(decoding: $0, as: UTF8.self) }, "1\r\n2")
            XCTAssertEqual(try p.next(), .startElement)
            XCTAssertEqual(try p.readText(), "x\ny\nz\r", "chunk \(chunk)")
            XCTAssertEqual(try p.next(), .startElement)
            XCTAssertEqual(try p.readTextBytes { String(decoding: $0, as: UTF8.self) }, "p\nq\n&amp;\nr\n", "chunk \(chunk)")
            XCTAssertEqual(try p.next(), .startElement)
            XCTAssertEqual(try p.readTextBytes { String(decoding: $0, as: UTF8.self) }, "s\nt", "chunk \(chunk)")
        }
    }

    /// The byte accessors give what the String ones give, at every chunk size (the window
    /// refilled inside names, values and text): entities, a tab in a value (a space in an
    /// attribute), text in several runs (text, a comment, CDATA), a prefix.
    func testByteAccessorsAgreeWithTheStringOnes() throws {
        let doc = "<gpx><p:pt p:lat=\"&#52;8.5\" lon=\"\t-2.5\" x='1'><time>2024-05-01T10:00<!--c-->:07<![CDATA[Z]]></time>"
            + "<time>a&amp;b</time><time>2024-05-01T10:00:00Z</time></p:pt></gpx>"
        for chunk in [1, 2, 3, 7, 10_000] {
            let p = XMLPullParser(input: MemoryInput(doc, chunk: chunk), bufferSize: 16)
            XCTAssertEqual(try p.next(), .startElement)
            XCTAssertTrue(p.localNameIs("gpx"))
            XCTAssertEqual(try p.next(), .startElement)
            XCTAssertTrue(p.localNameIs("pt"), "chunk \(chunk)")
            XCTAssertFalse(p.localNameIs("p:pt"))
            XCTAssertEqual(p.withAttribute("lat") { String(decoding: $0, as: UTF8.self) }, "48.5")
            XCTAssertEqual(p.withAttribute("lon") { String(decoding: $0, as: UTF8.self) }, " -2.5")
            XCTAssertEqual(p.attribute("lon"), " -2.5")
            XCTAssertNil(p.withAttribute("la") { _ in 0 })
            var texts: [String] = []
            while let e = try p.next(), e != .endElement {
                texts.append(try p.readTextBytes { String(decoding: $0, as: UTF8.self) })
            }
            XCTAssertEqual(texts, ["2024-05-01T10:00:07Z", "a&b", "2024-05-01T10:00:00Z"], "chunk \(chunk)")
            XCTAssertEqual(p.name, "p:pt")
            XCTAssertEqual(p.text, "", "no text at an end event")
        }
    }
}
