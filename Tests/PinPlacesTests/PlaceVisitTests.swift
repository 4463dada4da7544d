import Foundation
import XCTest
@testable import PinCore
@testable import PinPlaces

/// import-places reads a visit by the type's fields as the registry declares them
/// (`LocationTypeSelection.visitFields`): pins' own GeoJSON, CSV and KML give back the values
/// written here by hand, a record's digest keeps the text it had when each type was spelt out
/// (stored digests of earlier imports still compare equal), and a cut name is said by its type.
final class PlaceVisitTests: XCTestCase {
    func records(_ text: String, _ kind: PlaceFileKind) throws -> [PlaceReadEvent] {
        var events: [PlaceReadEvent] = []
        try PlaceFiles.read(bytes: Array(text.utf8), kind: kind) { events.append($0) }
        return events
    }

    func visit(_ event: PlaceReadEvent) -> VisitValues? {
        if case let .record(r) = event { return r.type }
        return nil
    }

    static let csvHeader = "id,title,latitude,longitude,country,country_name,type,date,color,visit_count,note,tags,name,height\n"

    func testPinsOwnCSVGivesTheNameAndTheHeightColumnToEveryFieldThatCarriesIt() throws {
        let rows = ["1,a,46,7,CH,,mountain,2024-05-01T12:00:00Z,#FF0000,1,,,'=Dom,4545.5",
                    "2,b,46,7,CH,,city,2024-05-01T12:00:00Z,#FF0000,1,,,Bern,12",
                    "3,c,46,7,CH,,mountain,2024-05-01T12:00:00Z,#FF0000,1,,,Eiger,",
                    "4,d,46,7,CH,,city,2024-05-01T12:00:00Z,#FF0000,1,,,,",
                    "5,e,46,7,CH,,point,2024-05-01T12:00:00Z,#FF0000,1,,,,high",
                    "6,f,46,7,CH,,lake,2024-05-01T12:00:00Z,#FF0000,1,,,Leman,"]
        let events = try records(Self.csvHeader + rows.joined(separator: "\n") + "\n", .csv)
        XCTAssertEqual(events.map(visit), [VisitValues(type: .mountain, values: [.text("=Dom"), .number(4545.5), .number(4545.5)]),
                                           VisitValues(type: .city, values: [.text("Bern"), nil]),
                                           VisitValues(type: .mountain, values: [.text("Eiger"), nil, nil]), nil, nil, nil])
        XCTAssertEqual(events[3], .malformed(position: "line 5", reason: "a city without a name"))
        XCTAssertEqual(events[4], .malformed(position: "line 6", reason: "height 'high' is not a number"))
        XCTAssertEqual(events[5], .malformed(position: "line 7", reason: "type 'lake' is not point, city or mountain"))
    }

