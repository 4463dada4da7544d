import CSQLite
import Foundation
@testable import PinStore
import XCTest

/// A failed open or write on a full disk is "the disk is full" whichever call met the full disk
/// first: SQLite keeps ENOSPC for some (a write) and no errno or another for others (a failed
/// mmap of the -shm, an open that gave up). Before, FullDiskTests said "cannot be opened
/// (missing, or no permission)" on one run in three.
final class FullDiskClassificationTests: XCTestCase {
    func reason(_ code: Int32, errno: Int32, at path: String) -> StorageError.Reason {
        StorageError(.open, path: path, cause: SQLiteError(code: code, message: "m", sql: nil, systemErrno: errno)).reason
    }

    func testAFullFileSystemIsNamedWhateverErrnoSQLiteKept() throws {
        guard getuid() == 0 else { throw XCTSkip("mounting a small tmpfs needs root (CI runs as root)") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fulldisk-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard mount("tmpfs", dir, "tmpfs", 0, "size=4m") == 0 else {
            return XCTFail("cannot mount a tmpfs as root: \(String(cString: strerror(errno)))")
        }
        defer { umount2(dir, Int32(MNT_DETACH)) }
        let db = dir + "/pins.sqlite"
        // Room: neither code nor an errno that names another cause says "full".
        XCTAssertEqual(reason(SQLITE_CANTOPEN, errno: 0, at: db), .cannotOpen)
        XCTAssertEqual(reason(SQLITE_IOERR, errno: EIO, at: db), .inputOutput)
        XCTAssertEqual(reason(SQLITE_CANTOPEN, errno: ENOENT, at: db), .cannotOpen)
        // Fill it up.
        let fd = open(dir + "/filler", O_WRONLY | O_CREAT, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var block = [UInt8](repeating: 1, count: 4096)
        while write(fd, &block, block.count) > 0 {}
        close(fd)
        XCTAssertEqual(reason(SQLITE_CANTOPEN, errno: 0, at: db), .diskFull)
        XCTAssertEqual(reason(SQLITE_IOERR | (10 << 8), errno: 0, at: db), .diskFull)  // SQLITE_IOERR_WRITE
        XCTAssertEqual(reason(SQLITE_IOERR, errno: ENOMEM, at: db), .diskFull)
        XCTAssertEqual(reason(SQLITE_IOERR, errno: ENOSPC, at: "/nowhere/pins.sqlite"), .diskFull)
        // An errno that names another cause keeps it, full disk or not.
        XCTAssertEqual(reason(SQLITE_CANTOPEN, errno: EACCES, at: db), .cannotOpen)
        // ENOENT on a full disk is SQLite's read-only retry after a create that found no block.
        XCTAssertEqual(reason(SQLITE_CANTOPEN, errno: ENOENT, at: db), .diskFull)
        // A bare file name is looked up in the current folder, not at "/".
        XCTAssertEqual(reason(SQLITE_CANTOPEN, errno: 0, at: "pins.sqlite"), .cannotOpen)
    }
}
