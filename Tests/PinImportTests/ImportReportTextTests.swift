import XCTest
@testable import PinCore
@testable import PinMetadata
@testable import PinImport

/// The text report's table layout: columns counted in Characters, as they always were.
final class ImportReportTextTests: XCTestCase {
    func testColumnsCountCharactersNotBytes() {
        XCTAssertEqual(ImportReportText.columns(""), 0)
        XCTAssertEqual(ImportReportText.columns("2023-07-14T10:11:12.390+02:00"), 29)
        XCTAssertEqual(ImportReportText.columns("a\r\nb"), 3, "CR LF is one Character")
        XCTAssertEqual(ImportReportText.columns("a\rb\n"), 4)
        XCTAssertEqual(ImportReportText.columns("caf\u{E9}"), 4, "é precomposed: 2 bytes, 1 Character")
        XCTAssertEqual(ImportReportText.columns("cafe\u{301}"), 4, "e + combining acute: 1 Character")
        XCTAssertEqual(ImportReportText.columns("日本"), 2)
    }

    func testTableAlignsOnCharacters() {
        let sink = StringSink()
        ImportReportText.writeTable(["A", "B", "C"], [["é", "x", "last"], ["ab", "yyy", "é"], ["a\r\nb", "z", ""]], to: sink)
        // Column widths 3 ("a\r\nb" is 3 Characters) and 3, two spaces between columns.
        XCTAssertEqual(sink.text, "  A    B    C\n" + "  é    x    last\n" + "  ab   yyy  é\n" + "  a\r\nb  z    \n")
    }

    func accepted(_ path: String, _ lat: Double, _ lon: Double, at seconds: Double, offset: Int, country: String?,
                  place: PinPlace = .none) -> ImportItem {
        let m = PhotoMetadata(format: .jpeg, coordinate: Coordinate(latitude: lat, longitude: lon),
                              takenAt: Date(timeIntervalSince1970: seconds), utcOffsetSeconds: offset, timeSource: .exifOffset)
        return ImportItem(entry: FileEntry(relativePath: RawPath(path), size: 1, modificationNanoseconds: 1, inode: 1, device: 1),
                          metadata: m, decision: .accepted, verdict: .accepted,
                          pin: PinPlan(id: UUID(), country: country, title: "t", place: place))
    }

    func testThePinsTableIsLaidOutFromWidthsKeptAsTheRecordsWereWritten() throws {
        let skipped = ImportItem(entry: FileEntry(relativePath: RawPath("d-much-longer-name.jpg"), size: 1, modificationNanoseconds: 1,
                                                  inode: 1, device: 1),
                                 metadata: PhotoMetadata(format: .jpeg, coordinate: Coordinate(latitude: -10.123456789, longitude: -170.5),
                                                         takenAt: Date(timeIntervalSince1970: 5), utcOffsetSeconds: -34200, timeSource: .exifOffset),
                                 decision: .distance,
                                 verdict: .distance(kilometres: 1, radians: 0.0001, pin: "x", pinCoordinate: Coordinate(latitude: 0, longitude: 0)))
        let files = try DecidedFiles([
            accepted("a.jpg", 48.8566, 2.3522, at: 951_782_400, offset: 0, country: "FR", place: PinPlace(place: "Paris", region: "Île-de-France")),
            skipped,
            accepted("b.jpg", -33.8688, 151.2093, at: 951_782_400.39, offset: 7200, country: "FR", place: PinPlace(region: "Normandie")),
            accepted("c.jpg", 10, -150, at: 0, offset: 0, country: nil),
        ])
        // Taken at: 20, 29 and 20 characters; CC "FR" or "-"; place "Paris", the region
        // "Normandie" where there is no place, or "-"; latitudes 9, 10, 9; longitudes 8, 10, 11.
        // The skipped photo counts for none of them.
        XCTAssertEqual(files.tally.pinTableWidths, [29, 2, 9, 10, 11])
        XCTAssertEqual(files.tally.pinCountries, ["FR": 2])
        XCTAssertEqual(files.tally.pinsAtSea, 1)
        var report = ImportReport(root: "/lib", dryRun: true)
        report.items = files
        let sink = StringSink()
        ImportReportText.writePins(report, to: sink)
        func pad(_ n: Int) -> String { String(repeating: " ", count: n) }
        XCTAssertEqual(sink.text, "\nPins that would be created:\n"
            + "  TAKEN AT" + pad(23) + "CC" + pad(2) + "PLACE" + pad(6) + "LATITUDE" + pad(4) + "LONGITUDE" + pad(4) + "PHOTO\n"
            + "  2000-02-29T00:00:00Z" + pad(11) + "FR" + pad(2) + "Paris" + pad(6) + "48.856600" + pad(3) + "2.352200" + pad(5) + "a.jpg\n"
            + "  2000-02-29T02:00:00.390+02:00" + pad(2) + "FR" + pad(2) + "Normandie" + pad(2) + "-33.868800" + pad(2) + "151.209300" + pad(3) + "b.jpg\n"
            + "  1970-01-01T00:00:00Z" + pad(11) + "-" + pad(3) + "-" + pad(10) + "10.000000" + pad(3) + "-150.000000" + pad(2) + "c.jpg\n")
    }
}
