import XCTest
@testable import PinGrammar

/// `LatLonPair`, the scanner of `lat,lon` typed and of Google's `latLng`, on hand-worked texts.
final class LatLonPairTests: XCTestCase {
    private func scan(_ text: String, _ grammar: LatLonPair.Grammar) -> Result<[Double], LatLonPair.Failure> {
        Array(text.utf8).withUnsafeBufferPointer { LatLonPair.scan($0, grammar) }.map { [$0.0, $0.1] }
    }

    func testTyped() {
        XCTAssertEqual(scan("48.8566,2.3522", .typed), .success([48.8566, 2.3522]))
        XCTAssertEqual(scan(" \t-33.8567 , 151.2153\r", .typed), .success([-33.8567, 151.2153]))
        XCTAssertEqual(scan("4.88566e1,2.3522E0", .typed), .success([48.8566, 2.3522]))
        XCTAssertEqual(scan("", .typed), .failure(.noFirstNumber))
        XCTAssertEqual(scan("north,2", .typed), .failure(.noFirstNumber))
        XCTAssertEqual(scan("48.85 2.35", .typed), .failure(.noComma))
        XCTAssertEqual(scan("48.85,east", .typed), .failure(.noSecondNumber))
        XCTAssertEqual(scan("48.85,2.35,7", .typed), .failure(.trailing))
        // Google's forms are not typed ones.
        XCTAssertEqual(scan("48.85°,2.35", .typed), .failure(.noComma))
        XCTAssertEqual(scan("geo:48.85,2.35", .typed), .failure(.noFirstNumber))
    }

    func testGoogle() {
        XCTAssertEqual(scan("48.8566°, 2.3522°", .google), .success([48.8566, 2.3522]))
        XCTAssertEqual(scan("geo:35.0116,135.7681", .google), .success([35.0116, 135.7681]))
        XCTAssertEqual(scan("48.5 ° ,2", .google), .success([48.5, 2]))
        XCTAssertEqual(scan("4.85e1, 2", .google), .failure(.noComma))
        XCTAssertEqual(scan("48.5\r, 2", .google), .failure(.noComma))
        XCTAssertEqual(scan("48.5°°, 2", .google), .failure(.noComma))
    }
}
