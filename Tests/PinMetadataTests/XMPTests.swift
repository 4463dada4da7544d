import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

final class XMPTests: XCTestCase {
    /// An ExifTool-style packet with the given attributes on one rdf:Description.
    static func packet(attributes: String, extraNamespaces: String = "") -> String {
        """
        <?xpacket begin='\u{FEFF}' id='W5M0MpCehiHzreSzNTczkc9d'?>
        <x:xmpmeta xmlns:x='adobe:ns:meta/'>
        <rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>
         <rdf:Description rdf:about=''
          xmlns:exif='http://ns.adobe.com/exif/1.0/'
          xmlns:photoshop='http://ns.adobe.com/photoshop/1.0/'
          xmlns:xmp='http://ns.adobe.com/xap/1.0/' \(extraNamespaces)
          \(attributes)/>
        </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end='w'?>
        """
    }

    /// The same with child elements.
    static func packet(elements: String) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/"
              xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
           \(elements)
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        """
    }

    private func parse(_ text: String, zone: TimeZone = utc) throws -> XMPValues {
        try XCTUnwrap(XMP.parse(Array(text.utf8), options: MetadataOptions(defaultTimeZone: zone)))
    }

    // MARK: Forms and namespaces

    func testAttributeAndElementFormsAgree() throws {
        let a = try parse(Self.packet(attributes: """
            exif:GPSLatitude='48,51.4998N' exif:GPSLongitude='2,17,40E' exif:GPSAltitude='855/10' exif:GPSAltitudeRef='1'
            exif:DateTimeOriginal='2023-07-14T10:11:12.39+02:00'
            """))
        let e = try parse(Self.packet(elements: """
            <exif:GPSLatitude>48,51.4998N</exif:GPSLatitude>
            <exif:GPSLongitude>2,17,40E</exif:GPSLongitude>
            <exif:GPSAltitude>855/10</exif:GPSAltitude>
            <exif:GPSAltitudeRef>1</exif:GPSAltitudeRef>
            <exif:DateTimeOriginal>2023-07-14T10:11:12.39+02:00</exif:DateTimeOriginal>
            """))
        for v in [a, e] {
            let c = try XCTUnwrap(v.coordinate)
            XCTAssertEqual(c.latitude, 48 + 51.4998 / 60, accuracy: 1e-12)
            XCTAssertEqual(c.longitude, 2 + 17 / 60.0 + 40 / 3600.0, accuracy: 1e-12)
            XCTAssertEqual(v.altitude, -85.5)
            XCTAssertEqual(try XCTUnwrap(v.takenAt).timeIntervalSince1970, 1_689_322_272.39, accuracy: 1e-6)
            XCTAssertEqual(v.utcOffsetSeconds, 7200)
            XCTAssertEqual(v.timeSource, .isoWithOffset)
            XCTAssertEqual(v.timeProperty, "exif:DateTimeOriginal")
        }
        XCTAssertEqual(a.coordinate, e.coordinate)
        XCTAssertEqual(a.takenAt, e.takenAt)
    }

    func testPrefixesAreMatchedByURI() throws {
        // An unknown prefix bound to the exif URI.
        let odd = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:foo="http://ns.adobe.com/exif/1.0/" foo:GPSLatitude="10,30N">
            <foo:GPSLongitude>20,15W</foo:GPSLongitude></rdf:Description></rdf:RDF></x:xmpmeta>
            """
        XCTAssertEqual(try parse(odd).coordinate, Coordinate(latitude: 10.5, longitude: -20.25))
        // The usual prefix bound to another URI is not exif.
        let wrong = """
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:exif="http://example.com/not-exif/" exif:GPSLatitude="10,30N" exif:GPSLongitude="20,15W"/>
            </rdf:RDF>
            """
        let w = try parse(wrong)
        XCTAssertNil(w.coordinate)
        XCTAssertNil(w.locationIssue)
        // Default namespace and a redeclared prefix inside the element.
        let scoped = """
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://example.com/">
            <rdf:Description><GPSLatitude xmlns="http://ns.adobe.com/exif/1.0/">1,30S</GPSLatitude>
            <e:GPSLongitude xmlns:e="http://ns.adobe.com/exif/1.0/">2,0E</e:GPSLongitude></rdf:Description></rdf:RDF>
            """
        XCTAssertEqual(try parse(scoped).coordinate, Coordinate(latitude: -1.5, longitude: 2))
        // exifEX is a known namespace (kept in properties) but holds no position.
        let ex = try parse(Self.packet(attributes: "exifEX:LensModel='RF 24-70'",
                                       extraNamespaces: "xmlns:exifEX='http://cipa.jp/exif/1.0/'"))
        XCTAssertEqual(ex.properties["exifEX:LensModel"], "RF 24-70")
    }

    func testOnlyTopLevelDescriptionsCount() throws {
        // An exif-looking attribute in a nested resource (a history entry) is not the photo's.
        let nested = """
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:exif="http://ns.adobe.com/exif/1.0/"
              xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/">
            <rdf:Description><xmpMM:History><rdf:Seq><rdf:li>
              <rdf:Description exif:GPSLatitude="1,0N" exif:GPSLongitude="1,0E"/>
            </rdf:li></rdf:Seq></xmpMM:History></rdf:Description></rdf:RDF>
            """
        XCTAssertNil(try parse(nested).coordinate)
        // Several top-level descriptions: first value wins per property.
        let several = """
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:exif="http://ns.adobe.com/exif/1.0/">
            <rdf:Description exif:GPSLatitude="10,0N"/><rdf:Description exif:GPSLongitude="20,0E" exif:GPSLatitude="30,0N"/>
            </rdf:RDF>
            """
        XCTAssertEqual(try parse(several).coordinate, Coordinate(latitude: 10, longitude: 20))
    }

    func testAltSeqValuesAndEntities() throws {
        let v = try parse(Self.packet(elements: """
            <photoshop:DateCreated><rdf:Seq><rdf:li>2023-07-14T10:11:12+02:00</rdf:li><rdf:li>1999</rdf:li></rdf:Seq></photoshop:DateCreated>
            <exif:GPSLatitude><![CDATA[48,51.4998N]]></exif:GPSLatitude>
            <exif:GPSLongitude>2,17&#x2C;40E</exif:GPSLongitude>
            <!-- a comment -->
            <xmp:CreatorTool>A &amp; B &lt;x&gt;</xmp:CreatorTool>
            """))
        XCTAssertEqual(v.takenAt, epoch(1_689_322_272))
        XCTAssertEqual(v.timeProperty, "photoshop:DateCreated")
        XCTAssertNotNil(v.coordinate)
        XCTAssertEqual(v.properties["xmp:CreatorTool"], "A & B <x>")
    }

    /// XML 1.0 line ends (section 2.11: CR LF and a lone CR become LF, before an attribute
    /// value's LF becomes a space, 3.3.3): a value written on Windows reads as written on Unix;
    /// a CR written as a reference stays (inside the value: the ends of a value are trimmed).
    func testLineEndsInAttributesTextAndCDATA() throws {
        let a = try parse(Self.packet(attributes: "xmp:CreatorTool='A\r\nB\rC&#13;&#10;D'"))
        XCTAssertEqual(a.properties["xmp:CreatorTool"], "A B C\r\nD")
        let e = try parse(Self.packet(elements: "<xmp:CreatorTool>A\r\nB\rC&#13;D</xmp:CreatorTool>"))
        XCTAssertEqual(e.properties["xmp:CreatorTool"], "A\nB\nC\rD")
        let c = try parse(Self.packet(elements: "<xmp:CreatorTool><![CDATA[A\r\nB\r&#13;D]]></xmp:CreatorTool>"))
        XCTAssertEqual(c.properties["xmp:CreatorTool"], "A\nB\n&#13;D")
    }

    // MARK: Coordinates

    func testXMPCoordinatesInDegreesMinutesOrDecimalFormReadAndMalformedOnesAreRefused() {
        let lat: (String) -> Double? = { XMP.coordinate($0, positive: "N", negative: "S") }
        let lon: (String) -> Double? = { XMP.coordinate($0, positive: "E", negative: "W") }
        XCTAssertEqual(try XCTUnwrap(lat("48,51.4998N")), 48 + 51.4998 / 60, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(lat("48,51,29.99N")), 48 + 51 / 60.0 + 29.99 / 3600, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(lon("2,17,40E")), 2 + 17 / 60.0 + 40 / 3600, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(lon("122,4.8W")), -(122 + 4.8 / 60), accuracy: 1e-12)
        XCTAssertEqual(lat("-33.86"), -33.86)
        XCTAssertEqual(lat("33.86"), 33.86)
        XCTAssertEqual(lat("33.86s"), -33.86)
        XCTAssertEqual(lat(" 10,30N "), 10.5)
        for bad in ["", "N", "48,51.4998E", "abc", "48,61N", "48,10,60N", "48.5,10N", "-48,10N", "48,,10N",
                    "48,10,20,30N", "48;10N", "1e3", "48 10N", "+-5", "12,5"] {
            XCTAssertNil(lat(bad), bad)
        }
    }

    func testMalformedCoordinatesGiveNoPosition() throws {
        let v = try parse(Self.packet(attributes: "exif:GPSLatitude='48,51.4998E' exif:GPSLongitude='2,17,40E'"))
        XCTAssertNil(v.coordinate)
        XCTAssertEqual(v.locationIssue, "malformed XMP GPSLatitude '48,51.4998E'")
        let w = try parse(Self.packet(attributes: "exif:GPSLatitude='48,51.4998N'"))
        XCTAssertNil(w.coordinate)
        XCTAssertEqual(w.locationIssue, GPSConversion.Issue.longitudeMissing)
        let z = try parse(Self.packet(attributes: "exif:GPSLatitude='0,0N' exif:GPSLongitude='0,0E'"))
        XCTAssertEqual(z.locationIssue, GPSConversion.Issue.nullIsland)
        let far = try parse(Self.packet(attributes: "exif:GPSLatitude='95,0N' exif:GPSLongitude='0,10E'"))
        XCTAssertEqual(far.locationIssue, GPSConversion.Issue.latitudeOutOfRange)
    }

    func testXMPAltitudeRef1IsBelowSeaLevelAndAnUnreadableOneWarns() throws {
        var w: [String] = []
        XCTAssertEqual(XMP.altitude("855/10", ref: "1", warnings: &w), -85.5)
        XCTAssertEqual(XMP.altitude("855/10", ref: "0", warnings: &w), 85.5)
        XCTAssertEqual(XMP.altitude("35", ref: nil, warnings: &w), 35)
        XCTAssertEqual(w, [])
        XCTAssertNil(XMP.altitude("1/0", ref: nil, warnings: &w))
        XCTAssertNil(XMP.altitude("high", ref: nil, warnings: &w))
        XCTAssertEqual(w.count, 2)
    }

    // MARK: Dates

    func testXMPDatesWithAZoneAreInstantsWithoutOneTakeTheDefaultZoneAndDatesAloneAreNone() throws {
        let paris = TimeZone(identifier: "Europe/Paris")!
        let cases: [(String, Double?, Int?, TimeSource)] = [
            ("2023-07-14T10:11:12+02:00", 1_689_322_272, 7200, .isoWithOffset),
            ("2023-07-14T08:11:12Z", 1_689_322_272, 0, .isoWithOffset),
            ("2023-07-14T10:11:12.5+0200", 1_689_322_272.5, 7200, .isoWithOffset),
            ("2023-07-14T10:11+02:00", 1_689_322_260, 7200, .isoWithOffset),     // no seconds
            ("2023-07-14T10:11:12", 1_689_322_272, 7200, .assumedZone),          // local, in Paris
            ("2023:07:14 10:11:12", 1_689_322_272, 7200, .assumedZone),          // Exif-style separators
            ("2023-07-14T10:11", 1_689_322_260, 7200, .assumedZone),
            ("2023-07-14", nil, nil, .none),                                      // date only: not an instant
            ("2023-07-14T10:11:12+1:00", 1_689_325_872, 3600, .isoWithOffset),   // one-digit hour
            ("2023-07-14T10:11:12-9:30", 1_689_363_672, -34_200, .isoWithOffset),
            ("2023-07-14T10:11:12+100", nil, nil, .none),                         // ambiguous
            ("2023-07", nil, nil, .none),
            ("2023", nil, nil, .none),
            ("2023-13-01T00:00:00Z", nil, nil, .none),
            ("2023-07-14T25:00:00Z", nil, nil, .none),
            ("2023-07-14T10:11:12+15:00", nil, nil, .none),
            ("2023-07-14T10:11:12 junk", nil, nil, .none),
            // A space before the offset (photoshop:DateCreated on real files, issue 24).
            ("2015-01-22T00:00:00 +00:00", 1_421_884_800, 0, .isoWithOffset),
            ("2023-07-14T10:11:12 +02:00", 1_689_322_272, 7200, .isoWithOffset),
            ("2023-07-14T10:11:12  -0930", 1_689_363_672, -34_200, .isoWithOffset),
            ("2023-07-14T10:11 Z", 1_689_329_460, 0, .isoWithOffset),
            ("2023-07-14T10:11:12 +", nil, nil, .none),
            ("", nil, nil, .none),
        ]
        for (text, seconds, offset, source) in cases {
            let v = try parse(Self.packet(attributes: "exif:DateTimeOriginal='\(text)'"), zone: paris)
            XCTAssertEqual(v.takenAt.map { $0.timeIntervalSince1970 }, seconds, text)
            XCTAssertEqual(v.utcOffsetSeconds, offset, text)
            XCTAssertEqual(v.timeSource, source, text)
        }
    }

    func testDatePropertyOrder() throws {
        let all = try parse(Self.packet(attributes: """
            xmp:CreateDate='2001-01-01T00:00:00Z' photoshop:DateCreated='2002-01-01T00:00:00Z' exif:DateTimeOriginal='2003-01-01T00:00:00Z'
            """))
        XCTAssertEqual(all.timeProperty, "exif:DateTimeOriginal")
        // xmp:CreateDate before photoshop:DateCreated (docs/formats.md 9.14).
        let two = try parse(Self.packet(attributes: "xmp:CreateDate='2001-01-01T00:00:00Z' photoshop:DateCreated='2002-01-01T00:00:00Z'"))
        XCTAssertEqual(two.timeProperty, "xmp:CreateDate")
        XCTAssertEqual(two.takenAt, epoch(978_307_200))
        // A date-only value is not a capture instant; a later property with a time wins; a
        // broken one is skipped.
        let mixed = try parse(Self.packet(attributes: "exif:DateTimeOriginal='bad' xmp:CreateDate='2002-01-01' photoshop:DateCreated='2001-01-01T00:00:00Z'"))
        XCTAssertEqual(mixed.timeProperty, "photoshop:DateCreated")
        let dateOnly = try parse(Self.packet(attributes: "photoshop:DateCreated='2002-01-01'"))
        XCTAssertNil(dateOnly.takenAt)
        XCTAssertEqual(dateOnly.timeSource, TimeSource.none)
        XCTAssertTrue(mixed.warnings.contains { $0.contains("exif:DateTimeOriginal") })
    }

    // MARK: Syntax and limits

    func testNotXMPAndMalformed() throws {
        XCTAssertNil(XMP.parse([], options: optionsUTC))
        XCTAssertNil(XMP.parse(Array("hello".utf8), options: optionsUTC))
        XCTAssertNil(XMP.parse(Array("<a><b/></a>".utf8), options: optionsUTC))
        XCTAssertNil(XMP.parse([0xFF, 0xD8, 0xFF, 0x00, 0x3C], options: optionsUTC))
        // Broken after rdf:RDF started: no values, a warning.
        let broken = Self.packet(attributes: "exif:GPSLatitude='10,0N' exif:GPSLongitude='10,0E'").replacingOccurrences(of: "</rdf:RDF>", with: "</rdf:Bad>")
        let v = try parse(broken)
        XCTAssertNil(v.coordinate)
        XCTAssertTrue(v.warnings.first?.contains("malformed XMP") == true, "\(v.warnings)")
        // A DOCTYPE (entity-expansion tricks) is refused.
        let doctype = "<!DOCTYPE x [<!ENTITY a \"aaaa\">]><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'/>"
        XCTAssertNil(XMP.parse(Array(doctype.utf8), options: optionsUTC))
        // Unknown entities, unbound prefixes, unquoted attributes.
        for bad in ["<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><rdf:Description>&bogus;</rdf:Description></rdf:RDF>",
                    "<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><q:x/></rdf:RDF>",
                    "<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><rdf:Description a=b/></rdf:RDF>",
                    "<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><rdf:Description>"] {
            let r = try parse(bad)
            XCTAssertTrue(r.isEmpty, bad)
            XCTAssertFalse(r.warnings.isEmpty, bad)
        }
    }

    /// A packet rewritten in place over a longer one: its own trailer, then the older packet's
    /// tail (issue 24). The packet is read up to its end; the rest costs one warning.
    func testLeftoverBytesAfterThePacketAreIgnored() throws {
        let packet = Self.packet(attributes: "exif:GPSLatitude='10,30N' exif:GPSLongitude='20,15W' exif:DateTimeOriginal='2023-07-14T10:11:12+02:00'")
        let older = "xxxxx</rdf:li></rdf:Alt></dc:description></rdf:Description></rdf:RDF></x:xmpmeta>\n<?xpacket end='w'?>"
        let cases: [(String, String?)] = [
            (packet + older, "bytes after the end of the XMP packet"),
            // Without a trailer, after </x:xmpmeta>.
            (Self.packet(elements: "<exif:GPSLatitude>10,30N</exif:GPSLatitude><exif:GPSLongitude>20,15W</exif:GPSLongitude>") + older,
             "bytes after the end of the XMP packet"),
            // A second, older packet whole after the first: the first is the file's.
            (packet + "\n" + Self.packet(attributes: "exif:GPSLatitude='1,0N' exif:GPSLongitude='2,0E'"), "bytes after the end of the XMP packet"),
            // Padding after the trailer, and a comment and a processing instruction between the root
            // and the trailer (or without one), are the packet's.
            (packet + "\n  \0\0  ", nil),
            (packet.replacingOccurrences(of: "<?xpacket end='w'?>", with: "<!-- c --><?pi x?><?xpacket end='w'?>"), nil),
            (packet.replacingOccurrences(of: "<?xpacket end='w'?>", with: "<!-- c --><?pi x?>"), nil),
            // After the trailer nothing is the packet's, a comment neither.
            (packet + "<!-- c -->", "10 bytes after the end of the XMP packet"),
        ]
        for (text, warning) in cases {
            let v = try parse(text)
            XCTAssertEqual(v.coordinate, Coordinate(latitude: 10.5, longitude: -20.25), text)
            if let warning {
                XCTAssertEqual(v.warnings.count, 1, "\(v.warnings)")
                XCTAssertTrue(v.warnings.first?.contains(warning) == true, "\(v.warnings)")
            } else {
                XCTAssertEqual(v.warnings, [], text)
            }
        }
        // Where the leftover starts and how long it is: just after the trailer.
        let bytes = Array((packet + older).utf8)
        let v = try XCTUnwrap(XMP.parse(bytes, options: optionsUTC))
        XCTAssertEqual(v.warnings, ["\(older.utf8.count) bytes after the end of the XMP packet (from byte \(packet.utf8.count)): ignored"])
        // Leftover bytes do not make a cut packet whole: a packet cut inside its root stays broken.
        let cut = String(packet.prefix(packet.count - 40)) + older
        XCTAssertNil(try parse(cut).coordinate)
    }

    func testEveryPrefixOfAPacketIsHandled() throws {
        let bytes = Array(Self.packet(attributes: "exif:GPSLatitude='48,51.4998N' exif:GPSLongitude='2,17,40E' exif:DateTimeOriginal='2023-07-14T10:11:12+02:00'").utf8)
        for length in 0...bytes.count {
            let v = XMP.parse(Array(bytes.prefix(length)), options: optionsUTC)
            if length < bytes.count - 20 { XCTAssertNil(v?.coordinate, "prefix \(length)") }
        }
        XCTAssertNotNil(XMP.parse(bytes, options: optionsUTC)?.coordinate)
    }

    func testDeepNestingIsRefused() throws {
        let open = String(repeating: "<a>", count: MetadataLimits.maxXMPDepth + 10)
        let close = String(repeating: "</a>", count: MetadataLimits.maxXMPDepth + 10)
        let text = "<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>\(open)\(close)</rdf:RDF>"
        let v = try parse(text)
        XCTAssertTrue(v.warnings.first?.contains("nested deeper than 256") == true, "\(v.warnings)")
    }

    func testUTF16Packet() throws {
        let text = Self.packet(attributes: "exif:GPSLatitude='10,30N' exif:GPSLongitude='20,15W'")
        var be: [UInt8] = [0xFE, 0xFF], le: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 {
            be += [UInt8(unit >> 8), UInt8(unit & 0xFF)]
            le += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        XCTAssertEqual(XMP.parse(be, options: optionsUTC)?.coordinate, Coordinate(latitude: 10.5, longitude: -20.25))
        XCTAssertEqual(XMP.parse(le, options: optionsUTC)?.coordinate, Coordinate(latitude: 10.5, longitude: -20.25))
    }

    func testAPacketOverTheSizeLimitIsDroppedWithOneWarning() {
        let big = [UInt8](repeating: 0x20, count: MetadataLimits.maxXMPPacketBytes + 1)
        let v = XMP.parse(big, options: optionsUTC)
        XCTAssertEqual(v?.isEmpty, true)
        XCTAssertEqual(v?.warnings.count, 1)
    }

    // MARK: Embedded in JPEG

    static func xmpAPP1(_ packet: String) -> [UInt8] {
        TestJPEG.segment(0xE1, JPEG.xmpIdentifier + Array(packet.utf8))
    }

    func testJPEGEmbeddedXMPBelowExif() throws {
        let xmpOnly = TestJPEG.file(Self.xmpAPP1(Self.packet(attributes: "exif:GPSLatitude='10,30N' exif:GPSLongitude='20,15W' xmp:CreateDate='2023-07-14T10:11:12+02:00'")))
        let a = try XCTUnwrap(MetadataReader.read(bytes: xmpOnly, modificationTime: epoch(5), options: optionsUTC))
        XCTAssertEqual(a.coordinate, Coordinate(latitude: 10.5, longitude: -20.25))
        XCTAssertEqual(a.positionSource?.rawValue, "xmp")
        XCTAssertEqual(a.takenAt, epoch(1_689_322_272))
        XCTAssertEqual(a.timeSource, .isoWithOffset)

        // Exif position and time win; the XMP after the Exif APP1 is read only when it can help.
        let both = TestJPEG.file(TestJPEG.exifAPP1(Samples.eiffel().bytes(.littleEndian)),
                                 Self.xmpAPP1(Self.packet(attributes: "exif:GPSLatitude='10,30N' exif:GPSLongitude='20,15W'")))
        let b = try XCTUnwrap(MetadataReader.read(bytes: both, modificationTime: nil, options: optionsUTC))
        XCTAssertEqual(b.positionSource?.rawValue, "exif")
        XCTAssertEqual(try XCTUnwrap(b.coordinate).latitude, 48.858330, accuracy: 1e-5)
        XCTAssertEqual(b.timeSource, .exifOffset)

        // Exif with a time only in the default zone: an XMP date with a zone is better (step 2).
        var t = TestTIFF()
        t.exif = [(0x9003, .ascii("2023:07:14 10:11:12"))]
        let zoneless = TestJPEG.file(TestJPEG.exifAPP1(t.bytes(.bigEndian)),
                                     Self.xmpAPP1(Self.packet(attributes: "exif:DateTimeOriginal='2023-07-14T10:11:12-03:00'")))
        let c = try XCTUnwrap(MetadataReader.read(bytes: zoneless, modificationTime: nil, options: optionsUTC))
        XCTAssertEqual(c.timeSource, .isoWithOffset)
        XCTAssertEqual(c.utcOffsetSeconds, -10_800)
        // …but an XMP date without zone does not replace the Exif one (same step, Exif wins).
        let same = TestJPEG.file(TestJPEG.exifAPP1(t.bytes(.bigEndian)),
                                 Self.xmpAPP1(Self.packet(attributes: "exif:DateTimeOriginal='2001-01-01T00:00:00'")))
        let d = try XCTUnwrap(MetadataReader.read(bytes: same, modificationTime: nil, options: optionsUTC))
        XCTAssertEqual(d.takenAt, epoch(1_689_329_472))
        XCTAssertEqual(d.timeSource, .assumedZone)
    }

    func testFindXMPIsLenient() {
        // Stops at SOS; ignores a truncated segment; handles fill bytes.
        var w: [String] = []
        var source = MemorySource(TestJPEG.soi + [0xFF, 0xFF] + Self.xmpAPP1("<x/>") + TestJPEG.scan())
        XCTAssertEqual(JPEG.findXMP(in: &source, warnings: &w), Array("<x/>".utf8))
        var cut = MemorySource(Array((TestJPEG.soi + Self.xmpAPP1("<x/>")).dropLast(2)))
        XCTAssertNil(JPEG.findXMP(in: &cut, warnings: &w))
        var afterScan = MemorySource(TestJPEG.soi + TestJPEG.segment(0xDA, [1]) + Self.xmpAPP1("<x/>"))
        XCTAssertNil(JPEG.findXMP(in: &afterScan, warnings: &w))
        XCTAssertEqual(w, [])
    }

    /// Junk between segments is skipped (as ExifTool rescans); an APP1 whose header is not the
    /// standard one but holds a packet start is read, with a warning.
    func testFindXMPSkipsJunkAndReadsOddHeaders() {
        var w: [String] = []
        var junk = MemorySource(TestJPEG.soi + [0x00, 0x12] + Self.xmpAPP1("<x/>") + TestJPEG.scan())
        XCTAssertEqual(JPEG.findXMP(in: &junk, warnings: &w), Array("<x/>".utf8))
        XCTAssertEqual(w, ["2 junk bytes at byte 2 before the next marker: skipped"])
        w = []
        let odd = TestJPEG.segment(0xE1, Array("Adobe XMP\0<?xpacket begin=''?><x/>".utf8))
        var source = MemorySource(TestJPEG.soi + odd + TestJPEG.scan())
        XCTAssertEqual(JPEG.findXMP(in: &source, warnings: &w), Array("<?xpacket begin=''?><x/>".utf8))
        XCTAssertEqual(w, ["APP1 XMP segment at byte 2 has a non-standard header"])
        // Junk to the end of the file: nothing, no crash.
        var tail = MemorySource(TestJPEG.soi + [UInt8](repeating: 0x11, count: 40))
        XCTAssertNil(JPEG.findXMP(in: &tail, warnings: &w))
    }
}
