import XCTest
import Foundation
@testable import PinStore
@testable import PinCore

/// A locator with hand-made answers: east of 0° is France, west is the US, the far south is at sea.
struct StubLocator: CountryLocating {
    func countryCode(at point: Coordinate) -> String? {
        if point.latitude < -60 { return nil }
        return point.longitude >= 0 ? "FR" : "US"
    }
}

let testCatalog = CountryCatalog(entries: [
    CountryInfo(alpha2: "FR", alpha3: "FRA", numeric: "250", name: "France", continent: "Europe", region: "Europe", subRegion: "Western Europe"),
    CountryInfo(alpha2: "US", alpha3: "USA", numeric: "840", name: "United States of America", continent: "North America", region: "Americas", subRegion: "Northern America"),
])

/// A database file in a fresh temporary folder, removed after the test.
func temporaryDatabasePath(_ testCase: XCTestCase) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    testCase.addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
    return dir.appendingPathComponent("pins.sqlite").path
}

/// A counter a @Sendable closure can bump.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    func increment() { lock.lock(); count += 1; lock.unlock() }
}
