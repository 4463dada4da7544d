import CZlib
import Foundation
@testable import PinCore
@testable import PinMetadata
import TestSupport
import XCTest

/// Builds PNG files chunk by chunk (docs/formats.md section 4.1), independently of the reader.
enum TestPNG {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let ihdr = chunk("IHDR", [0, 0, 0, 8, 0, 0, 0, 8, 8, 2, 0, 0, 0])
    static let idat = chunk("IDAT", [UInt8](repeating: 0x5A, count: 40))
    static let iend = chunk("IEND", [])

    /// CRC-32 (ISO 3309, the PNG one), bit by bit.
    static func crc(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8], badCRC: Bool = false) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc(body) ^ (badCRC ? 1 : 0))
    }

    static func file(_ chunks: [UInt8]...) -> [UInt8] {
        signature + ihdr + chunks.flatMap { $0 } + iend
    }

    /// ImageMagick's raw profile text: "\n<name>\n<count, width 8>\n<hex, 72 digits a line>\n".
    static func rawProfileText(_ profile: [UInt8], name: String = "exif") -> [UInt8] {
        let hex = profile.map { String(format: "%02x", $0) }.joined()
        var lines: [String] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 72, limitedBy: hex.endIndex) ?? hex.endIndex
            lines.append(String(hex[i..<j]))
            i = j
        }
        let count = String(profile.count)
        return Array(("\n\(name)\n" + String(repeating: " ", count: max(0, 8 - count.count)) + count + "\n"
                      + lines.joined(separator: "\n") + "\n").utf8)
    }

    /// zlib's compress2 (the same library the reader uses, but on the writing side).
    static func deflate(_ input: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(input.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = compress2(&out, &length, input, uLong(input.count), 9)
        precondition(status == Z_OK)
        return Array(out.prefix(Int(length)))
    }
}

final class PNGTests: XCTestCase {
    let mtime = epoch(1_735_646_400)
    let tiff = Samples.eiffel().bytes(.bigEndian)
    var profile: [UInt8] { ExifDecoder.exifHeader + tiff }

    private func read(_ bytes: [UInt8]) throws -> PhotoMetadata? {
        try MetadataReader.read(bytes: bytes, modificationTime: mtime, options: optionsUTC)
    }

