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
        let text = String(repeating: "<a>", count: XMLOptions().maxDepth + 1)
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

    // MARK: Options (XMP reads through these)

    /// Every event of `text` read with `options` through chunks of `chunk` bytes, or the error's
    /// offset and reason.
    private func read(_ text: String, _ options: XMLOptions, chunk: Int = .max,
                      _ each: (XMLPullParser, XMLEvent) -> Void = { _, _ in }) -> (events: Int, error: FormatError?, parser: XMLPullParser) {
        let p = XMLPullParser(input: MemoryInput(text, chunk: chunk), bufferSize: 16, options: options)
        var n = 0
        do {
            while let e = try p.next() { n += 1; each(p, e) }
            return (n, nil, p)
        } catch {
            return (n, error as? FormatError, p)
        }
    }

    /// A DOCTYPE, skipped by default (the track files' GPX above has one), is an error at its
    /// `<` when refused: XMP allows none, so no entity can be defined to expand.
    func testADoctypeIsRefusedWhenAsked() {
        let text = "<?xml version='1.0'?>\n<!DOCTYPE a [<!ENTITY x 'xxxxxxxx'>]><a>&amp;</a>"
        XCTAssertNil(read(text, XMLOptions()).error)
        let refused = read(text, XMLOptions(doctype: .refuse), chunk: 3)
        XCTAssertEqual(refused.events, 0)
        XCTAssertEqual(refused.error?.offset, 22, "'<?xml version='1.0'?>' is 21 bytes, then the line feed")
        XCTAssertTrue(refused.error?.reason.contains("DOCTYPE") == true, "\(String(describing: refused.error))")
    }

    /// References that cannot be resolved: kept as written by default, an error at the `&`
    /// with `.fail`, in text and in attribute values.
    func testUnresolvedReferencesFailWhenAsked() {
        let strict = XMLOptions(unresolvedReferences: .fail)
        var texts: [String] = []
        XCTAssertNil(read("<a>x &nbsp; y</a>", XMLOptions()) { p, e in if e == .text { texts.append(p.text) } }.error)
        XCTAssertEqual(texts, ["x &nbsp; y"])
        for chunk in [1, 4, .max] {
            XCTAssertEqual(read("<a>x &nbsp; y</a>", strict, chunk: chunk).error?.offset, 5)
            XCTAssertEqual(read("<a>x &nbsp; y</a>", strict, chunk: chunk).error?.reason, "unknown entity '&nbsp;'")
            XCTAssertEqual(read("<a b='&lt;&bogus;'/>", strict, chunk: chunk).error?.offset, 10)
            XCTAssertEqual(read("<a b='&#0;'>&#65;</a>", strict, chunk: chunk).error?.offset, 6)
            XCTAssertNil(read("<a b='&#x41;&quot;'>&lt;&#65;<![CDATA[&bogus;]]></a>", strict, chunk: chunk).error)
        }
    }

    /// `endTagOffset`: the `</` of an end tag, counted by hand; an empty element has none.
    func testAnEndTagsOffset() {
        // <r> is bytes 0-2, <a> 3-5, t 6, </a> 7-10, <b/> 11-14, </r> 15-18.
        var ends: [String] = []
        let r = read("<r><a>t</a><b/></r>", XMLOptions(), chunk: 2) { p, e in
            if e == .endElement { ends.append("\(p.name) \(p.endTagOffset.map(String.init) ?? "none")") }
            if e != .endElement { XCTAssertNil(p.endTagOffset) }
        }
        XCTAssertNil(r.error)
        XCTAssertEqual(ends, ["a 7", "b none", "r 15"])
    }

    /// A packet (XMP) ends with its root element and its trailer; where the rest begins is
    /// `trailingOffset`, and it is not read. Offsets counted by hand.
    func testAPacketEndsWithItsRootAndTrailer() {
        let packet = XMLOptions(packet: true)
        // <a></a> is bytes 0-6, NUL 7, space 8, <!--c--> 9-16, <?xpacket end='w'?> 17-35, LF 36,
        // then the older packet's tail from byte 37.
        let text = "<a></a>\0 <!--c--><?xpacket end='w'?>\n</a>tail"
        for chunk in [1, 3, .max] {
            let r = read(text, packet, chunk: chunk)
            XCTAssertNil(r.error)
            XCTAssertEqual(r.events, 2)
            XCTAssertEqual(r.parser.trailingOffset, 37, "chunk \(chunk)")
            XCTAssertNil(try r.parser.next(), "nothing more is read")
        }
        XCTAssertNotNil(read(text, XMLOptions()).error, "a document: text after its root is an error")
        // Without a trailer: from the first byte that is not padding, a comment or an instruction.
        XCTAssertEqual(read("<a/> <?pi x?>xyz", packet).parser.trailingOffset, 13)
        XCTAssertEqual(read("<a/><!-- cut", packet).parser.trailingOffset, 4)
        XCTAssertEqual(read("<a/><b/>", packet).parser.trailingOffset, 4)
        // Only padding after the trailer, or none at all: nothing left over.
        XCTAssertNil(read("<a/><?xpacket end='w'?>\0\0 \n", packet).parser.trailingOffset)
        XCTAssertNil(read("<a/>", packet).parser.trailingOffset)
        // NUL padding before the root, and bytes that hold no root: no error in a packet.
        XCTAssertNil(read("\0 \0<a/>", packet).error)
        XCTAssertEqual(read("\0 \0<a/>", XMLOptions()).error?.offset, 0)
        XCTAssertEqual(read(" \0 ", packet).events, 0)
        XCTAssertNil(read(" \0 ", packet).error)
        XCTAssertNotNil(read("<a>", packet).error, "a packet cut inside its root is still broken")
    }

    /// Namespaces: each name's URI through the `xmlns` declarations in scope (an element's own
    /// apply to its name and attributes, and end with it); an unprefixed attribute has none.
    func testNamespacesAreResolvedInScope() {
        let text = "<r xmlns:p='urn:one' xmlns='urn:d'><p:e p:k='1' k='2'><i xmlns:p='urn:&amp;two' p:k='3'/></p:e><p:z/></r>"
        var seen: [String] = []
        let r = read(text, XMLOptions(namespaces: true), chunk: 5) { p, e in
            switch e {
            case .startElement:
                let attributes = p.namespacedAttributes.map { " {\($0.namespaceURI)}\($0.localName)=\($0.value)" }.joined()
                seen.append("<{\(p.namespaceURI)}\(p.namespaceLocalName)\(attributes)>")
            case .endElement: seen.append("</{\(p.namespaceURI)}\(p.namespaceLocalName)>")
            case .text: break
            }
        }
        XCTAssertNil(r.error)
        XCTAssertEqual(seen, ["<{urn:d}r>", "<{urn:one}e {urn:one}k=1 {}k=2>", "<{urn:d}i {urn:&two}k=3>", "</{urn:d}i>",
                              "</{urn:one}e>", "<{urn:one}z>", "</{urn:one}z>", "</{urn:d}r>"])
        // A prefix bound nowhere, or out of scope (bound by a sibling), is an error at its tag.
        let unbound = read("<r><a xmlns:q='u'/><q:x/></r>", XMLOptions(namespaces: true))
        XCTAssertEqual(unbound.error?.offset, 19)
        XCTAssertEqual(unbound.error?.reason, "unbound prefix 'q'")
        // A name split at its first colon: `p:a:b` is `a:b` in p's namespace, as XMP always read it.
        var odd: [String] = []
        XCTAssertNil(read("<p:a:b xmlns:p='urn:p' p:c:d='1'/>", XMLOptions(namespaces: true)) { p, e in
            if e == .startElement { odd = [p.namespaceURI, p.namespaceLocalName, p.localName.description] + p.namespacedAttributes.map(\.localName) }
        }.error)
        XCTAssertEqual(odd, ["urn:p", "a:b", "b", "c:d"])
        XCTAssertNil(read("<r><q:x/></r>", XMLOptions()).error, "without namespaces a prefix is only split off")
    }

    /// The limits are options: elements in all, nesting, attributes on one tag.
    func testTheLimitsAreOptions() {
        // <a> is bytes 0-2, <b/> 3-6, <c/> from 7.
        let elements = read("<a><b/><c/></a>", XMLOptions(maxElements: 2))
        XCTAssertEqual(elements.error?.offset, 7)
        XCTAssertEqual(elements.error?.reason, "more than 2 elements")
        XCTAssertEqual(read("<a><b><c/></b></a>", XMLOptions(maxDepth: 2)).error?.reason, "elements nested deeper than 2")
        XCTAssertNil(read("<a><b/></a>", XMLOptions(maxDepth: 2)).error)
        XCTAssertEqual(read("<a x='1' y='2'/>", XMLOptions(maxAttributes: 1)).error?.reason, "more than 1 attributes on <a>")
        let many = "<a " + (0..<300).map { "x\($0)='1'" }.joined(separator: " ") + "/>"
        XCTAssertNotNil(read(many, XMLOptions()).error)
        XCTAssertNil(read(many, XMLOptions(maxAttributes: 1_024)).error)
    }
}
