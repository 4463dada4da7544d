import Foundation
@testable import PinCore
@testable import PinMetadata
import TestSupport
import XCTest

/// A minimal TIFF writer for tests: IFD0 (+ pointers), Exif IFD, GPS IFD, values out of line.
/// Written from section 1.2 of docs/formats.md, independent of the reader; the values it
/// carries are chosen by hand in each test.
struct TestTIFF {
    enum Value {
        case ascii(String)          // type 2, NUL appended
        case rawASCII([UInt8])      // type 2, bytes as given (no NUL added)
        case rationals([(UInt32, UInt32)])
        case srationals([(Int32, Int32)])
        case byte(UInt8)
        case short(UInt16)
        case long(UInt32)
    }

    var ifd0: [(UInt16, Value)] = []
    var exif: [(UInt16, Value)] = []
    var gps: [(UInt16, Value)] = []

    func bytes(_ order: ByteOrder) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] {
            order == .bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
        }
        func u32(_ v: UInt32) -> [UInt8] {
            let be = [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
            return order == .bigEndian ? be : be.reversed()
        }
        func encode(_ value: Value) -> (type: UInt16, count: UInt32, data: [UInt8]) {
            switch value {
            case .ascii(let s):
                let b = Array(s.utf8) + [0]
                return (2, UInt32(b.count), b)
            case .rawASCII(let b):
                return (2, UInt32(b.count), b)
            case .rationals(let parts):
                return (5, UInt32(parts.count), parts.flatMap { u32($0.0) + u32($0.1) })
            case .srationals(let parts):
                return (10, UInt32(parts.count),
                        parts.flatMap { u32(UInt32(bitPattern: $0.0)) + u32(UInt32(bitPattern: $0.1)) })
            case .byte(let v):
                return (1, 1, [v])
            case .short(let v):
                return (3, 1, u16(v))
            case .long(let v):
                return (4, 1, u32(v))
            }
        }
        // IFD order: IFD0, Exif, GPS; pointers in IFD0 filled in once positions are known.
        let exifPointer: UInt16 = 0x8769, gpsPointer: UInt16 = 0x8825
        var ifds: [[(UInt16, Value)]] = [ifd0, exif, gps]
        if !exif.isEmpty { ifds[0].append((exifPointer, .long(0))) }
        if !gps.isEmpty { ifds[0].append((gpsPointer, .long(0))) }
        func size(_ n: Int) -> Int { 2 + 12 * n + 4 }
        let ifd0At = 8
        let exifAt = ifd0At + size(ifds[0].count)
        let gpsAt = exifAt + (exif.isEmpty ? 0 : size(exif.count))
        let dataAt = gpsAt + (gps.isEmpty ? 0 : size(gps.count))
        ifds[0] = ifds[0].map { entry in
            if entry.0 == exifPointer { return (entry.0, .long(UInt32(exifAt))) }
            if entry.0 == gpsPointer { return (entry.0, .long(UInt32(gpsAt))) }
            return entry
        }
        var out: [UInt8] = order == .bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]
        out += u32(UInt32(ifd0At))
        var data: [UInt8] = []
        for (index, entries) in ifds.enumerated() where index == 0 || !entries.isEmpty {
            let sorted = entries.sorted { $0.0 < $1.0 }
            out += u16(UInt16(sorted.count))
            for (tag, value) in sorted {
                let (type, count, bytes) = encode(value)
                out += u16(tag) + u16(type) + u32(count)
                if bytes.count <= 4 {
                    out += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
                } else {
                    out += u32(UInt32(dataAt + data.count))
                    data += bytes
                    if data.count % 2 == 1 { data.append(0) }
                }
            }
            out += u32(0)
        }
        precondition(out.count == dataAt)
        return out + data
    }
}

/// Builds JPEG byte streams segment by segment (section 1.1).
enum TestJPEG {
    static let soi: [UInt8] = [0xFF, 0xD8]
    static let eoi: [UInt8] = [0xFF, 0xD9]

