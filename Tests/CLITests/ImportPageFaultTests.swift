import Foundation
import XCTest

/// What an import costs the machine per photo beyond its work: fresh memory. Each photo record's
/// upsert journals its pages in a chunk of SQLite's statement-journal size (4 MiB), taken at the
/// statement's first journaled page and freed at its end; with glibc's mmap threshold fixed at
/// 128 KiB (MallocTuning) each chunk was an mmap of its own, page faults on every page it
/// touched and a munmap: 117,282 mmaps and 790,000 page faults in a 100,000-file import, a
/// third of its CPU. SQLite's large blocks are now kept for its next request (CSupport's
/// pins_sqlite_malloc): 15,000 faults in that import.
final class ImportPageFaultTests: XCTestCase {
    /// The page faults (minor) of the children this process has waited for, so far.
    private func childFaults() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return usage.ru_minflt
    }

    func testAnImportFaultsFewPagesPerPhoto() throws {
        let dir = try CLI.temporaryDirectory(self)
        func faults(files: Int) throws -> Int {
            let library = dir.appendingPathComponent("library-\(files)").path
            try CLI.generateLibrary(at: library, files: files)
            let db = dir.appendingPathComponent("pins-\(files).sqlite").path
            let before = childFaults()
            let run = try CLI.run(["import", library, "--quiet", "--timezone", "UTC", "--db", db])
            XCTAssertEqual(run.status, 0, run.stderr)
            return childFaults() - before
        }
        // The difference of two imports is what the 1,000 more photos cost: start-up, data
        // files and SQLite's first pages are in both. Before: 8 to 10 a photo (tried).
        let few = try faults(files: 200), more = try faults(files: 1_200)
        let perPhoto = Double(more - few) / 1_000
        XCTAssertLessThan(perPhoto, 3, "page faults a photo: \(few) for 200 photos, \(more) for 1,200")
    }
}
