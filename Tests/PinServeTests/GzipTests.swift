import Foundation
import PinApp
import PinCore
import PinReport
import PinImport
import TestSupport
@testable import PinServe
import XCTest

/// The map data gzipped for the browsers that accept it: checked by gzip(1) itself, and the
/// Accept-Encoding values as RFC 9110 12.5.3 reads them.
final class GzipTests: XCTestCase {
    func testGzipReadsBackWhatWasCompressed() throws {
        var text = "{\"pins-data\":["
        for i in 0..<20_000 { text += "{\"id\":\(i),\"title\":\"Place \(i) \u{e9}\"}," }
        text += "{}]}"
        let plain = Array(text.utf8)
        let packed = try XCTUnwrap(gzipped(plain))
        XCTAssertEqual(Array(packed.prefix(2)), [0x1F, 0x8B], "a gzip member's magic")
        XCTAssertLessThan(packed.count, plain.count / 4)
        XCTAssertEqual(try gunzip(packed), plain)
        XCTAssertEqual(try gunzip(try XCTUnwrap(gzipped([]))), [])
    }

    /// `bytes` through `GzipStream` in one piece: the gzipped bytes, nil when zlib failed.
    private func gzipped(_ bytes: [UInt8]) -> [UInt8]? {
        guard let stream = GzipStream(expected: bytes.count / 3) else { return nil }
        bytes.withUnsafeBufferPointer { stream.append($0) }
        guard let body = stream.finish() else { return nil }
        return Array(UnsafeRawBufferPointer(start: body.bytes.baseAddress, count: body.byteCount))
    }

    /// `gzip -c` of `bytes`, at `level`: what gzip(1) itself writes.
    private func gzip(_ bytes: [UInt8], level: Int) throws -> [UInt8] { try gzipTool(["-\(level)", "-c"], bytes) }

    /// Only the gzipped map data is kept; a client without gzip gets it unpacked: what gzip(1)
    /// wrote reads back whole (a member larger than one piece of output, 256 KiB), one cut
    /// short or damaged reads as nothing.
    func testDecompressReadsWhatGzipWrote() throws {
        var text = ""
        for i in 0..<40_000 { text += "{\"id\":\(i),\"title\":\"Place \(i) \u{e9}\"}," }
        let plain = Array(text.utf8)
        XCTAssertGreaterThan(plain.count, 1_000_000)
        for level in [1, 9] {
            let packed = try gzip(plain, level: level)
            XCTAssertEqual(packed.withUnsafeBytes { Gzip.decompress($0) }, plain, "gzip -\(level)")
            XCTAssertNil(Array(packed.prefix(packed.count / 2)).withUnsafeBytes { Gzip.decompress($0) }, "cut short")
            var damaged = packed
            damaged[packed.count / 2] ^= 0xFF
            damaged[packed.count / 2 + 1] ^= 0xFF
            XCTAssertNil(damaged.withUnsafeBytes { Gzip.decompress($0) }, "damaged")
        }
        XCTAssertEqual(try gzip([], level: 6).withUnsafeBytes { Gzip.decompress($0) }, [])
        XCTAssertNil(Array("{}".utf8).withUnsafeBytes { Gzip.decompress($0) }, "not gzip")
    }

    /// The map data keeps one body, gzipped (gzip(1) reads the JSON back from it); a client
    /// without gzip is answered the JSON itself, with the same version and no Content-Encoding.
    func testTheMapDataIsKeptGzippedOnly() throws {
        var json = "{\"pins-data\":["
        for i in 0..<5_000 { json += "{\"id\":\(i),\"title\":\"Place \(i)\"}," }
        json += "{}]}"
        var text = json
        let data = MapData(version: "1.2.3;-;") { write in text.withUTF8(write) }
        XCTAssertTrue(data.gzipped)
        XCTAssertEqual(data.response.header("Content-Encoding"), "gzip")
        XCTAssertLessThan(data.response.body.count, json.utf8.count / 4)
        XCTAssertEqual(try gunzip(data.response.body), Array(json.utf8))
        let plain = try data.answer(acceptsGzip: false)
        XCTAssertNil(plain.header("Content-Encoding"))
        XCTAssertEqual(plain.header("X-Pins-Version"), "1.2.3;-;")
        XCTAssertEqual(plain.header("Content-Type"), "application/json; charset=utf-8")
        XCTAssertEqual(plain.body, Array(json.utf8))
        XCTAssertEqual(try data.answer(acceptsGzip: true).body, data.response.body)
    }

