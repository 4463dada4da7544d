import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

final class TakeoutTests: XCTestCase {
    private func parse(_ json: String) -> TakeoutValues? { TakeoutSidecar.parse(Array(json.utf8)) }

    static func sidecar(title: String = "IMG_1234.jpg", timestamp: String = "\"1521408455\"",
                        geo: (Double, Double) = (52.3711184, 4.8390853),
                        exif: (Double, Double) = (52.3711184, 4.8390853)) -> String {
        """
        {
          "title": "\(title)",
          "description": "",
          "creationTime": { "timestamp": "1521646620", "formatted": "21 mars 2018, 15:37:00 UTC" },
          "photoTakenTime": { "timestamp": \(timestamp), "formatted": "18 mars 2018, 21:27:35 UTC" },
          "geoData": { "latitude": \(geo.0), "longitude": \(geo.1), "altitude": 83.0, "latitudeSpan": 0.0, "longitudeSpan": 0.0 },
          "geoDataExif": { "latitude": \(exif.0), "longitude": \(exif.1), "altitude": 12.5, "latitudeSpan": 0.0, "longitudeSpan": 0.0 }
        }
        """
    }

    func testATakeoutSidecarGivesItsTitleTimeAndBothPositionsWithAltitudes() throws {
        let v = try XCTUnwrap(parse(Self.sidecar(geo: (48.1, 2.1))))
        XCTAssertEqual(v.title, "IMG_1234.jpg")
        XCTAssertEqual(v.photoTakenTime, epoch(1_521_408_455))
        XCTAssertEqual(v.geoData, Coordinate(latitude: 48.1, longitude: 2.1))
        XCTAssertEqual(v.geoDataAltitude, 83)
        XCTAssertEqual(v.geoDataExif, Coordinate(latitude: 52.3711184, longitude: 4.8390853))
        XCTAssertEqual(v.geoDataExifAltitude, 12.5)
        XCTAssertEqual(v.warnings, [])
    }

    func testTimestampAsStringOrNumber() throws {
        XCTAssertEqual(parse(Self.sidecar(timestamp: "\"1521408455\""))?.photoTakenTime, epoch(1_521_408_455))
        XCTAssertEqual(parse(Self.sidecar(timestamp: "1521408455"))?.photoTakenTime, epoch(1_521_408_455))
        XCTAssertEqual(parse(Self.sidecar(timestamp: "1521408455.5"))?.photoTakenTime, epoch(1_521_408_455.5))
        for bad in ["\"soon\"", "true", "0", "\"-5\"", "null", "{}", "1e300"] {
            let v = try XCTUnwrap(parse(Self.sidecar(timestamp: bad)), bad)
            XCTAssertNil(v.photoTakenTime, bad)
            if bad != "null" { XCTAssertEqual(v.warnings.count, 1, bad) }
        }
    }

    func testZeroZeroIsNoLocation() throws {
        let v = try XCTUnwrap(parse(Self.sidecar(geo: (0, 0), exif: (0, 0))))
        XCTAssertNil(v.geoData)
        XCTAssertNil(v.geoDataExif)
        XCTAssertNotNil(v.photoTakenTime)
        let w = try XCTUnwrap(parse(Self.sidecar(geo: (95, 0))))
        XCTAssertNil(w.geoData)
        XCTAssertTrue(w.warnings.contains { $0.contains("out of range") })
    }

    func testOddTypesReadAsAbsent() throws {
        let json = """
            {"title": 5, "photoTakenTime": "yesterday", "geoData": {"latitude": "48.5", "longitude": true},
             "geoDataExif": [1, 2]}
            """
        let v = try XCTUnwrap(parse(json))
        XCTAssertNil(v.title)
        XCTAssertNil(v.photoTakenTime)
        XCTAssertNil(v.geoData)
        XCTAssertNil(v.geoDataExif)
        // Latitude as a string is accepted (as the timestamp is).
        let s = try XCTUnwrap(parse(#"{"geoData": {"latitude": "48.5", "longitude": "-2.25"}}"#))
        XCTAssertEqual(s.geoData, Coordinate(latitude: 48.5, longitude: -2.25))
    }

    func testNotATakeoutSidecar() {
        XCTAssertNil(parse(""))
        XCTAssertNil(parse("[1, 2]"))
        XCTAssertNil(parse("{\"albums\": []}"))
        XCTAssertNil(parse("{ broken"))
        XCTAssertNil(parse("\"text\""))
        let big = "{\"title\": \"" + String(repeating: "a", count: MetadataLimits.maxTakeoutJSONBytes) + "\"}"
        XCTAssertNil(parse(big))
    }
}
