import XCTest
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
}
