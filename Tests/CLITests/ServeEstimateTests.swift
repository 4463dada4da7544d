import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Issue 36 item 4: PINS_ESTIMATE is "also a pins.conf setting", and an import started from the
/// browser honours it as `pins import` does (it did not: the server's imports took the
/// command's defaults alone, so estimates came from cron and never from the page). A real
/// `pins serve` with PINS_CONFIG, imports started through its API as the page starts them, and
/// pins.conf changed between two of them while the service runs. Photos made by exiftool as in
/// EstimatePositionsTests: the phone at 10:00Z at 48.0, 2.0 and 10:10Z at 48.2, 2.0 (22.2 km in
/// 10 min, 133 km/h); the camera at 10:05Z without a position, half way by hand: 48.1, 2.0.
final class ServeEstimateTests: XCTestCase {
    /// One HTTP exchange with the server, its answer's status, Set-Cookie and JSON body.
    private func request(_ port: Int, _ method: String, _ path: String, body: [String: Any]? = nil,
                         session: (cookie: String, csrf: String)? = nil) throws -> (status: Int, cookie: String?, json: [String: Any]) {
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
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: box.data ?? Data()) as? [String: Any], "\(method) \(path)")
        let cookie = (response.value(forHTTPHeaderField: "Set-Cookie")?.split(separator: ";").first)
            .flatMap { $0.hasPrefix("pins_session=") ? String($0.dropFirst("pins_session=".count)) : nil }
        return (response.statusCode, cookie, json)
    }

    /// Starts an import of library 0 as the page's "Apply" does and waits for its end: the job.
    private func importThroughTheServer(_ port: Int, _ session: (cookie: String, csrf: String)) throws -> [String: Any] {
        let started = try request(port, "POST", "/api/imports", body: ["library": 0, "dryRun": false], session: session)
        XCTAssertEqual(started.status, 202, "\(started.json)")
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            let job = try XCTUnwrap(request(port, "GET", "/api/imports", session: session).json["job"] as? [String: Any])
            if job["state"] as? String != "running" { return job }
            Thread.sleep(forTimeInterval: 0.2)
        }
        throw CLI.Failure.setup
    }

    func testTheServersImportsReadPinsConfsEstimateSettingAsEachStarts() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else {
            return XCTFail("exiftool is missing: scripts/setup installs libimage-exiftool-perl")
        }
        let dir = try CLI.temporaryDirectory(self)
        let photos = dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try CLI.datedPhoto(photos, "phone-1.jpg", "2024:05:01 10:00:00", (48.0, 2.0))
        try CLI.datedPhoto(photos, "phone-2.jpg", "2024:05:01 10:10:00", (48.2, 2.0))
        try CLI.datedPhoto(photos, "cam-car.jpg", "2024:05:01 10:05:00")
        let conf = dir.appendingPathComponent("pins.conf"), db = dir.appendingPathComponent("pins.sqlite").path

        let log = dir.appendingPathComponent("serve.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: CLI.binary)
        server.arguments = ["serve", "--listen", "127.0.0.1:0", "--db", db, "--library", photos.path]
        var env = ProcessInfo.processInfo.environment
        for key in ["PINS_DB", "PINS_ESTIMATE", "PINS_ESTIMATE_MAX_GAP", "PINS_ESTIMATE_MAX_SPEED", "PINS_ESTIMATE_MAX_NEAREST"] { env[key] = nil }
        env["TZ"] = "UTC"
        env["PINS_DATA_DIR"] = CLI.dataDirectory
        env["PINS_CONFIG"] = conf.path
        server.environment = env
        server.standardError = try FileHandle(forWritingTo: log)
        server.standardOutput = FileHandle.nullDevice
        try "PINS_ESTIMATE=no\n".write(to: conf, atomically: true, encoding: .utf8)
        try server.run()
        addTeardownBlock { if server.isRunning { server.terminate(); server.waitUntilExit() } }
        var port = 0
        let deadline = Date().addingTimeInterval(30)
        while port == 0, Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression) {
                port = Int(text[range].dropFirst("http://127.0.0.1:".count).dropLast()) ?? 0
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTAssertNotEqual(port, 0, "the server said no address")
        let opened = try request(port, "GET", "/api/session")
        let session = (cookie: try XCTUnwrap(opened.cookie), csrf: try XCTUnwrap(opened.json["csrf"] as? String))
        func pins() throws -> [[String: Any]] {
            try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as? [[String: Any]])
        }

        // Off: the phone's two pins, the camera skipped for no location.
        var job = try importThroughTheServer(port, session)
        XCTAssertEqual(job["state"] as? String, "done", "\(job)")
        XCTAssertEqual(job["created"] as? Int, 2, "\(job)")
        XCTAssertEqual(try pins().compactMap { $0["latitude"] as? Double }.sorted(), [48.0, 48.2])

        // A setting pins cannot read fails that import, with the file and the line.
        try "# estimates\nPINS_ESTIMATE=maybe\n".write(to: conf, atomically: true, encoding: .utf8)
        job = try importThroughTheServer(port, session)
        XCTAssertEqual(job["state"] as? String, "failed", "\(job)")
        XCTAssertEqual(job["error"] as? String, "\(conf.path), line 2: PINS_ESTIMATE is yes or no, got 'maybe'")

        // On, in pins.conf changed while the service runs: the next import places the camera
        // photo half way (the photo the run without estimates skipped, decided again).
        try "# estimates\nPINS_ESTIMATE=yes\n".write(to: conf, atomically: true, encoding: .utf8)
        job = try importThroughTheServer(port, session)
        XCTAssertEqual(job["state"] as? String, "done", "\(job)")
        let all = try pins()
        XCTAssertEqual(all.count, 3, "\(all)")
        let car = try XCTUnwrap(all.first { ($0["latitude"] as? Double).map { abs($0 - 48.1) < 1e-9 } == true }, "\(all)")
        XCTAssertEqual(car["longitude"] as? Double ?? 0, 2.0, accuracy: 1e-9)
        let shown = try XCTUnwrap(CLI.json(CLI.run(["show", try XCTUnwrap(car["id"] as? String), "--json", "--db", db]).stdout) as? [String: Any])
        XCTAssertEqual((shown["photos"] as? [[String: Any]])?.first?["detail"] as? String,
                       "position from the photos around it: from phone-1.jpg (5 min before) and phone-2.jpg (5 min after), 22.2 km apart")
    }
}
