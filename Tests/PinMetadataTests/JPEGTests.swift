import Foundation
@testable import PinCore
@testable import PinMetadata
import TestSupport
import XCTest

final class JPEGTests: XCTestCase {
    let mtime = epoch(1_735_646_400)  // 2024-12-31 12:00:00Z

    private func read(_ bytes: [UInt8]) throws -> PhotoMetadata? {
        try MetadataReader.read(bytes: bytes, modificationTime: mtime, options: optionsUTC)
    }

    private func findExif(_ bytes: [UInt8]) throws -> (ExifBlock?, [String]) {
        var source = MemorySource(bytes)
        var warnings: [String] = []
        let block = try JPEG.findExif(in: &source, warnings: &warnings)
        return (block, warnings)
    }

    private var tiff: [UInt8] { Samples.eiffel().bytes(.bigEndian) }

    private func assertEiffel(_ m: PhotoMetadata?, file: StaticString = #filePath, line: UInt = #line) throws {
        try TestSupport.assertEiffel(m, positionSource: .exif, file: file, line: line)
    }

    // MARK: A real file (ImageMagick + ExifTool)

    func testExiftoolWrittenJPEG() throws {
        let m = try XCTUnwrap(read(Samples.exiftoolJPEG))
        XCTAssertEqual(m.format.rawValue, "jpeg")
        let c = try XCTUnwrap(m.coordinate)
        XCTAssertEqual(c.latitude, -48.85833, accuracy: 1e-6)
        XCTAssertEqual(c.longitude, -2.2945, accuracy: 1e-6)
        XCTAssertEqual(m.altitude, 35)  // ExifTool stored ref 0 (see Samples) and reads 35
        XCTAssertEqual(m.positionSource, .exif)
        XCTAssertNil(m.locationIssue)
        // 2023:07:14 10:11:12.25 at −03:30 = 13:41:12.25Z
        XCTAssertEqual(try XCTUnwrap(m.takenAt).timeIntervalSince1970, 1_689_342_072.25, accuracy: 1e-6)
        XCTAssertEqual(m.utcOffsetSeconds, -12_600)
        XCTAssertEqual(m.timeSource, .exifOffset)
        XCTAssertEqual(m.warnings, [])
        // FNV-1a 64 of file bytes 30..<396 (the TIFF stream), computed independently in Python.
        XCTAssertEqual(m.metadataDigest, "ded9d2c217e6054f")
    }

    func testEveryPrefixReturnsOrThrowsNeverCrashes() throws {
        let full = Samples.exiftoolJPEG
        for length in 0...full.count {
            let prefix = Array(full.prefix(length))
            do {
                let m = try read(prefix)
                if length < 3 {
                    XCTAssertNil(m, "prefix \(length): too short to be a JPEG")
                } else {
                    XCTAssertGreaterThanOrEqual(length, Samples.exiftoolJPEGExifEnd,
                                                "prefix \(length) ends inside the headers but did not throw")
                    XCTAssertEqual(try XCTUnwrap(m?.coordinate).latitude, -48.85833, accuracy: 1e-6)
                }
            } catch let error as MetadataError {
                XCTAssertGreaterThanOrEqual(length, 3)
                XCTAssertLessThan(length, Samples.exiftoolJPEGExifEnd, "prefix \(length): \(error)")
            }
        }
    }

    func testTruncatedInsideExifNamesTheSegment() {
        let cut = Array(Samples.exiftoolJPEG.prefix(300))
        XCTAssertThrowsError(try read(cut)) { error in
            XCTAssertEqual("\(error)", "truncated JPEG: Exif segment ends at byte 396 but file has 300 bytes")
        }
    }

