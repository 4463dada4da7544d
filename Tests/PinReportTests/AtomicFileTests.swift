import Foundation
@testable import PinCore
@testable import PinReport
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

    func entries(_ dir: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
    }

    func testALinkIsWrittenThroughAndStaysALink() throws {
        let dir = try folder()
        try FileManager.default.createDirectory(atPath: dir + "/www", withIntermediateDirectories: false)
        try "old".write(toFile: dir + "/www/map.html", atomically: false, encoding: .utf8)
        chmod(dir + "/www/map.html", 0o640)
        try FileManager.default.createSymbolicLink(atPath: dir + "/map.html", withDestinationPath: "www/map.html")
        try AtomicFile.write("new", to: dir + "/map.html")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/map.html"), "www/map.html")
        XCTAssertEqual(try String(contentsOfFile: dir + "/www/map.html", encoding: .utf8), "new")
        // The target keeps its permissions; no temporary file is left in either folder.
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: dir + "/www/map.html")[.posixPermissions] as? Int, 0o640)
        XCTAssertEqual(try entries(dir), ["map.html", "www"])
        XCTAssertEqual(try entries(dir + "/www"), ["map.html"])
    }

    func testAChainOfLinksAndADanglingLinkEndAtTheirTarget() throws {
        let dir = try folder()
        try FileManager.default.createDirectory(atPath: dir + "/a", withIntermediateDirectories: false)
        // first -> a/second -> (relative to a/) third.csv, which does not exist yet.
        try FileManager.default.createSymbolicLink(atPath: dir + "/a/second", withDestinationPath: "third.csv")
        try FileManager.default.createSymbolicLink(atPath: dir + "/first", withDestinationPath: "a/second")
        try AtomicFile.write("x", to: dir + "/first")
        XCTAssertEqual(try String(contentsOfFile: dir + "/a/third.csv", encoding: .utf8), "x")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/first"), "a/second")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/a/second"), "third.csv")
        // A link into a folder that does not exist: refused, the link kept, nothing left behind.
        try FileManager.default.createSymbolicLink(atPath: dir + "/lost", withDestinationPath: "nowhere/x.csv")
        XCTAssertThrowsError(try AtomicFile.write("x", to: dir + "/lost")) { error in
            XCTAssertTrue("\(error)".contains("a link to"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/lost"), "nowhere/x.csv")
        XCTAssertEqual(try entries(dir), ["a", "first", "lost"])
    }

    func testAFIFOIsWrittenToNotReplaced() throws {
        let dir = try folder()
        let fifo = dir + "/pipe"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // A reader that never blocks: the write fits the pipe's buffer, so it is all there
        // once `write` returns (and a FIFO wrongly replaced gives EOF, not a hang).
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(reader, 0)
        defer { close(reader) }
        try AtomicFile.write("through the pipe", to: fifo)
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(reader, &buffer, 64)
        XCTAssertEqual(String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self), "through the pipe")
        var info = stat()
        XCTAssertEqual(lstat(fifo, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFIFO)
        XCTAssertEqual(try entries(dir), ["pipe"])
    }

    func testALinkToADeviceWritesToTheDevice() throws {
        let dir = try folder()
        try FileManager.default.createSymbolicLink(atPath: dir + "/null", withDestinationPath: "/dev/null")
        XCTAssertEqual(try AtomicFile.destination(RawPath(dir + "/null")), .special(RawPath(dir + "/null")))
        try AtomicFile.write("gone", to: dir + "/null")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/null"), "/dev/null")
        var info = stat()
        XCTAssertEqual(stat("/dev/null", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFCHR)
        XCTAssertEqual(try entries(dir), ["null"])
    }

    func testFoldersAndNamesThatAreNotFilesAreRefused() throws {
        let dir = try folder()
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: dir + "/to-sub", withDestinationPath: "sub")
        for path in ["/sub", "/sub/", "/to-sub", "/sub/.", "/new/", ""] {
            XCTAssertThrowsError(try AtomicFile.write("x", to: path.isEmpty ? "" : dir + path), path) { error in
                let reason = (error as? AtomicFile.WriteError)?.reason ?? ""
                XCTAssertTrue(["it is a folder", "not a file name (it ends with '/', '.' or '..')", "no file name given"].contains(reason), "\(path): \(reason)")
            }
        }
        XCTAssertEqual(try entries(dir), ["sub", "to-sub"])
        XCTAssertEqual(try entries(dir + "/sub"), [])
    }

    func testAVeryLongNameGetsATemporaryThatFits() throws {
        let dir = try folder()
        let name = String(repeating: "n", count: 250) + ".html"  // 255 bytes, NAME_MAX
        try AtomicFile.write("long", to: dir + "/" + name)
        XCTAssertEqual(try entries(dir), [name])
    }
}
