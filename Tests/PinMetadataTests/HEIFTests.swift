import Foundation
@testable import PinCore
@testable import PinMetadata
import TestSupport
import XCTest

/// Builds HEIF files box by box (docs/formats.md section 3), independently of the reader.
struct TestHEIF {
    struct Item {
        var id: UInt32
        var type: String
        var contentType: String? = nil
        var data: [UInt8]
        /// 0: in `mdat`; 1: in `idat`.
        var method: Int = 0
        /// Split the data into this many extents.
        var extents: Int = 1
        var dataReference: UInt16 = 0
        /// Override the extent length written (e.g. 0).
        var lengthOverride: UInt64? = nil
        /// Add this to the extent offset written.
        var offsetDelta: Int64 = 0
    }

    var brands = ["heic", "mif1", "heic"]  // major, then compatibles
    var ilocVersion: UInt8 = 1
    var offsetSize = 4, lengthSize = 4, baseOffsetSize = 0, indexSize = 0
    var iinfVersion: UInt8 = 0
    var infeVersion: UInt8 = 2
    var primary: UInt32? = 1
    var items: [Item] = [Item(id: 1, type: "hvc1", data: [0x11, 0x22, 0x33, 0x44])]
    /// cdsc references: from → to.
    var cdsc: [(UInt32, UInt32)] = []
    var handler = "pict"
    /// Top-level boxes added after `meta` (before `mdat`).
    var extraTopLevel: [UInt8] = []
    /// Use a 64-bit size for `meta` and `mdat`.
    var largeSizes = false
    /// Write `mdat` with size 0 ("to the end of the file").
    var mdatSizeZero = false

