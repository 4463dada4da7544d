import Foundation
import TestSupport
import XCTest

/// Issue 22 item 4: a repair keeps every row SQLite can still read, makes again what is derived
/// from the pins (country rows and counts, City and Mountain rows and counts), says per table
/// what it kept and lost, and leaves the decisions of lost pins to the next import. The damage
/// is real (a page overwritten with garbage, a file cut to half, the countries page broken);
/// the expected numbers come from reading the b-tree pages by hand (Python, no SQLite) before
/// the damage.
final class RepairSalvageTests: XCTestCase {
    /// Python that reads a table's b-tree straight from the file's bytes: its leaf pages with
    /// their rowids, in key order. Argv: file, table's root page; prints JSON
    /// [[page, [rowid, ...]], ...].
    static let leafPages = """
        import json, struct, sys
        data = open(sys.argv[1], 'rb').read()
        size = struct.unpack('>H', data[16:18])[0]
        size = 65536 if size == 1 else size
        def varint(b, i):
            v = 0
            for k in range(9):
                c = b[i + k]
                if k == 8: return (v << 8) | c, i + 9
                v = (v << 7) | (c & 0x7f)
                if c < 0x80: return v, i + k + 1
        def walk(page, out):
            base = (page - 1) * size
            h = base + (100 if page == 1 else 0)
            kind = data[h]
            cells = struct.unpack('>H', data[h + 3:h + 5])[0]
            if kind == 0x0d:
                ptrs = [struct.unpack('>H', data[h + 8 + 2 * i:h + 10 + 2 * i])[0] for i in range(cells)]
                rowids = []
                for p in ptrs:
                    _, i = varint(data, base + p)
                    rowid, _ = varint(data, i)
                    rowids.append(rowid)
                out.append([page, rowids])
            elif kind == 0x05:
                for i in range(cells):
                    p = struct.unpack('>H', data[h + 12 + 2 * i:h + 14 + 2 * i])[0]
                    walk(struct.unpack('>I', data[base + p:base + p + 4])[0], out)
                walk(struct.unpack('>I', data[h + 8:h + 12])[0], out)
            else:
                raise SystemExit('page %d is not a table b-tree page' % page)
        out = []
        walk(int(sys.argv[2]), out)
        print(json.dumps(out))
        """

    func python(_ code: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", code] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: errors, as: UTF8.self))
        return String(decoding: data, as: UTF8.self)
    }

    /// One SQL query through Python's sqlite3 (before the damage), rows as JSON arrays.
    func sql(_ db: String, _ query: String) throws -> [[Any]] {
        let text = try python("""
            import json, sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            print(json.dumps([list(r) for r in c.execute(sys.argv[2])]))
            """, [db, query])
        return try XCTUnwrap(CLI.json(text) as? [[Any]])
    }

    func leaves(_ db: String, _ table: String) throws -> [(page: Int, rowids: [Int])] {
        let root = try XCTUnwrap(try sql(db, "SELECT rootpage FROM sqlite_master WHERE name = '\(table)'").first?.first as? Int)
        let pages = try XCTUnwrap(CLI.json(try python(Self.leafPages, [db, String(root)])) as? [[Any]])
        return pages.map { ($0[0] as! Int, $0[1] as! [Int]) }
    }

