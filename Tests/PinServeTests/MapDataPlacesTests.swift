import Foundation
@testable import PinApp
import PinCore
@testable import PinServe
import XCTest

/// The map data of pins serve names the places of the visited countries without keeping a data
/// file: the place names come from places loaded for it alone (`loadedOrOnce`), the country
/// outlines are not loaded (no point is asked about), and the names kept for the same countries
/// follow a pin in a new country. Worked out by hand: Paris is among France's 150 largest
/// places, Osaka among Japan's, and neither is in the other's.
final class MapDataPlacesTests: XCTestCase {
    private func labels(_ backend: AppBackend) throws -> [String] {
        let target = try XCTUnwrap(RequestTarget.parse("/api/page-data?fresh=1"))
        let answer = try backend.pageData(target, HTTPRequest(method: .get, target: "/api/page-data?fresh=1"))
        let data = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        return try XCTUnwrap(data["places-data"] as? [[Any]]).compactMap { $0.first as? String }
    }

    func testTheMapDataKeepsNoDataFileAndItsNamesFollowTheCountries() throws {
        let (editor, _) = try serveScratch("map-data-places")
        _ = try addPin(editor, 48.8584, 2.2945) { $0.title = "Tour Eiffel" }
        // The service: another PinApp on the same database, as `pins serve` beside the CLI.
        let served = PinApp(databasePath: editor.databasePath, named: true)
        let backend = AppBackend(app: served, libraries: [])

        let french = try labels(backend)
        XCTAssertTrue(french.contains("Paris"), "\(french.prefix(5))")
        XCTAssertFalse(french.contains("Osaka"))
        XCTAssertFalse(served.places.isLoaded, "the gazetteer and outlines were loaded for the map data alone")
        XCTAssertFalse(served.locator.isLoaded, "no country outline was needed")

        _ = try addPin(editor, 34.6937, 135.5023) { $0.title = "Dotonbori"; $0.date = "2024-06-01T10:00:00+09:00" }
        let both = try labels(backend)
        XCTAssertTrue(both.contains("Paris") && both.contains("Osaka"), "the names kept for France alone are not given for France and Japan")
        XCTAssertFalse(served.places.isLoaded || served.locator.isLoaded)
    }
}
