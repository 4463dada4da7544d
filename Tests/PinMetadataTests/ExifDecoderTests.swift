import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

final class ExifDecoderTests: XCTestCase {
    func testTheEiffelTIFFDecodesItsGPSAndDateTagsAsWrittenWithoutWarnings() {
        let v = ExifDecoder.decode(tiff: Samples.eiffel().bytes(.bigEndian))
        XCTAssertEqual(v.latitude, [r(48, 1), r(51, 1), r(2999, 100)])
        XCTAssertEqual(v.longitude, [r(2, 1), r(17, 1), r(4020, 100)])
        XCTAssertEqual(v.latitudeRef?.exifTrimmed, "N")
        XCTAssertEqual(v.longitudeRef?.exifTrimmed, "E")
        XCTAssertEqual(v.altitude, r(3305, 10))
        XCTAssertEqual(v.altitudeRef, 0)
        XCTAssertEqual(v.gpsTimeStamp, [r(8, 1), r(11, 1), r(1239, 100)])
        XCTAssertEqual(v.gpsDateStamp?.exifTrimmed, "2023:07:14")
        XCTAssertEqual(v.dateTimeOriginal?.exifTrimmed, "2023:07:14 10:11:12")
        XCTAssertEqual(v.offsetTimeOriginal?.exifTrimmed, "+02:00")
        XCTAssertEqual(v.subSecTimeOriginal?.exifTrimmed, "39")
        XCTAssertTrue(v.hasGPSDirectory)
        XCTAssertEqual(v.malformed, [:])
        XCTAssertEqual(v.warnings, [])
    }

    func testBigAndLittleEndianDecodeIdentically() {
        var t = Samples.eiffel()
        t.gps.append((0x0009, .ascii("V")))
        t.gps[1] = (0x0002, .srationals([(-33, 1), (-30, 1), (-1, 2)]))
        let be = ExifDecoder.decode(tiff: t.bytes(.bigEndian))
        let le = ExifDecoder.decode(tiff: t.bytes(.littleEndian))
        XCTAssertEqual(be, le)
        XCTAssertEqual(be.latitude, [sr(-33, 1), sr(-30, 1), sr(-1, 2)])
        XCTAssertEqual(be.gpsStatus?.exifTrimmed, "V")
        XCTAssertNotEqual(t.bytes(.bigEndian), t.bytes(.littleEndian))
    }

    func testMisplacedDateTimeOriginalInIFD0IsFound() {
        var t = TestTIFF()
        t.ifd0 = [(0x9003, .ascii("2021:05:06 07:08:09")), (0x9011, .ascii("-05:00"))]
        let v = ExifDecoder.decode(tiff: t.bytes(.littleEndian))
        XCTAssertEqual(v.dateTimeOriginal?.exifTrimmed, "2021:05:06 07:08:09")
        XCTAssertEqual(v.offsetTimeOriginal?.exifTrimmed, "-05:00")
        XCTAssertTrue(v.warnings.contains("DateTimeOriginal found in IFD0 instead of the Exif IFD"))
        // The Exif IFD's value wins when both exist.
        t.exif = [(0x9003, .ascii("2022:01:01 00:00:00"))]
        XCTAssertEqual(ExifDecoder.decode(tiff: t.bytes(.bigEndian)).dateTimeOriginal?.exifTrimmed, "2022:01:01 00:00:00")
    }

    func testGPSTagNumbersOutsideTheGPSIFDAreNotPositions() {
        // 0x0001/0x0002 in IFD0 are not GPS tags (section 1.3).
        var t = TestTIFF()
        t.ifd0 = [(0x0001, .ascii("N")), (0x0002, .rationals([(48, 1), (0, 1), (0, 1)]))]
        let v = ExifDecoder.decode(tiff: t.bytes(.bigEndian))
        XCTAssertNil(v.latitude)
        XCTAssertFalse(v.hasGPSDirectory)
        // ... unless asked to read IFD0 as the GPS IFD (CR3 CMT4, section 3.6).
        let cmt4 = ExifDecoder.decode(tiff: t.bytes(.bigEndian), gps: .firstDirectory)
        XCTAssertEqual(cmt4.latitude, [r(48, 1), r(0, 1), r(0, 1)])
    }

