import Foundation
import Glibc
@testable import PinCore
@testable import PinMetadata
import XCTest

/// Builds QuickTime/ISOBMFF boxes for tests (section 3.1), independent of the reader.
enum TestBox {
    static func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func u64(_ v: UInt64) -> [UInt8] { u32(UInt32(v >> 32)) + u32(UInt32(v & 0xFFFF_FFFF)) }
    static func type(_ t: String) -> [UInt8] {
        t.hasPrefix("©") ? [0xA9] + Array(t.dropFirst().utf8) : Array(t.utf8)
    }

    /// size (32-bit) + type + payload.
    static func box(_ t: String, _ payload: [UInt8]) -> [UInt8] {
        u32(UInt32(8 + payload.count)) + type(t) + payload
    }
    static func box(_ t: String, _ children: [[UInt8]]) -> [UInt8] { box(t, children.flatMap { $0 }) }
    /// size 1 + type + 64-bit size + payload.
    static func box64(_ t: String, _ payload: [UInt8], claimed: UInt64? = nil) -> [UInt8] {
        u32(1) + type(t) + u64(claimed ?? UInt64(16 + payload.count)) + payload
    }

    static func ftyp(_ brand: String = "qt  ") -> [UInt8] { box("ftyp", Array(brand.utf8) + [0, 0, 2, 0] + Array(brand.utf8)) }

    /// mvhd version 0 (100-byte payload) or 1 (112) with a creation time.
    static func mvhd(_ creation: UInt64, version: UInt8 = 0) -> [UInt8] {
        var p: [UInt8] = [version, 0, 0, 0]
        if version == 1 {
            p += u64(creation) + u64(creation) + u32(1000) + u64(200)
        } else {
            p += u32(UInt32(creation)) + u32(UInt32(creation)) + u32(1000) + u32(200)
        }
        p += u32(0x0001_0000) + u16(0x0100) + [UInt8](repeating: 0, count: 10)
        p += [UInt8](repeating: 0, count: 36) + [UInt8](repeating: 0, count: 24) + u32(2)
        return box("mvhd", p)
    }

    /// udta text atom: u16 length, u16 language, text.
    static func xyz(_ text: String, length: Int? = nil) -> [UInt8] {
        let bytes = Array(text.utf8)
        return box("©xyz", u16(UInt16(length ?? bytes.count)) + u16(0x15C7) + bytes)
    }

    static func data(_ value: String, type: UInt32 = 1) -> [UInt8] {
        box("data", u32(type) + u32(0) + Array(value.utf8))
    }

    static func hdlr(_ handler: String) -> [UInt8] {
        box("hdlr", [0, 0, 0, 0] + u32(0) + Array(handler.utf8) + [UInt8](repeating: 0, count: 13))
    }

    /// keys entries (1-based order as given).
    static func keys(_ names: [String]) -> [UInt8] {
        var p: [UInt8] = [0, 0, 0, 0] + u32(UInt32(names.count))
        for name in names { p += u32(UInt32(8 + name.utf8.count)) + Array("mdta".utf8) + Array(name.utf8) }
        return box("keys", p)
    }

    /// ilst with items (index → value), in the order given.
    static func ilst(_ items: [(UInt32, [UInt8])]) -> [UInt8] {
        box("ilst", items.flatMap { u32(UInt32(8 + $0.1.count)) + u32($0.0) + $0.1 })
    }

    /// An mdta meta; `version` adds the ISO full-box field.
    static func mdtaMeta(keys names: [String], items: [(UInt32, [UInt8])], version: Bool) -> [UInt8] {
        let body = hdlr("mdta") + keys(names) + ilst(items)
        return box("meta", (version ? [0, 0, 0, 0] : []) + body)
    }

    static let loc = "com.apple.quicktime.location.ISO6709"
    static let date = "com.apple.quicktime.creationdate"

    static func movie(_ moovChildren: [[UInt8]], brand: String = "qt  ", moovFirst: Bool = true,
                      mdat: [UInt8] = [0x12, 0x34, 0x56, 0x78]) -> [UInt8] {
        let moov = box("moov", moovChildren)
        let media = box("mdat", mdat)
        return ftyp(brand) + (moovFirst ? moov + media : media + moov)
    }
}

final class QuickTimeTests: XCTestCase {
    typealias B = TestBox

