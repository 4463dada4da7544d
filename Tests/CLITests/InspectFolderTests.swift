import Foundation
import XCTest

/// Issue 15 item 5: `inspect DIR` shows a sidecar as part of its photo, not as a file in error.
final class InspectFolderTests: XCTestCase {
    func testSidecarsInAFolderAreShownWithTheirPhotos() throws {
        let folders = ["Fixtures/formats/sidecars/xmp", "Fixtures/formats/sidecars/takeout"].map { CLI.repo.appendingPathComponent($0).path }
        let run = try CLI.run(["inspect", "--timezone", "UTC"] + folders)
        XCTAssertEqual(run.status, 0, run.stderr)
        let objects = try run.stdout.split(separator: "\n").map { try XCTUnwrap(CLI.json(String($0)) as? [String: Any]) }
        let media = try folders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasSuffix(".xmp") && !$0.hasSuffix(".json") }
        }
        XCTAssertEqual(objects.count, media.count, "one line per photo, none per sidecar")
        XCTAssertTrue(objects.allSatisfy { $0["error"] is NSNull }, run.stdout)
        let sidecars = objects.flatMap { $0["sidecars"] as? [String] ?? [] }
        XCTAssertTrue(sidecars.contains(folders[0] + "/IMG_0001.xmp"), "\(sidecars)")
        XCTAssertTrue(sidecars.contains(folders[1] + "/IMG_1001.jpg.json"), "\(sidecars)")
    }

    func testASidecarWithoutItsPhotoIsNamedAsSuch() throws {
        let dir = try CLI.temporaryDirectory(self)
        try FileManager.default.copyItem(atPath: CLI.repo.appendingPathComponent("Fixtures/formats/sidecars/xmp/IMG_0001.xmp").path,
                                         toPath: dir.path + "/lonely.xmp")
        let run = try CLI.run(["inspect", dir.path])
        let object = try XCTUnwrap(CLI.json(run.stdout) as? [String: Any], run.stdout)
        XCTAssertEqual(object["error"] as? String, "a sidecar without its photo: read only with the photo it describes")
    }
}