    /// Deterministic byte flips over the header region of a real file: each mutated file gives
    /// metadata, or a one-line `MetadataError` (what the import lists beside the file's name),
    /// or, when the flips broke the JPEG signature itself, "not media".
    func testCorruptedBytesGiveMetadataOrAOneLineError() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        var metadata = 0, errors = 0
        for round in 0..<1500 {
            var bytes = Samples.exiftoolJPEG
            for _ in 0..<(1 + Int(next() % 4)) {
                let at = Int(next() % UInt64(Samples.exiftoolJPEGExifEnd))
                bytes[at] = UInt8(truncatingIfNeeded: next())
            }
            switch readDamaged(bytes, wasKind: .jpeg, label: "round \(round)") {
            case .metadata?: metadata += 1
            case .error?: errors += 1
            default: break
            }
        }
        // Both outcomes happen: the loop really exercises the reader's checks.
        XCTAssertGreaterThan(metadata, 100)
        XCTAssertGreaterThan(errors, 10)
    }

    // MARK: Walking

    func testCOMAndDQTBeforeAPP1StillFound() throws {
        let com = TestJPEG.segment(0xFE, Array("made by hand".utf8))
        let dqt = TestJPEG.segment(0xDB, [UInt8](repeating: 1, count: 65))
        try assertEiffel(read(TestJPEG.file(com, dqt, TestJPEG.exifAPP1(tiff))))
    }

    func testXMPAndAPP0AndAPP2BeforeExif() throws {
        let xmp = TestJPEG.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>".utf8))
        let icc = TestJPEG.segment(0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1] + [UInt8](repeating: 7, count: 300))
        try assertEiffel(read(TestJPEG.file(TestJPEG.app0JFIF, xmp, icc, TestJPEG.exifAPP1(tiff))))
    }

    func testFillBytesAndStandaloneMarkers() throws {
        // FF FF FF before a marker code; RST0 and TEM have no length field.
        let bytes = TestJPEG.soi + [0xFF, 0xFF, 0xFF] + TestJPEG.app0JFIF + [0xFF, 0xD0, 0xFF, 0x01]
            + TestJPEG.exifAPP1(tiff) + TestJPEG.scan()
        try assertEiffel(read(bytes))
    }

    func testSegmentLengthZeroOrOneIsMalformed() {
        for length: UInt8 in [0, 1] {
            let bytes = TestJPEG.soi + [0xFF, 0xE0, 0x00, length] + TestJPEG.exifAPP1(tiff) + TestJPEG.scan()
            XCTAssertThrowsError(try read(bytes)) { error in
                XCTAssertEqual("\(error)", "malformed JPEG at byte 4: APP0 segment length \(length) (minimum 2)")
            }
        }
    }

    func testSegmentLengthPastEndOfFile() {
        // APP0 claims 0x1000 bytes in a file of a few dozen.
        let bytes = TestJPEG.soi + [0xFF, 0xE0, 0x10, 0x00] + [UInt8](repeating: 0, count: 20)
        XCTAssertThrowsError(try read(bytes)) { error in
            XCTAssertEqual("\(error)", "truncated JPEG: APP0 segment at byte 2 ends at byte 4100 but file has 26 bytes")
        }
    }

    func testExifPatternAfterSOSIsIgnored() throws {
        // The scan data contains a complete Exif APP1 byte pattern: never read.
        let bytes = TestJPEG.file(TestJPEG.app0JFIF, scan: [0x11] + TestJPEG.exifAPP1(tiff) + [0x22])
        let m = try XCTUnwrap(read(bytes))
        XCTAssertNil(m.coordinate)
        XCTAssertNil(m.locationIssue)
        XCTAssertNil(m.metadataDigest)
        XCTAssertEqual(m.takenAt, mtime)
        XCTAssertEqual(m.timeSource, .fileModification)
    }

    func testTruncatedInScanDataIsFine() throws {
        let bytes = TestJPEG.file(TestJPEG.exifAPP1(tiff), scan: [UInt8](repeating: 0x55, count: 1000))
        try assertEiffel(read(Array(bytes.prefix(bytes.count - 600))))
    }

    func testFirstExifWins() throws {
        var other = Samples.eiffel()
        other.gps[1] = (0x0002, .rationals([(10, 1), (0, 1), (0, 1)]))
        let bytes = TestJPEG.file(TestJPEG.exifAPP1(tiff), TestJPEG.exifAPP1(other.bytes(.littleEndian)))
        try assertEiffel(read(bytes))
    }

    func testExifIdentifierWithoutTIFFHeaderIsSkipped() throws {
        let bogus = TestJPEG.segment(0xE1, Array("Exif\0\0".utf8) + [1, 2, 3, 4, 5, 6, 7, 8])
        let (block, warnings) = try findExif(TestJPEG.file(bogus, TestJPEG.exifAPP1(tiff)))
        XCTAssertEqual(block?.tiff, tiff)
        XCTAssertEqual(warnings, ["APP1 at byte 2 has an Exif identifier but no TIFF header: skipped"])
    }

    func testKodakSingleNULVariants() throws {
        // "Exif\0" + one non-NUL byte, TIFF at 6 (what ExifTool's 6-byte skip reads).
        let a = TestJPEG.segment(0xE1, Array("Exif\0".utf8) + [0xFF] + tiff)
        let (blockA, warningsA) = try findExif(TestJPEG.file(a))
        XCTAssertEqual(blockA?.tiff, tiff)
        XCTAssertEqual(warningsA, ["Exif identifier without its second NUL (APP1 at byte 2)"])
        // "Exif\0" directly followed by the TIFF header.
        let b = TestJPEG.segment(0xE1, Array("Exif\0".utf8) + tiff)
        let (blockB, warningsB) = try findExif(TestJPEG.file(b))
        XCTAssertEqual(blockB?.tiff, tiff)
        XCTAssertEqual(warningsB, ["Exif identifier with a single NUL (APP1 at byte 2)"])
        try assertEiffel(read(TestJPEG.file(b)))
    }

    func testGarbageBeforeExifUpToFourBytes() throws {
        for garbage in 1...4 {
            let seg = TestJPEG.segment(0xE1, [UInt8](repeating: 0x20, count: garbage) + Array("Exif\0\0".utf8) + tiff)
            let (block, warnings) = try findExif(TestJPEG.file(seg))
            XCTAssertEqual(block?.tiff, tiff, "\(garbage) bytes")
            XCTAssertEqual(warnings.count, 1)
            XCTAssertTrue(warnings[0].hasPrefix("\(garbage) byte"))
        }
        let five = TestJPEG.segment(0xE1, [UInt8](repeating: 0x20, count: 5) + Array("Exif\0\0".utf8) + tiff)
        let (none, _) = try findExif(TestJPEG.file(five))
        XCTAssertNil(none)
    }

    func testBlockOffsetIsTheTIFFHeader() throws {
        let (block, _) = try findExif(TestJPEG.file(TestJPEG.app0JFIF, TestJPEG.exifAPP1(tiff)))
        // SOI 2 + APP0 (2 + 16) + APP1 marker 2 + length 2 + "Exif\0\0" 6 = 30.
        XCTAssertEqual(block?.offset, 30)
    }

    func testNotJPEGOrTooShort() throws {
        XCTAssertNil(try read([]))
        XCTAssertNil(try read([0xFF, 0xD8]))
        XCTAssertNil(try read(Array("hello world".utf8)))
        XCTAssertNil(try read([0x00, 0xD8, 0xFF, 0xE1]), "SOI missing → not a JPEG")
        XCTAssertThrowsError(try read([0xFF, 0xD8, 0xFF])) { error in
            XCTAssertEqual("\(error)", "truncated JPEG: file ends at byte 3 where a marker code was expected")
        }
        XCTAssertThrowsError(try read(TestJPEG.soi + TestJPEG.app0JFIF)) { error in
            XCTAssertEqual("\(error)", "truncated JPEG: file ends at byte 20 where a marker was expected")
        }
        XCTAssertThrowsError(try read([0xFF, 0xD8, 0xFF, 0xE1, 0x00]))
    }

    func testEOIBeforeSOSGivesNoExif() throws {
        let m = try XCTUnwrap(read(TestJPEG.soi + TestJPEG.app0JFIF + TestJPEG.eoi))
        XCTAssertNil(m.coordinate)
        XCTAssertEqual(m.timeSource, .fileModification)
    }

    /// Junk between segments is skipped up to the next marker, as ExifTool rescans (issue 14);
    /// junk to the end of the file, or more than the limit, is an error.
    func testJunkBetweenSegmentsIsSkipped() throws {
        let bytes = TestJPEG.soi + TestJPEG.app0JFIF + [0x00, 0x01] + TestJPEG.exifAPP1(tiff)
        let m = try XCTUnwrap(read(bytes))
        XCTAssertNotNil(m.coordinate)
        XCTAssertEqual(m.warnings, ["2 junk bytes at byte 20 before the next marker: skipped"])
        XCTAssertThrowsError(try read(TestJPEG.soi + TestJPEG.app0JFIF + [0x00, 0x01, 0x02])) { error in
            XCTAssertEqual("\(error)", "truncated JPEG: file ends at byte 23 where a marker was expected")
        }
        let long = TestJPEG.soi + TestJPEG.app0JFIF + [UInt8](repeating: 0, count: MetadataLimits.maxJPEGJunkBytes + 1)
            + TestJPEG.exifAPP1(tiff)
        XCTAssertThrowsError(try read(long)) { error in
            XCTAssertEqual("\(error)", "JPEG over limit: junk bytes at byte 20 before a marker (limit 65536)")
        }
    }

    func testEndlessFillBytesOrTooManySegmentsExceedTheJPEGLimits() {
        // Endless fill bytes.
        let fill = TestJPEG.soi + [UInt8](repeating: 0xFF, count: MetadataLimits.maxJPEGFillBytes + 10) + [0xE0, 0, 2]
        XCTAssertThrowsError(try read(fill)) { error in
            guard case .limitExceeded = error as? MetadataError else { return XCTFail("\(error)") }
        }
        // Thousands of empty COM segments.
        var many = TestJPEG.soi
        for _ in 0...MetadataLimits.maxJPEGSegments { many += [0xFF, 0xFE, 0x00, 0x02] }
        many += TestJPEG.exifAPP1(tiff) + TestJPEG.scan()
        XCTAssertThrowsError(try read(many)) { error in
            guard case .limitExceeded = error as? MetadataError else { return XCTFail("\(error)") }
        }
    }
}
