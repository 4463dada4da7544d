import Foundation
import PinCore
@testable import PinReport
import XCTest

/// A pin's list object edited into its object in pins-data (`PinObjectEdit`): the expected texts
/// are written out here by hand, keys in JSONText's (sorted) order.
final class PinObjectEditTests: XCTestCase {
    private func edited(_ object: String, dropping: [String], trip: String?) -> String {
        var out: [UInt8] = []
        PinObjectEdit(dropping: dropping, trip: trip).apply(to: object, appendingTo: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func testPlaceKeysOutAndTheTripInItsSortedPlace() {
        let list = ##"{"city":{"name":"Lyon, \"L\"","population":513275},"color":"#FF0000","country":"FR","##
            + ##""date":"2015-03-01T12:00:00Z","id":"a1","latitude":45.764,"longitude":4.8357,"note":"a \"q\", {b} [c]\\","##
            + ##""place":"Lyon","region":"Auvergne-Rh\##u{f4}ne-Alpes","regionCode":"FR-ARA","tags":["x,y","}"],"title":"Lyon","##
            + ##""type":"city","visitCount":3}"##
        XCTAssertEqual(edited(list, dropping: ["place", "region", "regionCode"], trip: "t-2015"),
                       ##"{"city":{"name":"Lyon, \"L\"","population":513275},"color":"#FF0000","country":"FR","##
                       + ##""date":"2015-03-01T12:00:00Z","id":"a1","latitude":45.764,"longitude":4.8357,"note":"a \"q\", {b} [c]\\","##
                       + ##""tags":["x,y","}"],"title":"Lyon","trip":"t-2015","type":"city","visitCount":3}"##)
    }

    func testATitleLeftOutNoTripAndATripLast() {
        let list = ##"{"color":"#00FF00","id":"b2","place":"Kyoto","title":"Kyoto, Japan"}"##
        XCTAssertEqual(edited(list, dropping: ["place", "region", "regionCode", "title"], trip: nil), ##"{"color":"#00FF00","id":"b2"}"##)
        XCTAssertEqual(edited(list, dropping: ["place"], trip: "k\"1"), ##"{"color":"#00FF00","id":"b2","title":"Kyoto, Japan","trip":"k\"1"}"##)
        XCTAssertEqual(edited(##"{"title":"x"}"##, dropping: ["title"], trip: "t"), ##"{"trip":"t"}"##)
        XCTAssertEqual(edited(##"{"wanted":true}"##, dropping: [], trip: "t"), ##"{"trip":"t","wanted":true}"##)
    }

    /// `PagePin.dataJSON`: the list text as it is without an edit, edited with one.
    func testDataJSONIsTheListTextEditedWhenAsked() {
        var pin = PagePin(location: Location(id: UUID(), title: "x", coordinate: Coordinate(latitude: 1, longitude: 2), date: Date()),
                          listJSON: ##"{"place":"P","title":"x"}"##)
        XCTAssertEqual(pin.dataJSON, ##"{"place":"P","title":"x"}"##)
        pin.edit = PinObjectEdit(dropping: ["place"], trip: nil)
        XCTAssertEqual(pin.dataJSON, ##"{"title":"x"}"##)
    }
}
