import Foundation
@testable import PinCore
import XCTest

/// Values by UUID in sorted ids (`IDIndex`), against answers worked out by hand: ids that tie in
/// their first eight bytes (the high word) and differ in the last, an id given twice (its last
/// value, as a dictionary's last write), ids absent below, between and above the ones kept.
final class IDIndexTests: XCTestCase {
    private func id(_ text: String) -> UUID { UUID(uuidString: text)! }

    func testEachIdFindsItsLastValueAndAnAbsentOneNothing() {
        let a = id("00000000-0000-0000-0000-000000000002"), b = id("00000000-0000-0000-0000-000000000001")
        let c = id("FFFFFFFF-0000-0000-0000-000000000000"), d = id("80000000-0000-0000-0000-0000000000FF")
        let index = IDIndex(ids: [a, c, d, b, a], values: ["a1", "c", "d", "b", "a2"])
        XCTAssertEqual(index[a], "a2", "given twice: the last")
        XCTAssertEqual(index[b], "b")
        XCTAssertEqual(index[c], "c")
        XCTAssertEqual(index[d], "d")
        XCTAssertEqual(index.count, 4)
        XCTAssertEqual(index.values, ["b", "a2", "d", "c"], "in the order of the ids' bytes")
        for absent in ["00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000003",
                       "80000000-0000-0000-0000-0000000000FE", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"] {
            XCTAssertNil(index[id(absent)], absent)
        }
        XCTAssertNil(IDIndex<Int>(ids: [], values: [])[a])
    }
}