    /// A marker segment: FF code, big-endian length (payload + 2), payload.
    static func segment(_ code: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, code, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    static func exifAPP1(_ tiff: [UInt8]) -> [UInt8] {
        segment(0xE1, Array("Exif".utf8) + [0, 0] + tiff)
    }

    static let app0JFIF = segment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])

    /// SOS with a minimal header, then `scan` bytes, then EOI.
    static func scan(_ scan: [UInt8] = [0x12, 0x34, 0x56]) -> [UInt8] {
        segment(0xDA, [1, 1, 0, 0, 0x3F, 0]) + scan + eoi
    }

    static func file(_ segments: [UInt8]..., scan data: [UInt8] = [0x12, 0x34, 0x56]) -> [UInt8] {
        soi + segments.flatMap { $0 } + scan(data)
    }
}

enum Samples {
    /// A JPEG written by ImageMagick 6.9.11 (`convert -size 8x8 xc:#3366cc -strip`) and tagged by
    /// ExifTool 12.57: GPSLatitude=48.858330 S, GPSLongitude=2.294500 W, GPSAltitude=35 (the
    /// `-GPSAltitudeRef=1` given without -n was stored as ref 0), DateTimeOriginal=2023:07:14
    /// 10:11:12, OffsetTimeOriginal=-03:30, SubSecTimeOriginal=25. ExifTool -n reads back
    /// -48.85833, -2.2945, altitude 35, "2023:07:14 10:11:12.25-03:30".
    static let exiftoolJPEG: [UInt8] = Array(Data(base64Encoded: [
        "/9j/4AAQSkZJRgABAQAAAQABAAD/4QF2RXhpZgAATU0AKgAAAAgABgEaAAUAAAABAAAAVgEbAAUAAAABAAAAXgEoAAMAAAAB",
        "AAEAAAITAAMAAAABAAEAAIdpAAQAAAABAAAAZoglAAQAAAABAAAA3AAAAAAAAAABAAAAAQAAAAEAAAABAAeQAAAHAAAABDAy",
        "MzKQAwACAAAAFAAAAMCQEQACAAAABwAAANSRAQAHAAAABAECAwCSkQACAAAAAzI1AACgAAAHAAAABDAxMDCgAQADAAAAAf//",
        "AAAAAAAAMjAyMzowNzoxNCAxMDoxMToxMgAtMDM6MzAAAAAHAAAAAQAAAAQCAwAAAAEAAgAAAAJTAAAAAAIABQAAAAMAAAE2",
        "AAMAAgAAAAJXAAAAAAQABQAAAAMAAAFOAAUAAQAAAAEAAAAAAAYABQAAAAEAAAFmAAAAAAAAADAAAAABAAAAMwAAAAEAAB1J",
        "AAAA+gAAAAIAAAABAAAAEQAAAAEAAADJAAAABQAAACMAAAAB/9sAQwADAgIDAgIDAwMDBAMDBAUIBQUEBAUKBwcGCAwKDAwL",
        "CgsLDQ4SEA0OEQ4LCxAWEBETFBUVFQwPFxgWFBgSFBUU/9sAQwEDBAQFBAUJBQUJFA0LDRQUFBQUFBQUFBQUFBQUFBQUFBQU",
        "FBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU/8AAEQgACAAIAwERAAIRAQMRAf/EABQAAQAAAAAAAAAAAAAAAAAAAAf/",
        "xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFQEBAQAAAAAAAAAAAAAAAAAABwj/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMB",
        "AAIRAxEAPwAvVAJH/9k=",
    ].joined())!)

    /// Offset just past the Exif APP1 in `exiftoolJPEG`: SOI (2) + APP0 (FF E0, length 16: 18)
    /// = 20; APP1 (FF E1, length 0x0176 = 374) ends at 20 + 2 + 374 = 396.
    static let exiftoolJPEGExifEnd = 396

    /// The typical test TIFF: Eiffel tower by hand (48/1 51/1 2999/100 N, 2/1 17/1 4020/100 E).
    static func eiffel() -> TestTIFF {
        var t = TestTIFF()
        t.ifd0 = [(0x010F, .ascii("TestCam"))]
        t.exif = [(0x9003, .ascii("2023:07:14 10:11:12")), (0x9011, .ascii("+02:00")),
                  (0x9291, .ascii("39"))]
        t.gps = [(0x0001, .ascii("N")), (0x0002, .rationals([(48, 1), (51, 1), (2999, 100)])),
                 (0x0003, .ascii("E")), (0x0004, .rationals([(2, 1), (17, 1), (4020, 100)])),
                 (0x0005, .byte(0)), (0x0006, .rationals([(3305, 10)])),
                 (0x0007, .rationals([(8, 1), (11, 1), (1239, 100)])), (0x001D, .ascii("2023:07:14"))]
        return t
    }
}

