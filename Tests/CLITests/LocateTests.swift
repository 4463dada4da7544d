import Foundation
import XCTest

final class LocateTests: XCTestCase {
    func testGoodAndBadLines() throws {
        let input = "48.8566,2.3522\n 35.6895 , 139.6917 \nnot a point\n0,-30\n91,0\n-29.31,27.48\n\n-33.8568,151.2153\r\n41.9033,12.4534"
        let run = try CLI.run(["locate"], stdin: input)
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.stdout, "FR\nJP\n\n\n\nLS\n\nAU\nVA\n")
        XCTAssertTrue(run.stderr.contains("line 3:"), run.stderr)
        XCTAssertTrue(run.stderr.contains("line 5:"), run.stderr)
        XCTAssertTrue(run.stderr.contains("line 7:"), run.stderr)
        XCTAssertFalse(run.stderr.contains("line 4:"), "open ocean is an answer, not an error")
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 3, run.stderr)
    }
}
