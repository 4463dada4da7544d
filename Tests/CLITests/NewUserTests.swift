import Foundation
import XCTest

/// What a new user meets on the command line (issue 24 items 4, 10, 11, 12).
final class NewUserTests: XCTestCase {
    var library: String { CLI.repo.appendingPathComponent("Fixtures/library").path }

    /// Item 4: `env -i PATH=/usr/bin:/bin` (no HOME, no PINS_DB): a dry run needs no database,
    /// and writes nothing anywhere.
    func testADryRunInAnEmptyEnvironmentNeedsNoDatabase() throws {
        let dir = try CLI.temporaryDirectory(self)
        let run = try CLI.run(["-i", "PATH=/usr/bin:/bin", "PINS_DATA_DIR=\(CLI.dataDirectory)", CLI.binary,
                               "import", library, "--dry-run", "--timezone", "UTC"], executable: "/usr/bin/env", cwd: dir.path)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("  pins       22 would be created\n"), run.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
        // A real import there still says where a database could go.
        let real = try CLI.run(["-i", "PATH=/usr/bin:/bin", "PINS_DATA_DIR=\(CLI.dataDirectory)", CLI.binary,
                                "import", library], executable: "/usr/bin/env", cwd: dir.path)
        XCTAssertEqual(real.status, 1)
        XCTAssertTrue(real.stderr.contains("set --db, PINS_DB or HOME"), real.stderr)
    }

    /// Item 11: a mistyped command or option gets the nearest one.
    func testMistypedCommandsAndOptionsGetTheNearest() throws {
        for (arguments, hint) in [(["imprt", "x"], "unknown command 'imprt'; did you mean import?"),
                                  (["lsit"], "unknown command 'lsit'; did you mean list?"),
                                  (["help", "exprot"], "unknown command 'exprot'; did you mean export?"),
                                  (["import", "x", "--dryrun"], "unknown option '--dryrun'; did you mean --dry-run?"),
                                  (["import", "x", "--dry"], "unknown option '--dry'; did you mean --dry-run?"),
                                  (["list", "--contry", "FR"], "unknown option '--contry'; did you mean --country?")] {
            let run = try CLI.run(arguments)
            XCTAssertEqual(run.status, 64, "\(arguments)")
            XCTAssertTrue(run.stderr.contains(hint), "\(arguments): \(run.stderr)")
        }
        // Nothing close: no guess.
        let far = try CLI.run(["list", "--zzz"])
        XCTAssertEqual(far.status, 64)
        XCTAssertFalse(far.stderr.contains("did you mean"), far.stderr)
    }

    /// Item 11: --country and --continent values pins does not know are usage errors that list
    /// the valid ones (not "No pins."); an id prefix under 4 characters is too short; `edit
    /// --type mountain` without `--name` on a point is a usage error.
    func testUnknownFilterValuesShortPrefixesAndATypeWithoutAName() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        let add = try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--db", db])
        XCTAssertEqual(add.status, 0, add.stderr)
        let id = CLI.addedID(add)

        let country = try CLI.run(["list", "--country", "XX", "--db", db])
        XCTAssertEqual(country.status, 64)
        XCTAssertTrue(country.stderr.contains("--country XX is not a country code pins knows; the codes:\n  AD AE AF"), country.stderr)
        XCTAssertTrue(country.stderr.contains(" FR ") || country.stderr.contains(" FR\n"), country.stderr)
        XCTAssertFalse(country.stdout.contains("No pins"))
        let named = try CLI.run(["export", "--format", "csv", "--country", "france", "--db", db])
        XCTAssertEqual(named.status, 64)
        XCTAssertTrue(named.stderr.contains("did you mean --country FR (France)?"), named.stderr)
        let continent = try CLI.run(["list", "--continent", "Europa", "--db", db])
        XCTAssertEqual(continent.status, 64)
        XCTAssertTrue(continent.stderr.contains("--continent 'Europa' is not a continent; the continents:\n"
                                                + "  Africa, Antarctica, Asia, Europe, North America, Oceania, South America\n"), continent.stderr)
        // A known one in another case still filters.
        let europe = try CLI.run(["list", "--continent", "europe", "--db", db])
        XCTAssertEqual(europe.status, 0, europe.stderr)
        XCTAssertTrue(europe.stdout.hasSuffix("1 pin\n"), europe.stdout)

