import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

/// Compares our readings of every file `scripts/fixtures-images` wrote (HEIF/AVIF, PNG, WebP,
/// TIFF and raw-style files) with ExifTool's own (`Fixtures/formats/exiftool-images.json`,
/// `exiftool -j -n`). Fails, never skips, when the fixtures are missing.
final class ImageFixtureTests: XCTestCase {
    let mtime = epoch(1_735_646_400)  // 2024-12-31 12:00:00Z, what fixtures-images sets

    /// Files ExifTool 12.57 cannot read but we can, by design: compare with the readings of the
    /// file they were made from (same Exif bytes).
    let sameAs: [String: String] = [
        // ExifTool: "Can't currently extract Exif with construction method 1".
        "heif/iloc-v1-idat.heic": "heif/exiftool-exif.heic",
        // ExifTool trusts the offset field (2) and finds no TIFF header; we scan (section 3.4).
        "heif/exif-wrong-offset.heic": "heif/exiftool-exif.heic",
    ]
    /// The warnings a file must produce (every other file: none).
    let expectedWarnings: [String: [String]] = [
        "heif/exif-wrong-offset.heic": ["Exif item's TIFF header offset 2 is wrong; header found at 6"],
        "webp/exif-with-prefix.webp": ["EXIF chunk starts with 'Exif\\0\\0' before the TIFF header"],
    ]
    /// Files that must be refused, with the message.
    let expectedErrors: [String: String] = [:]
    /// Positions that come from XMP, not Exif.
    let xmpPositions: Set<String> = ["heif/xmp-only.heic"]

    static func formatsDir() -> URL { repoRoot().appendingPathComponent("Fixtures/formats") }

    static func loadReadings() throws -> [String: [String: Any]] {
        try exifToolReadings("exiftool-images.json", madeBy: "scripts/fixtures-images", droppingPrefix: "Fixtures/formats/")
    }

    static func format(ofFileType type: String) -> String? {
        switch type {
        case "HEIC", "HEIF", "AVIF": "heif"
        case "PNG": "png"
        case "WEBP", "Extended WEBP": "webp"
        case "TIFF", "CR2", "ORF", "RAW", "BTF": "tiff"
        default: nil
        }
    }

    func testAgainstExifTool() throws {
        let readings = try Self.loadReadings()
        XCTAssertGreaterThanOrEqual(readings.count, 24, "exiftool-images.json looks incomplete")
        var positions = 0, times = 0
        for name in readings.keys.sorted() {
            let entry = readings[sameAs[name] ?? name]!
            let path = Self.formatsDir().appendingPathComponent(name).path
            let result: PhotoMetadata?
            do {
                result = try MetadataReader.read(path: RawPath(path), modificationTime: mtime, options: optionsUTC)
            } catch {
                XCTAssertEqual("\(error)", expectedErrors[name], "\(name): unexpected error")
                continue
            }
            XCTAssertNil(expectedErrors[name], "\(name) should be refused")
            let m = try XCTUnwrap(result, "\(name): read as not media")
            let fileType = try XCTUnwrap(readings[name]?["FileType"] as? String)
            XCTAssertEqual(m.format.rawValue, Self.format(ofFileType: fileType), name)
            XCTAssertEqual(m.warnings, expectedWarnings[name] ?? [], name)

            // Position: within 1e-6° of ExifTool's, or none where ExifTool has none.
            if let lat = entry["GPSLatitude"] as? Double, let lon = entry["GPSLongitude"] as? Double {
                let c = try XCTUnwrap(m.coordinate, "\(name): ExifTool has \(lat),\(lon); issue \(m.locationIssue ?? "-")")
                XCTAssertEqual(c.latitude, lat, accuracy: 1e-6, name)
                XCTAssertEqual(c.longitude, lon, accuracy: 1e-6, name)
                XCTAssertEqual(m.positionSource?.rawValue, xmpPositions.contains(name) ? "xmp" : "exif", name)
                if let altitude = entry["GPSAltitude"] as? Double {
                    XCTAssertEqual(try XCTUnwrap(m.altitude, name), altitude, accuracy: 1e-6, name)
                }
                positions += 1
            } else {
                XCTAssertNil(m.coordinate, "\(name): ExifTool has no position")
                XCTAssertNil(m.locationIssue, name)
            }

            // Capture instant: ExifTool's SubSecDateTimeOriginal (or an XMP date with its zone).
            let composite = (entry["SubSecDateTimeOriginal"] as? String) ?? (entry["DateTimeOriginal"] as? String)
            if let composite, let instant = JPEGFixtureTests.parseExifToolInstant(composite) {
                XCTAssertEqual(try XCTUnwrap(m.takenAt, name).timeIntervalSince1970, instant.timeIntervalSince1970,
                               accuracy: 1e-3, name)
                let offset = (entry["OffsetTimeOriginal"] as? String).flatMap(JPEGFixtureTests.parseExifToolOffset)
                    ?? JPEGFixtureTests.parseExifToolOffset(String(composite.suffix(6)))
                XCTAssertEqual(m.utcOffsetSeconds, offset, name)
                XCTAssertEqual(m.timeSource, xmpPositions.contains(name) ? .isoWithOffset : .exifOffset, name)
                times += 1
            } else {
                XCTAssertNil(entry["DateTimeOriginal"], "\(name): a date this test cannot compare")
                XCTAssertEqual(m.timeSource, .fileModification, name)
                XCTAssertEqual(m.takenAt, mtime, name)
            }
        }
        XCTAssertGreaterThanOrEqual(positions, 18)
        XCTAssertGreaterThanOrEqual(times, 18)
    }

