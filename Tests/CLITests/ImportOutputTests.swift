import Foundation
import XCTest

/// What `pins import` prints: a dry run that fits a terminal, names that cannot break it, and
/// every file of the run in some list.
final class ImportOutputTests: XCTestCase {
    var library: String { CLI.repo.appendingPathComponent("Fixtures/library").path }

    /// Tests/CLITests/golden/import-dry-run.txt was checked by hand against the previous output
    /// (one line per skipped photo) and Fixtures/library-expected.json: the same pins; the
    /// skipped photos grouped by reason, the first three of each in capture order; notes.txt and
    /// fake.jpg counted as not media; the countries wrapped at 80 columns. The reason headings are
    /// the summary's words ("no location", not the JSON's "noLocation"), checked by hand.
    func testDryRunTextMatchesTheGoldenFile() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("none.sqlite").path
        let run = try CLI.run(["import", library, "--dry-run", "--timezone", "UTC", "--db", db])
        XCTAssertEqual(run.status, 0, run.stderr)
        let golden = try String(contentsOf: CLI.repo.appendingPathComponent("Tests/CLITests/golden/import-dry-run.txt"), encoding: .utf8)
        XCTAssertEqual(run.stdout.replacingOccurrences(of: library, with: "<LIBRARY>"), golden)
    }

    func testVerboseListsEveryFileOnceWithItsDecision() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("none.sqlite").path
        let run = try CLI.run(["import", library, "--dry-run", "--verbose", "--timezone", "UTC", "--db", db])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n").filter { $0.contains("\t") }
        // 36 files: 22 accepted, 4 no location, 5 interval, 2 distance, 1 unreadable, 2 not media; the
        // decision in the words of the summary (the JSON keeps noLocation and notMedia).
        XCTAssertEqual(lines.count, 36)
        let decisions = Dictionary(grouping: lines.map { String($0.split(separator: "\t")[0]) }, by: { $0 }).mapValues(\.count)
        XCTAssertEqual(decisions, ["accepted": 22, "no location": 4, "interval": 5, "distance": 2, "unreadable": 1, "not media": 2])
        XCTAssertTrue(run.stdout.contains("not media\t2023/07-paris/notes.txt\tnot a photo or video (unrecognised content)\n"))
        // Every skipped photo is listed in the grouped section too: no "... and N more".
        XCTAssertFalse(run.stdout.contains("more\n"))
    }

    func testEmptyAndNonImageFilesAreListedWithTheirReason() throws {
        let dir = try CLI.temporaryDirectory(self)
        _ = FileManager.default.createFile(atPath: dir.path + "/empty.jpg", contents: Data())
        _ = FileManager.default.createFile(atPath: dir.path + "/letter.jpg", contents: Data("Dear Sir".utf8))
        try FileManager.default.copyItem(atPath: library + "/2023/07-paris/IMG_0001.jpg", toPath: dir.path + "/IMG_0001.jpg")
        let run = try CLI.run(["import", dir.path, "--dry-run", "--json", "--timezone", "UTC", "--db", dir.path + "/x.sqlite"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try XCTUnwrap(CLI.json(run.stdout) as? [String: Any])
        let others = try XCTUnwrap(report["others"] as? [[String: String]])
        XCTAssertEqual(others, [["file": "empty.jpg", "reason": "empty file"],
                                ["file": "letter.jpg", "reason": "not a photo or video (unrecognised content)"]])
        XCTAssertEqual((report["counts"] as? [String: Any])?["files"] as? Int, 3)
        let text = try CLI.run(["import", dir.path, "--dry-run", "--timezone", "UTC", "--db", dir.path + "/x.sqlite"])
        XCTAssertTrue(text.stdout.contains("  not media  2 neither photo nor video (--verbose lists them)\n"), text.stdout)
    }

    /// Names with a newline, an escape sequence, a tab and a byte that is not UTF-8 are quoted
    /// as git quotes them: one line per file, and no control byte reaches the terminal.
    func testFileNamesWithControlCharactersAreQuotedOnOneLine() throws {
        let dir = try CLI.temporaryDirectory(self)
        let paris = library + "/2023/07-paris/"
        try FileManager.default.copyItem(atPath: paris + "IMG_0001.jpg", toPath: dir.path + "/a\nb.jpg")
        try FileManager.default.copyItem(atPath: paris + "IMG_0002.jpg", toPath: dir.path + "/\u{1B}[31mred.jpg")
        try FileManager.default.copyItem(atPath: paris + "IMG_0003.jpg", toPath: dir.path + "/tab\there.jpg")
        let latin1 = Array(dir.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".txt".utf8) + [0]
        let fd = latin1.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        let run = try CLI.run(["import", dir.path, "--dry-run", "--verbose", "--timezone", "UTC", "--db", dir.path + "/x.sqlite"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stdout.utf8.contains(0x1B), "an escape byte reached the terminal")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).filter { $0.contains("\t") }
        XCTAssertEqual(lines.map { String($0) }, [
            "accepted\t\"a\\nb.jpg\"",
            "interval\t\"\\033[31mred.jpg\"\t20 s after a\\nb.jpg (accepted)",
            "no location\t\"tab\\there.jpg\"\tno GPS position",
            "not media\t\"caf\\351.txt\"\tempty file",
        ])
        XCTAssertTrue(run.stdout.contains("    \"\\033[31mred.jpg\"  20 s after a\\nb.jpg (accepted)\n"), run.stdout)
    }
}