/// The repository root, found from this file's path (Tests/PinMetadataTests/TestSupport.swift).
func repoRoot() -> URL {
    Repository.root
}

/// Seconds since 1970 → Date (hand-worked instants come from `date -u -d ... +%s`).
func epoch(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

let utc = TimeZone(identifier: "UTC")!
let optionsUTC = MetadataOptions(defaultTimeZone: utc)

func r(_ n: Int64, _ d: Int64) -> ExifRational { ExifRational(n, d) }
func sr(_ n: Int64, _ d: Int64) -> ExifRational { ExifRational(n, d, signed: true) }

/// The truncation loop: every prefix of `bytes` either reads or fails with a MetadataError,
/// never crashes, and never yields a position other than the whole file's.
func assertEveryPrefixReadsCleanly(_ bytes: [UInt8], latitude: Double,
                                   file: StaticString = #filePath, line: UInt = #line,
                                   read: ([UInt8]) throws -> PhotoMetadata?) {
    for length in 0...bytes.count {
        do {
            let m = try read(Array(bytes[0..<length]))
            if let c = m?.coordinate { XCTAssertEqual(c.latitude, latitude, accuracy: 1e-9, "prefix \(length)", file: file, line: line) }
        } catch is MetadataError {
        } catch {
            XCTFail("prefix \(length): \(error)", file: file, line: line)
        }
    }
}

/// ExifTool's own readings of a fixture set: the `exiftool -j -n` document that `script` wrote as
/// `Fixtures/formats/<name>`, keyed by SourceFile without `prefix`. Fails, never skips, when the
/// document is missing or has fewer than `minimum` entries.
func exifToolReadings(_ name: String, madeBy script: String, droppingPrefix prefix: String = "",
                      minimum: Int = 1) throws -> [String: [String: Any]] {
    let url = repoRoot().appendingPathComponent("Fixtures/formats/\(name)")
    guard let data = try? Data(contentsOf: url) else {
        XCTFail("missing \(url.path): run \(script)")
        throw CocoaError(.fileNoSuchFile)
    }
    let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    XCTAssertGreaterThanOrEqual(list.count, minimum, "\(name) looks incomplete")
    var byName: [String: [String: Any]] = [:]
    for entry in list {
        let source = try XCTUnwrap(entry["SourceFile"] as? String)
        XCTAssertTrue(source.hasPrefix(prefix), source)
        byName[String(source.dropFirst(prefix.count))] = entry
    }
    return byName
}

/// What reading damaged bytes gave: metadata, a one-line `MetadataError`, or "not media".
enum DamagedReading: Equatable { case metadata, error, notMedia }

/// Reads damaged bytes and checks the outcome is one the import can list beside the file:
/// metadata, a `MetadataError` of one non-empty line, or "not media" only when the first bytes
/// no longer say `kind`.
func readDamaged(_ bytes: [UInt8], wasKind kind: FileKind, label: String,
                 file: StaticString = #filePath, line: UInt = #line) -> DamagedReading? {
    do {
        if try MetadataReader.read(bytes: bytes, modificationTime: nil, options: optionsUTC) != nil { return .metadata }
        XCTAssertNotEqual(FileKind.sniff(Array(bytes.prefix(FileKind.sniffLength))), kind,
                          "\(label): still a \(kind.rawValue) by its first bytes, read as not media", file: file, line: line)
        return .notMedia
    } catch let error as MetadataError {
        let text = "\(error)"
        XCTAssertFalse(text.isEmpty || text.contains("\n"), "\(label): '\(text)'", file: file, line: line)
        return .error
    } catch {
        XCTFail("\(label): not a MetadataError: \(error)", file: file, line: line)
        return nil
    }
}
