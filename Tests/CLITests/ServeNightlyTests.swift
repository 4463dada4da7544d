import Foundation
import XCTest

/// `pins serve --import-at` (issue 37 step 6): the nightly import inside the service, run by a
/// real `pins serve` scheduled a few seconds ahead (HH:MM:SS, in TZ=UTC), not by waiting for 03:00.
final class ServeNightlyTests: XCTestCase {
    /// A `pins serve` whose standard error goes to a file the test reads while it runs.
    struct Server {
        let process: Process
        let log: URL
        var text: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
    }

    func serve(db: String, library: String, at due: Date, in dir: URL, environment: [String: String] = [:]) throws -> Server {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "HH:mm:ss"
        let log = dir.appendingPathComponent("serve-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["serve", "--listen", "127.0.0.1:0", "--db", db, "--library", library, "--import-at", formatter.string(from: due)]
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = "UTC"
        env["PINS_DATA_DIR"] = CLI.dataDirectory
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        addTeardownBlock { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        return Server(process: process, log: log)
    }

    func runs(_ db: String) throws -> [[String: Any]] {
        let run = try CLI.run(["runs", "--json", "--db", db])
        return (try? CLI.json(run.stdout) as? [[String: Any]]) ?? []
    }

    func waitFor(_ seconds: TimeInterval, _ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try !condition() {
            guard Date() < deadline else { throw CLI.Failure.setup }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    /// At the time given, the service imports the library once, as `pins import` does (the same
    /// pins), and not again that day; SIGTERM then stops the service with 0.
    func testTheImportRunsAtItsTimeOnceWithTheCLIsResult() throws {
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("photos").path
        try CLI.generateLibrary(at: library, files: 40)
        let reference = dir.appendingPathComponent("reference.sqlite").path
        XCTAssertEqual(try CLI.run(["import", library, "--quiet", "--db", reference], environment: ["TZ": "UTC"]).status, 0)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let server = try serve(db: db, library: library, at: Date().addingTimeInterval(3), in: dir)
        do {
            try waitFor(90, "the nightly run") { server.text.contains("the nightly import of \(library) is done") }
        } catch {
            return XCTFail("no nightly run within 90 s: \(server.text)")
        }
        let recorded = try runs(db)
        XCTAssertEqual(recorded.count, 1, "\(recorded)")
        XCTAssertEqual(recorded.first?["status"] as? String, "completed", "\(recorded)")
        let list = { (path: String) in try CLI.run(["list", "--json", "--db", path]).stdout }
        let pins = try XCTUnwrap(CLI.json(list(db)) as? [[String: Any]]), expected = try XCTUnwrap(CLI.json(list(reference)) as? [[String: Any]])
        XCTAssertGreaterThan(expected.count, 0)
        XCTAssertEqual(Set(pins.map { "\($0["title"] ?? "") \($0["latitude"] ?? "") \($0["longitude"] ?? "")" }),
                       Set(expected.map { "\($0["title"] ?? "") \($0["latitude"] ?? "") \($0["longitude"] ?? "")" }))
        Thread.sleep(forTimeInterval: 2)
        XCTAssertEqual(try runs(db).count, 1, "one run per day")
        XCTAssertTrue(server.text.contains("the nightly import runs at "), server.text)
        server.process.terminate()
        server.process.waitUntilExit()
        XCTAssertEqual(server.process.terminationStatus, 0, server.text)
    }

    /// The preview folder's files and their modification times.
    func listing(_ folder: String) throws -> [String: Date] {
        var files: [String: Date] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            files[name] = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.modificationDate] as? Date
        }
        return files
    }

    /// Issue 39: after its import, the nightly run makes the previews the new photos lack (a
    /// child `pins previews --max 2000 --nice --quiet`, started once the import has ended), into
    /// the folder beside the database that `pins serve` reads; a night with nothing new makes
    /// none and touches none.
    func testTheNightlyRunMakesThePreviewsAfterItsImportAndANightWithNothingNewMakesNone() throws {
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("photos").path
        try CLI.generateLibrary(at: library, files: 12)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let folder = dir.appendingPathComponent("previews").path
        var before: [String: Date] = [:]
        for night in 1...2 {
            let server = try serve(db: db, library: library, at: Date().addingTimeInterval(3), in: dir)
            do {
                try waitFor(120, "the nightly previews") { server.text.contains("the nightly previews are done") }
            } catch {
                return XCTFail("night \(night): no nightly previews within 120 s: \(server.text)")
            }
            let log = server.text
            let imported = try XCTUnwrap(log.range(of: "the nightly import of \(library) is done"), log)
            let started = try XCTUnwrap(log.range(of: "the nightly previews started"), log)
            XCTAssertLessThan(imported.lowerBound, started.lowerBound, "the previews come after the import: \(log)")
            server.process.terminate()
            server.process.waitUntilExit()
            XCTAssertEqual(server.process.terminationStatus, 0, log)
            if night == 1 {
                before = try listing(folder)
                // Every photo of a pin has its preview or its reason: a run by hand makes none.
                let byHand = try CLI.run(["previews", "--json", "--db", db])
                let summary = try XCTUnwrap(try CLI.json(byHand.stdout) as? [String: Any], byHand.stderr)
                XCTAssertEqual(summary["made"] as? Int, 0, byHand.stdout)
                XCTAssertGreaterThan(summary["previews"] as? Int ?? 0, 0, byHand.stdout)
                XCTAssertEqual(before.filter { $0.key.hasSuffix(".jpg") || $0.key.hasSuffix(".why") }.count, summary["photos"] as? Int, "\(before.keys)")
                XCTAssertEqual(try listing(folder), before, "a run that finds everything touches nothing")
            } else {
                XCTAssertEqual(try runs(db).count, 2)
                XCTAssertEqual(try listing(folder), before, "the second night, with nothing new, made and touched no preview")
            }
        }
    }

    /// While the nightly run works, it holds the run lock (a `pins import` by hand exits 75);
    /// stopping the service stops it as SIGTERM stops `pins import`: the run is recorded as
    /// interrupted, nothing is left running, and the next import completes. The import child is
    /// held still (SIGSTOP) once its run is recorded as running, until the service's SIGTERM is
    /// pending in it: however fast the import (3,000 files took 0.6 s after b9ed5ad, and the
    /// stop then found it completed), the stop comes in the middle of the run.
    func testStoppingTheServiceStopsARunningImportCleanly() throws {
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("photos").path
        try CLI.generateLibrary(at: library, files: 3000)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let server = try serve(db: db, library: library, at: Date().addingTimeInterval(3), in: dir)
        var child: Int32 = 0
        do {
            try waitFor(90, "the nightly import's child") {
                guard let match = server.text.range(of: #"started \(pid (\d+)\)"#, options: .regularExpression) else { return false }
                child = Int32(server.text[match].filter(\.isNumber)) ?? 0
                return child > 1 && kill(child, SIGSTOP) == 0  // never 0: that would stop this test's own group
            }
            // Let it run in steps of 10 ms until its run is recorded (and the run lock taken).
            try waitFor(60, "a running run") {
                if try runs(db).contains(where: { $0["status"] as? String == "running" }) { return true }
                kill(child, SIGCONT)
                Thread.sleep(forTimeInterval: 0.01)
                kill(child, SIGSTOP)
                return false
            }
        } catch {
            if child > 1 { kill(child, SIGCONT) }
            return XCTFail("no running nightly import within 150 s: \(server.text) \(try runs(db))")
        }
        let byHand = try CLI.run(["import", library, "--quiet", "--db", db])
        XCTAssertEqual(byHand.status, 75, "the nightly run holds the run lock: \(byHand.stderr)")
        let stopping = Date()
        server.process.terminate()
        do {
            try waitFor(10, "the service's SIGTERM pending in its stopped import") { try pendingSignals(child) & (1 << (UInt64(SIGTERM) - 1)) != 0 }
        } catch {
            XCTFail("the service sent its import no SIGTERM within 10 s: \(server.text)")
        }
        kill(child, SIGCONT)
        server.process.waitUntilExit()
        XCTAssertLessThan(Date().timeIntervalSince(stopping), 15)
        XCTAssertEqual(server.process.terminationStatus, 0, server.text)
        XCTAssertTrue(server.text.contains("was stopped; what it saved is whole"), server.text)
        XCTAssertEqual(kill(child, 0), -1, "the import child \(child) is gone")
        let recorded = try runs(db)
        XCTAssertEqual(recorded.map { $0["status"] as? String }, ["interrupted"], "\(recorded)")
        let after = try CLI.run(["import", library, "--quiet", "--db", db])
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertEqual(try runs(db).map { $0["status"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") }, ["completed", "interrupted"])
    }

    /// The signals pending for a process (/proc/PID/status, SigPnd: the thread's, ShdPnd: the
    /// process's), as a mask with bit N-1 for signal N.
    private func pendingSignals(_ pid: Int32) throws -> UInt64 {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        return status.split(separator: "\n").filter { $0.hasPrefix("SigPnd:") || $0.hasPrefix("ShdPnd:") }
            .compactMap { UInt64($0.split(separator: "\t").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "", radix: 16) }
            .reduce(0, |)
    }
}
