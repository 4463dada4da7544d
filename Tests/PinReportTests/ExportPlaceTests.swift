import XCTest
import Foundation
@testable import PinCore
@testable import PinReport

/// Where a pin is, in every export: the place, region and ISO 3166-2 code the gazetteer gave.
final class ExportPlaceTests: XCTestCase {
    func pins() -> [Location] {
        var kyoto = Location(id: UUID(uuidString: "0F601B8A-1C2D-4E5F-8A9B-0C1D2E3F4A5B")!, title: "Kyoto, Japan",
                             coordinate: Coordinate(latitude: 35.0116, longitude: 135.7681), countryID: "JP",
                             date: Date(timeIntervalSince1970: 1_712_548_800))
        kyoto.placeFields = PinPlace(placeID: 1857910, place: "Kyoto", region: "Kyoto", regionCode: "JP-26")
        var outback = Location(id: UUID(uuidString: "1F601B8A-1C2D-4E5F-8A9B-0C1D2E3F4A5B")!, title: "Northern Territory, Australia",
                               coordinate: Coordinate(latitude: -23.5, longitude: 133.0), countryID: "AU",
                               date: Date(timeIntervalSince1970: 1_712_548_800))
        outback.placeFields = PinPlace(region: "Northern Territory", regionCode: "AU-NT")
        let sea = Location(id: UUID(uuidString: "2F601B8A-1C2D-4E5F-8A9B-0C1D2E3F4A5B")!, title: "At sea",
                           coordinate: Coordinate(latitude: 45, longitude: -30), date: Date(timeIntervalSince1970: 1_712_548_800))
        return [kyoto, outback, sea]
    }

    func export(_ format: ExportFormat) -> String {
        let sink = StringSink()
        Exporter.write(ExportInput(pins: pins(), countryNames: ["JP": "Japan", "AU": "Australia"]), format: format, to: sink)
        return sink.text
    }

    func testPinJSONHasThePlaceKeysOnlyWhenSet() {
        let kyoto = pinProperties(pins()[0]), outback = pinProperties(pins()[1]), sea = pinProperties(pins()[2])
        XCTAssertEqual(kyoto["place"] as? String, "Kyoto")
        XCTAssertEqual(kyoto["region"] as? String, "Kyoto")
        XCTAssertEqual(kyoto["regionCode"] as? String, "JP-26")
        XCTAssertNil(outback["place"], "no town: no key")
        XCTAssertEqual(outback["regionCode"] as? String, "AU-NT")
        XCTAssertNil(sea["place"]); XCTAssertNil(sea["region"]); XCTAssertNil(sea["regionCode"])
    }

    func testKMLGPXAndCSVSayWhereEachPinIs() {
        let kml = export(.kml)
        XCTAssertTrue(kml.contains("<description>Kyoto</description>"), "the region named as its town once")
        XCTAssertTrue(kml.contains("<Data name=\"place\"><value>Kyoto</value></Data><Data name=\"region\"><value>Kyoto</value></Data><Data name=\"regionCode\"><value>JP-26</value></Data>"), kml)
        XCTAssertTrue(kml.contains("<description>Northern Territory</description>"), kml)
        let gpx = export(.gpx)
        XCTAssertTrue(gpx.contains("<desc>Kyoto, Japan</desc>"), gpx)
        XCTAssertTrue(gpx.contains("<desc>Northern Territory, Australia</desc>"), gpx)
        let csv = export(.csv).components(separatedBy: "\r\n")
        // Then the trip's id and title: on no trip here (ExportInput.trips empty), two empty cells;
        // then the photo count, 0 for pins without photos; then wanted, false for a visit.
        XCTAssertTrue(csv[0].hasSuffix(",name,height,place,region,region_code,trip,trip_title,photo_count,wanted"), csv[0])
        XCTAssertTrue(csv[1].hasSuffix(",,,Kyoto,Kyoto,JP-26,,,0,false"), csv[1])
        XCTAssertTrue(csv[2].hasSuffix(",,,,Northern Territory,AU-NT,,,0,false"), csv[2])
        XCTAssertTrue(csv[3].hasSuffix(",,,,,,,,0,false"), csv[3])
    }
}
