import Foundation
import XCTest

/// Issue 15 item 7: a file name is kept as its bytes. `a<FF>.jpg` (the byte 0xFF, not UTF-8)
/// and a file really named `a\xFF.jpg` (four characters) were both stored as the text
/// `a\xFF.jpg`: their pins' photo ids, `pins show` and the JSON could not tell them apart.
final class FileNameBytesTests: XCTestCase {
    /// Writes `data` to a file whose name is `name`, byte for byte (no String in between);
    /// removed, by its bytes, after the test.
    func create(_ data: Data, in dir: String, name: [UInt8]) throws {
        let path = Array(dir.utf8) + [UInt8(ascii: "/")] + name + [0]
        let fd = path.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY | O_EXCL, 0o644) }
        XCTAssertGreaterThanOrEqual(fd, 0, "cannot create \(name)")
        _ = data.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        close(fd)
        addTeardownBlock { _ = path.withUnsafeBufferPointer { unlink(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) } }
    }

    func testAByteThatIsNotUTF8AndTheSameNameInCharactersStayTwoFiles() throws {
        let dir = try CLI.temporaryDirectory(self)
        let root = dir.path + "/photos"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let db = dir.path + "/pins.sqlite"
        // Paris (France) under the byte 0xFF; Rome (Italy) under the four characters `\xFF`:
        // far apart and a year apart, so each makes a pin.
        let paris = try Data(contentsOf: CLI.repo.appendingPathComponent("Fixtures/library/2023/07-paris/IMG_0001.jpg"))
        let rome = try Data(contentsOf: CLI.repo.appendingPathComponent("Fixtures/library/2024/06-roma/IMG_7001.jpg"))
        try create(paris, in: root, name: Array("a".utf8) + [0xFF] + Array(".jpg".utf8))
        try create(rome, in: root, name: Array(#"a\xFF.jpg"#.utf8))

        let first = try CLI.run(["import", root, "--json", "--timezone", "UTC", "--db", db])
        XCTAssertEqual(first.status, 0, first.stderr)
        let report = try XCTUnwrap(CLI.json(first.stdout) as? [String: Any], first.stdout)
        XCTAssertEqual((report["counts"] as? [String: Any])?["created"] as? Int, 2)
        // JSON: the byte is \xFF; a real backslash is written twice.
        let photos = ((report["pins"] as? [[String: Any]]) ?? []).compactMap { $0["photo"] as? String }
        XCTAssertEqual(Set(photos), [#"a\xFF.jpg"#, #"a\\xFF.jpg"#])

        // The nightly run: both files known, neither new nor gone.
        let nightly = try CLI.run(["import", root, "--json", "--timezone", "UTC", "--db", db])
        XCTAssertEqual(nightly.status, 0, nightly.stderr)
        let counts = try XCTUnwrap((CLI.json(nightly.stdout) as? [String: Any])?["counts"] as? [String: Any], nightly.stdout)
        XCTAssertEqual(counts["created"] as? Int, 0)
        XCTAssertEqual(counts["unchanged"] as? Int, 2)
        XCTAssertEqual(counts["read"] as? Int, 0)
        XCTAssertEqual(counts["missing"] as? Int, 0)
        XCTAssertEqual(counts["moved"] as? Int, 0)

        // Each pin names its own file: France the byte, Italy the characters.
        let list = try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as? [[String: Any]])
        let byCountry = Dictionary(uniqueKeysWithValues: list.map { ($0["country"] as? String ?? "?", $0) })
        XCTAssertEqual(byCountry["FR"]?["photoIDs"] as? [String], [root + #"/a\xFF.jpg"#])
        XCTAssertEqual(byCountry["IT"]?["photoIDs"] as? [String], [root + #"/a\\xFF.jpg"#])

        for (country, text, json) in [("FR", "\"\(root)/a\\377.jpg\"", root + #"/a\xFF.jpg"#),
                                      ("IT", "\"\(root)/a\\\\xFF.jpg\"", root + #"/a\\xFF.jpg"#)] {
            let id = try XCTUnwrap(byCountry[country]?["id"] as? String)
            // Text: quoted as git quotes paths (octal for the byte, the backslash escaped).
            let show = try CLI.run(["show", id, "--db", db])
            XCTAssertEqual(show.status, 0, show.stderr)
            // The "photo" rows, one per path (the "photos" row above them is the count, issue 39).
            let photoLines = show.stdout.split(separator: "\n").filter { $0.split(separator: " ").first == "photo" }
            XCTAssertEqual(photoLines.count, 1, show.stdout)
            XCTAssertTrue(photoLines.first?.hasSuffix("  " + text + " (run 1)") ?? false, "\(country): \(show.stdout)")
            let shown = try XCTUnwrap(CLI.json(CLI.run(["show", id, "--json", "--db", db]).stdout) as? [String: Any])
            XCTAssertEqual((shown["photos"] as? [[String: Any]])?.compactMap { $0["path"] as? String }, [json], country)
        }

        // The map page and an export carry the two ids apart too (JSON inside the page).
        let page = dir.path + "/map.html"
        let reportRun = try CLI.run(["report", "--out", page, "--no-thumbnails", "--db", db])
        XCTAssertEqual(reportRun.status, 0, reportRun.stderr)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.contains(#"a\\xFF.jpg""#) && html.contains(#"a\\\\xFF.jpg""#), "both ids in the page")
        let export = dir.path + "/pins.geojson"
        let exported = try CLI.run(["export", "--format", "geojson", "--out", export, "--db", db])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let geojson = try XCTUnwrap(CLI.json(String(contentsOfFile: export, encoding: .utf8)) as? [String: Any])
        let ids = ((geojson["features"] as? [[String: Any]]) ?? []).compactMap { (($0["properties"] as? [String: Any])?["photoIDs"] as? [String])?.first }
        XCTAssertEqual(Set(ids), [root + #"/a\xFF.jpg"#, root + #"/a\\xFF.jpg"#])
    }
}
