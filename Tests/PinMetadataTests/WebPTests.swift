import Foundation
@testable import PinCore
@testable import PinMetadata
import TestSupport
import XCTest

/// Builds WebP (RIFF) files chunk by chunk (docs/formats.md section 4.2).
enum TestWebP {
    static func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }

    static func chunk(_ fourCC: String, _ payload: [UInt8]) -> [UInt8] {
        Array(fourCC.utf8) + le32(UInt32(payload.count)) + payload + (payload.count & 1 == 1 ? [0] : [])
    }

    static func vp8x(flags: UInt8) -> [UInt8] { chunk("VP8X", [flags, 0, 0, 0, 7, 0, 0, 7, 0, 0]) }
    static let vp8 = chunk("VP8 ", [0x30, 0x01, 0x00, 0x9D, 0x01, 0x2A, 8, 0, 8, 0, 1, 2, 3, 4])

    /// RIFF header with the size field = chunks + 4 (or `riffSize`).
    static func file(_ chunks: [UInt8]..., riffSize: UInt32? = nil) -> [UInt8] {
        let body = Array("WEBP".utf8) + chunks.flatMap { $0 }
        return Array("RIFF".utf8) + le32(riffSize ?? UInt32(body.count)) + body
    }
}

final class WebPTests: XCTestCase {
    let mtime = epoch(1_735_646_400)
    let tiff = Samples.eiffel().bytes(.littleEndian)

    private func read(_ bytes: [UInt8]) throws -> PhotoMetadata? {
        try MetadataReader.read(bytes: bytes, modificationTime: mtime, options: optionsUTC)
    }

