import XCTest
@testable import PinCore

/// The list's search with each pin's text folded once (`foldedMatcher`, what pins serve runs for
/// every request) keeps the pins the plain matcher keeps: case, accents and width ignored, in the
/// title, place, note, tags and a city's or mountain's name; tags matched whole.
final class PinFilterFoldedTests: XCTestCase {
    func pin(_ title: String, tags: [String]? = nil, note: String? = nil, type: LocationType = .point) -> Location {
        Location(id: UUID(), title: title, coordinate: Coordinate(latitude: 47.37, longitude: 8.54), countryID: "CH", type: type,
                 date: Date(timeIntervalSince1970: 1_700_000_000), note: note, tags: tags)
    }

    func testFoldedFieldsMatchAsThePlainMatcherDoes() {
        let pins = [
            pin("Zürich Café", tags: ["Hike", "Lake"]),                 // "zurich cafe" by folding
            pin("Bern", note: "the ＣＡＦＥ by the river"),               // full-width letters in the note
            pin("Matterhorn", type: .mountain(MountainVisitData(mountainName: "Cervin", height: 4478, mountainCoordinate: Coordinate(latitude: 45.9763, longitude: 7.6586),
                                                                achievedHeight: nil))),
            pin("Geneva", tags: ["hiker"]),                               // a tag that only starts with "hike"
        ]
        var searches: [(PinFilter, [Int])] = []
        var cafe = PinFilter()
        cafe.search = "CAFE"
        searches.append((cafe, [0, 1]))
        var hike = PinFilter()
        hike.tags = ["hike"]
        searches.append((hike, [0]))
        var cervin = PinFilter()
        cervin.search = "cervin"
        searches.append((cervin, [2]))
        var none = PinFilter()
        none.search = "Lausanne"
        searches.append((none, []))
        for (filter, expected) in searches {
            let plain = filter.matcher { _ in nil }, folded = filter.foldedMatcher { _ in nil }
            XCTAssertEqual(pins.indices.filter { plain(pins[$0]) }, expected, "\(filter.search ?? "") \(filter.tags)")
            XCTAssertEqual(pins.indices.filter { folded(pins[$0], PinFilter.FoldedFields(pins[$0])) }, expected,
                           "folded once: \(filter.search ?? "") \(filter.tags)")
        }
    }
}
