import Foundation
import PinStore
import XCTest
@testable import PinServe

/// A filtered page of GET /api/pins scans the kept pins once per filter and version of the pins
/// (scripts/bench-serve: 20-40 ms of CPU a filtered page when each one scanned 100,000 pins).
final class FilterMatchesTests: XCTestCase {
    func testAFilterAskedAgainIsNotScannedAgainAndTheOldestOfMoreThanSixteenGoes() {
        let matches = FilterMatches()
        var scans = 0
        XCTAssertEqual(matches.indices(for: "country=FR") { scans += 1; return [0, 3, 7] }, [0, 3, 7])
        XCTAssertEqual(matches.indices(for: "country=FR") { scans += 1; return [] }, [0, 3, 7])
        XCTAssertEqual(scans, 1)
        for n in 0..<16 { _ = matches.indices(for: "q=\(n)") { scans += 1; return [Int32(n)] } }
        XCTAssertEqual(scans, 17)
        XCTAssertEqual(matches.indices(for: "q=15") { scans += 1; return [] }, [15], "kept: among the last 16")
        XCTAssertEqual(matches.indices(for: "country=FR") { scans += 1; return [1] }, [1], "the oldest went: scanned again")
        XCTAssertEqual(scans, 18)
    }

    /// A change of any pin makes the answers new; a log position with no pin changed keeps them.
    func testAChangedPinMakesTheListScanAgain() {
        var list = PinList(seq: 1, file: nil, pins: [])
        let before = list.matches
        list.apply(PinChanges(seq: 2, pins: []))
        XCTAssertTrue(list.matches === before)
        list.apply(PinChanges(seq: 3, pins: [(id: UUID(), pin: nil)]))
        XCTAssertFalse(list.matches === before)
    }

    func testTheKeyIsTheFilterWithoutThePage() throws {
        func key(_ target: String) throws -> String { AppBackend.filterKey(try XCTUnwrap(RequestTarget.parse(target))) }
        XCTAssertEqual(try key("/api/pins?country=FR&q=lyon&limit=100&offset=200"), try key("/api/pins?q=lyon&country=FR"))
        XCTAssertEqual(try key("/api/pins?country=FR"), #"[["country","FR"]]"#)
        XCTAssertNotEqual(try key("/api/pins?country=FR"), try key("/api/pins?country=DE"))
        XCTAssertNotEqual(try key("/api/pins?tag=a&tag=b"), try key("/api/pins?tag=a"))
    }
}
