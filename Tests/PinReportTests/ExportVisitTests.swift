import XCTest
import Foundation
@testable import PinCore
import PinFormats
@testable import PinReport

/// A pin's visit in every export, written from the type's fields as the registry declares them
/// (`LocationTypeSelection.visitFields`): the values and the text here are worked by hand.
final class ExportVisitTests: XCTestCase {
    static let at = Coordinate(latitude: 45.8326, longitude: 6.8652)

    func pin(_ n: Int, _ type: LocationType) -> Location {
        Location(id: UUID(uuidString: "0F601B8A-1C2D-4E5F-8A9B-0C1D2E3F4A5\(n)")!, title: "T\(n)", coordinate: Self.at, type: type,
                 date: Date(timeIntervalSince1970: 1_712_548_800))
    }

    var pins: [Location] {
        [pin(1, .city(CityVisitData(cityName: "Bern", cityCoordinate: Self.at, address: "Markt 1", placeID: 7))),
         pin(2, .mountain(MountainVisitData(mountainName: "Dom", height: 4545, mountainCoordinate: Self.at, achievedHeight: 4000.5))),
         pin(3, .mountain(MountainVisitData(mountainName: "Eiger", height: 3967, mountainCoordinate: Self.at))),
         pin(4, .point)]
    }

    func export(_ format: ExportFormat) -> String {
        let sink = StringSink()
        Exporter.write(ExportInput(pins: pins, countryNames: [:]), format: format, to: sink)
        return sink.text
    }

    func testPinJSONHasTheTypesObjectWithTheFieldsGiven() {
        let json = pins.map { JSONText.string(pinProperties($0)) }
        XCTAssertTrue(json[0].contains(#""city":{"address":"Markt 1","name":"Bern"}"#), json[0])
        XCTAssertTrue(json[1].contains(#""mountain":{"achievedHeight":4000.5,"height":4545,"name":"Dom"}"#), json[1])
        XCTAssertTrue(json[2].contains(#""mountain":{"height":3967,"name":"Eiger"}"#), json[2])
        XCTAssertTrue(json[2].contains(#""type":"mountain""#), json[2])
        XCTAssertFalse(json[3].contains(#""type""#), "a point has no type key: \(json[3])")
    }

    func testFlatExportsCarryTheNameAndTheHeightReachedElseTheMountains() {
        let kml = export(.kml)
        XCTAssertTrue(kml.contains(#"<Data name="name"><value>Bern</value></Data></ExtendedData>"#), "a city: its name, no height: \(kml)")
        XCTAssertTrue(kml.contains(#"<Data name="name"><value>Dom</value></Data><Data name="height"><value>4000.5</value></Data>"#), kml)
        XCTAssertTrue(kml.contains(#"<Data name="name"><value>Eiger</value></Data><Data name="height"><value>3967</value></Data>"#), kml)
        XCTAssertTrue(kml.contains("<coordinates>6.8652,45.8326,4000.5</coordinates>"), kml)
        let gpx = export(.gpx)
        XCTAssertEqual(gpx.components(separatedBy: "<sym>City (Medium)</sym><type>city</type>").count, 2, gpx)
        XCTAssertEqual(gpx.components(separatedBy: "<sym>Summit</sym><type>mountain</type>").count, 3, gpx)
        XCTAssertEqual(gpx.components(separatedBy: "<sym>Flag, Red</sym><type>point</type>").count, 2, gpx)
        XCTAssertTrue(gpx.contains("<ele>4000.5</ele>"), gpx)
        let csv = export(.csv).components(separatedBy: "\r\n")
        XCTAssertTrue(csv[1].contains(",city,") && csv[1].contains(",Bern,,"), csv[1])
        XCTAssertTrue(csv[2].contains(",Dom,4000.5,"), csv[2])
        XCTAssertTrue(csv[3].contains(",Eiger,3967,"), csv[3])
    }
}
