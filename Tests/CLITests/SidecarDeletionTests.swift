import Foundation
import XCTest

/// A sidecar the person deletes (issue 11 item 5: "a deleted sidecar counts as a change too"):
/// the photo falls back to what it says itself, and the pin it made follows, or stays where it
/// is when the photo has no position left. Positions are ExifTool's readings of the fixtures
/// (`exiftool -n -GPSLatitude -GPSLongitude`), made by scripts/fixtures-media.
final class SidecarDeletionTests: XCTestCase {
    /// A library of one photo and its sidecar, imported once; `run` imports again.
    struct Library {
        let root: String
        let db: String

        init(_ test: XCTestCase, fixtures: String, files: [String]) throws {
            let dir = try CLI.temporaryDirectory(test)
            root = dir.appendingPathComponent("photos").path
            db = dir.appendingPathComponent("pins.sqlite").path
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let source = CLI.repo.appendingPathComponent("Fixtures/formats/sidecars/\(fixtures)")
            for name in files {
                try FileManager.default.copyItem(atPath: source.appendingPathComponent(name).path, toPath: root + "/" + name)
            }
        }

        func run(json: Bool = true) throws -> Run {
            let result = try CLI.run(["import", root, "--timezone", "UTC", "--db", db] + (json ? ["--json"] : []))
            XCTAssertEqual(result.status, 0, result.stderr)
            return result
        }

        func report() throws -> [String: Any] { try XCTUnwrap(CLI.json(run().stdout) as? [String: Any]) }

        func pins() throws -> [[String: Any]] {
            try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as? [[String: Any]])
        }

