@testable import PinMetadata
import XCTest

final class ByteReaderTests: XCTestCase {
    let bytes: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A]

    func testIntegersReadInBothByteOrdersAtUnalignedOffsets() throws {
        let r = ByteReader(bytes, context: "test")
        XCTAssertEqual(try r.u16(at: 0, .bigEndian), 0x0102)
        XCTAssertEqual(try r.u16(at: 0, .littleEndian), 0x0201)
        XCTAssertEqual(try r.u32(at: 1, .bigEndian), 0x0203_0405)
        XCTAssertEqual(try r.u32(at: 1, .littleEndian), 0x0504_0302)
        XCTAssertEqual(try r.u64(at: 2, .bigEndian), 0x0304_0506_0708_090A)
        XCTAssertEqual(try r.u64(at: 2, .littleEndian), 0x0A09_0807_0605_0403)
    }

    func testSequentialReadsAdvance() throws {
        var r = ByteReader(bytes, context: "test")
        XCTAssertEqual(try r.readU8(), 1)
        XCTAssertEqual(try r.readU16(.bigEndian), 0x0203)
        XCTAssertEqual(try r.readU32(.littleEndian), 0x0706_0504)
        XCTAssertEqual(r.offset, 7)
        XCTAssertEqual(r.remaining, 3)
        XCTAssertThrowsError(try r.readU32(.bigEndian))
        XCTAssertEqual(r.offset, 7, "a failed read does not move")
        XCTAssertEqual(try r.readBytes(3), [8, 9, 10])
        XCTAssertTrue(r.isAtEnd)
    }

    func testOutOfBoundsNamesTheOffset() {
        let r = ByteReader(bytes, context: "TIFF")
        XCTAssertThrowsError(try r.u32(at: 8, .bigEndian)) { error in
            XCTAssertEqual(error as? MetadataError, .outOfBounds(container: "TIFF", offset: 8, count: 4, end: 10))
            XCTAssertEqual("\(error)", "truncated TIFF: need 4 bytes at byte 8 but the data ends at byte 10")
        }
        XCTAssertThrowsError(try r.u8(at: -1))
        XCTAssertThrowsError(try r.bytes(at: 0, count: -1))
        XCTAssertThrowsError(try r.u8(at: 10))
    }

    func testOverflowingOffsetsThrowInsteadOfTrapping() {
        let r = ByteReader(bytes, context: "test")
        XCTAssertThrowsError(try r.u32(at: Int.max - 1, .bigEndian))
        XCTAssertThrowsError(try r.bytes(at: 5, count: Int.max))
        XCTAssertThrowsError(try r.child(at: Int.max, count: Int.max))
        XCTAssertThrowsError(try r.add(Int.max, 1))
    }

    func testChildIsLimitedAndKeepsAbsoluteOffsets() throws {
        let r = ByteReader(bytes, baseOffset: 100, context: "file")
        XCTAssertEqual(try r.u8(at: 100), 1)
        XCTAssertThrowsError(try r.u8(at: 0))
        let child = try r.child(at: 103, count: 4, context: "box")
        XCTAssertEqual(child.offset, 103)
        XCTAssertEqual(child.count, 4)
        XCTAssertEqual(try child.u32(at: 103, .bigEndian), 0x0405_0607)
        XCTAssertThrowsError(try child.u8(at: 102))
        XCTAssertThrowsError(try child.u8(at: 107)) { error in
            XCTAssertEqual(error as? MetadataError, .outOfBounds(container: "box", offset: 107, count: 1, end: 107))
        }
        XCTAssertThrowsError(try child.child(at: 105, count: 3))
        XCTAssertEqual(child.allBytes, [4, 5, 6, 7])
        XCTAssertTrue(child.matches([5, 6], at: 104))
        XCTAssertFalse(child.matches([7, 8], at: 106), "runs past the child's end")
        child.withUnsafeBytes { XCTAssertEqual(Array($0), [4, 5, 6, 7]) }
    }

    func testSeekAndSkip() throws {
        var r = ByteReader(bytes, context: "test")
        try r.seek(to: 10)  // end is a valid position
        XCTAssertTrue(r.isAtEnd)
        XCTAssertThrowsError(try r.seek(to: 11))
        try r.seek(to: 2)
        try r.skip(3)
        XCTAssertEqual(try r.readU8(), 6)
        XCTAssertThrowsError(try r.skip(5))
    }

    func testAnEmptyReaderIsAtItsEndThrowsOnReadingAndMatchesOnlyNothing() {
        let r = ByteReader([], context: "test")
        XCTAssertTrue(r.isAtEnd)
        XCTAssertThrowsError(try r.u8(at: 0))
        XCTAssertFalse(r.matches([0], at: 0))
        XCTAssertTrue(r.matches([], at: 0))
    }

    func testFNV1a64KnownVectors() {
        // Published FNV-1a 64 test vectors (isthe.com/chongo/tech/comp/fnv).
        XCTAssertEqual(FNV1a64.hexDigest([UInt8]()), "cbf29ce484222325")
        XCTAssertEqual(FNV1a64.hexDigest(Array("a".utf8)), "af63dc4c8601ec8c")
        XCTAssertEqual(FNV1a64.hexDigest(Array("foobar".utf8)), "85944171f73967e8")
        XCTAssertEqual(FNV1a64.hexDigest(ArraySlice(Array("foobar".utf8))), "85944171f73967e8")
        // Leading zero digits are kept (value worked out with Python's integers).
        XCTAssertEqual(FNV1a64.hexDigest(Array("13900".utf8)), "00f5898e9456454c")
    }

    /// The ISO text values (QuickTime ISO 6709, XMP dates) lose only ASCII padding, at both ends.
    func testUTF8TrimmingPadding() {
        XCTAssertEqual("\0 \t2019-07-14\r\n".utf8TrimmingPadding, Array("2019-07-14".utf8))
        XCTAssertEqual(" +48.8584+002.2945/".utf8TrimmingPadding, Array("+48.8584+002.2945/".utf8))
        XCTAssertEqual("é \u{A0}".utf8TrimmingPadding, [0xC3, 0xA9, 0x20, 0xC2, 0xA0])  // NBSP is not padding
        XCTAssertEqual(" \0\r\n\t".utf8TrimmingPadding, [])
        XCTAssertEqual("".utf8TrimmingPadding, [])
    }
}
