import Foundation
import XCTest

final class ClosedPipeTests: XCTestCase {
    /// `pins inspect DIR | head -1`: the reader goes away; pins stops quietly, no crash.
    func testAClosedStdoutEndsTheCommandQuietly() throws {
        // Far more output than a pipe holds (64 KiB), so pins is still writing when the reader goes.
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("photos").path
        try CLI.generateLibrary(at: library, files: 1500)
        for arguments in [["inspect", library, "--timezone", "UTC"],
                          ["import", library, "--dry-run", "--json", "--db", dir.appendingPathComponent("x").path]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = arguments
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            _ = out.fileHandleForReading.readData(ofLength: 16)
            try out.fileHandleForReading.close()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .exit, "\(arguments[0]) must not die of a signal")
            XCTAssertEqual(process.terminationStatus, 0, arguments[0])
        }
    }
}
