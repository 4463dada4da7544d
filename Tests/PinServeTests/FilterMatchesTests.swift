import Foundation
import PinCore
import PinStore
import XCTest
@testable import PinServe

/// A filtered page of GET /api/pins scans the kept pins once per filter and version of the pins
/// (scripts/bench-serve: 20-40 ms of CPU a filtered page when each one scanned 100,000 pins).
final class FilterMatchesTests: XCTestCase {
    func testAFilterAskedAgainIsNotScannedAgainAndTheOldestOfMoreThanSixteenGoes() {
        let matches = FilterMatches()
        let filter = PinFilter()
        var scans = 0
        XCTAssertEqual(matches.indices(for: "country=FR", filter: filter) { scans += 1; return [0, 3, 7] }, [0, 3, 7])
        XCTAssertEqual(matches.indices(for: "country=FR", filter: filter) { scans += 1; return [] }, [0, 3, 7])
        XCTAssertEqual(scans, 1)
        for n in 0..<16 { _ = matches.indices(for: "q=\(n)", filter: filter) { scans += 1; return [Int32(n)] } }
        XCTAssertEqual(scans, 17)
        XCTAssertEqual(matches.indices(for: "q=15", filter: filter) { scans += 1; return [] }, [15], "kept: among the last 16")
        XCTAssertEqual(matches.indices(for: "country=FR", filter: filter) { scans += 1; return [1] }, [1], "the oldest went: scanned again")
        XCTAssertEqual(scans, 18)
    }

    /// A log position with no pin changed keeps the answers; a change makes new ones.
    func testAChangedPinMakesNewAnswers() {
        var list = PinList(seq: 1, file: nil, pins: [])
        let before = list.matches
        list.apply(PinChanges(seq: 2, pins: []))
        XCTAssertTrue(list.matches === before)
        list.apply(PinChanges(seq: 3, pins: [(id: UUID(), pin: nil)]))
        XCTAssertFalse(list.matches === before)
    }

    /// Pins of one date are in the order of their id texts, newest first (`PinFilter`'s tie-break,
    /// reversed), compared by the ids' bytes: worked by hand, "…0A" before "…09" before "…00"
    /// ('A' follows '9' in the text as 0x0A follows 0x09), and "10…" before "0F…".
    func testPinsOfOneDateAreInTheOrderOfTheirIdTexts() {
        let ids = ["00000000-0000-0000-0000-000000000009", "10000000-0000-0000-0000-000000000000",
                   "00000000-0000-0000-0000-00000000000A", "0F000000-0000-0000-0000-000000000000",
                   "00000000-0000-0000-0000-000000000000"]
        let pins = ids.map { Location(id: UUID(uuidString: $0)!, title: $0, coordinate: Coordinate(latitude: 1, longitude: 2), date: Date(timeIntervalSince1970: 0)) }
        let listed = ListedPin.made(pins).sorted { $0.comesBefore($1) }
        XCTAssertEqual(listed.map(\.pin.title), ["10000000-0000-0000-0000-000000000000", "0F000000-0000-0000-0000-000000000000",
                                                 "00000000-0000-0000-0000-00000000000A", "00000000-0000-0000-0000-000000000009",
                                                 "00000000-0000-0000-0000-000000000000"])
        XCTAssertFalse(listed[0].comesBefore(listed[0]), "a pin does not come before itself")
    }

    private func pin(_ n: Int, _ country: String, day: Double) -> Location {
        Location(id: UUID(uuidString: "00000000-0000-0000-0000-00000000000\(n)")!, title: "Pin \(n)",
                 coordinate: Coordinate(latitude: 45, longitude: 5), countryID: country, date: Date(timeIntervalSince1970: day * 86_400))
    }

    private func filter(_ query: String) throws -> PinFilter {
        try APIRequest.pinList(try XCTUnwrap(RequestTarget.parse("/api/pins?\(query)"))).filter
    }

