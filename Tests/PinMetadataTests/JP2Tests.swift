import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

/// JPEG 2000 layouts the fixture tools do not write (issue 24): the Exif `uuid` box as
/// Photoshop's plug-in and digiKam frame it, `xml ` boxes that are not XMP, the signature
/// itself. The Exif block is the one ExifTool wrote into `jpeg2000-exif-uuid.jp2`, re-framed;
/// the expected position is ExifTool's reading of that file (36.106965, -112.112997).
final class JP2Tests: XCTestCase {
    typealias B = TestBox

    static let signature: [UInt8] = [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    static let ftyp = B.box("ftyp", Array("jp2 ".utf8) + [0, 0, 0, 0] + Array("jp2 ".utf8))
    static let exifUUID = Array("JpgTiffExif->JP2".utf8)
    static let xmpUUID: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]

    /// The TIFF stream of the fixture's Exif `uuid` box (after its 16-byte user type).
    func fixtureTIFF() throws -> [UInt8] {
        let url = repoRoot().appendingPathComponent("Fixtures/formats/containers/other/jpeg2000-exif-uuid.jp2")
        let bytes = try Array(Data(contentsOf: url))
        let at = try XCTUnwrap((0..<(bytes.count - 16)).first { bytes[$0..<($0 + 16)].elementsEqual(Self.exifUUID) })
        let size = Int(bytes[at - 8]) << 24 | Int(bytes[at - 7]) << 16 | Int(bytes[at - 6]) << 8 | Int(bytes[at - 5])
        let tiff = Array(bytes[(at + 16)..<(at - 8 + size)])
        XCTAssertTrue(JPEG.isTIFFHeader(ByteReader(tiff, context: "test"), at: 0), "a TIFF header after the user type")
        return tiff
    }

    /// Signature (12 bytes), `ftyp` (20), `jp2h` (16), `boxes` from byte 48, a codestream.
    func file(_ boxes: [[UInt8]]) -> [UInt8] {
        Self.signature + Self.ftyp + B.box("jp2h", [UInt8](repeating: 0, count: 8)) + boxes.flatMap { $0 }
            + B.box("jp2c", [0xFF, 0x4F, 0xFF, 0x51, 0, 0])
    }

    func read(_ bytes: [UInt8]) throws -> PhotoMetadata {
        try XCTUnwrap(MetadataReader.read(bytes: bytes, modificationTime: epoch(5), options: optionsUTC))
    }

    func testSignatureAndCodestreamAreJPEG2000() {
        XCTAssertEqual(MetadataReader.sniff(Self.signature + Self.ftyp), .jp2)
        XCTAssertEqual(MetadataReader.sniff([0xFF, 0x4F, 0xFF, 0x51, 0x00, 0x2F]), .jp2)
        // The JPEG XL container's signature differs in one byte ('JXL ' for 'jP  ').
        XCTAssertEqual(MetadataReader.sniff([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]), .jxl)
        XCTAssertEqual(MetadataReader.sniff([0xFF, 0x4F, 0xFF, 0x52]), .notMedia)
    }

    func testExifUUIDFramings() throws {
        let tiff = try fixtureTIFF()
        // ExifTool: the TIFF right after the user type. Photoshop: `Exif\0\0` first (no warning).
        // digiKam: six other bytes first (read, with a warning).
        let cases: [([UInt8], [String])] = [
            ([], []),
            (Array("Exif".utf8) + [0, 0], []),
            ([1, 2, 3, 4, 5, 6], ["Exif 'uuid' box at byte 48 has 6 unknown bytes before its TIFF header"]),
        ]
        for (prefix, warnings) in cases {
            let m = try read(file([B.box("uuid", Self.exifUUID + prefix + tiff)]))
            XCTAssertEqual(m.format, .jp2)
            let c = try XCTUnwrap(m.coordinate, "\(prefix)")
            XCTAssertEqual(c.latitude, 36.106965, accuracy: 1e-6)
            XCTAssertEqual(c.longitude, -112.112997, accuracy: 1e-6)
            XCTAssertEqual(m.positionSource, .exif)
            XCTAssertEqual(m.timeSource, .exifOffset)
            XCTAssertEqual(m.warnings, warnings)
        }
        let junk = try read(file([B.box("uuid", Self.exifUUID + Array("not a TIFF stream".utf8))]))
        XCTAssertNil(junk.coordinate)
        XCTAssertEqual(junk.timeSource, .fileModification)
        XCTAssertEqual(junk.warnings, ["Exif 'uuid' box at byte 48 has no TIFF header: ignored"])
    }

