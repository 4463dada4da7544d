import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PinStore
import XCTest

/// `pins serve` keeps the pins between requests and, when the database changes, reads only the
/// pins its change log names (PinChangeLog, PinList): a stale list would show an old title, a
/// deleted pin, miss a new one or keep a moved one in its old place. Each change here (through
/// the API; by the CLI, another process; a delete; a new pin) is followed at once by the list,
/// a search and the map data, against values worked out by hand. Three places imported from a
/// CSV: Bern bridge 2019-03-01, Zürich lake 2020-05-01, Lyon old town 2021-06-01.
final class ServeFreshListTests: XCTestCase {
    private func get(_ port: Int, _ path: String) throws -> [String: Any] {
        try exchange(port, "GET", path, body: nil, session: nil)
    }

    private func exchange(_ port: Int, _ method: String, _ path: String, body: [String: Any]?,
                          session: (cookie: String, csrf: String)?) throws -> [String: Any] {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpShouldHandleCookies = false
        if let session {
            request.setValue("pins_session=\(session.cookie)", forHTTPHeaderField: "Cookie")
            request.setValue(session.csrf, forHTTPHeaderField: "X-CSRF-Token")
            request.setValue("http://127.0.0.1:\(port)", forHTTPHeaderField: "Origin")
        }
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        final class Box: @unchecked Sendable { var data: Data?; var response: HTTPURLResponse? }
        let box = Box(), done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, _ in
            box.data = data
            box.response = response as? HTTPURLResponse
            done.signal()
        }.resume()
        done.wait()
        let response = try XCTUnwrap(box.response, "\(method) \(path): no answer")
        XCTAssertEqual(response.statusCode, 200, "\(method) \(path): \(String(decoding: box.data ?? Data(), as: UTF8.self))")
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: box.data ?? Data()) as? [String: Any], "\(method) \(path)")
        if let cookie = response.value(forHTTPHeaderField: "Set-Cookie")?.split(separator: ";").first, cookie.hasPrefix("pins_session=") {
            json["_cookie"] = String(cookie.dropFirst("pins_session=".count))
        }
        return json
    }

    /// The titles of GET /api/pins?QUERY (newest first), and its total.
    private func titles(_ port: Int, _ query: String = "") throws -> (titles: [String], total: Int) {
        let list = try get(port, "/api/pins?limit=100" + (query.isEmpty ? "" : "&" + query))
        let pins = try XCTUnwrap(list["pins"] as? [[String: Any]])
        return (pins.compactMap { $0["title"] as? String }, try XCTUnwrap(list["total"] as? Int))
    }

    /// The titles of the map data's pins-data (oldest first; a title pins would make is left out).
    /// The map data's titles: `fresh=1` (a page after its own change) as the database is now;
    /// a plain poll may answer the data kept while the new is made (its X-Pins-Version the older
    /// one), and answers the new within a few seconds: checked too.
    private func mapTitles(_ port: Int) throws -> [String] {
        let data = try get(port, "/api/page-data?fresh=1")
        let pins = try XCTUnwrap(data["pins-data"] as? [[String: Any]])
        let titles = pins.map { $0["title"] as? String ?? "(made)" }
        let deadline = Date().addingTimeInterval(10)
        var polled: [String] = []
        while Date() < deadline {
            polled = try XCTUnwrap(get(port, "/api/page-data")["pins-data"] as? [[String: Any]]).map { $0["title"] as? String ?? "(made)" }
            if polled == titles { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        XCTAssertEqual(polled, titles, "a poll shows the change too, soon")
        return titles
    }

    private func startServer(db: String, in dir: URL) throws -> Int {
        let log = dir.appendingPathComponent("serve.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: CLI.binary)
        server.arguments = ["serve", "--listen", "127.0.0.1:0", "--db", db]
        var env = ProcessInfo.processInfo.environment
        env["PINS_DB"] = nil
        env["TZ"] = "UTC"
        env["PINS_DATA_DIR"] = CLI.dataDirectory
        server.environment = env
        server.standardError = try FileHandle(forWritingTo: log)
        server.standardOutput = FileHandle.nullDevice
        try server.run()
        addTeardownBlock { if server.isRunning { server.terminate(); server.waitUntilExit() } }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression) {
                return Int(text[range].dropFirst("http://127.0.0.1:".count).dropLast()) ?? 0
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTFail("the server said no address")
        throw CLI.Failure.setup
    }

    func testEveryChangeShowsInTheNextListSearchAndMapData() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path, csv = dir.appendingPathComponent("places.csv")
        try """
            title,latitude,longitude,date,tags
            Bern bridge,46.9480,7.4474,2019-03-01T12:00:00Z,hike
            Zürich lake,47.3667,8.5500,2020-05-01T12:00:00Z,hike
            Lyon old town,45.7640,4.8357,2021-06-01T12:00:00Z,city

            """.write(to: csv, atomically: true, encoding: .utf8)
        XCTAssertEqual(try CLI.run(["import-places", csv.path, "--db", db, "--quiet"]).status, 0)
        let port = try startServer(db: db, in: dir)
        let opened = try get(port, "/api/session")
        let session = (cookie: try XCTUnwrap(opened["_cookie"] as? String), csrf: try XCTUnwrap(opened["csrf"] as? String))
        func id(_ title: String) throws -> String {
            let pins = try XCTUnwrap(get(port, "/api/pins?limit=100")["pins"] as? [[String: Any]])
            return try XCTUnwrap(pins.first { $0["title"] as? String == title }?["id"] as? String, title)
        }

        XCTAssertEqual(try titles(port).titles, ["Lyon old town", "Zürich lake", "Bern bridge"])
        XCTAssertEqual(try titles(port, "q=zurich").titles, ["Zürich lake"], "accents and case folded")
        XCTAssertEqual(try mapTitles(port), ["Bern bridge", "Zürich lake", "Lyon old town"])

        // Through the API: a new title and a later date move Zürich first.
        _ = try exchange(port, "PATCH", "/api/pins/\(id("Zürich lake"))", body: ["title": "Zürichsee shore", "date": "2022-01-01T12:00:00Z"],
                         session: session)
        XCTAssertEqual(try titles(port).titles, ["Zürichsee shore", "Lyon old town", "Bern bridge"])
        XCTAssertEqual(try titles(port, "q=ZURICHSEE").titles, ["Zürichsee shore"])
        XCTAssertEqual(try titles(port, "q=lake").total, 0, "the old title is no longer found")
        XCTAssertEqual(try mapTitles(port), ["Bern bridge", "Lyon old town", "Zürichsee shore"])

        // By the CLI, another process: a new title and tag on Lyon.
        XCTAssertEqual(try CLI.run(["edit", try id("Lyon old town"), "--title", "Lyon Fourvière", "--tag", "hike", "--db", db]).status, 0)
        XCTAssertEqual(try titles(port).titles, ["Zürichsee shore", "Lyon Fourvière", "Bern bridge"])
        XCTAssertEqual(try titles(port, "q=fourviere").titles, ["Lyon Fourvière"])
        XCTAssertEqual(try titles(port, "tag=hike").titles, ["Zürichsee shore", "Lyon Fourvière", "Bern bridge"])
        XCTAssertEqual(try mapTitles(port), ["Bern bridge", "Lyon Fourvière", "Zürichsee shore"])

        // A delete by the CLI.
        XCTAssertEqual(try CLI.run(["delete", try id("Bern bridge"), "--db", db]).status, 0)
        XCTAssertEqual(try titles(port).titles, ["Zürichsee shore", "Lyon Fourvière"])
        XCTAssertEqual(try titles(port).total, 2)
        XCTAssertEqual(try titles(port, "q=bern").total, 0)
        XCTAssertEqual(try mapTitles(port), ["Lyon Fourvière", "Zürichsee shore"])

        // A new pin by the CLI, dated between the two.
        XCTAssertEqual(try CLI.run(["add", "--lat", "48.8606", "--lon", "2.3376", "--title", "Louvre", "--date", "2021-09-01T12:00:00Z",
                                    "--db", db]).status, 0)
        XCTAssertEqual(try titles(port).titles, ["Zürichsee shore", "Louvre", "Lyon Fourvière"])
        XCTAssertEqual(try titles(port, "q=louvre").titles, ["Louvre"])
        XCTAssertEqual(try titles(port, "offset=1").titles, ["Louvre", "Lyon Fourvière"])
        XCTAssertEqual(try mapTitles(port), ["Lyon Fourvière", "Louvre", "Zürichsee shore"])
    }

    /// A database of the schema before the change log (18), as a person has it when they upgrade
    /// pins and start `pins serve`: the server migrates it once at its start (the first write
    /// would have), so no request opens a migrated copy of the whole file in memory (about 50 MB
    /// and a full read at 100,000 pins, at every request) and the list follows the change log.
    func testServeMigratesAnOlderSchemaOnceSoNoRequestReadsACopy() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path, csv = dir.appendingPathComponent("places.csv")
        try """
            title,latitude,longitude,date,tags
            Bern bridge,46.9480,7.4474,2019-03-01T12:00:00Z,hike
            Lyon old town,45.7640,4.8357,2021-06-01T12:00:00Z,city

            """.write(to: csv, atomically: true, encoding: .utf8)
        XCTAssertEqual(try CLI.run(["import-places", csv.path, "--db", db, "--quiet"]).status, 0)
        do { // Back to schema 18: the change log's tables, triggers and rows (19 to 22) and the photos' clock offset (23) gone.
            let file = try PinDatabase(path: db)
            let triggers = try file.connection.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'pin_changes%'") { $0.string(0) }
            XCTAssertEqual(triggers.count, 14, "schema 22: 12 that name pins, the held table's and the pruning")
            for name in triggers { try file.connection.execute("DROP TRIGGER \(name)") }
            try file.connection.execute("""
                DROP TABLE pin_changes; DROP TABLE pin_changes_held; ALTER TABLE photos DROP COLUMN clock_offset;
                DELETE FROM schema_migrations WHERE version >= 19
                """)
        }
        XCTAssertTrue(try PinDatabase.hasOlderSchema(path: db))
        XCTAssertTrue(try PinDatabase(readOnlyPath: db).readsACopy, "before serve, a reader copies the file")

        let port = try startServer(db: db, in: dir)
        // Migrated at the start, before any request: every reader from now on opens the file.
        XCTAssertFalse(try PinDatabase.hasOlderSchema(path: db))
        XCTAssertFalse(try PinDatabase(readOnlyPath: db).readsACopy)
        for _ in 0..<3 {
            XCTAssertEqual(try titles(port).titles, ["Lyon old town", "Bern bridge"])
            XCTAssertEqual(try titles(port, "q=BERN").titles, ["Bern bridge"])
            XCTAssertEqual(try mapTitles(port), ["Bern bridge", "Lyon old town"])
        }
        let opened = try get(port, "/api/session")
        let session = (cookie: try XCTUnwrap(opened["_cookie"] as? String), csrf: try XCTUnwrap(opened["csrf"] as? String))
        let pins = try XCTUnwrap(get(port, "/api/pins?limit=100")["pins"] as? [[String: Any]])
        let bern = try XCTUnwrap(pins.first { $0["title"] as? String == "Bern bridge" }?["id"] as? String)
        _ = try exchange(port, "PATCH", "/api/pins/\(bern)", body: ["title": "Bern Nydeggbrücke"], session: session)
        XCTAssertEqual(try titles(port).titles, ["Lyon old town", "Bern Nydeggbrücke"])
        XCTAssertEqual(try PinDatabase(readOnlyPath: db).pinSnapshot().pins.map(\.title), ["Bern Nydeggbrücke", "Lyon old town"])
        XCTAssertNotNil(try PinDatabase(readOnlyPath: db).pinSnapshot().seq, "the file's change log is read, not a copy's")
    }

    /// Each trip of the map data (page-data's trips) as its pins' titles, as the database is now
    /// (`fresh=1`, see `mapTitles`).
    private func mapTrips(_ port: Int) throws -> [String: [String]] {
        let data = try get(port, "/api/page-data?fresh=1")
        let pins = try XCTUnwrap(data["pins-data"] as? [[String: Any]])
        let trips = try XCTUnwrap((data["page-data"] as? [String: Any])?["trips"] as? [[String: Any]])
        var result: [String: [String]] = [:]
        for trip in trips {
            result[try XCTUnwrap(trip["id"] as? String)] = try XCTUnwrap(trip["pins"] as? [Int]).map { pins[$0]["title"] as? String ?? "(made)" }
        }
        return result
    }

    /// The trips are kept between requests while what they are found from stays (`TripCache`):
    /// a date moved through the API or by the CLI gives the map data and a shown pin the new
    /// trip at once. Home in Zürich (12 days of June 2024 at noon UTC), Milan (217 km) on the
    /// 8th and 9th: the trip 2024-06-08 (as TripsCommandTests works it out); Navigli moved to
    /// the 7th: days 7 (a point 217 km away) and 8, the trip 2024-06-07; back to the 9th by
    /// the CLI: 2024-06-08 again.
    func testAMovedDateGivesTheMapDataAndAShownPinTheirNewTrip() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        func add(_ lat: String, _ lon: String, _ date: String, _ title: String) throws -> String {
            let run = try CLI.run(["add", "--lat", lat, "--lon", lon, "--date", date, "--title", title, "--db", db])
            XCTAssertEqual(run.status, 0, run.stderr)
            return CLI.addedID(run)
        }
        for day in [1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14] {
            _ = try add("47.3769", "8.5417", String(format: "2024-06-%02dT12:00:00Z", day), "home \(day)")
        }
        let duomo = try add("45.4642", "9.1900", "2024-06-08T12:00:00Z", "Duomo")
        let navigli = try add("45.4642", "9.1900", "2024-06-09T12:00:00Z", "Navigli")
        let port = try startServer(db: db, in: dir)
        let opened = try get(port, "/api/session")
        let session = (cookie: try XCTUnwrap(opened["_cookie"] as? String), csrf: try XCTUnwrap(opened["csrf"] as? String))
        func shownTrip(_ id: String) throws -> String? { try get(port, "/api/pins/\(id)")["trip"] as? String }

        XCTAssertEqual(try mapTrips(port), ["2024-06-08": ["Duomo", "Navigli"]])
        XCTAssertEqual(try shownTrip(duomo), "2024-06-08")
        _ = try exchange(port, "PATCH", "/api/pins/\(duomo)", body: ["title": "Duomo di Milano", "color": "#1E88E5"], session: session)
        XCTAssertEqual(try mapTrips(port), ["2024-06-08": ["Duomo di Milano", "Navigli"]])

        _ = try exchange(port, "PATCH", "/api/pins/\(navigli)", body: ["date": "2024-06-07T12:00:00Z"], session: session)
        XCTAssertEqual(try mapTrips(port), ["2024-06-07": ["Navigli", "Duomo di Milano"]])
        XCTAssertEqual(try shownTrip(duomo), "2024-06-07")
        XCTAssertEqual(try shownTrip(navigli), "2024-06-07")

        XCTAssertEqual(try CLI.run(["edit", navigli, "--date", "2024-06-09T12:00:00Z", "--db", db]).status, 0)
        XCTAssertEqual(try mapTrips(port), ["2024-06-08": ["Duomo di Milano", "Navigli"]])
        XCTAssertEqual(try shownTrip(navigli), "2024-06-08")
        XCTAssertEqual(try shownTrip(duomo), "2024-06-08")
    }
}
