import Foundation
import XCTest

/// User text (titles, notes, tags, city and mountain names, typed option values) reaches the
/// terminal with its control characters and bidirectional overrides written out, as file names
/// are (issue 22 item 10).
final class TerminalEscapeTests: XCTestCase {
    let esc = "\u{1B}", bel = "\u{07}", rlo = "\u{202E}"

    func assertClean(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for (scalar, name) in [(esc, "ESC"), (bel, "BEL"), (rlo, "U+202E")] {
            XCTAssertFalse(text.contains(scalar), "\(what) prints a raw \(name): \(text)", file: file, line: line)
        }
    }

    func testListShowEditCitiesAndRunsEscapeUserText() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        let add = try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "a\(esc)[31mred\(bel)",
                               "--note", "note\(rlo)txt.exe", "--tag", "t\(esc)]0;owned\(bel)", "--type", "city", "--name", "Par\(esc)[2Jis", "--db", db])
        XCTAssertEqual(add.status, 0, add.stderr)
        let id = CLI.addedID(add)

        let list = try CLI.run(["list", "--db", db])
        XCTAssertEqual(list.status, 0, list.stderr)
        assertClean(list.stdout, "list")
        XCTAssertTrue(list.stdout.contains("a\\033[31mred\\a"), list.stdout)

        let show = try CLI.run(["show", id, "--db", db])
        XCTAssertEqual(show.status, 0, show.stderr)
        assertClean(show.stdout, "show")
        XCTAssertTrue(show.stdout.contains("title     a\\033[31mred\\a\n"), show.stdout)
        XCTAssertTrue(show.stdout.contains("note      note\\342\\200\\256txt.exe\n"), show.stdout)
        XCTAssertTrue(show.stdout.contains("tags      t\\033]0;owned\\a\n"), show.stdout)
        XCTAssertTrue(show.stdout.contains("city      Par\\033[2Jis\n"), show.stdout)

        let cities = try CLI.run(["cities", "--db", db])
        assertClean(cities.stdout, "cities")
        XCTAssertTrue(cities.stdout.contains("Par\\033[2Jis"), cities.stdout)

        let edit = try CLI.run(["edit", id, "--title", "b\(rlo)c", "--db", db])
        XCTAssertEqual(edit.status, 0, edit.stderr)
        assertClean(edit.stdout, "edit")
        XCTAssertTrue(edit.stdout.contains(": b\\342\\200\\256c, "), edit.stdout)

        // JSON keeps the text as it is: it is data, escaped by JSON's own rules.
        let json = try CLI.run(["show", id, "--json", "--db", db])
        XCTAssertEqual((try CLI.json(json.stdout) as? [String: Any])?["title"] as? String, "b\(rlo)c")
    }

    func testATypedValueInAnErrorMessageIsEscaped() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        let run = try CLI.run(["list", "--country", "F\(esc)[2J", "--db", db])
        XCTAssertEqual(run.status, 64)
        assertClean(run.stderr, "a usage error")
        XCTAssertTrue(run.stderr.contains("'F\\033[2J'\nRun 'pins list --help' for usage.\n"), run.stderr)
    }
}
