import XCTest
import Foundation
@testable import PinCore

/// `pins serve` folds each pin's text once (`FoldedPinText`) and searches it with
/// `PinFilter.foldedMatcher`; the answers must be `PinFilter.matcher`'s, which folds at every
/// search: by hand for the plain cases, and pin by pin against `matcher` for texts where a byte
/// search could differ (accents composed or not, NUL, CR LF, non-Latin scripts, ß, dotted İ).
final class FoldedSearchTests: XCTestCase {
    func pin(_ title: String, note: String? = nil, tags: [String]? = nil, place: String? = nil) -> Location {
        var pin = Location(id: UUID(), title: title, coordinate: Coordinate(latitude: 47, longitude: 8),
                           date: Date(timeIntervalSince1970: 0), note: note, tags: tags)
        pin.place = place
        return pin
    }

    lazy var pins = [
        pin("Zürich lake", tags: ["Hike"]), pin("Place 123"), pin("Place 21", place: "Genève"),
        pin("Cafe\u{301} de Flore", note: "line one\r\nline two"), pin("Straße am See"), pin("İstanbul Bosphorus"),
        pin("東京タワー"), pin("a\u{0}b title"), pin("Plain", note: "zurich again", tags: ["city", "FOOD"]),
    ]

    func titles(_ filter: PinFilter) -> [String] {
        let accepts = filter.foldedMatcher { _ in nil }
        return pins.filter { accepts($0, FoldedPinText($0)) }.map(\.title)
    }

    func testPlainSearchesAndTagsByHand() {
        var filter = PinFilter()
        filter.search = "ZURICH"
        XCTAssertEqual(titles(filter), ["Zürich lake", "Plain"], "title with an accent, and a note")
        filter.search = "place 12"
        XCTAssertEqual(titles(filter), ["Place 123"])
        filter.search = "geneve"
        XCTAssertEqual(titles(filter), ["Place 21"], "the place, accent folded")
        filter.search = "hike"
        XCTAssertEqual(titles(filter), ["Zürich lake"], "tags are searched")
        filter.search = "café"
        XCTAssertEqual(titles(filter), ["Cafe\u{301} de Flore"], "a decomposed accent")
        filter.search = "タワー"
        XCTAssertEqual(titles(filter), ["東京タワー"])
        filter.search = "   "
        XCTAssertEqual(titles(filter).count, 0, "spaces are a needle: no title has three")
        filter.search = nil
        filter.tags = ["food", "CITY"]
        XCTAssertEqual(titles(filter), ["Plain"])
        XCTAssertFalse(filter.acceptsEveryPin)
        XCTAssertTrue(PinFilter().acceptsEveryPin)
        var empty = PinFilter()
        empty.search = ""
        XCTAssertTrue(empty.acceptsEveryPin, "an empty search is none")
    }

    func testTheFoldedAnswersAreTheMatchersForEveryNeedle() {
        let needles = ["zurich", "ZÜR", "u\u{308}r", "e\u{301} de", "é de", "cafe", "\u{0}", "a\u{0}b", "b title", "\r", "\n", "\r\nline",
                       "ss", "strasse", "straße", "STRASSE", "i̇stanbul", "istanbul", "İ", "東京", "ﾀﾜｰ", "1", "place 21", "lake ", " ",
                       "flore line", "see", "K", "\u{212A}"]
        for needle in needles {
            var filter = PinFilter()
            filter.search = needle
            let plain = filter.matcher { _ in nil }, folded = filter.foldedMatcher { _ in nil }
            for pin in pins {
                XCTAssertEqual(folded(pin, FoldedPinText(pin)), plain(pin), "\(needle.debugDescription) in \(pin.title.debugDescription)")
            }
        }
        for tag in ["hike", "HIKE", "food", "Hiké", "cit"] {
            var filter = PinFilter()
            filter.tags = [tag]
            let plain = filter.matcher { _ in nil }, folded = filter.foldedMatcher { _ in nil }
            for pin in pins { XCTAssertEqual(folded(pin, FoldedPinText(pin)), plain(pin), "tag \(tag) on \(pin.title)") }
        }
    }
}