    /// A database of an imported library plus two cities and a mountain made by hand.
    func database(_ dir: URL, files: Int) throws -> (db: String, library: String) {
        let db = dir.appendingPathComponent("pins.sqlite").path
        for (lat, lon, type, name) in [("41.9028", "12.4964", "city", "Rome"), ("-33.8688", "151.2093", "city", "Sydney"),
                                       ("45.8326", "6.8652", "mountain", "Mont Blanc")] {
            var add = ["add", "--lat", lat, "--lon", lon, "--type", type, "--name", name, "--db", db]
            if type == "mountain" { add += ["--height", "4806"] }
            let run = try CLI.run(add)
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        let library = dir.appendingPathComponent("photos").path
        try CLI.generateLibrary(at: library, files: files)
        let run = try CLI.run(["import", library, "--db", db, "--quiet", "--timezone", "UTC"])
        XCTAssertEqual(run.status, 0, run.stderr)
        return (db, library)
    }

    func pins(_ db: String) throws -> [[String: Any]] {
        let list = try CLI.run(["list", "--json", "--db", db])
        XCTAssertEqual(list.status, 0, list.stderr)
        return try XCTUnwrap(CLI.json(list.stdout) as? [[String: Any]])
    }

    func photoSet(_ pins: [[String: Any]]) -> [String] {
        pins.flatMap { ($0["photoIDs"] as? [String]) ?? [] }.sorted()
    }

    func stats(_ db: String) throws -> [String: Any] {
        let run = try CLI.run(["stats", "--json", "--db", db])
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(CLI.json(run.stdout) as? [String: Any])
    }

    /// "FR:12" for every visited country.
    func countryCounts(_ stats: [String: Any]) -> [String] {
        ((stats["countries"] as? [[String: Any]]) ?? []).map { "\($0["id"]!):\($0["pinCount"]!)" }.sorted()
    }

    /// A leaf page of `locations` in the middle, overwritten with garbage: the repair keeps
    /// every pin of the other pages, says how many were lost, forgets the decisions of the
    /// lost pins' photos, and the next import makes exactly those pins again.
    func testALocationsPageOfGarbageLosesOnlyItsPinsAndTheNextImportMakesThemAgain() throws {
        let dir = try CLI.temporaryDirectory(self)
        let (db, library) = try database(dir, files: 300)
        let before = try pins(db)
        let beforeCounts = countryCounts(try stats(db))
        let pages = try leaves(db, "locations")
        XCTAssertGreaterThanOrEqual(pages.count, 3, "the test needs a leaf page between two others")
        let damaged = pages[1]
        // By hand: the pins on that page, and the photos accepted for them.
        let lostIDs = try sql(db, "SELECT id FROM locations WHERE rowid IN (\(damaged.rowids.map(String.init).joined(separator: ",")))")
            .map { $0[0] as! String }
        let quoted = lostIDs.map { "'\($0)'" }.joined(separator: ",")
        let lostPhotos = try sql(db, "SELECT count(*) FROM photos WHERE decision = 'accepted' AND location_id IN (\(quoted))")[0][0] as! Int
        XCTAssertGreaterThan(lostPhotos, 0)
        _ = try python("""
            import random, sys
            random.seed(22)
            with open(sys.argv[1], 'r+b') as f:
                f.seek((int(sys.argv[2]) - 1) * 4096)
                f.write(bytes(random.getrandbits(8) for _ in range(4096)))
            """, [db, String(damaged.page)])
        XCTAssertEqual(try CLI.run(["check", "--db", db]).status, 1)

        let repair = try CLI.run(["check", "--repair", "--db", db])
        XCTAssertEqual(repair.status, 0, repair.stderr)
        let kept = before.count - damaged.rowids.count
        XCTAssertTrue(repair.stdout.contains("\n  locations: \(kept) rows kept, \(damaged.rowids.count) lost on damaged pages\n"), repair.stdout)
        XCTAssertTrue(repair.stdout.contains("\nForgotten: \(lostPhotos) photos accepted for a pin that was lost; the next import reads them again and decides again\n"),
                      repair.stdout)
        let after = try pins(db)
        XCTAssertEqual(Set(after.compactMap { $0["id"] as? String }), Set(before.compactMap { $0["id"] as? String }).subtracting(lostIDs))
        XCTAssertEqual(try CLI.run(["check", "--db", db]).stdout, "\(db): ok\n", "the counts follow the pins that are left")

        // The next import decides the forgotten photos again: the pins of an undisturbed run.
        let again = try CLI.run(["import", library, "--db", db, "--quiet", "--timezone", "UTC"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let restored = try pins(db)
        XCTAssertEqual(restored.count, before.count)
        XCTAssertEqual(photoSet(restored), photoSet(before))
        XCTAssertEqual(countryCounts(try stats(db)), beforeCounts)
        XCTAssertEqual(try CLI.run(["check", "--db", db]).stdout, "\(db): ok\n")
    }

    /// A file cut short keeps the rows of the pages still in it (before: nothing at all, as
    /// SQLite refuses a file shorter than its header says), says the end could not be read,
    /// and the next import finds the rest again. The cut is at the middle one of the pages
    /// that hold pins (an import writes them after the photo records, in the file's second
    /// half), so about half the pins stay.
    func testAFileCutShortKeepsItsReadablePins() throws {
        let dir = try CLI.temporaryDirectory(self)
        let (db, library) = try database(dir, files: 300)
        let before = try pins(db)
        // By hand: the rows on leaf pages before the cut (the page numbers the b-tree points
        // to, read from the bytes).
        let locationLeaves = try leaves(db, "locations")
        let photoLeaves = try leaves(db, "photos")
        let pinPages = locationLeaves.map(\.page).sorted()
        XCTAssertGreaterThanOrEqual(pinPages.count, 2)
        let keptPages = pinPages[pinPages.count / 2 - 1]
        let keptLocations = locationLeaves.filter { $0.page <= keptPages }.flatMap(\.rowids)
        let keptPhotos = photoLeaves.filter { $0.page <= keptPages }.flatMap(\.rowids)
        XCTAssertGreaterThan(keptLocations.count, 0, "the test needs pins in the first half")
        XCTAssertLessThan(keptLocations.count, before.count, "and pins in the second")
        let keptIDs = try sql(db, "SELECT id FROM locations WHERE rowid IN (\(keptLocations.map(String.init).joined(separator: ",")))")
            .map { $0[0] as! String }
        let forgotten = try sql(db, """
            SELECT count(*) FROM photos WHERE rowid IN (\(keptPhotos.map(String.init).joined(separator: ",")))
            AND decision = 'accepted' AND location_id IS NOT NULL
            AND location_id NOT IN (\(keptIDs.map { "'\($0)'" }.joined(separator: ",")))
            """)[0][0] as! Int
        XCTAssertEqual(truncate(db, off_t(keptPages * 4096)), 0)

        let repair = try CLI.run(["check", "--repair", "--db", db])
        XCTAssertEqual(repair.status, 0, repair.stderr)
        XCTAssertTrue(repair.stdout.contains("\n  locations: \(keptLocations.count) rows kept"), repair.stdout)
        XCTAssertTrue(repair.stdout.contains("\n  photos: \(keptPhotos.count) rows kept"), repair.stdout)
        if forgotten > 0 {
            XCTAssertTrue(repair.stdout.contains("\nForgotten: \(forgotten) photo"), repair.stdout)
        }
        XCTAssertEqual(Set(try pins(db).compactMap { $0["id"] as? String }), Set(keptIDs))
        XCTAssertEqual(try CLI.run(["check", "--db", db]).stdout, "\(db): ok\n")

        let again = try CLI.run(["import", library, "--db", db, "--quiet", "--timezone", "UTC"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let restored = try pins(db)
        // The imported pins come back (the three made by hand on lost pages cannot).
        let imported = { (pins: [[String: Any]]) in self.photoSet(pins) }
        XCTAssertEqual(imported(restored), imported(before))
        XCTAssertEqual(try CLI.run(["check", "--db", db]).stdout, "\(db): ok\n")
    }

    /// The countries page broken: countries, cities and mountains are made again from the pins
    /// (names from the catalog), with their counts (before: "Countries visited: 0" for good).
    func testADamagedCountriesPageIsMadeAgainFromThePins() throws {
        let dir = try CLI.temporaryDirectory(self)
        let (db, _) = try database(dir, files: 60)
        let before = try stats(db)
        let beforeCounts = countryCounts(before)
        XCTAssertGreaterThan(beforeCounts.count, 2)
        // By hand, from the pins: every country a pin names, with its number of pins.
        var byHand: [String: Int] = [:]
        for pin in try pins(db) { if let id = pin["countryID"] as? String ?? (pin["country"] as? String) { byHand[id, default: 0] += 1 } }
        XCTAssertEqual(byHand.map { "\($0.key):\($0.value)" }.sorted(), beforeCounts)
        let names = try sql(db, "SELECT id, name, continent FROM countries ORDER BY id").map { "\($0[0]) \($0[1]) \($0[2])" }
        for table in ["countries", "cities", "mountains"] { try DatabaseDamage.damageRootPage(of: table, in: db) }

        let repair = try CLI.run(["check", "--repair", "--db", db])
        XCTAssertEqual(repair.status, 0, repair.stderr)
        XCTAssertTrue(repair.stdout.contains("\nMade again from the pins: \(beforeCounts.count) countries, 2 cities, 1 mountain (their rows were lost); every pin count recounted\n"),
                      repair.stdout)
        XCTAssertEqual(countryCounts(try stats(db)), beforeCounts)
        XCTAssertEqual(try sql(db, "SELECT id, name, continent FROM countries ORDER BY id").map { "\($0[0]) \($0[1]) \($0[2])" }, names)
        XCTAssertEqual(try sql(db, "SELECT name, pin_count FROM cities ORDER BY name").map { "\($0[0]):\($0[1])" }, ["Rome:1", "Sydney:1"])
        XCTAssertEqual(try sql(db, "SELECT name, height, pin_count FROM mountains").map { "\($0[0]) \($0[1]) \($0[2])" }, ["Mont Blanc 4806.0 1"])
        XCTAssertEqual(try CLI.run(["check", "--db", db]).stdout, "\(db): ok\n")
    }

    /// Issue 40, item 6: 8 bytes flipped at offset 8 of a leaf page of `photos` (its cell
    /// pointers: the cells then start at garbage offsets, some past the page) made the repair
    /// read the same rows for ever (the garbage rowids went backwards and the copy went back to
    /// them), or skip every sound row up to a garbage rowid far above the page's. Every leaf
    /// page of the table in turn: the repair ends (under timeout(1), in time proportional to the
    /// file), and keeps every row of the other pages (the rowids read from the bytes by hand).
    func testFlippedCellPointersOnAnyPhotosPageEndInTimeAndKeepTheOtherPages() throws {
        let dir = try CLI.temporaryDirectory(self)
        let (db, _) = try database(dir, files: 1500)
        let pages = try leaves(db, "photos")
        let total = pages.reduce(0) { $0 + $1.rowids.count }
        XCTAssertGreaterThan(pages.count, 10)
        let pristine = try Data(contentsOf: URL(fileURLWithPath: db))
        // Every page of the file takes half a minute here; scripts/bench runs that sweep (PINS_HEAVY_TESTS=1).
        // Here the first, the last and six spread between: leaves at the edges of the tree and
        // inside it, whose damaged cell offsets point past their page.
        for (page, rowids) in Self.spread(pages, count: ProcessInfo.processInfo.environment["PINS_HEAVY_TESTS"] == "1" ? pages.count : 8) {
            let copy = dir.appendingPathComponent("page-\(page).sqlite").path
            var bytes = pristine
            let offset = (page - 1) * 4096 + 8
            for k in offset..<(offset + 8) { bytes[k] ^= 0xFF }
            try bytes.write(to: URL(fileURLWithPath: copy))
            let started = Date()
            let repair = try CLI.run(["60", CLI.binary, "check", "--repair", "--db", copy], executable: "/usr/bin/timeout")
            XCTAssertNotEqual(repair.status, 124, "page \(page): the repair did not end in 60 s")
            XCTAssertEqual(repair.status, 0, "page \(page): \(repair.stderr)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 30, "page \(page)")
            let line = try XCTUnwrap(repair.stdout.split(separator: "\n").first { $0.hasPrefix("  photos: ") }, repair.stdout)
            let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            let kept = try XCTUnwrap(numbers.first)
            XCTAssertGreaterThanOrEqual(kept, total - rowids.count, "page \(page): only its rows may be lost: \(line)")
            XCTAssertLessThanOrEqual(kept, total, "page \(page): \(line)")
            if numbers.count > 1 { XCTAssertEqual(kept + numbers[1], total, "page \(page): kept and lost: \(line)") }
            XCTAssertEqual(try CLI.run(["check", "--db", copy]).stdout, "\(copy): ok\n", "page \(page)")
        }
    }

    /// `count` elements of `all`, the first and the last among them, evenly spread.
    static func spread<T>(_ all: [T], count: Int) -> [T] {
        guard count < all.count, count > 1 else { return all }
        return (0..<count).map { all[$0 * (all.count - 1) / (count - 1)] }
    }
}