    private func assertEiffel(_ m: PhotoMetadata?, warnings: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws {
        try TestSupport.assertEiffel(m, format: "webp", timeSource: .exifOffset, warnings: warnings, file: file, line: line)
    }

    func testSimpleFileHasNoMetadataAndNoError() throws {
        let m = try XCTUnwrap(read(TestWebP.file(TestWebP.vp8)))
        XCTAssertNil(m.coordinate)
        XCTAssertEqual(m.warnings, [])
        XCTAssertEqual(m.timeSource, .fileModification)
        let lossless = try XCTUnwrap(read(TestWebP.file(TestWebP.chunk("VP8L", [0x2F, 7, 0xC0, 0x01, 0x00]))))
        XCTAssertNil(lossless.coordinate)
        XCTAssertEqual(lossless.warnings, [])
    }

    func testExtendedWithEXIF() throws {
        try assertEiffel(read(TestWebP.file(TestWebP.vp8x(flags: 0x08), TestWebP.vp8, TestWebP.chunk("EXIF", tiff))))
        try assertEiffel(read(TestWebP.file(TestWebP.vp8x(flags: 0x08), TestWebP.vp8,
                                            TestWebP.chunk("EXIF", ExifDecoder.exifHeader + tiff))),
                         warnings: ["EXIF chunk starts with 'Exif\\0\\0' before the TIFF header"])
    }

    func testOddChunkBeforeEXIFAndXMP() throws {
        XCTAssertEqual(TestWebP.chunk("ICCP", [1, 2, 3]).count, 12, "odd payload padded")
        try assertEiffel(read(TestWebP.file(TestWebP.vp8x(flags: 0x2C), TestWebP.chunk("ICCP", [1, 2, 3]), TestWebP.vp8,
                                            TestWebP.chunk("XMP ", Array("<x/>".utf8) + [0x20]), TestWebP.chunk("EXIF", tiff))))
    }

    func testFlagsAreNotTrusted() throws {
        let flagOnly = try XCTUnwrap(read(TestWebP.file(TestWebP.vp8x(flags: 0x08), TestWebP.vp8)))
        XCTAssertNil(flagOnly.coordinate)
        XCTAssertEqual(flagOnly.warnings, ["VP8X says EXIF but there is no EXIF chunk"])
        try assertEiffel(read(TestWebP.file(TestWebP.vp8x(flags: 0), TestWebP.vp8, TestWebP.chunk("EXIF", tiff))),
                         warnings: ["EXIF chunk present although the VP8X flag is not set"])
    }

    func testFirstEXIFWins() throws {
        var other = Samples.eiffel()
        other.gps[1] = (0x0002, .rationals([(10, 1), (0, 1), (0, 1)]))
        let bytes = TestWebP.file(TestWebP.vp8x(flags: 8), TestWebP.vp8, TestWebP.chunk("EXIF", tiff),
                                  TestWebP.chunk("EXIF", other.bytes(.bigEndian)))
        let second = 12 + 18 + TestWebP.vp8.count + 8 + tiff.count + (tiff.count & 1)
        try assertEiffel(read(bytes), warnings: ["second EXIF chunk at byte \(second) ignored"])
    }

    func testRIFFSizes() throws {
        // RIFF size smaller than the file: chunks after it are not read.
        let body = TestWebP.file(TestWebP.vp8x(flags: 8), TestWebP.vp8, TestWebP.chunk("EXIF", tiff))
        let short = TestWebP.file(TestWebP.vp8x(flags: 8), TestWebP.vp8, TestWebP.chunk("EXIF", tiff),
                                  riffSize: UInt32(4 + 18 + TestWebP.vp8.count))
        let m = try XCTUnwrap(read(short))
        XCTAssertNil(m.coordinate)
        XCTAssertEqual(m.warnings.first, "RIFF size \(4 + 18 + TestWebP.vp8.count) ends at byte \(12 + 18 + TestWebP.vp8.count) but the file has \(body.count) bytes: the rest is ignored")
        // A cut file (RIFF size larger): the EXIF chunk past the end is truncated.
        let cut = Array(body.dropLast(20))
        XCTAssertThrowsError(try read(cut)) { error in
            XCTAssertEqual("\(error)", "truncated WebP: 'EXIF' chunk at byte \(12 + 18 + TestWebP.vp8.count) ends at byte \(body.count) but file has \(cut.count) bytes")
        }
        // Missing final pad byte is fine.
        let odd = TestWebP.file(TestWebP.vp8x(flags: 8), TestWebP.vp8, TestWebP.chunk("EXIF", tiff + [0]))
        try assertEiffel(read(Array(odd.dropLast())))
    }

    func testAShortVP8XChunkOrTooManyChunksIsAWebPError() {
        XCTAssertThrowsError(try read(TestWebP.file(TestWebP.chunk("VP8X", [8, 0])))) { error in
            XCTAssertEqual("\(error)", "malformed WebP at byte 12: VP8X chunk of 2 bytes (10 expected)")
        }
        var many: [[UInt8]] = []
        for _ in 0...MetadataLimits.maxRIFFChunks { many.append(TestWebP.chunk("JUNK", [])) }
        let bytes = Array("RIFF".utf8) + TestWebP.le32(UInt32(4 + 8 * many.count)) + Array("WEBP".utf8) + many.flatMap { $0 }
        XCTAssertThrowsError(try read(bytes)) { error in
            XCTAssertEqual("\(error)", "WebP over limit: chunks (limit \(MetadataLimits.maxRIFFChunks))")
        }
    }

    func testEveryPrefixFailsCleanly() throws {
        let bytes = TestWebP.file(TestWebP.vp8x(flags: 8), TestWebP.chunk("ICCP", [1, 2, 3]), TestWebP.vp8,
                                  TestWebP.chunk("EXIF", tiff))
        for length in 0...bytes.count {
            do {
                let m = try read(Array(bytes[0..<length]))
                if let c = m?.coordinate { XCTAssertEqual(c.latitude, 48.858330555555, accuracy: 1e-9) }
            } catch is MetadataError {
            } catch {
                XCTFail("prefix \(length): \(error)")
            }
        }
    }
}
