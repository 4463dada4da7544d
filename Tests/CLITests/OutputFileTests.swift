import Foundation
import XCTest

/// The files pins writes (`export --out`, `report --out`, `import --report/--html`): any name,
/// `-` for stdout, links written through, special files written in place, folders refused, and
/// nothing left behind (issue 22 item 7).
final class OutputFileTests: XCTestCase {
    var library: String { CLI.repo.appendingPathComponent("Fixtures/library").path }

    /// A database with one pin, in its own folder; returns (the folder to write in, the db).
    func setUp(pin: Bool = true) throws -> (String, String) {
        let base = try CLI.temporaryDirectory(self)
        let db = base.appendingPathComponent("pins.sqlite").path
        let out = base.appendingPathComponent("out").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        if pin {
            let add = try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Tour Eiffel", "--db", db])
            XCTAssertEqual(add.status, 0, add.stderr)
        }
        return (out, db)
    }

    func entries(_ dir: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
    }

    func testOneCharacterNamesInTheCurrentFolder() throws {
        let (out, db) = try setUp()
        for (arguments, name) in [(["export", "--format", "csv", "--out", "x"], "x"), (["report", "--out", "r"], "r"),
                                  (["export", "--format", "kml", "--out", "./k"], "k")] {
            let run = try CLI.run(arguments + ["--db", db], cwd: out)
            XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + name), "\(arguments)")
        }
        let run = try CLI.run(["import", library, "--dry-run", "--quiet", "--timezone", "UTC", "--report", "j", "--html", "h", "--db", db], cwd: out)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try entries(out), ["h", "j", "k", "r", "x"])
        let report = try CLI.json(try String(contentsOfFile: out + "/j", encoding: .utf8)) as? [String: Any]
        XCTAssertEqual(report?["dryRun"] as? Bool, true)
    }

    func testDashIsStandardOutput() throws {
        let (out, db) = try setUp()
        let plain = try CLI.run(["export", "--format", "csv", "--db", db])
        let dash = try CLI.run(["export", "--format", "csv", "--out", "-", "--db", db], cwd: out)
        XCTAssertEqual(dash.status, 0, dash.stderr)
        XCTAssertEqual(dash.stdout, plain.stdout)
        XCTAssertTrue(dash.stdout.contains("Tour Eiffel"))
        let page = try CLI.run(["report", "--out", "-", "--db", db], cwd: out)
        XCTAssertEqual(page.status, 0, page.stderr)
        XCTAssertTrue(page.stdout.hasPrefix("<!DOCTYPE html>"), String(page.stdout.prefix(40)))
        XCTAssertTrue(page.stdout.hasSuffix("</html>\n"))
        XCTAssertFalse(page.stdout.contains("Wrote "))
        // import --report -: the JSON report alone on stdout, no summary mixed in.
        let fresh = URL(fileURLWithPath: db).deletingLastPathComponent().appendingPathComponent("fresh.sqlite").path
        let run = try CLI.run(["import", library, "--dry-run", "--timezone", "UTC", "--report", "-", "--db", fresh], cwd: out)
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try CLI.json(run.stdout) as? [String: Any]
        XCTAssertEqual((report?["pins"] as? [Any])?.count, 22)
        let both = try CLI.run(["import", library, "--dry-run", "--json", "--report", "-", "--db", db], cwd: out)
        XCTAssertEqual(both.status, 64, both.stderr)
        XCTAssertEqual(try entries(out), [])
    }

    /// `--out /dev/stdout` as root replaced the system's /dev/stdout link with a file: here a
    /// link of our own to /proc/self/fd/1 must stay a link, and the bytes come out on stdout.
    func testALinkToStandardOutputIsWrittenToStandardOutput() throws {
        let (out, db) = try setUp()
        try FileManager.default.createSymbolicLink(atPath: out + "/stdout", withDestinationPath: "/proc/self/fd/1")
        let plain = try CLI.run(["export", "--format", "csv", "--db", db])
        let run = try CLI.run(["export", "--format", "csv", "--out", out + "/stdout", "--db", db])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, plain.stdout)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/stdout"), "/proc/self/fd/1")
        let page = try CLI.run(["report", "--out", out + "/stdout", "--db", db])
        XCTAssertEqual(page.status, 0, page.stderr)
        XCTAssertTrue(page.stdout.hasPrefix("<!DOCTYPE html>"))
        XCTAssertFalse(page.stdout.contains("Wrote "))
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/stdout"), "/proc/self/fd/1")
        XCTAssertEqual(try entries(out), ["stdout"])
    }

    func testALinkIsWrittenThroughAndAFIFOInPlace() throws {
        let (out, db) = try setUp()
        try FileManager.default.createDirectory(atPath: out + "/www", withIntermediateDirectories: false)
        try "old page".write(toFile: out + "/www/index.html", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: out + "/map.html", withDestinationPath: "www/index.html")
        let run = try CLI.run(["report", "--out", out + "/map.html", "--db", db])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: out + "/map.html"), "www/index.html")
        XCTAssertTrue(try String(contentsOfFile: out + "/www/index.html", encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        XCTAssertEqual(try entries(out + "/www"), ["index.html"])

        XCTAssertEqual(mkfifo(out + "/fifo", 0o600), 0)
        // A reader that never blocks: the export fits the pipe's buffer (and a FIFO wrongly
        // replaced by a file gives EOF, not a hang).
        let reader = open(out + "/fifo", O_RDONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(reader, 0)
        defer { close(reader) }
        let export = try CLI.run(["export", "--format", "csv", "--out", out + "/fifo", "--db", db])
        XCTAssertEqual(export.status, 0, export.stderr)
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(reader, &buffer, 4096)
        XCTAssertTrue(String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self).contains("Tour Eiffel"))
        var info = stat()
        XCTAssertEqual(lstat(out + "/fifo", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFIFO)
        XCTAssertEqual(try entries(out), ["fifo", "map.html", "www"])
    }

    func testAFolderIsRefusedAndNothingIsLeftBehind() throws {
        let (out, db) = try setUp()
        for arguments in [["report", "--out", out], ["export", "--format", "csv", "--out", out + "/"],
                          ["import", library, "--dry-run", "--report", out, "--db", db]] {
            let run = try CLI.run(arguments + (arguments[0] == "import" ? [] : ["--db", db]))
            XCTAssertEqual(run.status, 1, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("it is a folder"), run.stderr)
        }
        // A folder that does not exist: refused before the import reads anything.
        let missing = try CLI.run(["import", library, "--dry-run", "--html", out + "/no/page.html", "--db", db])
        XCTAssertEqual(missing.status, 1, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("No such file or directory"), missing.stderr)
        XCTAssertEqual(try entries(out), [])
    }

    /// A name that is not UTF-8 (`caf\351.csv`, Latin-1) is written under those bytes, not
    /// under U+FFFD; the message quotes it as file names are quoted.
    func testANameThatIsNotUTF8KeepsItsBytes() throws {
        let (out, db) = try setUp()
        let run = try CLI.run(["-c", "exec \"$0\" export --format csv --db \"$1\" --out \"$(printf 'caf\\351.csv')\"", CLI.binary, db],
                              executable: "/bin/sh", cwd: out)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "Wrote 1 pin to \"caf\\351.csv\"\n")
        let latin1: [CChar] = Array((out + "/caf").utf8CString.dropLast()) + [CChar(bitPattern: 0xE9)] + Array(".csv".utf8CString)
        XCTAssertEqual(access(latin1, F_OK), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/caf\u{FFFD}.csv"))
    }
}
