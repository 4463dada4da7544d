import Foundation
import XCTest

final class LocateTests: XCTestCase {
    func testGoodAndBadLines() throws {
        let input = "48.8566,2.3522\n 35.6895 , 139.6917 \nnot a point\n0,-30\n91,0\n-29.31,27.48\n\n-33.8568,151.2153\r\n41.9033,12.4534"
        let run = try CLI.run(["locate"], stdin: input)
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.stdout, "FR\nJP\n\n\n\nLS\n\nAU\nVA\n")
        XCTAssertTrue(run.stderr.contains("line 3:"), run.stderr)
        XCTAssertTrue(run.stderr.contains("line 5:"), run.stderr)
        XCTAssertTrue(run.stderr.contains("line 7:"), run.stderr)
        XCTAssertFalse(run.stderr.contains("line 4:"), "open ocean is an answer, not an error")
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 3, run.stderr)
    }

    /// Issue 40 item 10: one 400 MB line cost 1.2 GB. A line over 64 KiB is read to its end
    /// without being kept and named; the lines after it are answered; one ending the input too.
    func testALineOverTheLimitIsNamedAndTheNextLinesRead() throws {
        let input = "48.8566,2.3522\n" + String(repeating: "x", count: 200_000) + "\n35.6895,139.6917\n"
            + String(repeating: "1", count: 65_536) + "\n" + String(repeating: "2", count: 65_537)
        let run = try CLI.run(["locate"], stdin: input)
        XCTAssertEqual(run.status, 0, run.stderr)
        // The line of exactly 65,536 bytes is read (and is not 'lat,lon'); 65,537 is too long.
        XCTAssertEqual(run.stdout, "FR\n\nJP\n\n\n")
        XCTAssertTrue(run.stderr.contains("line 2: longer than 65536 bytes, not 'lat,lon' (skipped unread)"), run.stderr)
        XCTAssertFalse(run.stderr.contains("line 4: longer"), run.stderr)
        XCTAssertTrue(run.stderr.contains("line 5: longer than 65536 bytes"), run.stderr)
        let json = try CLI.run(["locate", "--json"], stdin: String(repeating: "x", count: 70_000) + "\n48.8566,2.3522\n")
        XCTAssertTrue(json.stdout.hasPrefix("{}\n{\"country\":\"FR\""), json.stdout)
    }

    /// A damaged country index (Countries.bin) is an error naming the file and what is wrong.
    func testDamagedCountryIndexNamesTheFile() throws {
        let dir = try CLI.temporaryDirectory(self)
        try FileManager.default.copyItem(at: CLI.repo.appendingPathComponent("Resources/Countries.json"),
                                         to: dir.appendingPathComponent("Countries.json"))
        var index = try Data(contentsOf: CLI.repo.appendingPathComponent("Resources/Countries.bin"))
        index[index.count / 2] ^= 0x01
        try index.write(to: dir.appendingPathComponent("Countries.bin"))
        let run = try CLI.run(["locate"], stdin: "48.8566,2.3522\n", environment: ["PINS_DATA_DIR": dir.path])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("\(dir.path)/Countries.bin: checksum mismatch: the file is damaged"), run.stderr)
        XCTAssertEqual(run.stdout, "")
    }
}

