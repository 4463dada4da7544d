import Foundation
import PinCore
import PinFormats
@testable import PinReport
import XCTest

/// A pin's object written straight from the pin (`PinObjectText`), as `pins list --json`, pins
/// serve's list and the page's pins-data carry it: the expected texts are written out here by
/// hand, keys in JSONText's (sorted) order.
final class PinObjectTextTests: XCTestCase {
    private let id = UUID(uuidString: "0A1B2C3D-0000-4000-8000-00000000000F")!

    private func date(_ text: String) -> Date { ISO8601.parse(text)!.date }

    private var mountain: Location {
        var l = Location(id: id, title: "Mont \"Blanc\"\n", coordinate: Coordinate(latitude: 45.83264999, longitude: 6.8652),
                         countryID: "FR",
                         type: .mountain(MountainVisitData(mountainName: "Mont Blanc", height: 4808, mountainCoordinate: Coordinate(latitude: 45.8, longitude: 6.8),
                                                          achievedHeight: 4808.73)),
                         date: date("2015-08-01T06:00:00Z"), color: "#00FF00", visitCount: 3, note: "a\tb\u{1}\\",
                         tags: ["x,y", "}"], photoIDs: ["/p/a.jpg"])
        l.utcOffsetSeconds = 7200
        l.place = "Chamonix"
        l.region = "Auvergne-Rh\u{f4}ne-Alpes"
        l.regionCode = "FR-ARA"
        l.photoCount = 9
        l.editedAt = date("2016-01-01T00:00:00Z")
        return l
    }

