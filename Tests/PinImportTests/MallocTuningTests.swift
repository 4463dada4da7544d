import CSupport
import Glibc
import XCTest
@testable import PinImport

final class MallocTuningTests: XCTestCase {
    /// glibc marks a chunk it served with its own mmap by bit 1 (IS_MMAPPED) of the size word
    /// just before the pointer it returns (malloc/malloc.c, "chunk representations").
    private func isMmapped(_ pointer: UnsafeMutableRawPointer) -> Bool {
        (pointer - MemoryLayout<Int>.size).load(as: Int.self) & 2 != 0
    }

    /// Freeing a 30 MiB block raises glibc's default threshold to 30 MiB, so a 20 MiB block then
    /// comes from the heap. With the threshold fixed at 128 KiB it has its own mmap. A request
    /// that the heap's free top can hold is served from there whatever the threshold, and a test
    /// process that ran other tests first may keep megabytes free at its top: malloc_trim gives
    /// them back first.
    func testLargeBlocksStayMmappedAfterALargerOneWasFreed() throws {
        XCTAssertTrue(MallocTuning.fixMmapThreshold(environment: [:]))
        let large = try XCTUnwrap(malloc(30 << 20))
        XCTAssertTrue(isMmapped(large))
        free(large)
        _ = pins_malloc_trim()
        let medium = try XCTUnwrap(malloc(20 << 20))
        defer { free(medium) }
        XCTAssertTrue(isMmapped(medium), "a 20 MiB block came from the heap: the threshold rose")
    }

    func testTheEnvironmentsOwnSettingWins() {
        XCTAssertFalse(MallocTuning.fixMmapThreshold(environment: ["MALLOC_MMAP_THRESHOLD_": "65536"]))
    }
}
