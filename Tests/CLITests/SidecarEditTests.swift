import Foundation
import XCTest
@testable import PinCore
@testable import PinStore

final class SidecarEditTests: XCTestCase {
    /// A person moves a photo on the map in Lightroom (its XMP sidecar changes, the photo file
    /// does not): the next import reads the photo again, and the pin it made moves with it
    /// (issue 11) instead of a wrong pin staying beside a second one.
    func testAnEditedSidecarMovesThePinItMade() throws {
        let dir = try CLI.temporaryDirectory(self)
        let root = dir.appendingPathComponent("photos").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let fixtures = CLI.repo.appendingPathComponent("Fixtures/formats/sidecars/xmp")
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("IMG_0001.jpg").path, toPath: root + "/IMG_0001.jpg")
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("IMG_0001.xmp").path, toPath: root + "/IMG_0001.xmp")
        let db = dir.appendingPathComponent("pins.sqlite").path
        func run() throws -> [String: Any] {
            let result = try CLI.run(["import", root, "--json", "--timezone", "UTC", "--db", db])
            XCTAssertEqual(result.status, 0, result.stderr)
            return try XCTUnwrap(CLI.json(result.stdout) as? [String: Any])
        }
        func pins() throws -> [[String: Any]] {
            try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as? [[String: Any]])
        }
        _ = try run()
        // The sidecar's 51,30.04374N 0,7.4775W: London.
        XCTAssertEqual(try pins().map { $0["country"] as? String }, ["GB"])
        XCTAssertEqual((try run()["counts"] as? [String: Any])?["read"] as? Int, 0, "nothing changed, nothing read")

        // Edit the sidecar: the photo was in Paris (48,51.5N 2,17.7E), the photo file untouched.
        let xmp = root + "/IMG_0001.xmp"
        var text = try String(contentsOfFile: xmp, encoding: .utf8)
        text = text.replacingOccurrences(of: "51,30.04374N", with: "48,51.5N").replacingOccurrences(of: "0,7.4775W", with: "2,17.7E")
        try text.write(toFile: xmp, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: xmp)
        let pinID = try pins().first?["id"] as? String
        let after = try run()
        XCTAssertEqual((after["counts"] as? [String: Any])?["created"] as? Int, 0, "\(after)")
        let moved = try pins()
        XCTAssertEqual(moved.map { $0["country"] as? String }, ["FR"])
        XCTAssertEqual(moved.first?["id"] as? String, pinID, "the same pin, moved")
        XCTAssertEqual(moved.first?["latitude"] as? Double ?? 0, 48 + 51.5 / 60, accuracy: 0.6e-7, "7 decimals")
        XCTAssertTrue((moved.first?["title"] as? String ?? "").hasSuffix("France"), "\(moved)")
        XCTAssertNil(moved.first?["edited"], "not edited by the user: no edited key")
        let stats = try XCTUnwrap(CLI.json(CLI.run(["stats", "--json", "--db", db]).stdout) as? [String: Any])
        XCTAssertEqual((stats["countries"] as? [[String: Any]])?.map { "\($0["id"]!):\($0["pinCount"]!)" }, ["FR:1"])
        // And once more: nothing new.
        XCTAssertEqual((try run()["counts"] as? [String: Any])?["created"] as? Int, 0)

        // A pin the user edited stays where the user put it; the corrected photo is decided again.
        XCTAssertEqual(try CLI.run(["edit", pinID ?? "", "--title", "Mine", "--db", db]).status, 0)
        text = try String(contentsOfFile: xmp, encoding: .utf8)
        text = text.replacingOccurrences(of: "48,51.5N", with: "51,30.04374N").replacingOccurrences(of: "2,17.7E", with: "0,7.4775W")
        try text.write(toFile: xmp, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(120)], ofItemAtPath: xmp)
        XCTAssertEqual((try run()["counts"] as? [String: Any])?["created"] as? Int, 1)
        XCTAssertEqual(Set(try pins().compactMap { $0["country"] as? String }), ["GB", "FR"])
    }
}
