import Foundation
import XCTest

/// Issue 11: `pins runs show N`, `pins runs undo N [--dry-run]`, `list --run N`, on the hand-worked
/// sample library (Fixtures/library-expected.json: 36 files, 22 pins, 12 skipped).
final class RunsUndoTests: XCTestCase {
    func testShowUndoAndImportAgain() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let library = CLI.repo.appendingPathComponent("Fixtures/library").path
        @discardableResult func pins(_ args: [String], status: Int32 = 0) throws -> String {
            let run = try CLI.run(args + ["--db", db])
            XCTAssertEqual(run.status, status, "\(args): \(run.stderr)")
            return run.stdout
        }
        try pins(["import", library, "--timezone", "UTC", "--quiet"])

        let show = try CLI.json(try pins(["runs", "show", "1", "--json"])) as! [String: Any]
        XCTAssertEqual((show["created"] as! [Any]).count, 22)
        var reasons: [String: Int] = [:]
        for row in show["skipped"] as! [[String: Any]] where row["reason"] as? String != "notMedia" {
            reasons[row["reason"] as! String, default: 0] += 1
        }
        XCTAssertEqual(reasons, ["noLocation": 4, "interval": 5, "distance": 2, "unreadable": 1])
        // The run's counts in `pins runs --json`, keyed by the same texts.
        let listed = try CLI.json(try pins(["runs", "--json"])) as! [[String: Any]]
        XCTAssertEqual(listed.first?["skipped"] as? [String: Int], reasons)
        XCTAssertEqual((try CLI.json(try pins(["list", "--run", "1", "--json"])) as! [Any]).count, 22)
        let showText = try pins(["runs", "show", "1"])
        XCTAssertTrue(showText.contains("Created 22 pins"))
        // The REASON column in words, as the import's summary says them (the JSON keeps its values):
        // 4 without a position and the 2 files of the library that are not media (hand-counted).
        let reasonColumn = showText.split(separator: "\n").compactMap { line -> String? in
            ["no location", "not media", "interval", "distance", "unreadable"].first { line.hasPrefix("  \($0)  ") }
        }
        XCTAssertEqual(Dictionary(grouping: reasonColumn, by: { $0 }).mapValues(\.count),
                       ["no location": 4, "not media": 2, "interval": 5, "distance": 2, "unreadable": 1], showText)
        XCTAssertFalse(showText.contains("noLocation") || showText.contains("notMedia"), showText)

        // Edit the pin of IMG_0001 (the Eiffel Tower): an undo keeps it.
        let eiffel = (try CLI.json(try pins(["list", "--json", "--near", "48.85837,2.294481", "--within", "0.1"])) as! [[String: Any]])
        XCTAssertEqual(eiffel.count, 1)
        let kept = eiffel[0]["id"] as! String
        try pins(["edit", kept, "--title", "Mine now"])

        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let dry = try CLI.json(try pins(["runs", "undo", "1", "--dry-run", "--json"])) as! [String: Any]
        XCTAssertEqual((dry["removed"] as! [Any]).count, 21)
        XCTAssertEqual((dry["kept"] as! [[String: Any]]).map { $0["id"] as! String }, [kept])
        // 36 files recorded by the run; the kept pin's photo keeps its decision.
        XCTAssertEqual(dry["forgottenPhotos"] as? Int, 35)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before, "a dry run writes nothing")

        let undo = try pins(["runs", "undo", "1"])
        XCTAssertTrue(undo.contains("Removed 21 pins of run 1"), undo)
        let left = try CLI.json(try pins(["list", "--json"])) as! [[String: Any]]
        XCTAssertEqual(left.map { $0["title"] as! String }, ["Mine now"])
        let stats = try CLI.json(try pins(["stats", "--json"])) as! [String: Any]
        XCTAssertEqual((stats["countries"] as! [[String: Any]]).map { "\($0["id"]!):\($0["pinCount"]!)" }, ["FR:1"])
        let runs = try CLI.json(try pins(["runs", "--json"])) as! [[String: Any]]
        XCTAssertEqual(runs.first?["status"] as? String, "undone")

        // The next import decides those photos again: the same 21 pins come back.
        try pins(["import", library, "--timezone", "UTC", "--quiet"])
        XCTAssertEqual((try CLI.json(try pins(["list", "--json"])) as! [Any]).count, 22)
        XCTAssertEqual((try CLI.json(try pins(["list", "--run", "2", "--json"])) as! [Any]).count, 21)

        try pins(["runs", "undo", "9"], status: 1)
        try pins(["runs", "show"], status: 64)
        try pins(["runs", "redo", "1"], status: 64)
        try pins(["runs", "--dry-run"], status: 64)
    }
}