        func countries() throws -> [String] {
            let stats = try XCTUnwrap(CLI.json(CLI.run(["stats", "--json", "--db", db]).stdout) as? [String: Any])
            return (stats["countries"] as? [[String: Any]])?.map { "\($0["id"]!):\($0["pinCount"]!)" } ?? []
        }
    }

    /// IMG_0003.jpg has its own Exif GPS (Eiffel Tower, 48.858369 2.294481) and a sidecar that
    /// puts it at Tower Bridge (51.505456 -0.075356): the pin is in GB. The sidecar deleted, the
    /// same pin moves to the Eiffel Tower, in FR, retitled; the text report names it.
    func testADeletedXMPSidecarMovesThePinToThePhotosOwnPosition() throws {
        let library = try Library(self, fixtures: "xmp", files: ["IMG_0003.jpg", "IMG_0003.xmp"])
        _ = try library.report()
        let before = try library.pins()
        XCTAssertEqual(before.map { $0["country"] as? String }, ["GB"])
        XCTAssertEqual(before.first?["latitude"] as? Double ?? 0, 51.505456, accuracy: 1e-9)

        try FileManager.default.removeItem(atPath: library.root + "/IMG_0003.xmp")
        let text = try library.run(json: false).stdout
        XCTAssertTrue(text.contains("  corrected  1 pin moved: the photo's sidecar changed (listed below)\n"), text)
        XCTAssertTrue(text.contains("\nPins moved (their photo's position or time changed):\n"
                                    + "  London, United Kingdom  51.505456, -0.075356 → 48.858369, 2.294481 as Paris, France  IMG_0003.jpg\n"),
                      text)
        XCTAssertTrue(text.contains("  pins       0 created\n"), text)
        let after = try library.pins()
        XCTAssertEqual(after.count, 1, "\(after)")
        XCTAssertEqual(after.first?["id"] as? String, before.first?["id"] as? String, "the same pin, moved")
        XCTAssertEqual(after.first?["country"] as? String, "FR")
        XCTAssertEqual(after.first?["title"] as? String, "Paris, France")
        XCTAssertEqual(after.first?["latitude"] as? Double ?? 0, 48.858369, accuracy: 1e-6)
        XCTAssertEqual(after.first?["longitude"] as? Double ?? 0, 2.294481, accuracy: 1e-6)
        XCTAssertEqual(try library.countries(), ["FR:1"])
        // Once seen, the deletion is not a change again.
        let again = try XCTUnwrap(library.report()["counts"] as? [String: Any])
        XCTAssertEqual(again["read"] as? Int, 0, "\(again)")
        XCTAssertEqual(again["pinsMoved"] as? Int, 0, "\(again)")
    }

    /// IMG_1007.jpg: Exif GPS at the Eiffel Tower, and a Takeout sidecar whose geoData (edited in
    /// Google Photos) says the Louvre (48.8606111 2.3376440). The sidecar deleted, the pin moves
    /// back to the Exif position; the JSON report lists it with from and to.
    func testADeletedTakeoutSidecarMovesThePinAndTheJSONReportListsIt() throws {
        let sidecar = "IMG_1007.jpg.supplemental-metadata.json"
        let library = try Library(self, fixtures: "takeout", files: ["IMG_1007.jpg", sidecar])
        _ = try library.report()
        let before = try library.pins()
        XCTAssertEqual(before.first?["longitude"] as? Double ?? 0, 2.3376440, accuracy: 1e-9)

        try FileManager.default.removeItem(atPath: library.root + "/" + sidecar)
        let report = try library.report()
        let counts = try XCTUnwrap(report["counts"] as? [String: Any])
        XCTAssertEqual(counts["created"] as? Int, 0, "\(report)")
        XCTAssertEqual(counts["pinsMoved"] as? Int, 1, "\(report)")
        XCTAssertEqual(counts["pinsKept"] as? Int, 0, "\(report)")
        let moved = try XCTUnwrap((report["movedPins"] as? [[String: Any]])?.first, "\(report)")
        XCTAssertEqual(moved["photo"] as? String, "IMG_1007.jpg")
        XCTAssertEqual(moved["id"] as? String, before.first?["id"] as? String)
        XCTAssertEqual(moved["title"] as? String, "Paris, France")
        XCTAssertEqual(moved["newTitle"] as? String, "Paris, France")
        XCTAssertEqual(moved["country"] as? String, "FR")
        XCTAssertEqual(moved["kept"] as? Bool, false)
        let from = try XCTUnwrap(moved["from"] as? [String: Double]), to = try XCTUnwrap(moved["to"] as? [String: Double])
        XCTAssertEqual(from["latitude"] ?? 0, 48.8606111, accuracy: 1e-9)
        XCTAssertEqual(from["longitude"] ?? 0, 2.3376440, accuracy: 1e-9)
        XCTAssertEqual(to["latitude"] ?? 0, 48.858369, accuracy: 1e-6)
        XCTAssertEqual(to["longitude"] ?? 0, 2.294481, accuracy: 1e-6)
        let after = try library.pins()
        XCTAssertEqual(after.map { $0["id"] as? String }, before.map { $0["id"] as? String })
        XCTAssertEqual(after.first?["longitude"] as? Double ?? 0, 2.294481, accuracy: 1e-6)
        XCTAssertEqual(try library.countries(), ["FR:1"])
    }

    /// IMG_0005.jpg has no position of its own; its sidecar put it in Tokyo (35.658581
    /// 139.745433). The sidecar deleted, the photo has no position: the pin is NOT deleted (it is
    /// the person's record of the visit), it stays where it was and the report says so, with
    /// its id. A sidecar put back with the same position changes nothing.
    func testADeletedSidecarThatHeldTheOnlyPositionKeepsThePin() throws {
        let library = try Library(self, fixtures: "xmp", files: ["IMG_0005.jpg", "IMG_0005.xmp"])
        _ = try library.report()
        let before = try library.pins()
        XCTAssertEqual(before.map { $0["country"] as? String }, ["JP"])
        let id = try XCTUnwrap(before.first?["id"] as? String)

        try FileManager.default.removeItem(atPath: library.root + "/IMG_0005.xmp")
        let text = try library.run(json: false).stdout
        XCTAssertTrue(text.contains("  corrected  1 kept: the photo's sidecar changed (listed below)\n"), text)
        XCTAssertTrue(text.contains("\nPins kept where they are (their photo has no position any more; `pins delete ID` removes one):\n"
                                    + "  Tokyo, Japan  35.658581, 139.745433  \(id)  IMG_0005.jpg\n"), text)
        let after = try library.pins()
        XCTAssertEqual(after.map { $0["id"] as? String }, [id])
        XCTAssertEqual(after.first?["latitude"] as? Double ?? 0, 35.658581, accuracy: 1e-9)
        XCTAssertEqual(try library.countries(), ["JP:1"])
        // Nothing to say on the next night.
        let counts = try XCTUnwrap(library.report()["counts"] as? [String: Any])
        XCTAssertEqual(counts["read"] as? Int, 0, "\(counts)")
        XCTAssertEqual(counts["pinsKept"] as? Int, 0, "\(counts)")

        // The sidecar back: the photo is in Tokyo again, where its pin is; nothing moves.
        try FileManager.default.copyItem(atPath: CLI.repo.appendingPathComponent("Fixtures/formats/sidecars/xmp/IMG_0005.xmp").path,
                                         toPath: library.root + "/IMG_0005.xmp")
        let back = try library.report()
        let backCounts = try XCTUnwrap(back["counts"] as? [String: Any])
        XCTAssertEqual(backCounts["created"] as? Int, 0, "\(back)")
        XCTAssertEqual(backCounts["pinsMoved"] as? Int, 0, "\(back)")
        XCTAssertEqual(try library.pins().map { $0["id"] as? String }, [id])
    }

    /// A rating added in Lightroom rewrites the sidecar but moves nothing: the photo stays the
    /// accepted photo of its pin (before, it was decided again and recorded as skipped, 0 km
    /// from its own pin), counted as touched.
    func testASidecarEditThatMovesNothingKeepsThePhotoWithItsPin() throws {
        let library = try Library(self, fixtures: "xmp", files: ["IMG_0003.jpg", "IMG_0003.xmp"])
        _ = try library.report()
        let id = try XCTUnwrap(library.pins().first?["id"] as? String)
        let xmp = library.root + "/IMG_0003.xmp"
        let text = try String(contentsOfFile: xmp, encoding: .utf8).replacingOccurrences(of: "</rdf:RDF>", with: """
             <rdf:Description rdf:about=''
              xmlns:xmp='http://ns.adobe.com/xap/1.0/'>
              <xmp:Rating>5</xmp:Rating>
             </rdf:Description>
            </rdf:RDF>
            """)
        try text.write(toFile: xmp, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: xmp)
        let report = try library.report()
        let counts = try XCTUnwrap(report["counts"] as? [String: Any])
        XCTAssertEqual(counts["touched"] as? Int, 1, "\(report)")
        XCTAssertEqual(counts["pinsMoved"] as? Int, 0, "\(report)")
        XCTAssertEqual((report["skipped"] as? [Any])?.count, 0, "\(report)")
        let show = try XCTUnwrap(CLI.json(CLI.run(["show", id, "--json", "--db", library.db]).stdout) as? [String: Any])
        XCTAssertEqual((show["photos"] as? [[String: Any]])?.compactMap { ($0["path"] as? String)?.hasSuffix("/IMG_0003.jpg") }, [true],
                       "the pin still names its photo's record: \(show)")
        // Then the sidecar deleted: the pin still follows its photo.
        try FileManager.default.removeItem(atPath: xmp)
        XCTAssertEqual((try library.report()["counts"] as? [String: Any])?["pinsMoved"] as? Int, 1)
        XCTAssertEqual(try library.pins().first?["country"] as? String, "FR")
    }
}
