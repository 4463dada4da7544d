import Glibc
import XCTest
@testable import PinImport

final class MallocTuningTests: XCTestCase {
    /// glibc marks a chunk it served with its own mmap by bit 1 (IS_MMAPPED) of the size word
    /// just before the pointer it returns (malloc/malloc.c, "chunk representations").
    private func isMmapped(_ pointer: UnsafeMutableRawPointer) -> Bool {
        (pointer - MemoryLayout<Int>.size).load(as: Int.self) & 2 != 0
    }

    /// Freeing a 16 MiB block raises glibc's default threshold to 16 MiB, so an 8 MiB block then
    /// comes from the heap. With the threshold fixed at 128 KiB it has its own mmap. (A request
    /// that the heap's free top can hold is served from there whatever the threshold: 8 MiB is
    /// far more than a test process keeps free at its top, whose trimming starts at 128 KiB.)
    func testLargeBlocksStayMmappedAfterALargerOneWasFreed() throws {
        XCTAssertTrue(MallocTuning.fixMmapThreshold(environment: [:]))
        let large = try XCTUnwrap(malloc(16 << 20))
        XCTAssertTrue(isMmapped(large))
        free(large)
        let medium = try XCTUnwrap(malloc(8 << 20))
        defer { free(medium) }
        XCTAssertTrue(isMmapped(medium), "an 8 MiB block came from the heap: the threshold rose")
    }

    func testTheEnvironmentsOwnSettingWins() {
        XCTAssertFalse(MallocTuning.fixMmapThreshold(environment: ["MALLOC_MMAP_THRESHOLD_": "65536"]))
    }
}