    func testOnlyAnXMLBoxThatHoldsXMPIsRead() throws {
        let packet = XMPTests.packet(attributes: "exif:GPSLatitude='10,30N' exif:GPSLongitude='20,15W' exif:DateTimeOriginal='2023-07-14T10:11:12+02:00'")
        // GDAL's own metadata box carries the packet as escaped text: not XMP, passed over.
        let gdal = "<GDALMultiDomainMetadata><Metadata><MDI key=\"x\">" + packet
            .replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;") + "</MDI></Metadata></GDALMultiDomainMetadata>"
        let m = try read(file([B.box("xml ", Array(gdal.utf8)), B.box("xml ", Array(packet.utf8))]))
        XCTAssertEqual(m.coordinate, Coordinate(latitude: 10.5, longitude: -20.25))
        XCTAssertEqual(m.positionSource, .xmp)
        XCTAssertEqual(m.takenAt, epoch(1_689_322_272))
        XCTAssertEqual(m.warnings, [])
        let only = try read(file([B.box("xml ", Array(gdal.utf8))]))
        XCTAssertNil(only.coordinate)
        XCTAssertEqual(only.timeSource, .fileModification)
        // The first XMP wins, `uuid` or `xml `.
        let other = XMPTests.packet(attributes: "exif:GPSLatitude='1,0N' exif:GPSLongitude='2,0E'")
        let first = try read(file([B.box("uuid", Self.xmpUUID + Array(packet.utf8)), B.box("xml ", Array(other.utf8))]))
        XCTAssertEqual(first.coordinate, Coordinate(latitude: 10.5, longitude: -20.25))
    }

    func testWhatAnXMLBoxStartsWith() {
        let yes = ["<?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?><x:xmpmeta>",
                   "\u{FEFF}<?xml version=\"1.0\"?>\n<!-- by hand --><x:xmpmeta xmlns:x='adobe:ns:meta/'>",
                   "  <rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>",
                   "<meta:xapmeta xmlns:meta='adobe:ns:meta/'>"]
        let no = ["<GDALMultiDomainMetadata>", "<gml:FeatureCollection>", "<?xml version=\"1.0\"", "<!-- cut", "", "text",
                  "<rdf:Description>"]
        for text in yes { XCTAssertTrue(JP2.isXMP(Array(text.utf8)), text) }
        for text in no { XCTAssertFalse(JP2.isXMP(Array(text.utf8)), text) }
    }

    func testABareCodestreamHasNoMetadataAndACutFileIsAnError() throws {
        let bare = try read([0xFF, 0x4F, 0xFF, 0x51, 0x00, 0x2F] + [UInt8](repeating: 0, count: 40))
        XCTAssertEqual(bare.format, .jp2)
        XCTAssertEqual(bare.timeSource, .fileModification)
        // A box that runs past the end of the file: the file's error, naming the box.
        let whole = file([B.box("xml ", Array(XMPTests.packet(attributes: "exif:GPSLatitude='10,30N'").utf8))])
        XCTAssertThrowsError(try MetadataReader.read(bytes: Array(whole.dropLast(3)), modificationTime: nil, options: optionsUTC)) {
            XCTAssertTrue("\($0)".contains("'jp2c' box at byte"), "\($0)")
        }
    }
}
