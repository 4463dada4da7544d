import Foundation
import XCTest

/// Issue 40, item 14: `pins settings` made 4 connect() calls to the name service (nscd, then
/// LDAP on a domain-joined NAS): FileManager.attributesOfItem, asked only for the size of the
/// database's -wal file, also looks up its owner's user and group names. A plain stat(2) needs
/// no name service. strace counts the calls of the real process, with a -wal file there (a
/// connection of Python's sqlite3 holds one open).
final class SettingsNSSTests: XCTestCase {
    func testSettingsAndListMakeNoConnectCalls() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else {
            XCTFail("strace is not installed: run scripts/setup") // a failure, never a skip
            return
        }
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try CLI.run(["add", "--db", db, "--lat", "48.8584", "--lon", "2.2945"]).status, 0)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["python3", "-c", """
            import sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1])
            c.execute('CREATE TABLE IF NOT EXISTS held (x)')
            c.execute('INSERT INTO held VALUES (1)')
            c.commit()
            print('held', flush=True)
            time.sleep(30)
            """, db]
        let out = Pipe()
        holder.standardOutput = out
        try holder.run()
        defer { holder.terminate(); holder.waitUntilExit() }
        XCTAssertTrue(String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("held"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: db + "-wal"), "the case needs a -wal file")
        for command in [["settings"], ["list"], ["stats"]] {
            let trace = dir.appendingPathComponent("trace.txt").path
            let run = try CLI.run(["-f", "-e", "trace=connect", "-o", trace, CLI.binary] + command + ["--db", db],
                                  executable: "/usr/bin/strace")
            XCTAssertEqual(run.status, 0, "\(command): \(run.stderr)")
            let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("connect(") }
            XCTAssertEqual(calls, [], "\(command): no connect() at all")
        }
    }
}