    static func be(_ v: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8((v >> (8 * UInt64(size - 1 - $0))) & 0xFF) }
    }

    static func box(_ type: String, _ payload: [UInt8], large: Bool = false) -> [UInt8] {
        if large { return be(1, 4) + Array(type.utf8) + be(UInt64(16 + payload.count), 8) + payload }
        return be(UInt64(8 + payload.count), 4) + Array(type.utf8) + payload
    }

    static func fullBox(_ type: String, version: UInt8, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version, 0, 0, 0] + payload)
    }

    /// The Exif item payload of section 3.4: u32 offset, then `Exif\0\0` (when `identifier`),
    /// then the TIFF stream.
    static func exifPayload(_ tiff: [UInt8], offset: UInt32? = nil, identifier: Bool = true) -> [UInt8] {
        let prefix: [UInt8] = identifier ? Array("Exif".utf8) + [0, 0] : []
        return be(UInt64(offset ?? UInt32(prefix.count)), 4) + prefix + tiff
    }

    func bytes() -> [UInt8] {
        let ftyp = Self.box("ftyp", Array(brands[0].utf8) + [0, 0, 0, 0] + brands.dropFirst().flatMap { Array($0.utf8) })
        // Two passes: the meta box size does not depend on the offsets it holds.
        var meta = metaBox(mdatData: 0)
        let mdatHeader = largeSizes ? 16 : 8
        meta = metaBox(mdatData: ftyp.count + meta.count + extraTopLevel.count + mdatHeader)
        let mdatPayload = items.filter { $0.method == 0 }.flatMap(\.data)
        var mdat = Self.box("mdat", mdatPayload, large: largeSizes)
        if mdatSizeZero { mdat.replaceSubrange(0..<4, with: [0, 0, 0, 0]) }
        return ftyp + meta + extraTopLevel + mdat
    }

    private func metaBox(mdatData: Int) -> [UInt8] {
        let hdlr = Self.fullBox("hdlr", version: 0, [0, 0, 0, 0] + Array(handler.utf8) + [UInt8](repeating: 0, count: 12) + [0])
        var children = hdlr
        if let primary {
            children += Self.fullBox("pitm", version: primary > 0xFFFF ? 1 : 0,
                                     Self.be(UInt64(primary), primary > 0xFFFF ? 4 : 2))
        }
        var infes: [UInt8] = []
        for item in items {
            var p = Self.be(UInt64(item.id), infeVersion == 2 ? 2 : 4) + [0, 0] + Array(item.type.utf8) + Array("name".utf8) + [0]
            if let contentType = item.contentType { p += Array(contentType.utf8) + [0] }
            infes += Self.fullBox("infe", version: infeVersion, p)
        }
        children += Self.fullBox("iinf", version: iinfVersion, Self.be(UInt64(items.count), iinfVersion == 0 ? 2 : 4) + infes)
        if !cdsc.isEmpty {
            let idSize = cdsc.contains { $0.0 > 0xFFFF || $0.1 > 0xFFFF } ? 4 : 2
            let refs = cdsc.flatMap { Self.box("cdsc", Self.be(UInt64($0.0), idSize) + [0, 1] + Self.be(UInt64($0.1), idSize)) }
            children += Self.fullBox("iref", version: idSize == 2 ? 0 : 1, refs)
        }
        // iloc
        let idSize = ilocVersion == 2 ? 4 : 2
        var iloc: [UInt8] = [UInt8(offsetSize << 4 | lengthSize), UInt8(baseOffsetSize << 4 | (ilocVersion == 0 ? 0 : indexSize))]
        iloc += Self.be(UInt64(items.count), idSize)
        var mdatAt = mdatData, idatAt = 0
        var idat: [UInt8] = []
        for item in items {
            iloc += Self.be(UInt64(item.id), idSize)
            if ilocVersion >= 1 { iloc += Self.be(UInt64(item.method), 2) }
            iloc += Self.be(UInt64(item.dataReference), 2)
            let start = item.method == 0 ? mdatAt : idatAt
            // With a base offset, extents are relative to it.
            let base = baseOffsetSize > 0 ? start : 0
            iloc += Self.be(UInt64(base), baseOffsetSize)
            iloc += Self.be(UInt64(item.extents), 2)
            let piece = (item.data.count + item.extents - 1) / item.extents
            var done = 0
            for _ in 0..<item.extents {
                let length = min(piece, item.data.count - done)
                iloc += [UInt8](repeating: 0, count: ilocVersion == 0 ? 0 : indexSize)
                iloc += Self.be(UInt64(Int64(start - base + done) + item.offsetDelta), offsetSize)
                iloc += Self.be(item.lengthOverride ?? UInt64(length), lengthSize)
                done += length
            }
            if item.method == 0 { mdatAt += item.data.count } else { idatAt += item.data.count; idat += item.data }
        }
        children += Self.fullBox("iloc", version: ilocVersion, iloc)
        if !idat.isEmpty { children += Self.box("idat", idat) }
        return Self.box("meta", [0, 0, 0, 0] + children, large: largeSizes)
    }

    /// A HEIC whose item 10 is the Eiffel Exif (section 3.4 layout, offset 6).
    static func eiffel(_ order: ByteOrder = .bigEndian) -> TestHEIF {
        var h = TestHEIF()
        h.items.append(Item(id: 10, type: "Exif", data: exifPayload(Samples.eiffel().bytes(order))))
        h.cdsc = [(10, 1)]
        return h
    }
}

final class HEIFTests: XCTestCase {
    let mtime = epoch(1_735_646_400)

    private func read(_ bytes: [UInt8]) throws -> PhotoMetadata? {
        try MetadataReader.read(bytes: bytes, modificationTime: mtime, options: optionsUTC)
    }

    private func assertEiffel(_ m: PhotoMetadata?, file: StaticString = #filePath, line: UInt = #line) throws {
        try TestSupport.assertEiffel(m, format: "heif", positionSource: .exif, timeSource: .exifOffset, file: file, line: line)
    }