    func testNamedFixturesExist() {
        let names = ["heif/no-exif.heic", "heif/exiftool-exif.heic", "heif/mif1-major-heic-compatible.heic",
                     "heif/iloc-v1-idat.heic", "heif/exif-wrong-offset.heic", "heif/libheif-exif-from-jpeg.heic",
                     "heif/xmp-only.heic", "heif/exiftool-exif.avif",
                     "png/no-metadata.png", "png/exif-before-idat.png", "png/exif-after-idat.png",
                     "png/ztxt-raw-profile.png",
                     "webp/simple-vp8-no-metadata.webp", "webp/exiftool-vp8x-exif.webp", "webp/exiftool-vp8l-exif.webp",
                     "webp/imagemagick-exif-from-jpeg.webp", "webp/exif-with-prefix.webp",
                     "tiff/exiftool-le.tif", "tiff/big-endian.tif", "tiff/gps-ifd-beyond-64k.tif",
                     "tiff/orf-magic.orf", "tiff/rw2-magic.rw2", "tiff/cr2-header.cr2", "tiff/bigtiff.tif"]
        for name in names {
            XCTAssertTrue(FileManager.default.fileExists(atPath: Self.formatsDir().appendingPathComponent(name).path), name)
        }
    }

    func testRawProfileAndEXIfGiveTheSameValues() throws {
        let dir = Self.formatsDir()
        let a = try XCTUnwrap(MetadataReader.read(path: RawPath(dir.appendingPathComponent("png/exif-before-idat.png").path),
                                                  modificationTime: mtime, options: optionsUTC))
        let b = try XCTUnwrap(MetadataReader.read(path: RawPath(dir.appendingPathComponent("png/ztxt-raw-profile.png").path),
                                                  modificationTime: mtime, options: optionsUTC))
        XCTAssertNotNil(a.coordinate)
        XCTAssertEqual(a.coordinate, b.coordinate)
        XCTAssertEqual(a.takenAt, b.takenAt)
        XCTAssertEqual(a.metadataDigest, b.metadataDigest, "same TIFF bytes")
    }

    /// The 64 KiB proof (docs/formats.md 2.2): libexif given the whole file misses the
    /// GPS; the TIFF reader's re-pack finds it, reading only the first window and the IFDs.
    func testGPSBeyond64KiBNeedsTheRepack() throws {
        let url = Self.formatsDir().appendingPathComponent("tiff/gps-ifd-beyond-64k.tif")
        let bytes = try Array(Data(contentsOf: url))
        XCTAssertGreaterThan(bytes.count, 65_536)
        let alone = ExifDecoder.decode(tiff: bytes)
        XCTAssertNil(alone.latitude, "libexif alone should not reach the GPS IFD at byte > 65,528")
        XCTAssertNil(alone.dateTimeOriginal)
        XCTAssertFalse(alone.hasGPSDirectory)

        let (m, read) = try withOpenFile(RawPath(url.path)) { fd, size in
            var source = try FileSource(fd: fd, size: size)
            let m = try MetadataReader.read(source: &source, modificationTime: mtime, options: optionsUTC)
            return (m, source.bytesRead)
        }
        let c = try XCTUnwrap(m?.coordinate)
        XCTAssertEqual(c.latitude, 48.85837, accuracy: 1e-6)
        XCTAssertEqual(m?.timeSource, .exifOffset)
        XCTAssertEqual(m?.warnings, [])
        XCTAssertLessThanOrEqual(read, MetadataLimits.firstReadSize + 2 * MetadataLimits.laterReadSize)
    }

    // MARK: Truncation loop