    /// The answers of the filters asked before a change of a few pins are carried over it, the
    /// changed pins alone tested: worked by hand. Newest first, the list is p6 DE, p5 FR, p4 DE,
    /// p3 FR, p2 DE, p1 FR (FR at 1, 3, 5; DE at 0, 2, 4). p5 deleted, p4 made French and dated
    /// before p1, p7 (French, the newest) added: p7 FR, p6 DE, p3 FR, p2 DE, p1 FR, p4 FR.
    func testAChangeOfAFewPinsCarriesTheAnswersOverWithoutAScan() throws {
        let pins = [pin(6, "DE", day: 6), pin(5, "FR", day: 5), pin(4, "DE", day: 4), pin(3, "FR", day: 3),
                    pin(2, "DE", day: 2), pin(1, "FR", day: 1)]
        var list = PinList(seq: 1, file: nil, pins: ListedPin.made(pins))
        let (france, germany) = (try filter("country=FR"), try filter("country=DE"))
        XCTAssertEqual(list.matches.indices(for: "FR", filter: france) { FilterMatches.scan(france, list.pins) }, [1, 3, 5])
        XCTAssertEqual(list.matches.indices(for: "DE", filter: germany) { FilterMatches.scan(germany, list.pins) }, [0, 2, 4])
        var moved = pins[2]
        moved.countryID = "FR"
        moved.date = Date(timeIntervalSince1970: 0.5 * 86_400)
        list.apply(PinChanges(seq: 2, pins: [(id: pins[1].id, pin: nil), (id: moved.id, pin: moved), (id: pin(7, "FR", day: 7).id, pin: pin(7, "FR", day: 7))]))
        XCTAssertEqual(list.pins.map(\.pin.title), ["Pin 7", "Pin 6", "Pin 3", "Pin 2", "Pin 1", "Pin 4"])
        XCTAssertEqual(list.matches.indices(for: "FR", filter: france) { XCTFail("scanned again"); return [] }, [0, 2, 4, 5])
        XCTAssertEqual(list.matches.indices(for: "DE", filter: germany) { XCTFail("scanned again"); return [] }, [1, 3])
        XCTAssertEqual(FilterMatches.scan(france, list.pins), [0, 2, 4, 5], "what a scan finds")
    }

    /// The indices moved by hand: FR at 1, 3, 5 of six; places 1 and 2 taken out, 0 and 5 put in
    /// (both French): 0, 2 (was 3), 4 (was 5), 5.
    func testCarryMovesEachIndexPastThePlacesTakenOutAndPutIn() {
        XCTAssertEqual(FilterMatches.carry([1, 3, 5], removed: [1, 2], inserted: [0, 5], added: [0, 5]), [0, 2, 4, 5])
        XCTAssertEqual(FilterMatches.carry([1, 3, 5], removed: [1, 2], inserted: [0, 5], added: []), [2, 4])
        XCTAssertEqual(FilterMatches.carry([0, 1, 2], removed: [], inserted: [1, 2], added: [2]), [0, 2, 3, 4])
        XCTAssertEqual(FilterMatches.carry([], removed: [0], inserted: [3], added: [3]), [3])
        XCTAssertEqual(FilterMatches.carry([4], removed: [4], inserted: [], added: []), [])
    }

    func testTheKeyIsTheFilterWithoutThePage() throws {
        func key(_ target: String) throws -> String { AppBackend.filterKey(try XCTUnwrap(RequestTarget.parse(target))) }
        XCTAssertEqual(try key("/api/pins?country=FR&q=lyon&limit=100&offset=200"), try key("/api/pins?q=lyon&country=FR"))
        XCTAssertEqual(try key("/api/pins?country=FR"), #"[["country","FR"]]"#)
        XCTAssertNotEqual(try key("/api/pins?country=FR"), try key("/api/pins?country=DE"))
        XCTAssertNotEqual(try key("/api/pins?tag=a&tag=b"), try key("/api/pins?tag=a"))
    }
}