    func testPinsOwnGeoJSONReadsTheTypesObjectByItsKeys() throws {
        func feature(_ type: String, _ object: String) -> String {
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[7,46]},"properties":{"id":"x","title":"t","latitude":46,"#
                + ##""longitude":7,"date":"2024-05-01T12:00:00Z","color":"#FF0000","type":"\##(type)","\##(type)":\##(object)}}"##
        }
        let features = [feature("city", #"{"name":"Rome","address":""}"#),
                        feature("mountain", #"{"name":"K2","height":"8611","achievedHeight":"high"}"#),
                        feature("mountain", #"{"name":"","height":1}"#)]
        let events = try records(#"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}", .geojson)
        XCTAssertEqual(events.map(visit), [VisitValues(type: .city, values: [.text("Rome"), .text("")]),
                                           VisitValues(type: .mountain, values: [.text("K2"), .number(8611), nil]), nil])
        XCTAssertEqual(events[2], .malformed(position: "feature 3", reason: "a mountain without a name"))
    }

    func testPinsOwnKMLReadsTheExtendedDataAndLeavesANamelessVisitAPoint() throws {
        func placemark(_ data: [(String, String)]) -> String {
            "<Placemark><ExtendedData>" + data.map { "<Data name=\"\($0.0)\"><value>\($0.1)</value></Data>" }.joined()
                + "</ExtendedData><Point><coordinates>7,46</coordinates></Point></Placemark>"
        }
        let kml = "<kml><Document>" + placemark([("id", "1"), ("type", "mountain"), ("name", "Dom"), ("height", "4545")])
            + placemark([("id", "2"), ("type", "city"), ("name", "Bern"), ("height", "540")])
            + placemark([("id", "3"), ("type", "mountain"), ("height", "1")]) + "</Document></kml>"
        XCTAssertEqual(try records(kml, .kml).map(visit), [VisitValues(type: .mountain, values: [.text("Dom"), .number(4545), .number(4545)]),
                                                          VisitValues(type: .city, values: [.text("Bern"), nil]), .point])
    }

    /// The digest's type part as it was written per type: `city␂name␂address` (␁ for none),
    /// `mountain␂name␂height␂achievedHeight` ("-" for none), `point`.
    func testTheDigestSaysTheVisitAsBefore() {
        func typePart(_ visit: VisitValues) -> String {
            var record = PlaceRecord(position: "1")
            record.type = visit
            return record.digest.components(separatedBy: "\u{3}")[6]
        }
        XCTAssertEqual(typePart(.point), "point")
        XCTAssertEqual(typePart(VisitValues(type: .city, values: [.text("Kyoto"), nil])), "city\u{2}Kyoto\u{2}\u{1}")
        XCTAssertEqual(typePart(VisitValues(type: .city, values: [.text("Rome"), .text("Via 1")])), "city\u{2}Rome\u{2}Via 1")
        XCTAssertEqual(typePart(VisitValues(type: .mountain, values: [.text("K2"), nil, .number(8000.5)])), "mountain\u{2}K2\u{2}-\u{2}8000.5")
        XCTAssertEqual(typePart(VisitValues(type: .mountain, values: [.text("K2"), .number(8611), .number(8611)])),
                       "mountain\u{2}K2\u{2}8611.0\u{2}8611.0")
    }

    func testACutNameIsSaidWithItsType() {
        let long = String(repeating: "x", count: 1_001)
        var record = PlaceRecord(position: "1")
        record.type = VisitValues(type: .city, values: [.text(long), .text(long)])
        XCTAssertEqual(record.cleaned().textNote, "city name, address cut to 1000 characters")
        XCTAssertEqual(record.cleaned().type.values, [.text(String(long.prefix(1_000))), .text(String(long.prefix(1_000)))])
        record.type = VisitValues(type: .mountain, values: [.text(long), .number(1), nil])
        XCTAssertEqual(record.cleaned().textNote, "mountain name cut to 1000 characters")
    }

    /// The values a pin's visit gives its exports are those a file's visit made it from.
    func testALocationTypeGivesBackTheValuesItWasMadeFrom() {
        let at = Coordinate(latitude: 46, longitude: 7)
        for visit in [VisitValues.point, VisitValues(type: .city, values: [.text("Bern"), .text("Markt 1")]),
                      VisitValues(type: .mountain, values: [.text("Dom"), nil, .number(4000)])] {
            XCTAssertEqual(LocationType(visit, at: at).visitValues, visit)
            XCTAssertEqual(LocationType(visit, at: at).sharedName, [nil, "Bern", "Dom"][LocationTypeSelection.allCases.firstIndex(of: visit.type)!])
        }
        let made = LocationType(VisitValues(type: .mountain, values: [.text("Dom"), .number(4545), nil]), at: at)
        XCTAssertEqual(made, .mountain(MountainVisitData(mountainName: "Dom", height: 4545, mountainCoordinate: at)))
        XCTAssertEqual(made.visitValues.flatValue("height"), .number(4545))
        XCTAssertEqual(VisitValues(type: .mountain, values: [.text("Dom"), .number(4545), .number(4000)]).flatValue("height"), .number(4000))
    }
}
