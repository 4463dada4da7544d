import Foundation
@testable import PinCore
@testable import PinMetadata
import TestSupport
import XCTest

/// A TIFF writer for tests where each IFD is placed by hand (after padding, out of order,
/// pointing anywhere), written from section 1.2 independently of the reader.
struct TIFFWriter {
    typealias RawEntry = (tag: UInt16, type: UInt16, count: UInt32, value: [UInt8])
    let order: ByteOrder
    var bytes: [UInt8]

    /// Header with `magic` and IFD0 offset 0 (set it with `setIFD0`), plus `extraHeader` bytes.
    init(_ order: ByteOrder, magic: UInt16 = 42, extraHeader: [UInt8] = []) {
        self.order = order
        bytes = order == .bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        bytes += Self.u16(magic, order) + Self.u32(0, order) + extraHeader
    }

    static func u16(_ v: UInt16, _ order: ByteOrder) -> [UInt8] {
        order == .bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
    }

    static func u32(_ v: UInt32, _ order: ByteOrder) -> [UInt8] {
        let be = [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        return order == .bigEndian ? be : Array(be.reversed())
    }

    func ascii(_ tag: UInt16, _ s: String) -> RawEntry {
        let b = Array(s.utf8) + [0]
        return (tag, 2, UInt32(b.count), b)
    }

    func rationals(_ tag: UInt16, _ parts: [(UInt32, UInt32)]) -> RawEntry {
        (tag, 5, UInt32(parts.count), parts.flatMap { Self.u32($0.0, order) + Self.u32($0.1, order) })
    }

    func long(_ tag: UInt16, _ v: UInt32) -> RawEntry { (tag, 4, 1, Self.u32(v, order)) }

    /// The Eiffel GPS entries of `Samples.eiffel()`.
    var eiffelGPS: [RawEntry] {
        [ascii(0x0001, "N"), rationals(0x0002, [(48, 1), (51, 1), (2999, 100)]),
         ascii(0x0003, "E"), rationals(0x0004, [(2, 1), (17, 1), (4020, 100)])]
    }

    var eiffelExif: [RawEntry] { [ascii(0x9003, "2023:07:14 10:11:12"), ascii(0x9011, "+02:00")] }

    mutating func pad(to offset: Int) {
        if bytes.count < offset { bytes += [UInt8](repeating: 0xA5, count: offset - bytes.count) }
    }

    mutating func setIFD0(_ offset: Int) {
        bytes.replaceSubrange(4..<8, with: Self.u32(UInt32(offset), order))
    }

    /// Appends an IFD (entries as given, values longer than 4 bytes right after it); returns its
    /// offset. `pointers` are (tag, offset) LONG entries added as given.
    @discardableResult
    mutating func ifd(_ entries: [RawEntry], next: UInt32 = 0) -> Int {
        if bytes.count & 1 == 1 { bytes.append(0) }
        let at = bytes.count
        var dataAt = at + 2 + 12 * entries.count + 4
        var dir = Self.u16(UInt16(entries.count), order)
        var data: [UInt8] = []
        for e in entries {
            dir += Self.u16(e.tag, order) + Self.u16(e.type, order) + Self.u32(e.count, order)
            if e.value.count <= 4 {
                dir += e.value + [UInt8](repeating: 0, count: 4 - e.value.count)
            } else {
                dir += Self.u32(UInt32(dataAt), order)
                data += e.value
                dataAt += e.value.count
                if e.value.count & 1 == 1 { data.append(0); dataAt += 1 }
            }
        }
        dir += Self.u32(next, order)
        bytes += dir + data
        return at
    }

    /// Offset of the next IFD that `ifd(_:)` would write.
    var nextOffset: Int { bytes.count + (bytes.count & 1) }

    /// Size in bytes of an IFD with these entries, values included.
    static func size(_ entries: [RawEntry]) -> Int {
        2 + 12 * entries.count + 4 + entries.filter { $0.value.count > 4 }.map { $0.value.count + ($0.value.count & 1) }.reduce(0, +)
    }

    /// A standard file: IFD0 (pointers to Exif and GPS) at `ifd0At`, then Exif, then GPS.
    static func standard(_ order: ByteOrder, padding: Int = 0, magic: UInt16 = 42, extraHeader: [UInt8] = [],
                         exif: [RawEntry]? = nil, gps: [RawEntry]? = nil, ifd0Extra: [RawEntry] = []) -> [UInt8] {
        var w = TIFFWriter(order, magic: magic, extraHeader: extraHeader)
        let exif = exif ?? w.eiffelExif, gps = gps ?? w.eiffelGPS
        w.pad(to: 8 + extraHeader.count + padding)
        let ifd0At = w.nextOffset
        let ifd0Count = ifd0Extra.count + 2
        let ifd0Size = size(ifd0Extra) + 24
        let exifAt = ifd0At + ifd0Size + ((ifd0At + ifd0Size) & 1)
        let gpsAt = exifAt + size(exif) + ((exifAt + size(exif)) & 1)
        _ = ifd0Count
        w.ifd((ifd0Extra + [w.long(0x8769, UInt32(exifAt)), w.long(0x8825, UInt32(gpsAt))]).sorted { $0.tag < $1.tag })
        w.setIFD0(ifd0At)
        precondition(w.nextOffset == exifAt)
        w.ifd(exif)
        precondition(w.nextOffset == gpsAt)
        w.ifd(gps)
        return w.bytes
    }
}

final class TIFFTests: XCTestCase {
    let mtime = epoch(1_735_646_400)

