import Foundation
import TestSupport
import XCTest
@testable import PinCore
@testable import PinImport
import PinStore

/// A read-back of the run's own scratch file that fails (an I/O error in TMPDIR) ends the
/// records there and is thrown by the run before its next write, and by the CLI after the
/// report: the library never ends the process itself (issue 35 item 6).
final class ScratchReadBackTests: XCTestCase {
    func testAFailedReadBackEndsTheRecordsAndIsThrownOnce() throws {
        let file = try ScratchFile(failure: ImportError.storage)
        for n in 0..<3 { try file.appendRecord { $0.u64(UInt64(n)) } }
        try file.flush()
        var reader = RecordReader(file, from: 0, to: file.end)
        XCTAssertNotNil(reader.next { $0.count }, "the first record reads while the file is there")
        // The descriptor taken away under the reader: pread fails with EBADF, as an I/O error would.
        let saved = dup(file.fd)
        close(file.fd)
        defer { dup2(saved, file.fd); close(saved) }
        var after = RecordReader(file, from: 0, to: file.end)
        XCTAssertNil(after.next { $0.count }, "the records end at the failed read")
        XCTAssertThrowsError(try ScratchFile.checkReadBack()) { error in
            XCTAssertTrue(error is ImportError, "the import's own storage error, which its stages pass through: \(type(of: error))")
            XCTAssertTrue("\(error)".hasPrefix("cannot read back the run's scratch file in "), "\(error)")
            XCTAssertTrue("\(error)".contains("Bad file descriptor"), "\(error)")
        }
        XCTAssertNoThrow(try ScratchFile.checkReadBack(), "thrown once: the next run starts clean")
    }
}
