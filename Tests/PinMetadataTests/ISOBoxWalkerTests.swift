@testable import PinMetadata
import XCTest

/// The one box walker of HEIF, CR3, QuickTime and JPEG XL, on bytes written out by hand: each
/// expected box is (type, start, header size, end) counted from the bytes below.
final class ISOBoxWalkerTests: XCTestCase {
    struct Seen: Equatable {
        var type: String
        var start: Int
        var headerSize: Int
        var end: Int
    }

    /// Walks `bytes` in memory and through a `MemorySource`; both must agree.
    func walk(_ bytes: [UInt8], from: Int = 0, to: Int? = nil, sizeZeroEnds: Bool = false, lenientUUID: Bool = false,
              limit: Int = 100, file: StaticString = #filePath, line: UInt = #line) -> (boxes: [Seen], stop: ISOBoxWalker.Problem?) {
        func run(_ next: (inout ISOBoxWalker) -> ISOBoxWalker.Step?) -> ([Seen], ISOBoxWalker.Problem?) {
            var walker = ISOBoxWalker(from: from, to: to ?? bytes.count, sizeZeroEnds: sizeZeroEnds, lenientUUID: lenientUUID, limit: limit)
            var seen: [Seen] = []
            var steps = 0
            while let step = next(&walker) {
                steps += 1
                guard steps <= 1_000 else {
                    XCTFail("the walk does not end", file: file, line: line)
                    return (seen, nil)
                }
                switch step {
                case .box(let box, _):
                    seen.append(Seen(type: box.name, start: box.start, headerSize: box.headerSize, end: box.end))
                case .stop(let problem):
                    XCTAssertNil(next(&walker), "a walk returns nothing after a problem", file: file, line: line)
                    return (seen, problem)
                }
            }
            return (seen, nil)
        }
        let r = ByteReader(bytes, context: "test")
        let inMemory = run { $0.next(in: r) }
        var source = MemorySource(bytes)
        let fromSource = run { try? $0.next(in: &source, context: "test") }
        XCTAssertEqual(inMemory.0, fromSource.0, "boxes read in memory and from a source", file: file, line: line)
        XCTAssertEqual(inMemory.1, fromSource.1, "problem read in memory and from a source", file: file, line: line)
        return inMemory
    }

    static let free8: [UInt8] = [0, 0, 0, 8, 0x66, 0x72, 0x65, 0x65]  // 'free', 8 bytes, empty

    func testPlainBoxesOneAfterTheOther() {
        // 'ftyp' of 12 bytes (payload "heic"), then an empty 'free'.
        let bytes: [UInt8] = [0, 0, 0, 12, 0x66, 0x74, 0x79, 0x70, 0x68, 0x65, 0x69, 0x63] + Self.free8
        let result = walk(bytes)
        XCTAssertEqual(result.boxes, [Seen(type: "ftyp", start: 0, headerSize: 8, end: 12),
                                      Seen(type: "free", start: 12, headerSize: 8, end: 20)])
        XCTAssertNil(result.stop)
    }

    func testSizeZeroAtTheTopLevelRunsToTheEnd() {
        // 'free' then 'mdat' with size 0 and 5 payload bytes: mdat is 8 + 5 = 13 bytes, to byte 21.
        let bytes = Self.free8 + [0, 0, 0, 0, 0x6D, 0x64, 0x61, 0x74, 1, 2, 3, 4, 5]
        let result = walk(bytes)
        XCTAssertEqual(result.boxes, [Seen(type: "free", start: 0, headerSize: 8, end: 8),
                                      Seen(type: "mdat", start: 8, headerSize: 8, end: 21)])
        XCTAssertNil(result.stop)
    }

    func testSizeZeroInsideABoxEndsTheWalk() {
        // Canon's terminator: a 32-bit zero, then bytes that are never read as a box.
        let bytes = Self.free8 + [0, 0, 0, 0] + Self.free8
        let result = walk(bytes, sizeZeroEnds: true)
        XCTAssertEqual(result.boxes, [Seen(type: "free", start: 0, headerSize: 8, end: 8)])
        XCTAssertNil(result.stop)
    }

    func testSizeOneReadsA64BitLargeSize() {
        // size 1, 'mdat', largesize 20: a 16-byte header and 4 payload bytes; then 'free'.
        let bytes: [UInt8] = [0, 0, 0, 1, 0x6D, 0x64, 0x61, 0x74, 0, 0, 0, 0, 0, 0, 0, 20, 9, 9, 9, 9] + Self.free8
        let result = walk(bytes)
        XCTAssertEqual(result.boxes, [Seen(type: "mdat", start: 0, headerSize: 16, end: 20),
                                      Seen(type: "free", start: 20, headerSize: 8, end: 28)])
        XCTAssertNil(result.stop)
    }

    func testLargeSizeSmallerThanItsHeader() {
        let bytes: [UInt8] = [0, 0, 0, 1, 0x6D, 0x64, 0x61, 0x74, 0, 0, 0, 0, 0, 0, 0, 15]
        XCTAssertEqual(walk(bytes).stop, .badHeader(at: 0, type: ISOBox.code("mdat"), .tooSmall(size: 15, header: 16)))
    }

    func testLargeSizeCutByTheEnd() {
        // Size 1 with only 4 of the 8 largesize bytes before the end: a truncated header.
        let bytes = Self.free8 + [0, 0, 0, 1, 0x6D, 0x64, 0x61, 0x74, 0, 0, 0, 0]
        let result = walk(bytes)
        XCTAssertEqual(result.boxes.count, 1)
        XCTAssertEqual(result.stop, .badHeader(at: 8, type: ISOBox.code("mdat"), .truncatedHeader))
    }