    /// Every prefix of every fixture: a MetadataError or a result, never a crash; a prefix
    /// never yields a position other than the whole file's. Files over 4 KiB are sampled: all
    /// prefixes in the first 512 bytes, every prefix within 16 bytes of a box/chunk/IFD
    /// boundary, and a stride through the rest.
    func testEveryPrefixFailsCleanly() throws {
        let readings = try Self.loadReadings()
        var checked = 0
        for name in readings.keys.sorted() {
            let bytes = try Array(Data(contentsOf: Self.formatsDir().appendingPathComponent(name)))
            let full = try? MetadataReader.read(bytes: bytes, modificationTime: nil, options: optionsUTC)
            for length in Self.prefixLengths(bytes) {
                do {
                    let m = try MetadataReader.read(bytes: Array(bytes[0..<length]), modificationTime: nil, options: optionsUTC)
                    if let c = m?.coordinate {
                        XCTAssertEqual(c, full?.coordinate, "\(name) prefix \(length): a position the file does not have")
                    }
                } catch is MetadataError {
                } catch {
                    XCTFail("\(name) prefix \(length): non-MetadataError \(error)")
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 5_000)
    }

    /// Deterministic byte flips in the first 4 KiB of every fixture: each mutated file gives
    /// metadata or a one-line `MetadataError` (what the import lists beside the file's name),
    /// or "not media" only when the flips changed what its first bytes say it is.
    func testCorruptedFixturesGiveMetadataOrAOneLineError() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        var metadata = 0, errors = 0
        for name in try Self.loadReadings().keys.sorted() {
            let original = try Array(Data(contentsOf: Self.formatsDir().appendingPathComponent(name)))
            let kind = FileKind.sniff(Array(original.prefix(FileKind.sniffLength)))
            let span = UInt64(min(original.count, 4_096))
            for round in 0..<300 {
                var bytes = original
                for _ in 0..<(1 + Int(next() % 4)) {
                    bytes[Int(next() % span)] = UInt8(truncatingIfNeeded: next())
                }
                switch readDamaged(bytes, wasKind: kind, label: "\(name) round \(round)") {
                case .metadata?: metadata += 1
                case .error?: errors += 1
                default: break
                }
            }
        }
        XCTAssertGreaterThan(metadata, 1_000)
        XCTAssertGreaterThan(errors, 100)
    }

    static func prefixLengths(_ bytes: [UInt8]) -> [Int] {
        let n = bytes.count
        if n <= 4_096 { return Array(0...n) }
        var lengths = Set(0..<512)
        for b in boundaries(bytes) {
            for l in max(0, b - 16)...min(n, b + 16) { lengths.insert(l) }
        }
        for l in stride(from: 512, through: n, by: max(1, n / 400)) { lengths.insert(l) }
        lengths.insert(n)
        return lengths.sorted()
    }

    /// Offsets where a structure starts or ends, found by small independent walkers.
    static func boundaries(_ d: [UInt8]) -> [Int] {
        func be32(_ i: Int) -> Int { i + 4 <= d.count ? Int(d[i]) << 24 | Int(d[i + 1]) << 16 | Int(d[i + 2]) << 8 | Int(d[i + 3]) : 0 }
        func le32(_ i: Int) -> Int { i + 4 <= d.count ? Int(d[i + 3]) << 24 | Int(d[i + 2]) << 16 | Int(d[i + 1]) << 8 | Int(d[i]) : 0 }
        func le16(_ i: Int) -> Int { i + 2 <= d.count ? Int(d[i + 1]) << 8 | Int(d[i]) : 0 }
        var out: [Int] = []
        if d.starts(with: PNG.signature) {
            var i = 8
            while i + 8 <= d.count { out.append(i); out.append(i + 8); i += 12 + be32(i) }
        } else if d.starts(with: Array("RIFF".utf8)) {
            var i = 12
            while i + 8 <= d.count { out.append(i); out.append(i + 8); let n = le32(i + 4); i += 8 + n + (n & 1) }
        } else if d.count > 8, d[4...7].elementsEqual(Array("ftyp".utf8)) {
            func walk(_ s: Int, _ e: Int, depth: Int) {
                var i = s
                while i + 8 <= e {
                    let n = be32(i)
                    guard n >= 8 else { break }
                    out.append(i); out.append(i + 8)
                    let type = String(decoding: d[(i + 4)..<(i + 8)], as: UTF8.self)
                    if type == "meta", depth == 0 { walk(i + 12, min(e, i + n), depth: 1) }
                    if type == "iinf" { walk(i + 14, min(e, i + n), depth: 2) }
                    i += n
                }
                out.append(i)
            }
            walk(0, d.count, depth: 0)
        } else if d.starts(with: [0x49, 0x49]) {
            // Little-endian TIFFs: IFD0 and the sub-IFDs it points to.
            let ifd0 = le32(4)
            out.append(ifd0)
            let n = le16(ifd0)
            out.append(ifd0 + 2 + 12 * n)
            for k in 0..<n {
                let p = ifd0 + 2 + 12 * k
                if [0x8769, 0x8825].contains(le16(p)) {
                    let sub = le32(p + 8)
                    out.append(sub)
                    out.append(sub + 2 + 12 * le16(sub))
                }
            }
        }
        return out.filter { $0 >= 0 && $0 <= d.count }
    }
}