    func testEveryMemberInItsSortedPlaceWithItsEscapes() {
        XCTAssertEqual(PinObjectText.string(mountain),
                       ##"{"color":"#00FF00","country":"FR","date":"2015-08-01T08:00:00+02:00","edited":true,"##
                       + ##""id":"0a1b2c3d-0000-4000-8000-00000000000f","latitude":45.83265,"longitude":6.8652,"##
                       + ##""mountain":{"achievedHeight":4808.73,"height":4808,"name":"Mont Blanc"},"note":"a\tb\u0001\\","##
                       + ##""photoCount":9,"photoIDs":["/p/a.jpg"],"place":"Chamonix","region":"Auvergne-Rh\##u{f4}ne-Alpes","##
                       + ##""regionCode":"FR-ARA","tags":["x,y","}"],"title":"Mont \"Blanc\"\n","type":"mountain","visitCount":3}"##)
    }

    /// A wanted city at an offset of odd seconds (the date to the minute, the exact offset
    /// beside it), whole degrees as integers, a trip put in its place, keys left out.
    func testATripInItsPlaceAndKeysLeftOut() {
        var l = Location(id: id, title: "Ky\u{14d}to", coordinate: Coordinate(latitude: -33, longitude: 0.000000049),
                         type: .city(CityVisitData(cityName: "Ky\u{14d}to", cityCoordinate: Coordinate(latitude: 35, longitude: 135))),
                         date: date("1890-01-01T00:00:00Z"), color: "#123456")
        l.utcOffsetSeconds = 561
        l.wanted = true
        l.place = "Kyoto"
        let all = ##"{"city":{"name":"Ky\##u{14d}to"},"color":"#123456","date":"1890-01-01T00:09:00+00:09","##
            + ##""id":"0a1b2c3d-0000-4000-8000-00000000000f","latitude":-33,"longitude":0,"place":"Kyoto","title":"Ky\##u{14d}to","##
        XCTAssertEqual(PinObjectText.string(l), all + ##""type":"city","utcOffset":561,"wanted":true}"##)
        XCTAssertEqual(PinObjectText.string(l, trip: "t\"1"), all + ##""trip":"t\"1","type":"city","utcOffset":561,"wanted":true}"##)
        XCTAssertEqual(PinObjectText.string(l, trip: "1890-01-01", omitting: [.placeKeys, .title]),
                       ##"{"city":{"name":"Ky\##u{14d}to"},"color":"#123456","date":"1890-01-01T00:09:00+00:09","##
                       + ##""id":"0a1b2c3d-0000-4000-8000-00000000000f","latitude":-33,"longitude":0,"trip":"1890-01-01","type":"city","##
                       + ##""utcOffset":561,"wanted":true}"##)
    }

    /// The text reads back (Foundation's JSON reader) as `pinProperties`, and is the text
    /// JSONText writes of it, over pins of every shape.
    func testTheTextReadsBackAsThePinsPropertiesForPinsOfEveryShape() throws {
        var generator = SystemRandomNumberGenerator()
        let texts = ["", "a", "\u{0}\u{1f}\"\\/", "\u{e9}t\u{e9} \u{1F3D4}", "line\r\nnext\ttab", "</script>"]
        for n in 0..<300 {
            var l = Location(id: UUID(), title: texts.randomElement(using: &generator)!,
                             coordinate: Coordinate(latitude: .random(in: -90...90), longitude: .random(in: -180...180)),
                             date: Date(timeIntervalSince1970: .random(in: -2e9...2e9)))
            l.countryID = n % 3 == 0 ? nil : "JP"
            l.note = n % 4 == 0 ? nil : texts.randomElement()
            l.tags = n % 5 == 0 ? nil : n % 5 == 1 ? [] : [texts.randomElement()!, "t"]
            l.visitCount = n % 3
            l.photoCount = n % 7
            l.utcOffsetSeconds = [nil, 0, 3600, -12_345, 561].randomElement()!
            l.wanted = n % 6 == 0
            l.editedAt = n % 2 == 0 ? nil : Date()
            l.region = n % 2 == 0 ? "R" : nil
            switch n % 3 {
            case 0: l.type = .city(CityVisitData(cityName: texts.randomElement()!, cityCoordinate: l.coordinate, address: n % 2 == 0 ? "addr" : nil))
            case 1: l.type = .mountain(MountainVisitData(mountainName: "M", height: n % 2 == 0 ? 1234.5 : nil, mountainCoordinate: l.coordinate))
            default: l.type = .point
            }
            let text = PinObjectText.string(l)
            XCTAssertEqual(text, JSONText.string(pinProperties(l)), "pin \(n)")
            let read = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
            XCTAssertEqual(read, pinProperties(l) as NSDictionary, "pin \(n): \(text)")
        }
    }

    /// `PagePin.dataJSON`: the pin's object with its trip, without the place keys, and without
    /// its title when the page makes it.
    func testDataJSONIsThePinsObjectWithoutItsPlaceKeys() {
        var l = mountain
        l.note = nil
        l.tags = nil
        l.photoIDs = []
        l.editedAt = nil
        l.type = .point
        var pin = PagePin(location: l)
        pin.trip = "2015-08-01"
        let head = ##"{"color":"#00FF00","country":"FR","date":"2015-08-01T08:00:00+02:00","id":"0a1b2c3d-0000-4000-8000-00000000000f","##
            + ##""latitude":45.83265,"longitude":6.8652,"photoCount":9,"##
        XCTAssertEqual(pin.dataJSON, head + ##""title":"Mont \"Blanc\"\n","trip":"2015-08-01","visitCount":3}"##)
        pin.titleIsMade = true
        pin.trip = nil
        XCTAssertEqual(pin.dataJSON, head + ##""visitCount":3}"##)
    }

    /// A coordinate's text is Swift's shortest description of the double (as JSONText writes
    /// numbers), over coordinates of every size and the edges of the plain notation.
    func testDegreesAreWrittenAsTheirShortestDescription() {
        var values: [Double] = [0.001, -0.001, 0.0011, 0.0009999, 0.0001, 1e-7, -1e-7, 179.9999999, -179.9999999, 90, -90, 0.5,
                                45.83265, 99_999_999.9999999, 100_000_000.5, 1.0000001, 12.3456789, -0.1234567]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100_000 { values.append(.random(in: -180...180, using: &generator)) }
        for _ in 0..<10_000 { values.append(.random(in: -0.01...0.01, using: &generator)) }
        for value in values {
            let degrees = jsonDegrees(value)
            var out: [UInt8] = []
            ByteRoom.append(to: &out) { PinObjectText.putDegrees(degrees, in: &$0) }
            XCTAssertEqual(String(decoding: out, as: UTF8.self), JSONText.numberText(degrees), "\(value)")
            XCTAssertEqual(Double(String(decoding: out, as: UTF8.self)), degrees, "\(value) reads back")
        }
        var out: [UInt8] = []
        ByteRoom.append(to: &out) { PinObjectText.putDegrees(45.83265, in: &$0) }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "45.83265")
    }
}
