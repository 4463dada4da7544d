import Foundation
import XCTest

/// The command line people expect (issue 12 item 5): short flags, options before the command,
/// `--` ending options, `pins help COMMAND`, and a man page and completions that list every
/// option `--help` lists.
final class CommandLineConventionTests: XCTestCase {
    static let commandNames = ["import", "inspect", "add", "list", "delete", "stats", "locate", "runs"]

    /// Every long option of every command, read from the printed help (not from the tables the
    /// generators use), so a generator that leaves one out fails here.
    func optionsFromHelp() throws -> [String: [String]] {
        let top = try CLI.run(["--help"]).stdout
        // The commands listed by `pins --help` (others may add commands: they are checked too).
        var names = Self.commandNames
        // The section ends at its blank line (the environment follows).
        if let section = top.components(separatedBy: "Commands:\n").last?.components(separatedBy: "\n\n").first {
            for line in section.split(separator: "\n") where line.hasPrefix("  ") {
                if let name = line.split(separator: " ").first, !names.contains(String(name)) { names.append(String(name)) }
            }
        }
        var result: [String: [String]] = [:]
        for name in names {
            let help = try CLI.run([name, "--help"]).stdout
            let regex = try NSRegularExpression(pattern: "^  (?:-[a-z], )?(--[a-z0-9-]+)", options: [.anchorsMatchLines])
            result[name] = regex.matches(in: help, range: NSRange(help.startIndex..., in: help)).map {
                String(help[Range($0.range(at: 1), in: help)!])
            }
        }
        return result
    }