        let short = try CLI.run(["show", String(id.prefix(3)), "--db", db])
        XCTAssertEqual(short.status, 1)
        XCTAssertTrue(short.stderr.contains("the id prefix '\(id.prefix(3))' is too short: give at least 4 characters"), short.stderr)
        let four = try CLI.run(["show", String(id.prefix(4)), "--db", db])
        XCTAssertEqual(four.status, 0, four.stderr)

        // A mountain needs its name; a city without --name is the gazetteer's town (issue 23):
        // the pin is at the Eiffel Tower, so Paris.
        let mountain = try CLI.run(["edit", id, "--type", "mountain", "--db", db])
        XCTAssertEqual(mountain.status, 64, mountain.stderr)
        XCTAssertTrue(mountain.stderr.contains("--type mountain needs --name"), mountain.stderr)
        let city = try CLI.run(["edit", id, "--type", "city", "--db", db])
        XCTAssertEqual(city.status, 0, city.stderr)
        let cities = try CLI.json(CLI.run(["cities", "--json", "--db", db]).stdout) as! [[String: Any]]
        XCTAssertEqual(cities.map { $0["name"] as? String }, ["Paris"])
    }

    /// Item 12: a nightly run with nothing new says so in one line.
    func testANightlyRunWithNothingNewIsOneLine() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        let first = try CLI.run(["import", library, "--quiet", "--timezone", "UTC", "--db", db])
        XCTAssertEqual(first.status, 0, first.stderr)
        let again = try CLI.run(["import", library, "--timezone", "UTC", "--db", db])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stdout, "pins import \(library): nothing new: 36 files unchanged\n")
        let dry = try CLI.run(["import", library, "--dry-run", "--timezone", "UTC", "--db", db])
        XCTAssertEqual(dry.stdout, "pins import \(library) (dry run): nothing new: 36 files unchanged\n")
    }

    /// Item 10: `completions` is a command of `pins --help` and `pins help`, and bash completes
    /// the values of the options that take a fixed set, and the actions of `runs`.
    func testCompletionsIsListedAndBashCompletesValues() throws {
        // The command column is as wide as the longest command name (import-places).
        let listed = try CLI.run(["--help"]).stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(listed.contains { $0.hasPrefix("  completions ") && $0.hasSuffix("  Print the shell completion script for bash, zsh or fish.") },
                      listed.joined(separator: "\n"))
        let help = try CLI.run(["help", "completions"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.hasPrefix("Usage: pins completions bash|zsh|fish\n"), help.stdout)
        let script = try CLI.temporaryDirectory(self).appendingPathComponent("pins.bash").path
        try CLI.run(["completions", "bash"]).stdout.write(toFile: script, atomically: true, encoding: .utf8)
        func complete(_ words: String) throws -> [String] {
            let run = try CLI.run(["-c", "source \"$1\"; COMP_WORDS=(pins \(words)); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _pins; printf '%s\\n' \"${COMPREPLY[@]}\"",
                                   "-", script], executable: "/bin/bash")
            return run.stdout.split(separator: "\n").map(String.init)
        }
        XCTAssertEqual(try complete("export --format ''"), ["geojson", "kml", "gpx", "csv"])
        XCTAssertEqual(try complete("list --type ''"), ["point", "city", "mountain"])
        XCTAssertEqual(try complete("add --type m"), ["mountain"])
        XCTAssertEqual(try complete("settings --map-style ''"), ["light", "dark", "print"])
        XCTAssertEqual(try complete("report --sort t"), ["title"])
        XCTAssertEqual(try complete("runs ''"), ["show", "undo"])
        XCTAssertEqual(try complete("runs u"), ["undo"])
        XCTAssertEqual(try complete("completions ''"), ["bash", "zsh", "fish"])
        XCTAssertTrue(try complete("''").contains("completions"))
    }
}