    func testNoDefaultTagsAreAdded() {
        // FOLLOW_SPECIFICATION unset: nothing appears that the file lacks.
        let v = ExifDecoder.decode(tiff: TestTIFF().bytes(.bigEndian))
        XCTAssertEqual(v, ExifValues(hasGPSDirectory: false))
    }

    func testMalformedFormatsAreReportedNotRead() {
        var t = TestTIFF()
        t.gps = [(0x0001, .ascii("N")), (0x0002, .short(48)), (0x0003, .ascii("E")),
                 (0x0004, .rationals([(2, 1), (17, 1)])), (0x0005, .rationals([(1, 1)]))]
        let v = ExifDecoder.decode(tiff: t.bytes(.bigEndian))
        XCTAssertNil(v.latitude)
        XCTAssertNil(v.longitude)
        XCTAssertNil(v.altitudeRef)
        XCTAssertEqual(Set(v.malformed.keys), ["GPSLatitude", "GPSLongitude", "GPSAltitudeRef"])
        XCTAssertEqual(GPSConversion.position(from: v).issue?.hasPrefix("malformed GPSLatitude"), true)
    }

    func testASCIIWithoutNULAndWithInnerNUL() {
        var t = TestTIFF()
        t.exif = [(0x9003, .rawASCII(Array("2019:07:14\u{0}10:11:12".utf8)))]  // 19 bytes, no NUL at the end
        let v = ExifDecoder.decode(tiff: t.bytes(.littleEndian))
        XCTAssertEqual(v.dateTimeOriginal, "2019:07:14\u{0}10:11:12")
        XCTAssertEqual(CaptureTime.parseDateTime(v.dateTimeOriginal!),
                       LocalDateTime(year: 2019, month: 7, day: 14, hour: 10, minute: 11, second: 12))
    }