    func testShortFlagsAndOptionsBeforeTheCommand() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("p.sqlite").path
        // -n is --dry-run, -q is --quiet: nothing printed, nothing written.
        let dry = try CLI.run(["import", "Fixtures/library", "-qn", "--timezone", "UTC", "--db", db])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertEqual(dry.stdout, "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "-n must not write")
        // -j takes a value, attached or not; -j 0 is refused as --jobs 0 is.
        XCTAssertEqual(try CLI.run(["import", "Fixtures/library", "-n", "-j0", "--db", db]).status, 64)
        XCTAssertEqual(try CLI.run(["import", "Fixtures/library", "-n", "-q", "-j", "2", "--db", db]).status, 0)
        XCTAssertEqual(try CLI.run(["list", "-z", "--db", db]).status, 64)
        // --db before the command, both spellings.
        let added = try CLI.run(["--db", db, "add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Tour Eiffel"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let after = try CLI.run(["list", "--json", "--db", db])
        let before = try CLI.run(["--db=\(db)", "list", "--json"])
        XCTAssertEqual(before.status, 0, before.stderr)
        XCTAssertEqual(before.stdout, after.stdout)
        XCTAssertTrue(after.stdout.contains("Tour Eiffel"), after.stdout)
        // An option no command has, before the command, is a usage error.
        XCTAssertEqual(try CLI.run(["--bogus", "list", "--db", db]).status, 64)
        XCTAssertEqual(try CLI.run(["--db", db]).status, 64)
    }

    /// After `--`, a name starting with '-' is a file, not an option.
    func testDoubleDashEndsOptions() throws {
        let dir = try CLI.temporaryDirectory(self)
        let photo = try XCTUnwrap(FileManager.default.enumerator(atPath: CLI.repo.appendingPathComponent("Fixtures/library").path)?
            .compactMap { $0 as? String }.sorted().first { $0.lowercased().hasSuffix(".jpg") })
        try FileManager.default.copyItem(atPath: CLI.repo.appendingPathComponent("Fixtures/library/\(photo)").path,
                                        toPath: dir.appendingPathComponent("-v.jpg").path)
        let run = try CLI.run(["inspect", "--timezone", "UTC", "--", "-v.jpg"], cwd: dir.path)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("-v.jpg"), run.stdout)
        // Without it, -v is an option inspect does not have.
        XCTAssertEqual(try CLI.run(["inspect", "-v.jpg"], cwd: dir.path).status, 64)
        // --help after -- is an argument, not a request for help.
        XCTAssertNotEqual(try CLI.run(["inspect", "--", "--help"], cwd: dir.path).stdout, try CLI.run(["inspect", "--help"]).stdout)
    }

    func testHelpNamePrintsWhatNameDashDashHelpPrintsAndAnUnknownNameExits64() throws {
        for name in Self.commandNames {
            let viaHelp = try CLI.run(["help", name])
            XCTAssertEqual(viaHelp.status, 0)
            XCTAssertEqual(viaHelp.stdout, try CLI.run([name, "--help"]).stdout, name)
        }
        let unknown = try CLI.run(["help", "frobnicate"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.stderr.contains("frobnicate"), unknown.stderr)
    }

    /// The man page renders without a groff warning, and its text (as man shows it) has every
    /// command and every option of every command's --help.
    func testManPageListsEveryOption() throws {
        let dir = try CLI.temporaryDirectory(self)
        let page = dir.appendingPathComponent("pins.1")
        let man = try CLI.run(["--generate-man"])
        XCTAssertEqual(man.status, 0)
        try man.stdout.write(to: page, atomically: true, encoding: .utf8)
        let groff = try tool("/usr/bin/groff", ["-man", "-Tutf8", "-ww", "-rLL=200n", page.path])
        XCTAssertEqual(groff.status, 0)
        XCTAssertEqual(groff.stderr, "", "groff warnings")
        // Bold and underline are overstrikes in groff's tty output: strip them.
        let text = groff.stdout.replacingOccurrences(of: ".\u{8}", with: "", options: .regularExpression)
        let all = try optionsFromHelp()
        XCTAssertGreaterThan(all.values.map(\.count).reduce(0, +), 30)
        for (command, options) in all {
            XCTAssertTrue(text.contains("pins \(command)"), "man page lacks \(command)")
            for option in options {
                XCTAssertTrue(text.contains(option), "man page lacks \(command) \(option)")
            }
        }
        for word in ["-n, --dry-run", "-j, --jobs N", "PINS_DATA_DIR", "PINS_LISTEN", "PINS_PASSWORD", "PINS_PASSWORD_FILE",
                     "PINS_READ_PASSWORD_FILE", "EXIT STATUS", "66", "74", "75"] {
            XCTAssertTrue(text.contains(word), word)
        }
    }

    /// bash, zsh and fish read their scripts without error; bash and fish, asked to complete,
    /// offer every option of every command.
    func testCompletionsOfferEveryOption() throws {
        let dir = try CLI.temporaryDirectory(self)
        var scripts: [String: String] = [:]
        for shell in ["bash", "zsh", "fish"] {
            let run = try CLI.run(["completions", shell])
            XCTAssertEqual(run.status, 0)
            let path = dir.appendingPathComponent("pins.\(shell)").path
            try run.stdout.write(toFile: path, atomically: true, encoding: .utf8)
            scripts[shell] = path
            XCTAssertEqual(try tool("/usr/bin/env", [shell, "-n", path]).status, 0, "\(shell) -n")
        }
        XCTAssertEqual(try CLI.run(["completions", "tcsh"]).status, 64)
        let zsh = try String(contentsOfFile: scripts["zsh"]!, encoding: .utf8)
        for (command, options) in try optionsFromHelp() {
            let bash = try tool("/bin/bash", ["-c", "source \"$1\"; COMP_WORDS=(pins --db x.sqlite \(command) --); COMP_CWORD=4; _pins; printf '%s\\n' \"${COMPREPLY[@]}\"", "-", scripts["bash"]!])
            let fish = try tool("/usr/bin/env", ["fish", "-c", "source $argv[1]; complete -C 'pins \(command) --'", scripts["fish"]!])
            let bashWords = Set(bash.stdout.split(separator: "\n").map(String.init))
            let fishWords = Set(fish.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") })
            for option in options {
                XCTAssertTrue(bashWords.contains(option), "bash completion lacks \(command) \(option)")
                XCTAssertTrue(fishWords.contains(option), "fish completion lacks \(command) \(option)")
                XCTAssertTrue(zsh.contains("\(option)[") || zsh.contains("\(option)=["), "zsh completion lacks \(command) \(option)")
            }
        }
        // The command names themselves.
        let names = try tool("/bin/bash", ["-c", "source \"$1\"; COMP_WORDS=(pins ''); COMP_CWORD=1; _pins; printf '%s\\n' \"${COMPREPLY[@]}\"", "-", scripts["bash"]!])
        XCTAssertEqual(Set(names.stdout.split(separator: "\n").map(String.init)).intersection(Self.commandNames).count, Self.commandNames.count)
    }

    func tool(_ path: String, _ arguments: [String]) throws -> Run {
        try CLI.run(arguments, executable: path)
    }
}
