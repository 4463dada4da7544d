import CSupport
import Foundation
import Glibc
import XCTest
@testable import PinImport

final class MallocTuningTests: XCTestCase {
    /// Set in the process of its own that `testLargeBlocksStayMmappedAfterALargerOneWasFreed`
    /// starts: there the check runs on a fresh heap.
    static let ownProcessVariable = "PINS_MALLOC_TEST_PROCESS"

    /// glibc marks a chunk it served with its own mmap by bit 1 (IS_MMAPPED) of the size word
    /// just before the pointer it returns (malloc/malloc.c, "chunk representations").
    private func isMmapped(_ pointer: UnsafeMutableRawPointer) -> Bool {
        (pointer - MemoryLayout<Int>.size).load(as: Int.self) & 2 != 0
    }

    /// Freeing a 30 MiB block raises glibc's default threshold to 30 MiB, so a 20 MiB block then
    /// comes from the heap. With the threshold fixed at 128 KiB it has its own mmap.
    ///
    /// Checked in a test process of its own (this test binary again, running only this test): in
    /// the process that ran hundreds of tests on many threads first, a free chunk of 20 MiB may
    /// lie in any arena, and malloc serves from there whatever the threshold, so the check
    /// failed now and then (1 run in 2 once) though the threshold held.
    func testLargeBlocksStayMmappedAfterALargerOneWasFreed() throws {
        if ProcessInfo.processInfo.environment[Self.ownProcessVariable] == "1" {
            try checkLargeBlocksStayMmapped()
            return
        }
        let (status, output) = try runThisTestInItsOwnProcess()
        XCTAssertEqual(status, 0, "the check in its own process failed:\n\(output)")
        XCTAssertTrue(output.contains("testLargeBlocksStayMmappedAfterALargerOneWasFreed' passed"), output)
    }

    private func checkLargeBlocksStayMmapped() throws {
        XCTAssertTrue(MallocTuning.fixMmapThreshold(environment: [:]))
        let large = try XCTUnwrap(malloc(30 << 20))
        XCTAssertTrue(isMmapped(large))
        free(large)
        _ = pins_malloc_trim()
        let medium = try XCTUnwrap(malloc(20 << 20))
        defer { free(medium) }
        XCTAssertTrue(isMmapped(medium), "a 20 MiB block came from the heap: the threshold rose")
    }

    /// This test binary run again with only this test, and the variable set; its exit status and
    /// what it printed.
    private func runThisTestInItsOwnProcess() throws -> (Int32, String) {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        guard length > 0 else {
            XCTFail("cannot read /proc/self/exe")
            throw SetupFailed()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: String(cString: path))
        process.arguments = ["PinImportTests.MallocTuningTests/testLargeBlocksStayMmappedAfterALargerOneWasFreed"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.ownProcessVariable] = "1"
        environment["MALLOC_MMAP_THRESHOLD_"] = nil
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    func testTheEnvironmentsOwnSettingWins() {
        XCTAssertFalse(MallocTuning.fixMmapThreshold(environment: ["MALLOC_MMAP_THRESHOLD_": "65536"]))
    }
}

/// Ends a test after the XCTFail that says why (a machine that cannot run it is a failure, not a skip).
private struct SetupFailed: Error {}