    private func assertError(_ bytes: [UInt8], _ text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try read(bytes), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(text), "\(error)", file: file, line: line)
        }
    }

    func testBasicHEIC() throws {
        let m = try read(TestHEIF.eiffel().bytes())
        try assertEiffel(m)
        XCTAssertEqual(m?.warnings, [])
    }

    func testHEICAVIFAndHEIXBrandsAreSniffedAsHEIFAndRead() throws {
        for brands in [["mif1", "mif1", "heic"], ["avif", "avif", "mif1", "miaf"], ["heix", "mif1"]] {
            var h = TestHEIF.eiffel()
            h.brands = brands
            let bytes = h.bytes()
            XCTAssertEqual(MetadataReader.sniff(bytes), .heif, "\(brands)")
            try assertEiffel(read(bytes))
        }
    }

    func testIlocVersionsAndFieldSizes() throws {
        for version: UInt8 in [0, 1, 2] {
            for (offsetSize, lengthSize, baseSize, indexSize) in [(4, 4, 0, 0), (8, 8, 0, 0), (0, 4, 8, 0), (4, 8, 4, 4), (8, 4, 8, 8)] {
                var h = TestHEIF.eiffel()
                h.ilocVersion = version
                h.offsetSize = offsetSize
                h.lengthSize = lengthSize
                h.baseOffsetSize = baseSize
                h.indexSize = indexSize
                try assertEiffel(read(h.bytes()))
            }
        }
    }

    func testConstructionMethod1AndTwoExtents() throws {
        var h = TestHEIF.eiffel()
        h.items[1].method = 1
        h.items[1].extents = 2
        try assertEiffel(read(h.bytes()))
        var k = TestHEIF.eiffel(.littleEndian)
        k.items[1].extents = 3
        k.baseOffsetSize = 8
        try assertEiffel(read(k.bytes()))
    }

    func testIinfAndInfeVersions() throws {
        for (iinf, infe) in [(UInt8(0), UInt8(2)), (1, 2), (0, 3), (1, 3)] {
            var h = TestHEIF.eiffel()
            h.iinfVersion = iinf
            h.infeVersion = infe
            try assertEiffel(read(h.bytes()))
        }
    }

    func testLargeItemIDs() throws {
        var h = TestHEIF.eiffel()
        h.ilocVersion = 2
        h.infeVersion = 3
        h.iinfVersion = 1
        h.items[0].id = 70_000
        h.items[1].id = 80_000
        h.primary = 70_000
        h.cdsc = [(80_000, 70_000)]
        try assertEiffel(read(h.bytes()))
    }

    func testExifOffsetVariants() throws {
        let tiff = Samples.eiffel().bytes(.bigEndian)
        // Offset 0 with the TIFF header right after the u32 (libheif's layout).
        var a = TestHEIF.eiffel()
        a.items[1].data = TestHEIF.exifPayload(tiff, offset: 0, identifier: false)
        let ma = try read(a.bytes())
        try assertEiffel(ma)
        XCTAssertEqual(ma?.warnings, [])
        // Wrong offset 2 (header at 6): the 4-byte-step scan finds it.
        var b = TestHEIF.eiffel()
        b.items[1].data = TestHEIF.exifPayload(tiff, offset: 2)
        let mb = try read(b.bytes())
        try assertEiffel(mb)
        XCTAssertEqual(mb?.warnings, ["Exif item's TIFF header offset 2 is wrong; header found at 6"])
        // Offset 0 although `Exif\0\0` is there: the byte scan finds it.
        var c = TestHEIF.eiffel()
        c.items[1].data = TestHEIF.exifPayload(tiff, offset: 0)
        let mc = try read(c.bytes())
        try assertEiffel(mc)
        XCTAssertEqual(mc?.warnings, ["Exif item's TIFF header offset 0 is wrong; header found at 6"])
        // Offset past the end of the item.
        var d = TestHEIF.eiffel()
        d.items[1].data = TestHEIF.exifPayload(tiff, offset: 0xFFFF_FFF0)
        try assertEiffel(read(d.bytes()))
        // No TIFF header at all.
        var e = TestHEIF.eiffel()
        e.items[1].data = TestHEIF.exifPayload([1, 2, 3, 4, 5, 6, 7, 8, 9], offset: 6)
        let me = try XCTUnwrap(read(e.bytes()))
        XCTAssertNil(me.coordinate)
        XCTAssertNil(me.metadataDigest)
        XCTAssertEqual(me.warnings, ["Exif item has no TIFF header"])
    }

    func testTwoExifItemsPreferTheOneDescribingThePrimary() throws {
        var other = Samples.eiffel()
        other.gps[1] = (0x0002, .rationals([(10, 1), (0, 1), (0, 1)]))
        var h = TestHEIF.eiffel()
        h.items.insert(TestHEIF.Item(id: 9, type: "Exif", data: TestHEIF.exifPayload(other.bytes(.littleEndian))), at: 1)
        h.items.append(TestHEIF.Item(id: 2, type: "hvc1", data: [1, 2]))
        h.cdsc = [(9, 2), (10, 1)]
        try assertEiffel(read(h.bytes()))
        // Without references the first Exif item wins.
        h.cdsc = []
        XCTAssertEqual(try XCTUnwrap(read(h.bytes())?.coordinate).latitude, 10, accuracy: 1e-9)
    }

    func testItemsNotReadByDesign() throws {
        var a = TestHEIF.eiffel()
        a.items[1].lengthOverride = 0
        XCTAssertEqual(try read(a.bytes())?.warnings, ["Exif item 10 has an extent of length 0 (\"to the end\"): skipped"])
        var b = TestHEIF.eiffel()
        b.items[1].method = 2
        XCTAssertEqual(try read(b.bytes())?.warnings, ["Exif item 10 uses construction method 2: skipped"])
        var c = TestHEIF.eiffel()
        c.items[1].dataReference = 1
        XCTAssertEqual(try read(c.bytes())?.warnings, ["Exif item 10 is stored in another file: skipped"])
        var d = TestHEIF.eiffel()
        d.handler = "vide"
        let md = try read(d.bytes())
        try assertEiffel(md)
        XCTAssertEqual(md?.warnings, ["'meta' handler is 'vide', not 'pict'"])
    }

    /// 64-bit sizes and an mdat of size 0 (to the end) read; a free box of size 0 hides the meta
    /// after it (a warning); sizes below the header, or past the end of the file or the parent, fail.
    func testLargeAndToTheEndBoxSizesReadAndImpossibleSizesAreErrors() throws {
        // 64-bit sizes for meta and mdat; mdat with size 0 (to the end of the file).
        var a = TestHEIF.eiffel()
        a.largeSizes = true
        try assertEiffel(read(a.bytes()))
        var b = TestHEIF.eiffel()
        b.mdatSizeZero = true
        try assertEiffel(read(b.bytes()))
        // A free box with size 0 before meta swallows the rest: no meta.
        var c = TestHEIF.eiffel()
        c.brands = ["heic"]
        let ftyp = TestHEIF.box("ftyp", Array("heic".utf8) + [0, 0, 0, 0])
        let m = try XCTUnwrap(read(ftyp + [0, 0, 0, 0] + Array("free".utf8) + c.bytes().dropFirst(ftyp.count)))
        XCTAssertNil(m.coordinate)
        XCTAssertEqual(m.warnings, ["no 'meta' box: no metadata"])
        // Size smaller than the header; size 1 with a largesize smaller than 16.
        assertError(ftyp + [0, 0, 0, 5] + Array("meta".utf8) + [0, 0, 0, 0], "'meta' box size 5 is smaller than its 8-byte header")
        assertError(ftyp + [0, 0, 0, 1] + Array("meta".utf8) + TestHEIF.be(12, 8), "'meta' box size 12 is smaller than its 16-byte header")
        // Top-level box past the end of the file.
        assertError(ftyp + [0, 0, 1, 0] + Array("meta".utf8) + [0, 0, 0, 0],
                    "truncated HEIF: 'meta' box at byte 16 ends at byte 272 but file has 28 bytes")
        // A child box past the end of meta.
        let badChild = TestHEIF.box("meta", [0, 0, 0, 0] + [0, 0, 0, 40] + Array("pitm".utf8) + [0, 0, 0, 0, 0, 1])
        assertError(ftyp + badChild, "'pitm' box (40 bytes) runs past the end of its parent")
        // A uuid box too short for its user type.
        assertError(ftyp + TestHEIF.box("meta", [0, 0, 0, 0] + TestHEIF.box("uuid", [1, 2, 3])), "smaller than its 24-byte header")
    }

    func testIlocHugeItemCountFailsFast() {
        // iloc v0: sizes 0x44 0x00, item_count 65535, and nothing else: a 20-byte box.
        let iloc = TestHEIF.fullBox("iloc", version: 0, [0x44, 0x00, 0xFF, 0xFF, 0, 0, 0, 0])
        XCTAssertEqual(iloc.count, 20)
        let infe = TestHEIF.fullBox("infe", version: 2, [0, 10, 0, 0] + Array("Exif".utf8) + [0])
        let meta = TestHEIF.box("meta", [0, 0, 0, 0] + TestHEIF.fullBox("iinf", version: 0, [0, 1] + infe) + iloc)
        let bytes = TestHEIF.box("ftyp", Array("heic".utf8) + [0, 0, 0, 0]) + meta
        let start = Date()
        assertError(bytes, "65535 'iloc' items announced, room for at most 0")
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.5)
        // Extents that cannot fit.
        let iloc2 = TestHEIF.fullBox("iloc", version: 0, [0x44, 0x00, 0x00, 0x01, 0x00, 0x0A, 0x00, 0x00, 0xFF, 0xFF])
        let meta2 = TestHEIF.box("meta", [0, 0, 0, 0] + TestHEIF.fullBox("iinf", version: 0, [0, 1] + infe) + iloc2)
        assertError(TestHEIF.box("ftyp", Array("heic".utf8) + [0, 0, 0, 0]) + meta2, "65535 extents of item 10 announced")
        // iinf entry count the box cannot hold.
        let meta3 = TestHEIF.box("meta", [0, 0, 0, 0] + TestHEIF.fullBox("iinf", version: 1, [0, 1, 0, 0]))
        assertError(TestHEIF.box("ftyp", Array("heic".utf8) + [0, 0, 0, 0]) + meta3, "65536 'iinf' entries announced")
    }

    func testIlocBadFieldSizeAndExtentPastEnd() {
        var a = TestHEIF.eiffel()
        a.offsetSize = 2
        assertError(a.bytes(), "'iloc' offset_size 2")
        var b = TestHEIF.eiffel()
        b.items[1].offsetDelta = 10_000
        assertError(b.bytes(), "truncated HEIF: Exif item 10 ends at byte")
        var c = TestHEIF.eiffel()
        c.items[1].method = 1
        c.items[1].offsetDelta = 3
        assertError(c.bytes(), "Exif item 10 extent runs past the end of 'idat'")
        var d = TestHEIF.eiffel()
        d.items[1].lengthOverride = 5 << 20
        assertError(d.bytes(), "HEIF over limit: Exif item of more than 4194304 bytes")
    }

    func testNoExifNoMetaAndTooManyBoxes() throws {
        var h = TestHEIF()
        let m = try XCTUnwrap(read(h.bytes()))
        XCTAssertNil(m.coordinate)
        XCTAssertEqual(m.warnings, [])
        XCTAssertEqual(m.timeSource, .fileModification)
        h.primary = nil
        XCTAssertNil(try read(h.bytes())?.coordinate)

        let ftyp = TestHEIF.box("ftyp", Array("heic".utf8) + [0, 0, 0, 0])
        let frees = [UInt8]((0..<(MetadataLimits.maxBoxes + 1)).flatMap { _ in TestHEIF.box("free", []) })
        assertError(ftyp + frees, "HEIF over limit: top-level boxes")
    }

    func testXMPItem() throws {
        let xmp = Array("""
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="35,39.5149N"
         exif:GPSLongitude="139,44.7260E" exif:DateTimeOriginal="2024-04-05T09:00:00+09:00"/></rdf:RDF></x:xmpmeta>
        """.utf8)
        // XMP only: position and time from it.
        var h = TestHEIF()
        h.items.append(TestHEIF.Item(id: 20, type: "mime", contentType: "application/rdf+xml", data: xmp))
        h.cdsc = [(20, 1)]
        let m = try XCTUnwrap(read(h.bytes()))
        let c = try XCTUnwrap(m.coordinate)
        XCTAssertEqual(c.latitude, 35 + 39.5149 / 60, accuracy: 1e-9)
        XCTAssertEqual(c.longitude, 139 + 44.7260 / 60, accuracy: 1e-9)
        XCTAssertEqual(m.positionSource?.rawValue, "xmp")
        XCTAssertEqual(m.takenAt, epoch(1_712_275_200))  // 2024-04-05T00:00:00Z
        XCTAssertEqual(m.timeSource, .isoWithOffset)
        // With the Exif as well: the Exif wins for both.
        var e = TestHEIF.eiffel()
        e.items.append(TestHEIF.Item(id: 20, type: "mime", contentType: "application/rdf+xml", data: xmp))
        try assertEiffel(read(e.bytes()))
        // Another mime type is not XMP.
        var o = TestHEIF()
        o.items.append(TestHEIF.Item(id: 20, type: "mime", contentType: "text/plain", data: xmp))
        XCTAssertNil(try read(o.bytes())?.coordinate)
    }

    func testFindMetadataReturnsTheXMPBytes() throws {
        var h = TestHEIF.eiffel()
        h.items.append(TestHEIF.Item(id: 20, type: "mime", contentType: "application/rdf+xml", data: Array("<x/>".utf8), method: 1))
        var source = MemorySource(h.bytes())
        var warnings: [String] = []
        let found = try HEIF.findMetadata(in: &source, warnings: &warnings)
        XCTAssertEqual(found.xmp, Array("<x/>".utf8))
        XCTAssertEqual(found.exif?.tiff, Samples.eiffel().bytes(.bigEndian))
    }

    func testCanonCR3FromCMT2AndCMT4() throws {
        var cmt2 = TIFFWriter(.littleEndian)
        cmt2.setIFD0(8)
        cmt2.ifd(cmt2.eiffelExif + [(0x927C, 7, 8, [1, 2, 3, 4, 5, 6, 7, 8])])
        var cmt4 = TIFFWriter(.littleEndian)
        cmt4.setIFD0(8)
        cmt4.ifd(cmt4.eiffelGPS)
        let canon = TestHEIF.box("uuid", HEIF.canonUUID + TestHEIF.box("CMT1", [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 0, 0])
                                 + TestHEIF.box("CMT2", cmt2.bytes) + TestHEIF.box("CMT4", cmt4.bytes))
        let moov = TestHEIF.box("moov", TestHEIF.box("mvhd", [UInt8](repeating: 0, count: 100)) + canon)
        let bytes = TestHEIF.box("ftyp", Array("crx ".utf8) + [0, 0, 0, 1] + Array("crx isom".utf8)) + moov
            + TestHEIF.box("mdat", [1, 2, 3])
        XCTAssertEqual(MetadataReader.sniff(bytes), .heif)
        try assertEiffel(read(bytes))
        // Without CMT4: time only.
        let noGPS = TestHEIF.box("ftyp", Array("crx ".utf8) + [0, 0, 0, 1]) + TestHEIF.box("moov",
            TestHEIF.box("uuid", HEIF.canonUUID + TestHEIF.box("CMT2", cmt2.bytes)))
        let m = try XCTUnwrap(read(noGPS))
        XCTAssertNil(m.coordinate)
        XCTAssertEqual(m.timeSource, .exifOffset)
    }

    func testEveryPrefixFailsCleanly() throws {
        var h = TestHEIF.eiffel()
        h.items[1].method = 1
        h.items.append(TestHEIF.Item(id: 11, type: "Exif", data: TestHEIF.exifPayload(Samples.eiffel().bytes(.littleEndian))))
        for bytes in [TestHEIF.eiffel().bytes(), h.bytes()] {
            assertEveryPrefixReadsCleanly(bytes, latitude: 48.858330555555, read: read)
        }
    }

    func testCorruptedBytesNeverCrash() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let base = TestHEIF.eiffel().bytes()
        for _ in 0..<2_000 {
            var bytes = base
            for _ in 0..<(1 + Int(next() % 4)) {
                bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next())
            }
            _ = try? read(bytes)
        }
    }
}
