import XCTest
@testable import PinCore
import PinFormats
@testable import PinMetadata
@testable import PinImport

/// The JSON report's pin and skipped lines, written key by key: keys in sorted order, numbers,
/// escapes and nulls as `JSONText` writes them.
final class ImportReportJSONTests: XCTestCase {
    func file(_ path: String) -> FileEntry { FileEntry(relativePath: RawPath(path), size: 1, modificationNanoseconds: 1, inode: 1, device: 1) }

    func testPinAndSkippedLines() throws {
        let pin = ImportItem(entry: file("a.jpg"),
                             metadata: PhotoMetadata(format: .jpeg, coordinate: Coordinate(latitude: 48.8566, longitude: 2.3522),
                                                     positionSource: .exif, takenAt: Date(timeIntervalSince1970: 951_782_400),
                                                     utcOffsetSeconds: 0, timeSource: .exifOffset),
                             decision: .accepted, verdict: .accepted,
                             pin: PinPlan(id: UUID(uuidString: "0F601B8A-1C2D-4E5F-8A9B-0C1D2E3F4A5B")!, country: "FR", title: "Paris, France",
                                          place: PinPlace(placeID: 2988507, place: "Paris", region: "Île-de-France", regionCode: "FR-IDF")))
        let distance = ImportItem(entry: file("d \"q\".jpg"),
                                  metadata: PhotoMetadata(format: .jpeg, coordinate: Coordinate(latitude: -10.123456789, longitude: -170.5),
                                                          takenAt: Date(timeIntervalSince1970: 5), utcOffsetSeconds: -34200, timeSource: .exifOffset),
                                  decision: .distance,
                                  verdict: .distance(kilometres: 1, radians: 0.0001, pin: "x", pinCoordinate: Coordinate(latitude: 0, longitude: 0)))
        let unreadable = ImportItem(entry: file("z.jpg"), error: "truncated: 3 bytes", decision: .unreadable)
        var report = ImportReport(root: "/lib", dryRun: false)
        report.items = try DecidedFiles([pin, distance, unreadable])
        let sink = StringSink()
        ImportReportJSON.write(report, to: sink)
        let text = sink.text
        let pins = text.range(of: "\"pins\":[")!.upperBound, problems = text.range(of: "],\"problems\"")!.lowerBound
        XCTAssertEqual(String(text[pins..<problems]),
                       "\n{\"country\":\"FR\",\"format\":\"jpeg\",\"id\":\"0f601b8a-1c2d-4e5f-8a9b-0c1d2e3f4a5b\",\"latitude\":48.8566,"
                       + "\"longitude\":2.3522,\"photo\":\"a.jpg\",\"place\":\"Paris\",\"positionSource\":\"exif\",\"region\":\"Île-de-France\","
                       + "\"regionCode\":\"FR-IDF\",\"takenAt\":\"2000-02-29T00:00:00Z\","
                       + "\"timeSource\":\"exifOffset\",\"title\":\"Paris, France\"}")
        let skipped = text.range(of: "\"skipped\":[")!.upperBound
        XCTAssertEqual(String(text[skipped...]),
                       "\n{\"detail\":\"1.00 km from pin 'x'\",\"latitude\":-10.123456789,\"longitude\":-170.5,\"photo\":\"d \\\"q\\\".jpg\","
                       + "\"reason\":\"distance\",\"takenAt\":\"1969-12-31T14:30:05-09:30\",\"timeSource\":\"exifOffset\"},"
                       + "\n{\"detail\":\"truncated: 3 bytes\",\"photo\":\"z.jpg\",\"reason\":\"unreadable\"}],\"tracks\":[]}\n")
        // The same lines through JSONText's dictionaries (the way they were written before).
        XCTAssertTrue(text.contains(JSONText.string(["photo": "z.jpg", "reason": "unreadable", "detail": "truncated: 3 bytes"])))
    }
}