/// `pins locate --json`: the place and region beside the country, one object per line, in order.
final class LocateJSONTests: XCTestCase {
    func testOneObjectPerLineInOrder() throws {
        // Paris; the Olympic Stadium of Montréal (Montréal, not the nearer Longueuil centre);
        // a bad line; open Atlantic; the outback 97 km from Yulara (a region, no town).
        let input = "48.8566,2.3522\n45.5580,-73.5515\nnot a point\n0,-30\n-24.5,131.5\n"
        let run = try CLI.run(["locate", "--json"], stdin: input)
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.count, 6, run.stdout)
        XCTAssertEqual(lines[2], "{}")
        XCTAssertEqual(lines[3], "{}")
        XCTAssertEqual(lines[4], "{\"country\":\"AU\",\"region\":\"Northern Territory\",\"regionCode\":\"AU-NT\"}")
        XCTAssertEqual(lines[5], "")
        let paris = try XCTUnwrap(CLI.json(lines[0]) as? [String: Any])
        XCTAssertEqual(paris["country"] as? String, "FR")
        XCTAssertEqual(paris["place"] as? String, "Paris")
        XCTAssertEqual(paris["region"] as? String, "Île-de-France")
        XCTAssertEqual(paris["regionCode"] as? String, "FR-IDF")
        // GeoNames' Paris centre is 48.85341, 2.3488: 0.43 km from the point.
        XCTAssertEqual(paris["placeDistanceKm"] as? Double ?? 0, 0.43, accuracy: 0.01)
        let montreal = try XCTUnwrap(CLI.json(lines[1]) as? [String: Any])
        XCTAssertEqual(montreal["place"] as? String, "Montréal")
        XCTAssertTrue(run.stderr.contains("line 3:"), run.stderr)
    }

    /// Without Places.bin, --json is an error naming the file; the plain form needs no places.
    func testMissingPlacesNamesTheFileAndPlainLocateStillWorks() throws {
        let dir = try CLI.temporaryDirectory(self)
        for name in ["Countries.bin", "Countries.json"] {
            try FileManager.default.copyItem(at: CLI.repo.appendingPathComponent("Resources/\(name)"),
                                             to: dir.appendingPathComponent(name))
        }
        let json = try CLI.run(["locate", "--json"], stdin: "48.8566,2.3522\n", environment: ["PINS_DATA_DIR": dir.path])
        XCTAssertEqual(json.status, 1)
        XCTAssertTrue(json.stderr.contains("\(dir.path)/Places.bin"), json.stderr)
        let plain = try CLI.run(["locate"], stdin: "48.8566,2.3522\n", environment: ["PINS_DATA_DIR": dir.path])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(plain.stdout, "FR\n")
        // A damaged one: the file's name and what is wrong.
        try Data("PINSPL1\nshort".utf8).write(to: dir.appendingPathComponent("Places.bin"))
        let damaged = try CLI.run(["locate", "--json"], stdin: "48.8566,2.3522\n", environment: ["PINS_DATA_DIR": dir.path])
        XCTAssertEqual(damaged.status, 1)
        XCTAssertTrue(damaged.stderr.contains("\(dir.path)/Places.bin"), damaged.stderr)
    }

    /// A good Places.bin beside a missing or damaged Regions.bin: --json is an error naming
    /// Regions.bin (a wrong region is not a silent fallback); the plain form still works.
    func testMissingOrDamagedRegionsNamesTheFile() throws {
        let dir = try CLI.temporaryDirectory(self)
        for name in ["Countries.bin", "Countries.json", "Places.bin"] {
            try FileManager.default.copyItem(at: CLI.repo.appendingPathComponent("Resources/\(name)"),
                                             to: dir.appendingPathComponent(name))
        }
        let missing = try CLI.run(["locate", "--json"], stdin: "33.43,-94.055\n", environment: ["PINS_DATA_DIR": dir.path])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("\(dir.path)/Regions.bin"), missing.stderr)
        var bytes = [UInt8](try Data(contentsOf: CLI.repo.appendingPathComponent("Resources/Regions.bin")))
        bytes.removeLast(8)
        try Data(bytes).write(to: dir.appendingPathComponent("Regions.bin"))
        let damaged = try CLI.run(["locate", "--json"], stdin: "33.43,-94.055\n", environment: ["PINS_DATA_DIR": dir.path])
        XCTAssertEqual(damaged.status, 1)
        XCTAssertTrue(damaged.stderr.contains("\(dir.path)/Regions.bin: "), damaged.stderr)
        let plain = try CLI.run(["locate"], stdin: "33.43,-94.055\n", environment: ["PINS_DATA_DIR": dir.path])
        XCTAssertEqual([plain.status, plain.stdout] as [AnyHashable], [0, "US\n"], plain.stderr)
    }
}