    func testAcceptEncodingValues() {
        XCTAssertTrue(AcceptEncoding.acceptsGzip("gzip, deflate, br, zstd"), "Chromium's")
        XCTAssertTrue(AcceptEncoding.acceptsGzip("deflate, GZip;q=0.5"))
        XCTAssertTrue(AcceptEncoding.acceptsGzip("x-gzip"))
        XCTAssertTrue(AcceptEncoding.acceptsGzip("*"))
        XCTAssertFalse(AcceptEncoding.acceptsGzip("gzip;q=0"))
        XCTAssertFalse(AcceptEncoding.acceptsGzip("gzip; q=0.0, *"), "named and refused: the star does not bring it back")
        XCTAssertFalse(AcceptEncoding.acceptsGzip("*;q=0"))
        XCTAssertFalse(AcceptEncoding.acceptsGzip("identity"))
        XCTAssertFalse(AcceptEncoding.acceptsGzip(""))
        XCTAssertFalse(AcceptEncoding.acceptsGzip(nil))
        XCTAssertFalse(AcceptEncoding.acceptsGzip("gzipped, br"))
    }

    /// GET /api/page-data: gzipped for a browser that accepts it (the same bytes once gunzipped,
    /// `Vary: Accept-Encoding`), as it is for one that does not.
    func testTheMapDataIsGzippedForABrowserThatAcceptsIt() throws {
        let (app, backend) = try serveScratch("gzip-map")
        _ = try addPin(app, 45.764, 4.8357) { $0.title = "Lyon" }
        let target = try XCTUnwrap(RequestTarget.parse("/api/page-data"))
        let plain = try backend.pageData(target, HTTPRequest(method: .get, target: "/api/page-data"))
        let packed = try backend.pageData(target, HTTPRequest(method: .get, target: "/api/page-data",
                                                              headers: [("Accept-Encoding", "gzip, deflate, br")]))
        XCTAssertNil(plain.header("Content-Encoding"))
        XCTAssertEqual(packed.header("Content-Encoding"), "gzip")
        XCTAssertEqual(plain.header("Vary"), "Accept-Encoding")
        XCTAssertEqual(packed.header("Vary"), "Accept-Encoding")
        XCTAssertEqual(try gunzip(packed.body), plain.body)
        let data = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(plain.body)) as? [String: Any])
        XCTAssertEqual(((data["pins-data"] as? [[String: Any]])?.first)?["title"] as? String, "Lyon")
    }

    /// GET /: the page (33 MB at 100,000 pins) gzipped for a browser that accepts it, read back
    /// by gzip(1); its policy and `Vary` either way.
    func testThePageIsGzippedForABrowserThatAcceptsIt() throws {
        let (app, backend) = try serveScratch("gzip-page")
        _ = try addPin(app, 45.764, 4.8357) { $0.title = "Lyon" }
        let plain = try backend.page(HTTPRequest(method: .get, target: "/"))
        let packed = try backend.page(HTTPRequest(method: .get, target: "/", headers: [("Accept-Encoding", "gzip, deflate, br")]))
        XCTAssertNil(plain.header("Content-Encoding"))
        XCTAssertEqual(packed.header("Content-Encoding"), "gzip")
        for answer in [plain, packed] {
            XCTAssertEqual(answer.header("Vary"), "Accept-Encoding")
            XCTAssertEqual(answer.header("Content-Type"), "text/html; charset=utf-8")
            XCTAssertTrue(answer.header("Content-Security-Policy")?.hasSuffix("; frame-ancestors 'none'") == true)
        }
        let html = String(decoding: try gunzip(packed.body), as: UTF8.self)
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"), String(html.prefix(40)))
        XCTAssertLessThan(packed.body.count * 2, plain.body.count, "a page packs to less than half")
        let pins = try XCTUnwrap(try islands(html)["pins-data"] as? [[String: Any]])
        XCTAssertEqual(pins.map { $0["title"] as? String }, ["Lyon"])
    }

    /// The served page and the map data it is drawn again from carry the same islands: the page
    /// is made from the pins kept (not read again), the map data leaves out only what the page
    /// draws (water, regions): a pin with a made title, one with its own, an edit seen by both.
    func testThePagesIslandsAreTheMapDatas() throws {
        let (app, backend) = try serveScratch("page-islands")
        let lyon = try addPin(app, 45.764, 4.8357) { $0.title = "Lyon"; $0.note = "food" }
        _ = try addPin(app, 48.8584, 2.2945) { $0.date = "2024-06-01T10:00:00+02:00" }
        var edit = LocationEdit()
        edit.title = "Lugdunum"
        for round in 0..<2 {
            let html = String(decoding: try backend.page(HTTPRequest(method: .get, target: "/")).body, as: UTF8.self)
            let target = try XCTUnwrap(RequestTarget.parse("/api/page-data?fresh=1"))
            let data = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(
                try backend.pageData(target, HTTPRequest(method: .get, target: "/api/page-data?fresh=1")).body)) as? NSDictionary)
            let page = try islands(html)
            XCTAssertEqual(Set(data.allKeys.compactMap { $0 as? String }), Set(page.keys))
            for (id, island) in page { XCTAssertEqual(data[id] as? NSObject, island as? NSObject, "island \(id), round \(round)") }
            let titles = (page["pins-data"] as? [[String: Any]])?.map { $0["title"] as? String }
            XCTAssertEqual(titles, round == 0 ? ["Lyon", nil] : ["Lugdunum", nil], "the made title is left to the page")
            _ = try app.editPin(lyon.id.uuidString, edit)
        }
    }

    /// The page's JSON islands by their element ids.
    private func islands(_ html: String) throws -> [String: Any] {
        var found: [String: Any] = [:]
        var rest = html[...]
        let open = "<script type=\"application/json\" id=\""
        while let start = rest.range(of: open) {
            let idEnd = try XCTUnwrap(rest.range(of: "\">", range: start.upperBound..<rest.endIndex))
            let end = try XCTUnwrap(rest.range(of: "</script>", range: idEnd.upperBound..<rest.endIndex))
            found[String(rest[start.upperBound..<idEnd.lowerBound])] =
                try JSONSerialization.jsonObject(with: Data(rest[idEnd.upperBound..<end.lowerBound].utf8), options: .fragmentsAllowed)
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// The gzip made as the text comes, in pieces of every size (none, one byte, more than one
    /// piece of output at once): gzip(1) reads back the text whole.
    func testGzipMadeAsTheTextComesReadsBackWhole() throws {
        var text = ""
        for i in 0..<60_000 { text += "{\"id\":\(i),\"title\":\"Place \(i) \u{e9}\"}," }
        let plain = Array(text.utf8)
        // Expected far too small: the block grows many times as the output comes.
        let stream = try XCTUnwrap(GzipStream(expected: 16))
        var at = 0, size = 0
        plain.withUnsafeBufferPointer { all in
            while at < all.count {
                let end = min(all.count, at + size)
                stream.append(UnsafeBufferPointer(rebasing: all[at..<end]))
                at = end
                size = size == 0 ? 1 : size * 3
            }
        }
        let body = try XCTUnwrap(stream.finish())
        let packed = Array(UnsafeRawBufferPointer(start: body.bytes.baseAddress, count: body.byteCount))
        XCTAssertLessThan(packed.count, plain.count / 4)
        XCTAssertEqual(try gunzip(packed), plain)
    }

    /// The served map data is the page's islands as `pins report` writes them, byte for byte:
    /// each pin's object there is its kept list text edited as the data is written (its place
    /// keys out, its trip in, a title the page makes left out), here for pins with a place, a
    /// made title, a note that needs escaping in a script, tags and a city's fields.
    func testTheServedMapDataIsThePagesIslandsByteForByte() throws {
        let (app, backend) = try serveScratch("map-bytes")
        _ = try addPin(app, 45.764, 4.8357) { $0.title = "Lyon" }
        _ = try addPin(app, 48.8566, 2.3522) { $0.note = "a \"quote\", </script> & {braces} [x] \u{2028}"; $0.tags = ["b,c", "é"] }
        let made = try addPin(app, 35.0116, 135.7681)
        _ = try addPin(app, 46.2044, 6.1432) { $0.type = .city; $0.title = "Genève" }
        let target = try XCTUnwrap(RequestTarget.parse("/api/page-data"))
        let served = try backend.pageData(target, HTTPRequest(method: .get, target: "/api/page-data"))
        var input = try app.pageInput(title: "pins", filterDescription: nil, thumbnails: true, embedPreviews: false)
        input.served = true
        let expected = PageRenderer.islandsJSON(input)
        XCTAssertEqual(String(decoding: served.body, as: UTF8.self), expected)
        let data = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(served.body)) as? [String: Any])
        let pins = try XCTUnwrap(data["pins-data"] as? [[String: Any]])
        XCTAssertEqual(pins.count, 4)
        XCTAssertNil(pins.first { $0["id"] as? String == made.id.lowercasedText }?["title"], "the made title left out")
        XCTAssertTrue(expected.contains("\\u003c/script\\u003e \\u0026"), "the note made safe for a script element")
    }

    /// The served map data shows a pin's photos as its strip of the server's previews; the
    /// photos' EXIF thumbnails are the static page's (read from up to 600 photos at every making
    /// of the map data otherwise). The fixture's photo carries one (exiftool's
    /// `-b -ThumbnailImage` of it is Fixtures/thumbnail/exiftool-thumbnail.jpg).
    func testTheServedMapDataCarriesTheStripNotTheEXIFThumbnail() async throws {
        let (app, backend) = try serveScratch("served-thumbnail")
        let library = URL(fileURLWithPath: app.databasePath).deletingLastPathComponent().appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let fixtures = Repository.url("Fixtures/thumbnail")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("with-exif-thumbnail.jpg"),
                                         to: library.appendingPathComponent("with-exif-thumbnail.jpg"))
        _ = try await app.importPhotos(ImportOptions(root: library.path))
        let expected = "data:image/jpeg;base64," + (try Data(contentsOf: fixtures.appendingPathComponent("exiftool-thumbnail.jpg"))).base64EncodedString()

        let target = try XCTUnwrap(RequestTarget.parse("/api/page-data"))
        let served = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(
            try backend.pageData(target, HTTPRequest(method: .get, target: "/api/page-data")).body)) as? [String: Any])
        let servedPin = try XCTUnwrap((served["pins-extra"] as? [String: [String: Any]])?["0"])
        XCTAssertNil(servedPin["t"], "no EXIF thumbnail in the served data")
        XCTAssertEqual((servedPin["s"] as? [Int])?.count, 1, "the pin's photo in its strip, by id")

        let page = try app.pageInput(title: "pins", filterDescription: nil, thumbnails: true, embedPreviews: true)
        let written = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(PageRenderer.islandsJSON(page).utf8)) as? [String: Any])
        XCTAssertEqual((written["pins-extra"] as? [String: [String: Any]])?["0"]?["t"] as? String, expected, "the static page's thumbnail")
    }
}