    /// Throws the reader's error as is (XCTUnwrap would record it as a failure).
    private func read(_ bytes: [UInt8], zone: TimeZone = utc) throws -> PhotoMetadata {
        guard let m = try MetadataReader.read(bytes: bytes, modificationTime: nil,
                                              options: MetadataOptions(defaultTimeZone: zone)) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return m
    }

    private var tempDir: URL!

    override func setUpWithError() throws {
        tempDir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-qt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tempDir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: tempDir)
    }

    // MARK: Layout

    func testMoovBeforeAndAfterMdat() throws {
        let children = [B.mvhd(0), B.box("udta", [B.xyz("+48.8577+002.2950/")])]
        for first in [true, false] {
            let m = try read(B.movie(children, moovFirst: first))
            XCTAssertEqual(m.format.rawValue, "quicktime")
            XCTAssertEqual(m.coordinate, Coordinate(latitude: 48.8577, longitude: 2.295))
            XCTAssertEqual(m.positionSource, .quickTime)
            XCTAssertEqual(m.timeSource, .none)
        }
    }

    func testSixtyFourBitMdatAndSizeZeroAtTheEnd() throws {
        let moov = B.box("moov", [B.mvhd(0), B.box("udta", [B.xyz("+10.0+020.0/")])])
        // 64-bit mdat before moov.
        let a = B.ftyp() + B.box64("mdat", [1, 2, 3, 4]) + moov
        XCTAssertEqual(try read(a).coordinate, Coordinate(latitude: 10, longitude: 20))
        // Size 0 on the last box (mdat) after moov; size 0 on moov itself at the end.
        let b = B.ftyp() + moov + B.u32(0) + Array("mdat".utf8) + [9, 9, 9]
        XCTAssertEqual(try read(b).coordinate, Coordinate(latitude: 10, longitude: 20))
        var zeroMoov = moov
        zeroMoov.replaceSubrange(0..<4, with: B.u32(0))
        let c = B.ftyp() + B.box("mdat", [1]) + zeroMoov
        XCTAssertEqual(try read(c).coordinate, Coordinate(latitude: 10, longitude: 20))
    }

    func testHugeClaimedSizeInAShortFileFailsFastWithoutAllocating() throws {
        // mdat claims 5 GiB with a 64-bit size in a file of 60 bytes: the header arithmetic
        // says "past the end", nothing is allocated or read.
        let bytes = B.ftyp() + B.box64("mdat", [1, 2, 3], claimed: 5 << 30)
        XCTAssertThrowsError(try read(bytes)) { error in
            guard case MetadataError.truncated(_, _, let endsAt, let fileSize) = error else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(endsAt, 20 + (5 << 30))
            XCTAssertEqual(fileSize, bytes.count)
        }
        // The same through a file: the reads stay within the first read.
        let path = try write(bytes, "huge.mp4")
        XCTAssertThrowsError(try readCounting(path))
        // A largesize that would overflow Int arithmetic.
        let overflow = B.ftyp() + B.box64("mdat", [], claimed: UInt64.max)
        XCTAssertThrowsError(try read(overflow)) { XCTAssertTrue($0 is MetadataError) }
        // moov itself claiming more than the file.
        var moov = B.box("moov", [B.mvhd(0)])
        moov.replaceSubrange(0..<4, with: B.u32(0x7FFF_FFF0))
        XCTAssertThrowsError(try read(B.ftyp() + moov)) { error in
            guard case MetadataError.truncated = error else { return XCTFail("\(error)") }
        }
        // mdat past the end *after* moov: the file was cut in its media data; metadata kept.
        let cut = B.ftyp() + B.box("moov", [B.box("udta", [B.xyz("+10.0+020.0/")])]) + B.box64("mdat", [1], claimed: 1 << 33)
        let m = try read(cut)
        XCTAssertEqual(m.coordinate, Coordinate(latitude: 10, longitude: 20))
        XCTAssertTrue(m.warnings.contains { $0.contains("file truncated") }, "\(m.warnings)")
    }

    func testSizesSmallerThanTheHeader() throws {
        for size: UInt32 in [2, 4, 7] {
            let bad = B.ftyp() + B.u32(size) + Array("free".utf8) + B.box("moov", [B.mvhd(0)])
            XCTAssertThrowsError(try read(bad)) { error in
                guard case MetadataError.malformed = error else { return XCTFail("\(error)") }
            }
        }
        // 64-bit size below 16.
        XCTAssertThrowsError(try read(B.ftyp() + B.box64("free", [], claimed: 8)))
        // Inside moov: the walk of moov stops with a warning, what came before is kept.
        let inner = B.box("moov", [B.box("udta", [B.xyz("+10.0+020.0/")]), B.u32(3) + Array("free".utf8)])
        let m = try read(B.ftyp() + inner)
        XCTAssertEqual(m.coordinate, Coordinate(latitude: 10, longitude: 20))
        XCTAssertTrue(m.warnings.contains { $0.contains("smaller than its header") }, "\(m.warnings)")
    }

    func testChildPastItsParent() throws {
        // udta claims 4 bytes more than moov holds.
        var udta = B.box("udta", [B.xyz("+10.0+020.0/")])
        udta.replaceSubrange(0..<4, with: B.u32(UInt32(udta.count + 4)))
        let m = try read(B.ftyp() + B.box("moov", [B.mvhd(3_800_000_000), udta]) + B.box("mdat", [1, 2, 3, 4, 5, 6, 7, 8]))
        XCTAssertNil(m.coordinate)
        XCTAssertTrue(m.warnings.contains { $0.contains("past its parent 'moov'") }, "\(m.warnings)")
        XCTAssertEqual(m.timeSource, .containerUTC, "mvhd before the bad box is kept")
        // ©xyz past its udta.
        var xyz = B.xyz("+10.0+020.0/")
        xyz.replaceSubrange(0..<4, with: B.u32(200))
        let n = try read(B.movie([B.box("udta", [xyz])]))
        XCTAssertNil(n.coordinate)
        XCTAssertTrue(n.warnings.contains { $0.contains("past its parent 'udta'") }, "\(n.warnings)")
    }

    func testDeepNestingStops() throws {
        var inner = B.box("udta", [B.xyz("+10.0+020.0/")])
        for _ in 0..<40 { inner = B.box("udta", inner) }
        let m = try read(B.movie([inner]))
        XCTAssertNil(m.coordinate)
        XCTAssertTrue(m.warnings.contains { $0.contains("nested deeper") }, "\(m.warnings)")
        // Within the limit it is found.
        var ok = B.box("udta", [B.xyz("+10.0+020.0/")])
        for _ in 0..<3 { ok = B.box("udta", ok) }
        XCTAssertEqual(try read(B.movie([ok])).coordinate, Coordinate(latitude: 10, longitude: 20))
    }

    func testTooManyTopLevelBoxes() throws {
        let frees = [UInt8]((0..<(MetadataLimits.maxMovieTopLevelBoxes + 1)).flatMap { _ in B.box("free", [UInt8]()) })
        XCTAssertThrowsError(try read(B.ftyp() + frees + B.box("moov", [B.mvhd(0)]))) { error in
            guard case MetadataError.limitExceeded = error else { return XCTFail("\(error)") }
        }
        // After moov, the walk just stops.
        let m = try read(B.ftyp() + B.box("moov", [B.box("udta", [B.xyz("+10.0+020.0/")])]) + frees)
        XCTAssertEqual(m.coordinate, Coordinate(latitude: 10, longitude: 20))
    }

    func testStrayBytesAndTruncatedHeaders() throws {
        // Fewer than 8 bytes before moov: end of file.
        XCTAssertThrowsError(try read(B.ftyp() + [0, 0, 0])) { error in
            guard case MetadataError.endOfFile = error else { return XCTFail("\(error)") }
        }
        // After moov: a warning.
        let m = try read(B.movie([B.box("udta", [B.xyz("+10.0+020.0/")])]) + [0, 0])
        XCTAssertEqual(m.coordinate, Coordinate(latitude: 10, longitude: 20))
        XCTAssertTrue(m.warnings.contains { $0.contains("stray") }, "\(m.warnings)")
    }

    // MARK: meta / keys / ilst

    func testMetaWithAndWithoutVersionField() throws {
        for version in [true, false] {
            let meta = B.mdtaMeta(keys: [B.loc, B.date],
                                  items: [(1, B.data("+35.6586+139.7454/")), (2, B.data("2023-07-14T17:11:12+0900"))],
                                  version: version)
            for placement in [[meta], [B.box("udta", [meta])]] {
                let m = try read(B.movie([B.mvhd(0)] + placement))
                XCTAssertEqual(m.coordinate, Coordinate(latitude: 35.6586, longitude: 139.7454), "version \(version)")
                XCTAssertEqual(m.takenAt, epoch(1_689_322_272))
                XCTAssertEqual(m.utcOffsetSeconds, 9 * 3600)
                XCTAssertEqual(m.timeSource, .isoWithOffset)
            }
        }
    }

    func testKeysAtIndexThreeAndItemsOutOfOrderWithTrailingNUL() throws {
        let meta = B.mdtaMeta(keys: ["com.apple.quicktime.make", B.date, B.loc, "com.apple.quicktime.model"],
                              items: [(4, B.data("iPhone")), (3, B.data("+48.8577+002.2950+035.000/\0")),
                                      (1, B.data("Apple")), (2, B.data("2018-04-26T10:04:37+0900\0"))],
                              version: false)
        let m = try read(B.movie([meta]))
        XCTAssertEqual(m.coordinate, Coordinate(latitude: 48.8577, longitude: 2.295))
        XCTAssertEqual(m.altitude, 35)
        XCTAssertEqual(m.takenAt, epoch(1_524_704_677))  // 2018-04-26T01:04:37Z
    }

    func testOtherHandlerOrNamespaceIsIgnored() throws {
        // Same keys but an 'mdir' handler: the item indices mean nothing.
        let body = B.hdlr("mdir") + B.keys([B.loc]) + B.ilst([(1, B.data("+10.0+020.0/"))])
        XCTAssertNil(try read(B.movie([B.box("meta", body)])).coordinate)
        // A key index with no keys entry.
        let meta = B.mdtaMeta(keys: [B.date], items: [(2, B.data("+10.0+020.0/"))], version: false)
        XCTAssertNil(try read(B.movie([meta])).coordinate)
    }

    func testUTF16Data() throws {
        var value: [UInt8] = []
        for unit in "+10.5+020.5/".utf16 { value += B.u16(unit) }
        let item = B.box("data", B.u32(2) + B.u32(0) + value)
        let meta = B.mdtaMeta(keys: [B.loc], items: [(1, item)], version: true)
        XCTAssertEqual(try read(B.movie([meta])).coordinate, Coordinate(latitude: 10.5, longitude: 20.5))
    }

    func testItunesStyleXyz() throws {
        let meta = B.box("meta", [0, 0, 0, 0] + B.hdlr("mdir") + B.ilst([(QuickTime.xyz, B.data("+35.6586+139.7454/"))]))
        let m = try read(B.movie([B.box("udta", [meta])]))
        XCTAssertEqual(m.coordinate, Coordinate(latitude: 35.6586, longitude: 139.7454))
    }

    func testKeysBeatXyz() throws {
        let meta = B.mdtaMeta(keys: [B.loc], items: [(1, B.data("+48.8577+002.2950/"))], version: false)
        let m = try read(B.movie([B.box("udta", [B.xyz("+51.5007-000.1246/")]), meta]))
        XCTAssertEqual(m.coordinate, Coordinate(latitude: 48.8577, longitude: 2.295))
        // A garbage key location falls back to ©xyz, with a warning.
        let bad = B.mdtaMeta(keys: [B.loc], items: [(1, B.data("nowhere"))], version: false)
        let n = try read(B.movie([B.box("udta", [B.xyz("+51.5007-000.1246/")]), bad]))
        XCTAssertEqual(n.coordinate, Coordinate(latitude: 51.5007, longitude: -0.1246))
        XCTAssertTrue(n.warnings.contains { $0.contains("ISO 6709") })
    }

    // MARK: ©xyz

    func testXyzWithAndWithoutAltitudeAndDisagreeingLength() throws {
        let cases: [([UInt8], Coordinate, Double?)] = [
            (B.xyz("+37.4219-122.0840/"), Coordinate(latitude: 37.4219, longitude: -122.084), nil),
            (B.xyz("+37.4219-122.0840+012.5/"), Coordinate(latitude: 37.4219, longitude: -122.084), 12.5),
            (B.xyz("-33.8568+151.2153-003.0/"), Coordinate(latitude: -33.8568, longitude: 151.2153), -3),
            // Length field two bytes short of the text (the slash and the last digit dropped:
            // still a position), and two bytes longer than the box (clamped).
            (B.xyz("+37.4219-122.0840/", length: 16), Coordinate(latitude: 37.4219, longitude: -122.084), nil),
            (B.xyz("+37.4219-122.0840/", length: 20), Coordinate(latitude: 37.4219, longitude: -122.084), nil),
        ]
        for (atom, coordinate, altitude) in cases {
            let m = try read(B.movie([B.box("udta", [atom])]))
            XCTAssertEqual(try XCTUnwrap(m.coordinate).latitude, coordinate.latitude, accuracy: 1e-9)
            XCTAssertEqual(try XCTUnwrap(m.coordinate).longitude, coordinate.longitude, accuracy: 1e-3)
            XCTAssertEqual(m.altitude, altitude)
        }
    }

    // MARK: mvhd

    func testMvhdVersionsAndEpochs() throws {
        let t = UInt64(1_689_322_272)  // 2023-07-14T08:11:12Z
        let cases: [([UInt8], Date?)] = [
            (B.mvhd(t + QuickTime.epochOffset1904), epoch(1_689_322_272)),
            (B.mvhd(t + QuickTime.epochOffset1904, version: 1), epoch(1_689_322_272)),
            (B.mvhd(0), nil),
            (B.mvhd(0, version: 1), nil),
            (B.mvhd(t), epoch(1_689_322_272)),  // a writer that used 1970
        ]
        for (mvhd, expected) in cases {
            let m = try read(B.movie([mvhd]))
            XCTAssertEqual(m.takenAt, expected)
            XCTAssertEqual(m.timeSource, expected == nil ? .none : .containerUTC)
            XCTAssertNil(m.utcOffsetSeconds)
        }
        // Unknown version: no time, a warning.
        var v2 = B.mvhd(t)
        v2[8] = 2
        let m = try read(B.movie([v2]))
        XCTAssertNil(m.takenAt)
        XCTAssertTrue(m.warnings.contains { $0.contains("version 2") })
        // A v1 mvhd cut after its first bytes (inside a complete moov of its own size).
        XCTAssertNil(try read(B.movie([B.box("mvhd", [1, 0, 0, 0, 0, 0])])).takenAt)
    }

    func testCreationDateForms() throws {
        let cases: [(String, Date, Int?, TimeSource)] = [
            ("2023-07-14T17:11:12+0900", epoch(1_689_322_272), 32_400, .isoWithOffset),
            ("2023-07-14T17:11:12+09:00", epoch(1_689_322_272), 32_400, .isoWithOffset),
            ("2023-07-14T08:11:12Z", epoch(1_689_322_272), 0, .isoWithOffset),
            ("2023-07-14T04:11:12-04:00", epoch(1_689_322_272), -14_400, .isoWithOffset),
            // No zone: the default zone (here Europe/Paris, +02:00 in July).
            ("2023-07-14T10:11:12", epoch(1_689_322_272), 7_200, .assumedZone),
        ]
        let paris = TimeZone(identifier: "Europe/Paris")!
        for (text, instant, offset, source) in cases {
            let meta = B.mdtaMeta(keys: [B.date], items: [(1, B.data(text))], version: false)
            let m = try read(B.movie([B.mvhd(0), meta]), zone: paris)
            XCTAssertEqual(m.takenAt, instant, text)
            XCTAssertEqual(m.utcOffsetSeconds, offset, text)
            XCTAssertEqual(m.timeSource, source, text)
        }
    }

    func testCreationDateBeatsMvhdButMvhdBeatsAZonelessDate() throws {
        let mvhd = B.mvhd(1_000_000_000 + QuickTime.epochOffset1904)  // 2001-09-09T01:46:40Z
        let withZone = B.mdtaMeta(keys: [B.date], items: [(1, B.data("2018-04-26T10:04:37+0900"))], version: false)
        let a = try read(B.movie([mvhd, withZone]))
        XCTAssertEqual(a.takenAt, epoch(1_524_704_677))
        XCTAssertEqual(a.timeSource, .isoWithOffset)
        let zoneless = B.mdtaMeta(keys: [B.date], items: [(1, B.data("2018-04-26T10:04:37"))], version: false)
        let b = try read(B.movie([mvhd, zoneless]))
        XCTAssertEqual(b.takenAt, epoch(1_000_000_000))
        XCTAssertEqual(b.timeSource, .containerUTC)
        // A garbage date: mvhd, with a warning.
        let garbage = B.mdtaMeta(keys: [B.date], items: [(1, B.data("yesterday"))], version: false)
        let c = try read(B.movie([mvhd, garbage]))
        XCTAssertEqual(c.timeSource, .containerUTC)
        XCTAssertTrue(c.warnings.contains { $0.contains("creationdate") })
    }

    /// `udta/date` (ExifTool's UserData:DateTimeOriginal, issue 24): bare text as ExifTool
    /// writes it, or a user-data text; with an offset it beats `mvhd` and `©day`, below an
    /// Apple `creationdate`; without one it ranks below `mvhd`.
    func testUserDataDateBeatsMvhd() throws {
        let mvhd = B.mvhd(1_000_000_000 + QuickTime.epochOffset1904)  // 2001-09-09T01:46:40Z
        let bare = B.box("date", Array("2019-07-14T10:11:12+0200".utf8))  // 2019-07-14T08:11:12Z
        let a = try read(B.movie([mvhd, B.box("udta", [bare])]))
        XCTAssertEqual(a.takenAt, epoch(1_563_091_872))
        XCTAssertEqual(a.utcOffsetSeconds, 7_200)
        XCTAssertEqual(a.timeSource, .isoWithOffset)
        XCTAssertEqual(a.timeTag, "QuickTime udta date")
        // As a QuickTime user-data text (u16 length, language) with the colon form.
        let text = Array("2019-07-14T10:11:12+02:00".utf8)
        let framed = B.box("date", B.u16(UInt16(text.count)) + B.u16(0x55C4) + text)
        XCTAssertEqual(try read(B.movie([mvhd, B.box("udta", [framed])])).takenAt, epoch(1_563_091_872))
        // Before ©day (the content's date), whichever comes first in udta.
        let day = B.box("©day", B.u16(24) + B.u16(0x55C4) + Array("2020-01-01T00:00:00+0100".utf8))
        XCTAssertEqual(try read(B.movie([mvhd, B.box("udta", [day, bare])])).timeTag, "QuickTime udta date")
        // An Apple creationdate still comes first.
        let apple = B.mdtaMeta(keys: [B.date], items: [(1, B.data("2018-04-26T10:04:37+0900"))], version: false)
        XCTAssertEqual(try read(B.movie([mvhd, B.box("udta", [bare]), apple])).timeTag, "QuickTime creationdate")
        // Without an offset: mvhd (UTC) ranks above a wall clock of unknown zone.
        let zoneless = B.box("date", Array("2019-07-14T10:11:12".utf8))
        let b = try read(B.movie([mvhd, B.box("udta", [zoneless])]))
        XCTAssertEqual(b.timeSource, .containerUTC)
        XCTAssertEqual(try read(B.movie([B.box("udta", [zoneless])])).timeTag, "QuickTime udta date")
        // Garbage: mvhd, with a warning naming the atom.
        let garbage = try read(B.movie([mvhd, B.box("udta", [B.box("date", Array("20190714".utf8))])]))
        XCTAssertEqual(garbage.timeSource, .containerUTC)
        XCTAssertTrue(garbage.warnings.contains { $0.contains("udta date") }, "\(garbage.warnings)")
    }

    // MARK: XMP in videos

    func testXMPInUuidAndUdta() throws {
        let packet = Array(XMPTests.packet(attributes: "exif:GPSLatitude='48,51.498N' exif:GPSLongitude='2,17.67E' exif:DateTimeOriginal='2023-07-14T10:11:12+02:00'").utf8)
        let uuid = B.u32(UInt32(24 + packet.count)) + Array("uuid".utf8) + QuickTime.xmpUUID + packet
        // XMP ranks above the QuickTime atoms, for the position and (same step) the time.
        let keys = B.mdtaMeta(keys: [B.loc, B.date], items: [(1, B.data("+10.0+020.0/")), (2, B.data("2023-07-14T10:11:12+0100"))],
                              version: false)
        let a = try read(B.ftyp("isom") + B.box("moov", [B.mvhd(0), keys]) + uuid + B.box("mdat", [1]))
        XCTAssertEqual(try XCTUnwrap(a.coordinate).latitude, 48.8583, accuracy: 1e-9)
        XCTAssertEqual(a.positionSource, .xmp)
        XCTAssertEqual(a.takenAt, epoch(1_689_322_272))
        XCTAssertEqual(a.utcOffsetSeconds, 7200)
        let b = try read(B.movie([B.box("udta", [B.box("XMP_", packet), B.xyz("+10.0+020.0/")])]))
        XCTAssertEqual(b.positionSource, .xmp)
        XCTAssertEqual(try XCTUnwrap(b.coordinate).longitude, 2.2945, accuracy: 1e-9)
        // A uuid of another kind is not XMP.
        let other = B.u32(UInt32(24 + packet.count)) + Array("uuid".utf8) + [UInt8](repeating: 7, count: 16) + packet
        XCTAssertNil(try read(B.ftyp("isom") + B.box("moov", [B.mvhd(0)]) + other).coordinate)
    }

    // MARK: Cost

    func testFourGigabyteVideoCostsAFewKilobytes() throws {
        // A sparse file: ftyp, a 64-bit mdat of 4.5 GiB (holes), then moov at the end.
        let url = tempDir.appendingPathComponent("big.mov")
        let mdatSize: UInt64 = 4_500_000_000
        let head = B.ftyp() + B.u32(1) + Array("mdat".utf8) + B.u64(mdatSize)
        let moov = B.box("moov", [B.mvhd(1_689_322_272 + QuickTime.epochOffset1904),
                                  B.box("trak", [UInt8](repeating: 0xEE, count: 200_000)),
                                  B.box("udta", [B.xyz("+37.4219-122.0840/")])])
        _ = FileManager.default.createFile(atPath: url.path, contents: Data(head))
        let handle = try FileHandle(forWritingTo: url)
        try handle.seek(toOffset: UInt64(B.ftyp().count) + mdatSize)
        try handle.write(contentsOf: Data(moov))
        try handle.close()
        let (m, bytesRead) = try readCounting(RawPath(url.path))
        let result = try XCTUnwrap(m)
        XCTAssertEqual(result.coordinate, Coordinate(latitude: 37.4219, longitude: -122.084))
        XCTAssertEqual(result.takenAt, epoch(1_689_322_272))
        // The first 64 KiB read plus a few 4 KiB windows: never the 200 KB trak, never mdat.
        XCTAssertLessThan(bytesRead, MetadataLimits.firstReadSize + 16 * 1024, "read \(bytesRead) bytes")
    }

    func testOversizedUdtaIsSkipped() throws {
        let big = B.box("udta", [B.xyz("+10.0+020.0/"), B.box("free", [UInt8](repeating: 0, count: MetadataLimits.maxMovieAtomPayload))])
        let m = try read(B.movie([big]))
        XCTAssertNil(m.coordinate)
        XCTAssertTrue(m.warnings.contains { $0.contains("over the limit") }, "\(m.warnings)")
    }

    func testDigestIdentifiesTheMovieMetadata() throws {
        let a = try read(B.movie([B.mvhd(3_800_000_000), B.box("udta", [B.xyz("+10.0+020.0/")])]))
        let b = try read(B.movie([B.mvhd(3_800_000_001), B.box("udta", [B.xyz("+10.0+020.0/")])]))
        let c = try read(B.movie([B.mvhd(3_800_000_000), B.box("udta", [B.xyz("+10.0+020.0/")])], moovFirst: false))
        XCTAssertNotNil(a.metadataDigest)
        XCTAssertNotEqual(a.metadataDigest, b.metadataDigest)
        XCTAssertEqual(a.metadataDigest, c.metadataDigest, "same metadata and size, other layout")
    }

    func testNoMoovIsAVideoWithoutMetadata() throws {
        let m = try read(B.ftyp("isom") + B.box("mdat", [1, 2, 3]))
        XCTAssertNil(m.coordinate)
        XCTAssertNil(m.takenAt)
        XCTAssertTrue(m.warnings.contains { $0.contains("no 'moov'") }, "\(m.warnings)")
        XCTAssertNil(m.metadataDigest)
    }

    func testAMovieWithAZeroCreationTimeTakesTheFileModificationTime() throws {
        let bytes = B.movie([B.mvhd(0)])
        let m = try XCTUnwrap(MetadataReader.read(bytes: bytes, modificationTime: epoch(1_000), options: optionsUTC))
        XCTAssertEqual(m.takenAt, epoch(1_000))
        XCTAssertEqual(m.timeSource, .fileModification)
    }

    // MARK: ISO 6709

    func testISO6709Forms() {
        func position(_ text: String) -> (Double, Double, Double?)? {
            if case .position(let c, let alt) = ISO6709.parse(text) { return (c.latitude, c.longitude, alt) }
            return nil
        }
        let good: [(String, Double, Double, Double?)] = [
            ("+48.8577+002.2950/", 48.8577, 2.295, nil),
            ("+48.8577+002.2950+035.000/", 48.8577, 2.295, 35),
            ("+30.2216+115.9852-244.943/", 30.2216, 115.9852, -244.943),
            ("+4851.498+00217.670/", 48 + 51.498 / 60, 2 + 17.67 / 60, nil),
            ("-3351.408+15112.918-012.5/", -(33 + 51.408 / 60), 151 + 12.918 / 60, -12.5),
            ("+485129.88+0021740.2/", 48 + 51 / 60.0 + 29.88 / 3600, 2 + 17 / 60.0 + 40.2 / 3600, nil),
            ("+51.6177-0.3790/", 51.6177, -0.379, nil),  // unpadded longitude
            ("+5.5-7.25/", 5.5, -7.25, nil),
            ("+48.8577+002.2950", 48.8577, 2.295, nil),  // no slash
            ("+48.8577+002.2950+35CRSWGS_84/", 48.8577, 2.295, 35),
            ("+48+002/", 48, 2, nil),
            (" +48.8577+002.2950/\0", 48.8577, 2.295, nil),
            ("-90.0000-180.0000/", -90, -180, nil),
        ]
        for (text, lat, lon, alt) in good {
            guard let p = position(text) else { XCTFail("no position for \(text)"); continue }
            XCTAssertEqual(p.0, lat, accuracy: 1e-9, text)
            XCTAssertEqual(p.1, lon, accuracy: 1e-9, text)
            XCTAssertEqual(p.2, alt, text)
        }
        for bad in ["", "/", "garbage", "48.8577,2.2950", "+48.8577/", "+48.8577+002.2950x/", "+048.8577+002.2950/",
                    "+4851.498+002.2950/", "+4861.000+00217.670/", "+485169.0+0021740.2/", "+91.0+000.0/",
                    "+45.0+181.0/", "+45.0+0002.0/", "++45.0+002.0/", "+45.0+002.0+/", "+.5+002.0/",
                    "+45.0+002.0/extra", "+1234567890123+002/"] {
            XCTAssertEqual(ISO6709.parse(bad), .invalid, bad)
        }
        XCTAssertEqual(ISO6709.parse("+00.0000+000.0000/"), .nullIsland)
        XCTAssertEqual(ISO6709.parse("+00.0000+000.0000+100.0/"), .nullIsland)
    }

    // MARK: Helpers

    private func write(_ bytes: [UInt8], _ name: String) throws -> RawPath {
        let url = tempDir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return RawPath(url.path)
    }
}