    private func read(_ bytes: [UInt8]) throws -> PhotoMetadata? {
        try MetadataReader.read(bytes: bytes, modificationTime: mtime, options: optionsUTC)
    }

    private func block(_ bytes: [UInt8]) throws -> (ExifBlock?, [String]) {
        var source = MemorySource(bytes)
        var warnings: [String] = []
        return (try TIFF.findMetadata(in: &source, warnings: &warnings).exif, warnings)
    }

    private func assertEiffel(_ m: PhotoMetadata?, file: StaticString = #filePath, line: UInt = #line) throws {
        try TestSupport.assertEiffel(m, format: "tiff", timeSource: .exifOffset, file: file, line: line)
    }

    func testTestTIFFStreamsAreValidFiles() throws {
        for order in [ByteOrder.littleEndian, .bigEndian] {
            let m = try read(Samples.eiffel().bytes(order))
            try assertEiffel(m)
            XCTAssertEqual(m?.altitude, 330.5)
            XCTAssertEqual(m?.warnings, [])
        }
    }

    func testRepackedTIFFHasOnlyThePointersInIFD0() throws {
        var t = Samples.eiffel()
        t.ifd0.append((0x0110, .ascii("Model")))
        t.exif.append((0x927C, .rawASCII([UInt8](repeating: 7, count: 100))))  // MakerNote
        let (found, warnings) = try block(t.bytes(.bigEndian))
        let tiff = try XCTUnwrap(found).tiff
        XCTAssertEqual(warnings, [])
        XCTAssertEqual(Array(tiff.prefix(8)), [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8])
        XCTAssertEqual(tiff[8...9], [0, 2], "IFD0 holds the Exif and GPS pointers only")
        XCTAssertFalse(tiff.count > 400, "no MakerNote, no Model: \(tiff.count) bytes")
        let values = ExifDecoder.decode(tiff: tiff)
        XCTAssertEqual(values.dateTimeOriginal, "2023:07:14 10:11:12\0")
        XCTAssertEqual(values.subSecTimeOriginal, "39\0")
    }

    func testIFDsBeyond64KiB() throws {
        for order in [ByteOrder.littleEndian, .bigEndian] {
            let bytes = TIFFWriter.standard(order, padding: 70_000)
            XCTAssertNil(ExifDecoder.decode(tiff: bytes).latitude, "libexif alone stops at 0xFFFE")
            try assertEiffel(read(bytes))
        }
    }

    func testGPSIFDStraddlingTheLibexifCapStillDecodes() throws {
        // GPS IFD starts just before 65,528; its rationals lie after it.
        var w = TIFFWriter(.littleEndian)
        let exifEntries = w.eiffelExif
        w.setIFD0(8)
        let gpsAt = 65_520
        w.ifd([w.long(0x8769, 40), w.long(0x8825, UInt32(gpsAt))])
        w.pad(to: 40)
        w.ifd(exifEntries)
        w.pad(to: gpsAt)
        w.ifd(w.eiffelGPS)
        XCTAssertNil(ExifDecoder.decode(tiff: w.bytes).latitude)
        try assertEiffel(read(w.bytes))
    }

    func testOlympusAndPanasonicRawHeadersReadAsTIFF() throws {
        let plain = TIFFWriter.standard(.littleEndian)
        for magic in [Array("RO".utf8), Array("RS".utf8), [0x55, 0x00]] {
            var bytes = plain
            bytes.replaceSubrange(2..<4, with: magic)
            XCTAssertEqual(MetadataReader.sniff(bytes), .tiff)
            try assertEiffel(read(bytes))
        }
        // MMOR (big-endian ORF).
        var mm = TIFFWriter.standard(.bigEndian)
        mm.replaceSubrange(2..<4, with: Array("OR".utf8))
        try assertEiffel(read(mm))
    }

