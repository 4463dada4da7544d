import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

/// The sidecar writer of `pins sidecars` (issue 36 item 6): values against ExifTool's own
/// writing and reading, and the cases where an existing sidecar is left alone.
final class XMPSidecarEditTests: XCTestCase {
    let paris = SidecarPlace(coordinate: Coordinate(latitude: 48.856614, longitude: -2.3522219), city: "A & <B> 'C' \"D\"",
                             state: "Île-de-France", country: "France", countryCode: "FR")

    /// `exiftool -o t.xmp -xmp:gpslatitude=48.856614 -xmp:gpslongitude=-2.3522219` (12.57)
    /// writes 48,51.39684N and 2,21.133314W: the same text.
    func testDegreesAreWrittenAsExifToolWritesThem() {
        XCTAssertEqual(XMPSidecarEdit.degrees(48.856614, "N", "S"), "48,51.39684N")
        XCTAssertEqual(XMPSidecarEdit.degrees(-2.3522219, "E", "W"), "2,21.133314W")
        XCTAssertEqual(XMPSidecarEdit.degrees(48.5, "N", "S"), "48,30N")
        // 59.99999999 minutes round to the next degree, never to "59,60".
        XCTAssertEqual(XMPSidecarEdit.degrees(-33.9999999999, "N", "S"), "34,0S")
        XCTAssertEqual(XMPSidecarEdit.degrees(0.0000001, "E", "W"), "0,0.000006E")
    }

    /// A new sidecar as exiftool reads it (`-n -json`): the position and the names, escaped.
    func testANewSidecarIsReadBackByExifTool() throws {
        let edit = XMPSidecarEdit.create(paris)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sidecar-\(getpid()).xmp")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(try XCTUnwrap(edit.bytes)).write(to: file)
        let p = Process(), out = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-n", "-json", file.path]
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let read = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first)
        XCTAssertEqual(read["GPSLatitude"] as? Double ?? 0, 48.856614, accuracy: 1e-9)
        XCTAssertEqual(read["GPSLongitude"] as? Double ?? 0, -2.3522219, accuracy: 1e-9)
        XCTAssertEqual(read["City"] as? String, "A & <B> 'C' \"D\"")
        XCTAssertEqual(read["State"] as? String, "Île-de-France")
        XCTAssertEqual(read["Country"] as? String, "France")
        XCTAssertEqual(read["CountryCode"] as? String, "FR")
        // And pins' own reader finds the same.
        let values = try XCTUnwrap(XMP.parse(edit.bytes!, options: MetadataOptions()))
        XCTAssertEqual(values.coordinate?.latitude ?? 0, 48.856614, accuracy: 1e-9)
        XCTAssertEqual(values.properties["photoshop:City"], "A & <B> 'C' \"D\"")
        XCTAssertEqual(values.properties["Iptc4xmpCore:CountryCode"], "FR")
    }

    func testTheSamePositionWrittenAnotherWayIsNoConflictAndAnotherIs() throws {
        func sidecar(_ lat: String, _ lon: String) -> [UInt8] {
            Array("""
                <x:xmpmeta xmlns:x='adobe:ns:meta/'><r:RDF xmlns:r='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>\
                <r:Description r:about='uuid:1' xmlns:e='http://ns.adobe.com/exif/1.0/' e:GPSLatitude='\(lat)' e:GPSLongitude='\(lon)'/>\
                </r:RDF></x:xmpmeta>
                """.utf8)
        }
        // 48.856614 as decimal degrees, 2.3522219 W as DDD,MM,SS.ss: the same within 1e-6 degree.
        let same = try XMPSidecarEdit.edit(sidecar("48.8566141", "2,21,7.99884W"), paris)
        XCTAssertTrue(same.conflicts.isEmpty, "\(same.conflicts)")
        XCTAssertEqual(same.added, ["photoshop:City", "photoshop:State", "photoshop:Country", "Iptc4xmpCore:CountryCode"])
        // Another prefix for rdf: the new description declares its own, and keeps rdf:about.
        let text = String(decoding: try XCTUnwrap(same.bytes), as: UTF8.self)
        XCTAssertTrue(text.contains("<rdf:Description rdf:about='uuid:1'\n  xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'"), text)
        XCTAssertTrue(text.hasSuffix("</rdf:Description>\n</r:RDF></x:xmpmeta>"), text)
        XCTAssertNotNil(XMP.parse(same.bytes!, options: MetadataOptions())?.properties["photoshop:Country"])

        let other = try XMPSidecarEdit.edit(sidecar("48.86", "2.35"), paris)
        XCTAssertEqual(other.conflicts.map(\.name), ["position"])
        XCTAssertEqual(other.conflicts.first?.theirs, "48.86 2.35")
        XCTAssertEqual(other.conflicts.first?.ours, "48,51.39684N 2,21.133314W")
        XCTAssertFalse(other.added.contains("exif:GPSLatitude"))
    }

    func testASidecarPinsCannotReadIsLeftAlone() {
        func refusal(_ bytes: [UInt8]) -> String? {
            do {
                _ = try XMPSidecarEdit.edit(bytes, paris)
                return nil
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(refusal([0xFF, 0xFE] + Array("<x/>".utf8).flatMap { [$0, 0] }), "it is UTF-16; pins adds only to UTF-8 sidecars")
        XCTAssertEqual(refusal(Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'><a></x:xmpmeta>".utf8)),
                       "it is not well-formed XMP (byte 39: </x:xmpmeta> closes <a>)")
        XCTAssertEqual(refusal(Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8)), "it holds no rdf:RDF element")
        XCTAssertEqual(refusal(Array("<r:RDF xmlns:r='http://www.w3.org/1999/02/22-rdf-syntax-ns#'/>".utf8)),
                       "its rdf:RDF element is empty (<rdf:RDF/>)")
        XCTAssertEqual(refusal([UInt8](repeating: 0x20, count: 8 * 1024 * 1024 + 1)), "it is over 8 MiB")
    }

    /// A UTF-8 byte-order mark: the insertion lands before `</rdf:RDF>` all the same.
    func testAByteOrderMarkIsKept() throws {
        let body = Array("<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'></rdf:RDF>".utf8)
        let edit = try XMPSidecarEdit.edit([0xEF, 0xBB, 0xBF] + body, paris)
        let bytes = try XCTUnwrap(edit.bytes)
        XCTAssertEqual(Array(bytes.prefix(3 + 65)), [0xEF, 0xBB, 0xBF] + Array(body.prefix(65)))
        XCTAssertEqual(Array(bytes.suffix(10)), Array("</rdf:RDF>".utf8))
        XCTAssertEqual(XMP.parse(bytes, options: MetadataOptions())?.coordinate?.longitude ?? 0, -2.3522219, accuracy: 1e-9)
    }
}