    func testFewerBytesThanAHeaderAreStray() {
        let result = walk(Self.free8 + [0, 0, 7])
        XCTAssertEqual(result.boxes.count, 1)
        XCTAssertEqual(result.stop, .strayBytes(at: 8, count: 3, allZero: false))
        XCTAssertEqual(walk(Self.free8 + [0, 0], sizeZeroEnds: true).stop, .strayBytes(at: 8, count: 2, allZero: true))
    }

    func testABoxLargerThanItsParent() {
        // A 'meta' of 40 bytes inside a parent range of 24 bytes (bytes 0..<24): past its parent.
        let bytes: [UInt8] = [0, 0, 0, 40, 0x6D, 0x65, 0x74, 0x61] + [UInt8](repeating: 0, count: 32)
        let result = walk(bytes, to: 24, sizeZeroEnds: true)
        XCTAssertEqual(result.boxes, [])
        XCTAssertEqual(result.stop, .badHeader(at: 0, type: ISOBox.code("meta"),
                                               .pastParent(ISOBox(type: ISOBox.code("meta"), start: 0, headerSize: 8, end: 40))))
    }

    func testALargeSizePastTheEndOfMemory() {
        // largesize 2^63 - 1: would overflow an offset; reported past the parent, never trapped.
        let bytes: [UInt8] = Self.free8 + [0, 0, 0, 1, 0x6D, 0x64, 0x61, 0x74, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        guard case .badHeader(8, _, .pastParent(let box))? = walk(bytes).stop else {
            return XCTFail("expected a box past its parent")
        }
        XCTAssertEqual(box.end, Int.max)
    }

    func testSizesThatCannotAdvanceStopTheWalk() {
        // Sizes 2 to 7 would make the walk stand still or go back: each stops it at once.
        for size: UInt8 in 2...7 {
            let bytes: [UInt8] = [0, 0, 0, size, 0x66, 0x72, 0x65, 0x65] + Self.free8
            let result = walk(bytes)
            XCTAssertEqual(result.boxes, [], "size \(size)")
            XCTAssertEqual(result.stop, .badHeader(at: 0, type: ISOBox.code("free"), .tooSmall(size: Int(size), header: 8)), "size \(size)")
        }
    }

    func testTheBoxLimitStopsAWalkOfEmptyBoxes() {
        let bytes = Array([[UInt8]](repeating: Self.free8, count: 10).joined())
        let result = walk(bytes, limit: 4)
        XCTAssertEqual(result.boxes.map(\.start), [0, 8, 16, 24])
        XCTAssertEqual(result.stop, .tooManyBoxes(limit: 4))
    }

    func testASharedCounterSpendsOneBudgetOverSeveralWalks() {
        let r = ByteReader(Self.free8 + Self.free8 + Self.free8, context: "test")
        var counter = 0
        var first = ISOBoxWalker(from: 0, to: 24, sizeZeroEnds: true, limit: 4)
        while let step = first.next(in: r, counting: &counter) {
            guard case .box = step else { return XCTFail("\(step)") }
        }
        XCTAssertEqual(counter, 3)
        var second = ISOBoxWalker(from: 0, to: 24, sizeZeroEnds: true, limit: 4)
        guard case .box? = second.next(in: r, counting: &counter) else { return XCTFail("the fourth box is within the limit") }
        guard case .stop(.tooManyBoxes(limit: 4))? = second.next(in: r, counting: &counter) else {
            return XCTFail("the fifth box is over the limit of both walks together")
        }
    }

    func testAUUIDBoxHasItsUserTypeInItsHeader() {
        // 'uuid' of 28 bytes: 8 header bytes, 16 user-type bytes, 4 payload bytes.
        let uuid: [UInt8] = [0, 0, 0, 28, 0x75, 0x75, 0x69, 0x64] + [UInt8](repeating: 0xAB, count: 16) + [1, 2, 3, 4]
        XCTAssertEqual(walk(uuid).boxes, [Seen(type: "uuid", start: 0, headerSize: 24, end: 28)])
        // A 'uuid' of 20 bytes has no room for its user type: an error, or with lenientUUID a plain box.
        let short: [UInt8] = [0, 0, 0, 20, 0x75, 0x75, 0x69, 0x64] + [UInt8](repeating: 0, count: 12)
        XCTAssertEqual(walk(short).stop, .badHeader(at: 0, type: ISOBox.uuid, .tooSmall(size: 20, header: 24)))
        XCTAssertEqual(walk(short, lenientUUID: true).boxes, [Seen(type: "uuid", start: 0, headerSize: 8, end: 20)])
    }

    func testAWalkOfAPayloadUsesAbsoluteOffsets() {
        // The children of a 'moov' at byte 8 (after a 'free'): from its payload (16) to its end (32).
        let moov: [UInt8] = [0, 0, 0, 24, 0x6D, 0x6F, 0x6F, 0x76] + Self.free8 + Self.free8
        let result = walk(Self.free8 + moov, from: 16, to: 32, sizeZeroEnds: true)
        XCTAssertEqual(result.boxes, [Seen(type: "free", start: 16, headerSize: 8, end: 24),
                                      Seen(type: "free", start: 24, headerSize: 8, end: 32)])
        XCTAssertNil(result.stop)
    }
}
