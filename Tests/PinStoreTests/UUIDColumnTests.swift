import Foundation
@testable import PinStore
@testable import PinCore
import XCTest

/// `Statement.uuid` parses a stored id from its bytes as Foundation would, and refuses what
/// Foundation refuses.
final class UUIDColumnTests: XCTestCase {
    func testIdsParseAsFoundationParsesThem() throws {
        let db = try Connection(path: ":memory:")
        let texts = ["6eafc6c6-47f0-47ad-a422-b606a173aece", "6EAFC6C6-47F0-47AD-A422-B606A173AECE",
                     "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
                     "6eafc6c6-47f0-47ad-a422-b606a173aec", "6eafc6c6x47f0-47ad-a422-b606a173aece",
                     "6eafc6c6-47f0-47ad-a422-b606a173aecg", "", "6eafc6c6-47f0-47ad-a422-b606a173aecee"]
        for text in texts {
            let parsed = try db.query("SELECT ?", [text]) { $0.uuid(0) }.first ?? nil
            XCTAssertEqual(parsed, UUID(uuidString: text), text)
        }
        // One known value byte by byte.
        let id = try XCTUnwrap(try db.query("SELECT '01234567-89ab-cdef-0123-456789ABCDEF'") { $0.uuid(0) }.first ?? nil)
        XCTAssertEqual(id.uuidString, "01234567-89AB-CDEF-0123-456789ABCDEF")
    }
}

/// `UUID.lowercasedText` is `uuidString.lowercased()`, byte for byte.
final class UUIDTextTests: XCTestCase {
    func testTheTextIsFoundationsInLowerCase() throws {
        for text in ["01234567-89AB-CDEF-0123-456789ABCDEF", "00000000-0000-0000-0000-000000000000",
                     "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"] {
            let id = try XCTUnwrap(UUID(uuidString: text))
            XCTAssertEqual(id.lowercasedText, text.lowercased())
        }
        for _ in 0..<100 {
            let id = UUID()
            XCTAssertEqual(id.lowercasedText, id.uuidString.lowercased())
        }
    }
}
