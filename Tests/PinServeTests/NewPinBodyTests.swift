import Foundation
@testable import PinApp
import PinCore
@testable import PinServe
import XCTest

/// A new pin's visit fields, read from the server's body and checked by `NewPin` by the
/// registry's declaration (`VisitField.all`), with the values and messages worked by hand.
final class NewPinBodyTests: XCTestCase {
    func fields(_ json: String) throws -> APIRequest.NewPinFields {
        try APIRequest.newPin(JSONBody(Array(json.utf8)))
    }

    func testTheBodyGivesEachFieldByItsKeyAndKind() throws {
        let new = try fields(#"{"latitude":46,"longitude":7,"type":"mountain","name":"Dom","height":4545,"achievedHeight":4000.5,"address":""}"#)
        XCTAssertEqual(new.name, "Dom")
        XCTAssertEqual(new.fields, ["height": .number(4545), "achievedHeight": .number(4000.5), "address": .text("")])
        XCTAssertEqual(try fields(#"{"latitude":46,"longitude":7,"name":""}"#).name, nil, "an empty name is none")
        XCTAssertThrowsError(try fields(#"{"latitude":46,"longitude":7,"height":9001}"#)) { error in
            XCTAssertEqual((error as? RequestError)?.message, "'height' must be between -500.0 and 9000.0, got 9001.0")
        }
        XCTAssertThrowsError(try fields(#"{"latitude":46,"longitude":7,"address":"\#(String(repeating: "a", count: 501))"}"#))
    }

    func testNewPinSaysWhichTypeAFieldIsFor() {
        func why(_ type: LocationTypeSelection, name: String? = nil, _ given: [String: VisitValue]) -> String? {
            var new = NewPin(coordinate: Coordinate(latitude: 46, longitude: 7))
            (new.type, new.name, new.fields) = (type, name, given)
            do { try new.check() } catch { return "\(error)" }
            return nil
        }
        XCTAssertEqual(why(.point, ["achievedHeight": .number(1)]), "--height and --achieved-height are for --type mountain")
        XCTAssertEqual(why(.mountain, name: "Dom", ["address": .text("x")]), "--address is for --type city")
        XCTAssertEqual(why(.point, ["address": .text("x"), "height": .number(1)]), "--address is for --type city")
        XCTAssertEqual(why(.mountain, [:]), "--type mountain needs --name")
        XCTAssertEqual(why(.city, [:]), nil, "a city is named by its place")
        XCTAssertEqual(why(.point, name: "x", [:]), "--name is for --type city or mountain")
    }

    func testTheReachedHeightDefaultsToTheHeight() {
        var new = NewPin(coordinate: Coordinate(latitude: 46, longitude: 7))
        (new.type, new.name, new.fields) = (.mountain, "Dom", ["height": .number(4545)])
        XCTAssertEqual(new.visit, VisitValues(type: .mountain, values: [.text("Dom"), .number(4545), .number(4545)]))
        new.fields["achievedHeight"] = .number(4000)
        XCTAssertEqual(new.visit.values.last, .number(4000))
        XCTAssertEqual(VisitField.all.map(\.option), ["--name", "--address", "--height", "--achieved-height"])
    }
}
