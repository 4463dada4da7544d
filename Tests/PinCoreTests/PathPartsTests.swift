@testable import PinCore
import XCTest

/// Folder and name of a path, as dirname(1) and basename(1) give them (worked by hand against
/// coreutils: `dirname x` is `.`, `dirname a/b/` is `a`, `basename a/b/` is `b`).
final class PathPartsTests: XCTestCase {
    func testFolderAndNameOfEveryShape() {
        let cases: [(String, String, String)] = [
            ("x", ".", "x"), ("./x", ".", "x"), ("a/b", "a", "b"), ("/x", "/", "x"), ("a/b/", "a", "b"),
            ("a//b", "a", "b"), ("//x", "/", "x"), ("/", "/", "/"), ("", ".", ""), ("../x", "..", "x"),
            ("/a/b/c.html", "/a/b", "c.html"), ("é", ".", "é"),
        ]
        for (path, folder, name) in cases {
            XCTAssertEqual(PathParts.folder(of: path), folder, "folder of '\(path)'")
            XCTAssertEqual(PathParts.name(of: path), name, "name of '\(path)'")
        }
    }

    func testBytesThatAreNotUTF8StayAsTheyAre() {
        let path: [UInt8] = [0x64, 0xE9, 0x2F, 0x63, 0x61, 0x66, 0xE9]  // d\351/caf\351
        XCTAssertEqual(PathParts.folder(path), [0x64, 0xE9])
        XCTAssertEqual(PathParts.name(path), [0x63, 0x61, 0x66, 0xE9])
        XCTAssertEqual(RawPath(bytes: path).folder, RawPath(bytes: [0x64, 0xE9]))
    }
}
