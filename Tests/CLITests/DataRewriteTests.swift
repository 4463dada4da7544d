import Foundation
import XCTest

/// Issue 40, item 9: a data file rewritten in place while pins runs (an upgrade's `cp` or
/// `rsync --inplace` over Countries.bin or Places.bin) killed the running process with SIGBUS:
/// the files were mapped, and a page past the new end of a truncated file cannot be read. A
/// child `pins locate --json` (countries and places) loads a copy of the data folder, then the
/// test cuts its files to nothing before the child looks anything up: the child answers as
/// before and exits 0.
final class DataRewriteTests: XCTestCase {
    /// Whether `pid` is blocked in read(2) of its standard input (/proc/PID/syscall: "0 0x0 ...").
    func isReadingStdin(_ pid: Int32) -> Bool {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8) else { return false }
        return text.hasPrefix("0 0x0 ")
    }

    func testDataFilesCutShortUnderARunningProcess() throws {
        let dir = try CLI.temporaryDirectory(self)
        let data = dir.appendingPathComponent("data")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: CLI.dataDirectory), to: data)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["locate", "--json"]
        var env = ProcessInfo.processInfo.environment
        env["PINS_DATA_DIR"] = data.path
        process.environment = env
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // The data is loaded before the first line is read.
        let deadline = Date().addingTimeInterval(60)
        while !isReadingStdin(process.processIdentifier), process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertTrue(isReadingStdin(process.processIdentifier), "locate never waited for its input")
        // An upgrade writes the files in place: cut to nothing (cp's O_TRUNC), the new bytes to come.
        for name in ["Countries.bin", "Places.bin", "Regions.bin"] {
            XCTAssertEqual(truncate(data.appendingPathComponent(name).path, 0), 0, name)
        }
        input.fileHandleForWriting.write(Data("48.8584,2.2945\n35.6586,139.7454\n-33.8568,151.2153\n".utf8))
        try input.fileHandleForWriting.close()
        let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "killed by signal \(process.terminationStatus) (7 is SIGBUS)")
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        let countries = answer.split(separator: "\n").map { line -> String? in
            guard let object = (try? CLI.json(String(line))) as? [String: Any] else { return nil }
            return object["country"] as? String
        }
        XCTAssertEqual(countries, ["FR", "JP", "AU"], answer)
    }
}