    private func assertEiffel(_ m: PhotoMetadata?, warnings: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws {
        try TestSupport.assertEiffel(m, format: "png", timeSource: .exifOffset, warnings: warnings, file: file, line: line)
    }

    func testEXIfBeforeAndAfterIDAT() throws {
        try assertEiffel(read(TestPNG.file(TestPNG.chunk("eXIf", tiff), TestPNG.idat)))
        try assertEiffel(read(TestPNG.file(TestPNG.idat, TestPNG.chunk("eXIf", tiff))))
    }

    func testOddExifChunksAreReadWithAWarningAndOneWithoutATIFFHeaderIsIgnored() throws {
        try assertEiffel(read(TestPNG.file(TestPNG.idat, TestPNG.chunk("exIf", tiff))),
                         warnings: ["Exif chunk named 'exIf' (before registration: 'eXIf')"])
        try assertEiffel(read(TestPNG.file(TestPNG.chunk("eXIf", profile), TestPNG.idat)),
                         warnings: ["'eXIf' chunk starts with 'Exif\\0\\0' before the TIFF header"])
        try assertEiffel(read(TestPNG.file(TestPNG.chunk("eXIf", tiff, badCRC: true), TestPNG.idat)),
                         warnings: ["'eXIf' chunk at byte 33: CRC mismatch (read anyway)"])
        let m = try XCTUnwrap(read(TestPNG.file(TestPNG.chunk("eXIf", [1, 2, 3, 4]), TestPNG.idat)))
        XCTAssertNil(m.coordinate)
        XCTAssertEqual(m.warnings, ["'eXIf' chunk has no TIFF header: ignored"])
    }

    func testFirstEXIfWins() throws {
        var other = Samples.eiffel()
        other.gps[1] = (0x0002, .rationals([(10, 1), (0, 1), (0, 1)]))
        let bytes = TestPNG.file(TestPNG.chunk("eXIf", tiff), TestPNG.idat, TestPNG.chunk("eXIf", other.bytes(.littleEndian)))
        try assertEiffel(read(bytes), warnings: ["second 'eXIf' chunk at byte \(33 + 12 + tiff.count + 52) ignored"])
    }

    func testRawProfileInTEXtZTXtITXt() throws {
        let keyword = Array("Raw profile type exif".utf8) + [0]
        let text = TestPNG.rawProfileText(profile)
        try assertEiffel(read(TestPNG.file(TestPNG.chunk("tEXt", keyword + text), TestPNG.idat)))
        try assertEiffel(read(TestPNG.file(TestPNG.chunk("zTXt", keyword + [0] + TestPNG.deflate(text)), TestPNG.idat)))
        let itxt = keyword + [1, 0] + Array("en".utf8) + [0] + [0] + TestPNG.deflate(text)
        try assertEiffel(read(TestPNG.file(TestPNG.idat, TestPNG.chunk("iTXt", itxt))))
        let plain = keyword + [0, 0] + [0] + [0] + text
        try assertEiffel(read(TestPNG.file(TestPNG.chunk("iTXt", plain), TestPNG.idat)))
        // APP1 profile, bare TIFF inside.
        let app1 = Array("Raw profile type APP1".utf8) + [0] + TestPNG.rawProfileText(tiff, name: "APP1")
        try assertEiffel(read(TestPNG.file(TestPNG.chunk("tEXt", app1), TestPNG.idat)))
        // Other keywords are not read.
        let other = Array("Comment".utf8) + [0] + text
        XCTAssertNil(try read(TestPNG.file(TestPNG.chunk("tEXt", other), TestPNG.idat))?.coordinate)
    }

    func testEXIfWinsOverRawProfile() throws {
        var other = Samples.eiffel()
        other.gps[1] = (0x0002, .rationals([(10, 1), (0, 1), (0, 1)]))
        let keyword = Array("Raw profile type exif".utf8) + [0]
        let raw = TestPNG.chunk("tEXt", keyword + TestPNG.rawProfileText(ExifDecoder.exifHeader + other.bytes(.littleEndian)))
        try assertEiffel(read(TestPNG.file(raw, TestPNG.idat, TestPNG.chunk("eXIf", tiff))))
    }

    func testBrokenRawProfilesAreWarnings() throws {
        let keyword = Array("Raw profile type exif".utf8) + [0]
        let cases: [([UInt8], String)] = [
            (TestPNG.chunk("zTXt", keyword + [0] + [0x78, 0x9C, 0xFF, 0xFF, 0xFF]), "is unreadable"),
            (TestPNG.chunk("zTXt", keyword + [0] + Array(TestPNG.deflate(TestPNG.rawProfileText(profile)).dropLast(9))), "ends early"),
            (TestPNG.chunk("zTXt", keyword + [1] + [1, 2, 3]), "zTXt compression method 1 unknown"),
            (TestPNG.chunk("tEXt", keyword + Array("\nexif\n   500\n4578".utf8)), "announces 500 bytes but holds 2"),
            (TestPNG.chunk("tEXt", keyword + Array("\nexif\n   2\n45zz".utf8)), "non-hex character"),
            (TestPNG.chunk("tEXt", keyword + Array("\nexif\nxx".utf8)), "no byte count"),
        ]
        for (chunk, warning) in cases {
            let m = try XCTUnwrap(read(TestPNG.file(chunk, TestPNG.idat)))
            XCTAssertNil(m.coordinate)
            XCTAssertTrue(m.warnings.contains { $0.contains(warning) }, "\(warning): \(m.warnings)")
        }
    }

    func testZlibBombStops() {
        let keyword = Array("Raw profile type exif".utf8) + [0]
        let bomb = TestPNG.deflate([UInt8](repeating: 0x30, count: MetadataLimits.maxInflatedText + 100_000))
        XCTAssertLessThan(bomb.count, 100_000)
        XCTAssertThrowsError(try read(TestPNG.file(TestPNG.chunk("zTXt", keyword + [0] + bomb), TestPNG.idat))) { error in
            XCTAssertTrue("\(error)".hasPrefix("PNG over limit: inflated text"), "\(error)")
        }
    }

    /// A chunk running past the end or longer than 2^31 − 1 is an error naming its byte; a PNG
    /// without IEND, or cut after its metadata, is read with a warning; an eXIf after IEND is not read.
    func testBadChunkLengthsFailButAMissingIENDOrACutAfterTheMetadataOnlyWarns() throws {
        // Length past the end of the file.
        var cut = TestPNG.file(TestPNG.idat, TestPNG.chunk("eXIf", tiff))
        cut.removeLast(30)
        XCTAssertThrowsError(try read(cut)) { error in
            XCTAssertEqual("\(error)", "truncated PNG: 'eXIf' chunk at byte 85 ends at byte \(85 + 12 + tiff.count) but file has \(cut.count) bytes")
        }
        // Length over 2^31 − 1.
        let huge = TestPNG.signature + TestPNG.ihdr + [0x80, 0, 0, 0] + Array("IDAT".utf8)
        XCTAssertThrowsError(try read(huge)) { error in
            XCTAssertEqual("\(error)", "malformed PNG at byte 33: 'IDAT' chunk length 2147483648 exceeds 2^31 − 1")
        }
        // No IEND: a warning; metadata found before a cut: a warning.
        let noIEND = TestPNG.signature + TestPNG.ihdr + TestPNG.chunk("eXIf", tiff) + TestPNG.idat
        try assertEiffel(read(noIEND), warnings: ["PNG ends at byte \(noIEND.count) without an IEND chunk"])
        let cutAfter = Array(noIEND.dropLast(10))
        try assertEiffel(read(cutAfter), warnings: ["PNG cut at byte \(cutAfter.count), inside the 'IDAT' chunk at byte \(33 + 12 + tiff.count)"])
        // eXIf after IEND is not read.
        let after = TestPNG.file(TestPNG.idat) + TestPNG.chunk("eXIf", tiff)
        XCTAssertNil(try read(after)?.coordinate)
    }

    func testMoreChunksThanTheLimitIsAnOverLimitError() {
        var bytes = TestPNG.signature + TestPNG.ihdr
        let empty = TestPNG.chunk("tIME", [])
        for _ in 0...MetadataLimits.maxPNGChunks { bytes += empty }
        XCTAssertThrowsError(try read(bytes)) { error in
            XCTAssertEqual("\(error)", "PNG over limit: chunks (limit \(MetadataLimits.maxPNGChunks))")
        }
    }

    func testAPNGWithoutMetadataHasNoPositionNoWarningAndTheFileTime() throws {
        let m = try XCTUnwrap(read(TestPNG.file(TestPNG.idat)))
        XCTAssertNil(m.coordinate)
        XCTAssertNil(m.metadataDigest)
        XCTAssertEqual(m.warnings, [])
        XCTAssertEqual(m.timeSource, .fileModification)
    }

    func testEveryPrefixFailsCleanly() throws {
        let keyword = Array("Raw profile type exif".utf8) + [0]
        let files = [
            TestPNG.file(TestPNG.idat, TestPNG.chunk("eXIf", tiff)),
            TestPNG.file(TestPNG.chunk("zTXt", keyword + [0] + TestPNG.deflate(TestPNG.rawProfileText(profile))), TestPNG.idat),
        ]
        for bytes in files {
            assertEveryPrefixReadsCleanly(bytes, latitude: 48.858330555555, read: read)
        }
    }
}