    func testGarbageInputsDoNotCrash() {
        let inputs: [[UInt8]] = [
            [], [0x49], [0x49, 0x49, 0x2A, 0x00, 0xFF],   // 0, 1, 5 bytes
            [UInt8](repeating: 0x4D, count: 13),
            [0x4D, 0x4D, 0x00, 0x2A, 0xFF, 0xFF, 0xFF, 0xF0],  // IFD0 offset far past the end
            [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0xFF, 0xFF],  // 65535 entries claimed
            Array("not a tiff stream at all".utf8),
            (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) },
        ]
        for input in inputs {
            let v = ExifDecoder.decode(tiff: input)
            XCTAssertNil(v.latitude)
            XCTAssertNil(v.dateTimeOriginal)
        }
        // libexif's CORRUPT_DATA messages become warnings (section 2.6); a stream that does not
        // start with II/MM is one libexif logs.
        let bad = ExifDecoder.decode(tiff: Array("not a tiff stream at all".utf8))
        XCTAssertEqual(bad.warnings, ["libexif ExifData: Unknown encoding."])
    }

    func testEveryPrefixOfATIFFStreamDecodesWithoutCrashing() {
        let full = Samples.eiffel().bytes(.littleEndian)
        for length in 0...full.count {
            let v = ExifDecoder.decode(tiff: Array(full.prefix(length)))
            if let lat = v.latitude { XCTAssertEqual(lat, [r(48, 1), r(51, 1), r(2999, 100)]) }
        }
    }

    /// libexif allocates from a 64 KiB per-thread arena (CSupport) and from the heap beyond it:
    /// a block of some 60 KB (libexif reads at most 65,534 bytes: 140 text tags of 400 bytes and
    /// their directory, the Exif and GPS directories after them) overflows the arena part-way
    /// (the copied values, the entries and the directory's growing entry list), and every value
    /// still comes out intact, several times in a row on the same thread and after a small block.
    func testBlocksLargerThanTheAllocatorArenaDecodeWhole() {
        var t = Samples.eiffel()
        for k in 0..<140 {
            t.ifd0.append((UInt16(0xC100 + k), .ascii(String(repeating: Character(UnicodeScalar(65 + k % 26)!), count: 400))))
        }
        for order in [ByteOrder.bigEndian, .littleEndian, .bigEndian] {
            let small = ExifDecoder.decode(tiff: Samples.eiffel().bytes(order))
            XCTAssertEqual(small.dateTimeOriginal?.exifTrimmed, "2023:07:14 10:11:12")
            let v = ExifDecoder.decode(tiff: t.bytes(order))
            XCTAssertTrue((56_000...65_000).contains(t.bytes(order).count))
            XCTAssertEqual(v.latitude, [r(48, 1), r(51, 1), r(2999, 100)])
            XCTAssertEqual(v.longitude, [r(2, 1), r(17, 1), r(4020, 100)])
            XCTAssertEqual(v.gpsDateStamp?.exifTrimmed, "2023:07:14")
            XCTAssertEqual(v.dateTimeOriginal?.exifTrimmed, "2023:07:14 10:11:12")
            XCTAssertEqual(v.offsetTimeOriginal?.exifTrimmed, "+02:00")
            XCTAssertEqual(v.subSecTimeOriginal?.exifTrimmed, "39")
        }
    }

    func testConcurrentDecodingMatchesSerial() async {
        // 50 different streams: latitude seconds and dates vary with the index.
        let streams: [[UInt8]] = (0..<50).map { i in
            var t = Samples.eiffel()
            t.gps[1] = (0x0002, .rationals([(UInt32(i), 1), (30, 1), (UInt32(i * 100), 100)]))
            t.exif[0] = (0x9003, .ascii("2023:07:\(10 + i % 18) 10:\(10 + i % 40):12"))
            return t.bytes(i.isMultiple(of: 2) ? .bigEndian : .littleEndian)
        } + [Samples.exiftoolJPEG]
        let serial = streams.map { decodeAny($0) }
        // 8 tasks, each decoding all 51 streams (one ExifData per call, nothing shared).
        let concurrent = await withTaskGroup(of: [ExifValues].self) { group in
            for _ in 0..<8 { group.addTask { streams.map { decodeAny($0) } } }
            var results: [[ExifValues]] = []
            for await list in group { results.append(list) }
            return results
        }
        XCTAssertEqual(concurrent.count, 8)
        for list in concurrent { XCTAssertEqual(list, serial) }
        XCTAssertEqual(serial[7].latitude?.first, r(7, 1))
    }

    func testExifTrimmedRemovesNULsAndSpacesAtBothEnds() {
        // Exif ASCII padding (section 1.4), worked by hand; ASCII texts take the byte path,
        // the others the Character one, with the same rule.
        let cases: [(String, String)] = [
            ("N\0", "N"), ("  N \0\0", "N"), ("\0\0", ""), ("", ""), ("   ", ""),
            ("2023:07:14 10:11:12\0", "2023:07:14 10:11:12"), ("a b", "a b"),
            ("a\r\n \0", "a\r\n"), ("\0\r\n", "\r\n"),
            ("é \0", "é"), ("\0 Zürich\0", "Zürich"),
            // A space carrying a combining accent is one Character that is not padding.
            (" \u{301}N ", " \u{301}N"),
        ]
        for (text, trimmed) in cases {
            XCTAssertEqual(String(text.exifTrimmed), trimmed, text.debugDescription)
        }
    }
}

/// Decodes a TIFF stream, or the Exif of a JPEG.
private func decodeAny(_ bytes: [UInt8]) -> ExifValues {
    if bytes.starts(with: [0xFF, 0xD8]) {
        var source = MemorySource(bytes)
        var warnings: [String] = []
        guard let block = try? JPEG.findExif(in: &source, warnings: &warnings) else { return ExifValues() }
        return ExifDecoder.decode(tiff: block.tiff)
    }
    return ExifDecoder.decode(tiff: bytes)
}
