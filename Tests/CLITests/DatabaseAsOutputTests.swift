import Foundation
import XCTest

/// Issue 40, item 2: no output file may be the database or one of its files (`-wal`, `-shm`,
/// `-journal`, `.lock`): `export --out pins.sqlite` replaced it atomically with a CSV, every pin
/// gone, exit 0. Each writer is given the database under another name (itself, a symbolic link,
/// a hard link, a folder reached through a link, a companion not made yet): it exits 73
/// (EX_CANTCREAT) naming both paths, and the pin is still there.
final class DatabaseAsOutputTests: XCTestCase {
    func testEveryWriterRefusesTheDatabaseUnderAnyName() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let added = try CLI.run(["add", "--db", db, "--lat", "48.8584", "--lon", "2.2945", "--date", "2024-05-01T12:00:00+02:00"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let softLink = dir.appendingPathComponent("pins.csv").path
        XCTAssertEqual(symlink(db, softLink), 0)
        let hardLink = dir.appendingPathComponent("hard.csv").path
        XCTAssertEqual(link(db, hardLink), 0)
        let folderLink = dir.appendingPathComponent("same-folder").path
        XCTAssertEqual(symlink(dir.path, folderLink), 0)
        let library = dir.appendingPathComponent("library")
        try FileManager.default.copyItem(at: CLI.repo.appendingPathComponent("Fixtures/library/2024/06-roma"), to: library)
        let places = CLI.repo.appendingPathComponent("Fixtures/places/from-ogr2ogr.csv").path

        let cases: [(args: [String], output: String)] = [
            (["export", "--format", "csv", "--out", db], db),
            (["export", "--format", "geojson", "--out", softLink], softLink),
            (["export", "--format", "csv", "--out", hardLink], hardLink),
            (["export", "--format", "csv", "--out", db + "-wal"], db + "-wal"),
            (["report", "--out", folderLink + "/pins.sqlite-shm"], folderLink + "/pins.sqlite-shm"),
            (["report", "--out", db + ".lock"], db + ".lock"),
            (["import", library.path, "--timezone", "UTC", "--html", softLink], softLink),
            (["import", library.path, "--timezone", "UTC", "--report", db], db),
            (["import-places", places, "--report", hardLink], hardLink),
            (["import-places", places, "--report", db + "-journal"], db + "-journal"),
        ]
        for (args, output) in cases {
            let run = try CLI.run(args + ["--db", db])
            XCTAssertEqual(run.status, 73, "\(args): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(output), "\(args): the output named: \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("is the pins database's file"), "\(args): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(db.components(separatedBy: "/").last!), "\(args): the database named: \(run.stderr)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before, "\(args): the database untouched")
        }
        let listed = try CLI.run(["list", "--db", db, "--json"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [Any])?.count, 1, "the pin is still there")
        // Another file of the same folder is written as before.
        let out = dir.appendingPathComponent("out.csv").path
        XCTAssertEqual(try CLI.run(["export", "--format", "csv", "--out", out, "--db", db]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out))
    }
}
