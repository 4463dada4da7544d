import Foundation
import PinCore
import XCTest

final class AtomicFileTests: XCTestCase {
    func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir.path
    }

    func testReplacesThePageAndLeavesNothingElse() throws {
        let dir = try folder()
        try AtomicFile.write("one", to: dir + "/map.html")
        try AtomicFile.write("two", to: dir + "/map.html")
        XCTAssertEqual(try String(contentsOfFile: dir + "/map.html", encoding: .utf8), "two")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["map.html"])
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/map.html")[.posixPermissions] as? Int
        let mask = umask(0)
        umask(mask)
        XCTAssertEqual(mode, 0o666 & ~Int(mask))
    }

    func testAFailureKeepsTheOldPageAndNamesTheFile() throws {
        let dir = try folder()
        XCTAssertThrowsError(try AtomicFile.write("x", to: dir + "/missing/map.html")) { error in
            XCTAssertTrue("\(error)".contains(dir + "/missing/map.html"), "\(error)")
        }
        try FileManager.default.createDirectory(atPath: dir + "/page.html", withIntermediateDirectories: false)
        XCTAssertThrowsError(try AtomicFile.write("x", to: dir + "/page.html"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["page.html"])
    }

    func testAFailedWriteKeepsTheOldFileAndLeavesNoTemporary() throws {
        let dir = try folder()
        try AtomicFile.write("old", to: dir + "/report.json")
        XCTAssertThrowsError(try AtomicFile.write(to: dir + "/report.json") { fd in
            _ = AtomicFile.writeAll(fd, "half")
            errno = ENOSPC
            return false
        }) { error in
            XCTAssertEqual("\(error)", "cannot write \(dir)/report.json: No space left on device")
        }
        XCTAssertEqual(try String(contentsOfFile: dir + "/report.json", encoding: .utf8), "old")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["report.json"])
    }
}