final class QuickTimeEpochTests: XCTestCase {
    func testMovieHeaderTimesBeyondTheYear9999AreIgnored() {
        XCTAssertNil(QuickTime.unixTime(mvhd: UInt64.max))
        XCTAssertNil(QuickTime.unixTime(mvhd: 0))
        // 2018-04-26T01:04:37Z = 1524704677 s; in the 1904 epoch + 2,082,844,800.
        XCTAssertEqual(QuickTime.unixTime(mvhd: 1_524_704_677 + 2_082_844_800), 1_524_704_677)
    }
}

extension QuickTimeEpochTests {
    /// A version-1 mvhd claiming 2^64 - 16 seconds once crashed the date formatting downstream.
    func testAHugeVersion1CreationTimeIsIgnoredNotFatal() throws {
        var bytes = [UInt8](try Data(contentsOf: repoRoot().appendingPathComponent("Fixtures/formats/video/mvhd-v1.mov")))
        let mvhd = try XCTUnwrap((0..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual("mvhd".utf8) })
        XCTAssertEqual(bytes[mvhd + 4], 1, "the fixture's mvhd is version 1")
        for k in 0..<8 { bytes[mvhd + 8 + k] = k == 7 ? 0xF0 : 0xFF }
        let m = try MetadataReader.read(bytes: bytes, modificationTime: Date(timeIntervalSince1970: 0), options: MetadataOptions())
        XCTAssertNotEqual(m?.timeSource, .containerUTC)
        XCTAssertEqual(m?.takenAt, Date(timeIntervalSince1970: 0))
    }
}
