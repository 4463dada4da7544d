import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

/// JPEG XL `brob` boxes whose Brotli stream is damaged: the image is still read (no
/// metadata from that box), with a warning; never a crash.
final class JXLTests: XCTestCase {
    func testCorruptBrotliStreamIsAWarning() throws {
        let url = repoRoot().appendingPathComponent("Fixtures/formats/containers/other/jpegxl-brob-boxes.jxl")
        var bytes = try Array(Data(contentsOf: url))
        // The first `brob` box: its Brotli stream starts 12 bytes after the box (header, inner type).
        let brob = Array("brob".utf8)
        let at = try XCTUnwrap((0..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual(brob) }) - 4
        for i in (at + 12)..<(at + 20) { bytes[i] = 0xFF }
        let m = try XCTUnwrap(MetadataReader.read(bytes: bytes, modificationTime: nil, options: optionsUTC))
        XCTAssertEqual(m.format.rawValue, "jxl")
        XCTAssertNil(m.coordinate, "the Exif was in the damaged box")
        XCTAssertTrue(m.warnings.contains("'brob' box at byte \(at): the Brotli stream is cut or corrupt: ignored"), "\(m.warnings)")
        // The XMP box after it is still read: its date with its offset.
        XCTAssertEqual(m.timeSource, .isoWithOffset)
    }
}