    func testCR2Header() throws {
        // IFD0 at 16 after "CR", version 2.0 and a raw-IFD offset.
        let bytes = TIFFWriter.standard(.littleEndian, extraHeader: Array("CR".utf8) + [2, 0, 0, 0, 0, 0])
        XCTAssertEqual(Array(bytes[4..<8]), [16, 0, 0, 0])
        try assertEiffel(read(bytes))
    }

    /// A big-endian BigTIFF laid out by hand (the fixtures are little-endian, from Pillow):
    /// IFD0 at 16 with an IFD8 (type 18) Exif pointer and a LONG GPS pointer; the Exif IFD holds
    /// DateTimeOriginal (20 bytes, out of line) and OffsetTimeOriginal (7 bytes: inside BigTIFF's
    /// 8-byte field); the GPS IFD the refs inline and the rationals out of line. Hand-worked:
    /// 48 + 51/60 + 30.24/3600 = 48.8584, 2 + 17/60 + 40.2/3600 = 2.2945; 10:11:12+02:00 on
    /// 2023-07-14 is 1689322272 (`date -u -d '2023-07-14 08:11:12' +%s`).
    func testBigEndianBigTIFFByHand() throws {
        func be(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64(n - 1 - $0))) } }
        func entry(_ tag: UInt16, _ type: UInt16, _ count: UInt64, _ field: [UInt8]) -> [UInt8] {
            be(UInt64(tag), 2) + be(UInt64(type), 2) + be(count, 8) + field + [UInt8](repeating: 0, count: 8 - field.count)
        }
        func ifdSize(_ n: Int) -> Int { 8 + 20 * n + 8 }
        let exifAt = 16 + ifdSize(2), gpsAt = exifAt + ifdSize(2), dataAt = gpsAt + ifdSize(4)
        let date = Array("2023:07:14 10:11:12".utf8) + [0]
        let lat = [48, 1, 51, 1, 3024, 100].flatMap { be(UInt64($0), 4) }
        let lon = [2, 1, 17, 1, 402, 10].flatMap { be(UInt64($0), 4) }
        var bytes: [UInt8] = [0x4D, 0x4D, 0x00, 0x2B] + be(8, 2) + be(0, 2) + be(16, 8)
        bytes += be(2, 8) + entry(0x8769, 18, 1, be(UInt64(exifAt), 8)) + entry(0x8825, 4, 1, be(UInt64(gpsAt), 4)) + be(0, 8)
        bytes += be(2, 8) + entry(0x9003, 2, 20, be(UInt64(dataAt), 8))
            + entry(0x9011, 2, 7, Array("+02:00".utf8) + [0]) + be(0, 8)
        bytes += be(4, 8) + entry(1, 2, 2, [0x4E, 0]) + entry(2, 5, 3, be(UInt64(dataAt + 20), 8))
            + entry(3, 2, 2, [0x45, 0]) + entry(4, 5, 3, be(UInt64(dataAt + 44), 8)) + be(0, 8)
        XCTAssertEqual(bytes.count, dataAt)
        bytes += date + lat + lon
        let m = try XCTUnwrap(try read(bytes))
        XCTAssertEqual(m.format.rawValue, "tiff")
        XCTAssertEqual(m.warnings, [])
        let c = try XCTUnwrap(m.coordinate)
        XCTAssertEqual(c.latitude, 48.8584, accuracy: 1e-9)
        XCTAssertEqual(c.longitude, 2.2945, accuracy: 1e-9)
        XCTAssertEqual(m.takenAt, epoch(1_689_322_272))
        XCTAssertEqual(m.utcOffsetSeconds, 7_200)
        XCTAssertEqual(m.timeSource, .exifOffset)
        assertEveryPrefixReadsCleanly(bytes, latitude: 48.8584) { try self.read($0) }
    }

    func testBigTIFFHeaderErrors() {
        XCTAssertThrowsError(try read([0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0, 16, 0])) { error in
            XCTAssertEqual("\(error)", "truncated TIFF: file ends at byte 10 where a 16-byte BigTIFF header was expected")
        }
        XCTAssertThrowsError(try read([0x49, 0x49, 0x2B, 0x00, 4, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0])) { error in
            XCTAssertEqual("\(error)", "malformed TIFF at byte 4: BigTIFF offset size is 4, not 8")
        }
        XCTAssertThrowsError(try read([0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0x80])) { error in
            XCTAssertEqual("\(error)", "malformed TIFF at byte 8: BigTIFF IFD0 offset is beyond any file")
        }
        XCTAssertThrowsError(try read([0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0])) { error in
            XCTAssertEqual("\(error)", "malformed TIFF at byte 8: IFD0 offset 8 overlaps the header")
        }
        // An entry count of 2^40: over the limit, not an allocation.
        XCTAssertThrowsError(try read([0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0,
                                       0, 0, 0, 0, 0, 1, 0, 0])) { error in
            XCTAssertEqual("\(error)", "TIFF over limit: 1099511627776 entries in IFD0 at byte 16 (limit 1024)")
        }
    }

    func testACutHeaderOrAnIFD0OffsetInsideTheHeaderOrPastTheEndFails() {
        XCTAssertThrowsError(try read([0x49, 0x49, 0x2A, 0x00, 8])) { error in
            XCTAssertEqual("\(error)", "truncated TIFF: file ends at byte 5 where an 8-byte TIFF header was expected")
        }
        XCTAssertThrowsError(try read([0x49, 0x49, 0x2A, 0x00, 4, 0, 0, 0, 0, 0])) { error in
            XCTAssertEqual("\(error)", "malformed TIFF at byte 4: IFD0 offset 4 overlaps the header")
        }
        XCTAssertThrowsError(try read([0x49, 0x49, 0x2A, 0x00, 0x00, 1, 0, 0])) { error in
            XCTAssertEqual("\(error)", "truncated TIFF: IFD0 at byte 256 ends at byte 258 but file has 8 bytes")
        }
    }

    func testIFDEntryCountLimitAndTruncatedIFD() {
        var w = TIFFWriter(.littleEndian)
        w.setIFD0(8)
        w.bytes += [0xFF, 0xFF] + [UInt8](repeating: 0, count: 100)
        XCTAssertThrowsError(try read(w.bytes)) { error in
            XCTAssertEqual("\(error)", "TIFF over limit: 65535 entries in IFD0 at byte 8 (limit 1024)")
        }
        var v = TIFFWriter(.littleEndian)
        v.setIFD0(8)
        v.bytes += [10, 0] + [UInt8](repeating: 0, count: 30)
        XCTAssertThrowsError(try read(v.bytes)) { error in
            XCTAssertEqual("\(error)", "truncated TIFF: IFD0 at byte 8 ends at byte 130 but file has 40 bytes")
        }
    }

    func testSubIFDPastEndOfFileIsTruncated() {
        var w = TIFFWriter(.littleEndian)
        w.setIFD0(8)
        w.ifd([w.long(0x8825, 5_000)])
        XCTAssertThrowsError(try read(w.bytes)) { error in
            XCTAssertEqual("\(error)", "truncated TIFF: GPS IFD at byte 5000 ends at byte 5002 but file has 26 bytes")
        }
    }

    func testAGPSPointerBackAtIFD0OrAtTheExifIFDIsIgnoredWithAWarning() throws {
        // GPS pointer back at IFD0, Exif pointer fine.
        var w = TIFFWriter(.littleEndian)
        w.setIFD0(8)
        w.ifd([w.long(0x8769, 40), w.long(0x8825, 8)])
        w.pad(to: 40)
        w.ifd(w.eiffelExif + [w.long(0x8769, 40), w.long(0x8825, 40), w.long(0xA005, 8)])  // self-loops inside
        let m = try XCTUnwrap(read(w.bytes))
        XCTAssertNil(m.coordinate)
        XCTAssertEqual(m.timeSource, .exifOffset)
        XCTAssertTrue(m.warnings.contains("GPS IFD pointer points back at IFD0 (a loop): ignored"), "\(m.warnings)")

        // Exif and GPS pointers at the same IFD.
        var v = TIFFWriter(.littleEndian)
        v.setIFD0(8)
        v.ifd([v.long(0x8769, 40), v.long(0x8825, 40)])
        v.pad(to: 40)
        v.ifd(v.eiffelExif)
        let n = try XCTUnwrap(read(v.bytes))
        XCTAssertTrue(n.warnings.contains("Exif and GPS IFD pointers are the same offset 40: GPS ignored"), "\(n.warnings)")
        XCTAssertEqual(n.timeSource, .exifOffset)
    }

    func testPointerIntoHeaderOrWrongType() throws {
        var w = TIFFWriter(.littleEndian)
        w.setIFD0(8)
        w.ifd([w.long(0x8769, 4), (0x8825, 2, 4, Array("abc\0".utf8))])
        let m = try XCTUnwrap(read(w.bytes))
        XCTAssertNil(m.coordinate)
        XCTAssertTrue(m.warnings.contains("Exif IFD pointer 4 points into the TIFF header: ignored"), "\(m.warnings)")
        XCTAssertTrue(m.warnings.contains("GPS IFD pointer has type 2 × 4: ignored"), "\(m.warnings)")
    }

    func testValuePastEndOfFileDropsTheEntry() throws {
        var w = TIFFWriter(.littleEndian)
        w.setIFD0(8)
        w.ifd([w.long(0x8825, 26)])
        var gps = w.eiffelGPS
        gps[1] = (0x0002, 5, 3, [])  // placeholder: value offset patched below
        w.ifd([gps[0], (0x0002, 5, 3, TIFFWriter.u32(90_000, .littleEndian)), gps[2], gps[3]])
        let m = try XCTUnwrap(read(w.bytes))
        XCTAssertNil(m.coordinate)
        XCTAssertTrue(m.warnings.contains { $0.contains("tag 0x2 in GPS IFD: value at byte 90000 runs past the end") }, "\(m.warnings)")
    }

    func testBigValuesAreNotCopied() throws {
        var exif = TIFFWriter(.littleEndian).eiffelExif
        exif.append((0x9286, 7, 60_000, [UInt8](repeating: 0x20, count: 60_000)))  // UserComment
        let bytes = TIFFWriter.standard(.littleEndian, exif: exif)
        let (found, warnings) = try block(bytes)
        XCTAssertLessThan(try XCTUnwrap(found).tiff.count, 1_000)
        XCTAssertEqual(warnings, ["tag 0x9286 in Exif IFD: value of 60000 bytes not copied"])
        try assertEiffel(read(bytes))
    }

    func testAssembleStaysUnderTheLibexifCap() {
        // 20 values of 4 KiB in the Exif IFD: more than 65,000 bytes; the largest are dropped.
        let big = (0..<20).map { i in
            TIFF.Entry(tag: UInt16(0xA000 + i), type: 7, count: 4_000, value: [UInt8](repeating: UInt8(i), count: 4_000))
        }
        let gps = [TIFF.Entry(tag: 1, type: 2, count: 2, value: Array("N\0".utf8))]
        var warnings: [String] = []
        let tiff = TIFF.assemble(order: .littleEndian, ifd0: [], exif: big, gps: gps, warnings: &warnings)
        XCTAssertLessThanOrEqual(tiff.count, MetadataLimits.maxRepackedTIFF)
        XCTAssertFalse(warnings.isEmpty)
        XCTAssertTrue(ExifDecoder.decode(tiff: tiff).hasGPSDirectory)
    }

    func testMisplacedDateInIFD0AndNoPointers() throws {
        var w = TIFFWriter(.bigEndian)
        w.setIFD0(8)
        w.ifd([w.ascii(0x0110, "Cam"), w.ascii(0x9003, "2023:07:14 10:11:12")])
        let m = try XCTUnwrap(read(w.bytes))
        XCTAssertEqual(m.takenAt, epoch(1_689_329_472))  // read as UTC
        XCTAssertTrue(m.warnings.contains("DateTimeOriginal found in IFD0 instead of the Exif IFD"), "\(m.warnings)")

        var plain = TIFFWriter(.littleEndian)
        plain.setIFD0(8)
        plain.ifd([plain.ascii(0x0110, "Cam")])
        let (found, _) = try block(plain.bytes)
        XCTAssertNil(found)
        let n = try XCTUnwrap(read(plain.bytes))
        XCTAssertNil(n.metadataDigest)
        XCTAssertEqual(n.timeSource, .fileModification)
    }

    func testEveryPrefixOfACraftedFile() throws {
        let bytes = TIFFWriter.standard(.bigEndian, padding: 300)
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

    func testReadsOnlyTheFirstWindowAndTheIFDs() throws {
        let bytes = TIFFWriter.standard(.littleEndian, padding: 3_000_000)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pins-tiff-\(UUID().uuidString).tif")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let (m, read) = try withOpenFile(RawPath(url.path)) { fd, size in
            var source = try FileSource(fd: fd, size: size)
            let m = try MetadataReader.read(source: &source, modificationTime: mtime, options: optionsUTC)
            return (m, source.bytesRead)
        }
        try assertEiffel(m)
        XCTAssertLessThanOrEqual(read, MetadataLimits.firstReadSize + 2 * MetadataLimits.laterReadSize)
    }
}
