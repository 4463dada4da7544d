import Foundation
import XCTest

/// PINS_BENCH_WITHOUT_PLACES (the benches' import as before places) leaves no database wrong:
/// the pin it makes has no place, and the next pins run without it gives the pin its own.
final class BenchSwitchTests: XCTestCase {
    func testAPinMadeWithoutPlacesGetsItsPlaceAtTheNextRun() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-bench-switch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("pins.sqlite").path
        // The Eiffel Tower (48.8584, 2.2945): Paris, Île-de-France.
        let bench = try CLI.run(["add", "--db", db, "--lat", "48.8584", "--lon", "2.2945", "--date", "2024-05-01T12:00:00+02:00"],
                                environment: ["PINS_BENCH_WITHOUT_PLACES": "1"])
        XCTAssertEqual(bench.status, 0, bench.stderr)
        func pins() throws -> [[String: Any]] {
            let listed = try CLI.run(["list", "--db", db, "--json"])
            return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        }
        XCTAssertNil(try pins().first?["place"], "the switch names no place")
        XCTAssertEqual(try pins().first?["title"] as? String, "France")
        // Another bench run leaves it waiting; a run without the switch names it.
        XCTAssertEqual(try CLI.run(["add", "--db", db, "--lat", "35.0116", "--lon", "135.7681", "--date", "2024-05-02T12:00:00+09:00"],
                                   environment: ["PINS_BENCH_WITHOUT_PLACES": "1"]).status, 0)
        XCTAssertNil(try pins().first { $0["country"] as? String == "FR" }?["place"])
        XCTAssertEqual(try CLI.run(["add", "--db", db, "--lat", "0", "--lon", "-30", "--date", "2024-05-03T12:00:00Z"]).status, 0)
        let paris = try XCTUnwrap(try pins().first { $0["country"] as? String == "FR" })
        XCTAssertEqual(paris["place"] as? String, "Paris")
        XCTAssertEqual(paris["region"] as? String, "Île-de-France")
        XCTAssertEqual(paris["title"] as? String, "France", "a title pins did not make before places stays")
        XCTAssertEqual(try pins().first { $0["country"] as? String == "JP" }?["place"] as? String, "Kyoto")
    }
}
