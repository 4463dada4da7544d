import Foundation
import XCTest

final class ScheduleTests: XCTestCase {
    /// scripts/install --print-units: a oneshot service that treats 75 (busy) as success, a
    /// persistent timer, and the same command as a crontab line.
    func testPrintUnitsGivesAServiceTreating75AsSuccessATimerAndACrontabLine() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [CLI.repo.appendingPathComponent("scripts/install").path, "/opt/pins", "--library", "/srv/my photos",
                             "--db", "/var/lib/pins/pins.sqlite", "--at", "02:30", "--print-units"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        // The command takes the library and the database from pins.conf (issue 24 item 1).
        XCTAssertTrue(text.contains("\nPINS_DB=/var/lib/pins/pins.sqlite\n"), text)
        XCTAssertTrue(text.contains("\nPINS_LIBRARY=/srv/my photos\n"), text)
        XCTAssertTrue(text.contains(#"ExecStart="/opt/pins/bin/pins" import --quiet"# + "\n"), text)
        XCTAssertTrue(text.contains("SuccessExitStatus=75"))
        XCTAssertTrue(text.contains("OnCalendar=*-*-* 02:30:00"))
        XCTAssertTrue(text.contains("Persistent=true"))
        XCTAssertTrue(text.contains("30 02 * * * '/opt/pins/bin/pins' import --quiet --nice\n"), text)
    }
}
