import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

/// Compares our readings of the files `scripts/fixtures-media` made (videos, XMP and Takeout
/// sidecars) with ExifTool's own (`Fixtures/formats/exiftool-media.json`, `exiftool -j -n -G1`,
/// TZ=UTC). Which source must win is stated per file (the precedence of `MetadataMerge`); the
/// numbers come from ExifTool's reading of that source. Fails, never skips, when the fixtures
/// are missing.
final class MediaFixtureTests: XCTestCase {
    let mtime = epoch(1_735_646_400)  // 2024-12-31 12:00:00Z, what fixtures-media sets

    /// Where the expected position comes from: a file of the readings and its tags.
    enum Position {
        /// `"lat lon [alt]"` in a `…:GPSCoordinates` tag.
        case coordinates(file: String, tag: String)
        /// Separate latitude / longitude (/ altitude) tags.
        case tags(file: String, lat: String, lon: String, alt: String?, accuracy: Double)
        /// Hand-worked (ExifTool reads nothing).
        case value(Double, Double)
        case none
        case issue(String)
    }

    enum Time {
        /// An ExifTool date-time text (`YYYY:MM:DD HH:MM:SS[.f][Z|±HH:MM]`, no zone = UTC).
        case text(file: String, tag: String, TimeSource)
        /// Exif DateTimeOriginal + OffsetTimeOriginal of a JPEG.
        case exif(file: String)
        /// Unix seconds.
        case seconds(file: String, tag: String)
        case mtime
    }

    struct Case {
        var media: String
        var position: Position
        var source: PositionSource?
        var time: Time
        var sidecars: [String] = []
    }

    private var readings: [String: [String: Any]] = [:]

    override func setUpWithError() throws {
        readings = try exifToolReadings("exiftool-media.json", madeBy: "scripts/fixtures-media", minimum: 61)
        // Git does not keep mtimes: give every fixture the one fixtures-media sets.
        for dir in ["Fixtures/formats/video", "Fixtures/formats/sidecars/xmp", "Fixtures/formats/sidecars/takeout"] {
            let path = repoRoot().appendingPathComponent(dir).path
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                try? FileManager.default.setAttributes([.modificationDate: mtime],
                                                       ofItemAtPath: path + "/" + name)
            }
        }
    }

    static let video = "Fixtures/formats/video/"
    static let xmp = "Fixtures/formats/sidecars/xmp/"
    static let takeout = "Fixtures/formats/sidecars/takeout/"

    let videoCases: [Case] = {
        let v = video
        func keys(_ f: String) -> Position { .coordinates(file: v + f, tag: "Keys:GPSCoordinates") }
        func creation(_ f: String, _ s: TimeSource = .isoWithOffset) -> Time { .text(file: v + f, tag: "Keys:CreationDate", s) }
        func mvhd(_ f: String) -> Time { .text(file: v + f, tag: "QuickTime:CreateDate", .containerUTC) }
        let qt = PositionSource.quickTime
        return [
            Case(media: "keys-and-xyz.mov", position: keys("keys-and-xyz.mov"), source: qt, time: .mtime),
            Case(media: "keys-apple-meta.mov", position: keys("keys-apple-meta.mov"), source: qt,
                 time: creation("keys-apple-meta.mov")),
            Case(media: "keys-date-colon.mov", position: keys("keys-date-colon.mov"), source: qt,
                 time: creation("keys-date-colon.mov")),
            Case(media: "keys-date-no-zone.mov", position: keys("keys-date-no-zone.mov"), source: qt,
                 time: creation("keys-date-no-zone.mov", .assumedZone)),
            Case(media: "keys-date-utc.mov", position: keys("keys-date-utc.mov"), source: qt,
                 time: creation("keys-date-utc.mov")),
            Case(media: "keys-faststart.mp4", position: keys("keys-faststart.mp4"), source: qt,
                 time: creation("keys-faststart.mp4")),
            Case(media: "keys-garbage.mov", position: .issue("malformed ISO 6709 location"), source: nil, time: .mtime),
            Case(media: "keys-iso6709-dm.mov", position: keys("keys-iso6709-dm.mov"), source: qt, time: .mtime),
            Case(media: "keys-iso6709-dms.mov", position: keys("keys-iso6709-dms.mov"), source: qt, time: .mtime),
            Case(media: "keys-iso6709-unpadded.mov", position: keys("keys-iso6709-unpadded.mov"), source: qt, time: .mtime),
            Case(media: "keys-moov-last.mov", position: keys("keys-moov-last.mov"), source: qt,
                 time: creation("keys-moov-last.mov")),
            Case(media: "keys-moov-last.mp4", position: keys("keys-moov-last.mp4"), source: qt,
                 time: creation("keys-moov-last.mp4")),
            Case(media: "keys-zero-zero.mov", position: .issue(GPSConversion.Issue.nullIsland), source: nil, time: .mtime),
            Case(media: "keys.m4v", position: keys("keys.m4v"), source: qt, time: creation("keys.m4v")),
            // ExifTool prints loci positions with 5 decimals; 16.16 fixed point is 1.5e-5° per step.
            Case(media: "loci.3gp", position: .tags(file: v + "loci.3gp", lat: "Composite:GPSLatitude",
                                                     lon: "Composite:GPSLongitude", alt: "Composite:GPSAltitude",
                                                     accuracy: 1e-5), source: qt, time: .mtime),
            Case(media: "loci.mp4", position: .tags(file: v + "loci.mp4", lat: "Composite:GPSLatitude",
                                                     lon: "Composite:GPSLongitude", alt: nil, accuracy: 1e-5),
                 source: qt, time: .mtime),
            Case(media: "mdat-64bit.mp4", position: keys("mdat-64bit.mp4"), source: qt, time: .mtime),
            Case(media: "mvhd-1970-epoch.mov", position: .none, source: nil, time: mvhd("mvhd-1970-epoch.mov")),
            Case(media: "mvhd-only.mp4", position: .none, source: nil, time: mvhd("mvhd-only.mp4")),
            Case(media: "mvhd-v1.mov", position: .coordinates(file: v + "mvhd-v1.mov", tag: "UserData:GPSCoordinates"),
                 source: qt, time: mvhd("mvhd-v1.mov")),
            Case(media: "no-metadata.mp4", position: .none, source: nil, time: .mtime),
            Case(media: "size0-last-mdat.mp4", position: keys("size0-last-mdat.mp4"), source: qt, time: .mtime),
            // ExifTool 12.57 reads nothing when moov has size 0; the file's ©xyz is +37.4219-122.0840/.
            Case(media: "size0-last-moov.mov", position: .value(37.4219, -122.084), source: qt, time: .mtime),
            Case(media: "xmp-udta-and-xyz.mov", position: .tags(file: v + "xmp-udta-and-xyz.mov", lat: "XMP-exif:GPSLatitude",
                                                                 lon: "XMP-exif:GPSLongitude", alt: nil, accuracy: 1e-6),
                 source: PositionSource.xmp, time: .mtime),
            Case(media: "xmp-uuid.mp4", position: .tags(file: v + "xmp-uuid.mp4", lat: "XMP-exif:GPSLatitude",
                                                         lon: "XMP-exif:GPSLongitude", alt: nil, accuracy: 1e-6),
                 source: PositionSource.xmp,
                 time: .text(file: v + "xmp-uuid.mp4", tag: "XMP-exif:DateTimeOriginal", .isoWithOffset)),
            Case(media: "xyz-android.mov", position: .coordinates(file: v + "xyz-android.mov", tag: "UserData:GPSCoordinates"),
                 source: qt, time: mvhd("xyz-android.mov")),
            Case(media: "xyz-itemlist.mp4", position: .coordinates(file: v + "xyz-itemlist.mp4", tag: "ItemList:GPSCoordinates"),
                 source: qt, time: .mtime),
            Case(media: "xyz-userdata.mp4", position: .coordinates(file: v + "xyz-userdata.mp4", tag: "UserData:GPSCoordinates"),
                 source: qt, time: mvhd("xyz-userdata.mp4")),
        ]
    }()

    let sidecarCases: [Case] = {
        let x = xmp, t = takeout
        func xmpPos(_ f: String) -> Position {
            .tags(file: x + f, lat: "XMP-exif:GPSLatitude", lon: "XMP-exif:GPSLongitude", alt: nil, accuracy: 1e-6)
        }
        func geo(_ f: String, exifCopy: Bool = false) -> Position {
            let prefix = exifCopy ? "JSON:GeoDataExif" : "JSON:GeoData"
            return .tags(file: t + f, lat: prefix + "Latitude", lon: prefix + "Longitude", alt: nil, accuracy: 1e-9)
        }
        func taken(_ f: String) -> Time { .seconds(file: t + f, tag: "JSON:PhotoTakenTimeTimestamp") }
        let sidecar = PositionSource.xmpSidecar, takeoutSource = PositionSource.takeout
        let n30 = "PXL_20230714_081112000.MP1.jpg"
        let n43 = "PXL_20230714_081112000.NIGHT.PORTRAIT-1.jpg"
        let n47 = "PXL_20230714_081112000.NIGHT.PORTRAIT-01234.jpg"
        return [
            Case(media: x + "IMG_0001.jpg", position: xmpPos("IMG_0001.xmp"), source: sidecar,
                 time: .exif(file: x + "IMG_0001.jpg"), sidecars: ["IMG_0001.xmp"]),
            Case(media: x + "IMG_0002.JPG", position: xmpPos("IMG_0002.JPG.xmp"), source: sidecar,
                 time: .exif(file: x + "IMG_0002.JPG"), sidecars: ["IMG_0002.JPG.xmp"]),
            Case(media: x + "IMG_0003.jpg", position: xmpPos("IMG_0003.xmp"), source: sidecar,
                 time: .exif(file: x + "IMG_0003.jpg"), sidecars: ["IMG_0003.xmp"]),
            Case(media: x + "IMG_0004.jpg", position: xmpPos("IMG_0004.jpg.xmp"), source: sidecar,
                 time: .exif(file: x + "IMG_0004.jpg"), sidecars: ["IMG_0004.jpg.xmp", "IMG_0004.xmp"]),
            Case(media: x + "IMG_0005.jpg", position: xmpPos("IMG_0005.xmp"), source: sidecar,
                 time: .text(file: x + "IMG_0005.xmp", tag: "XMP-exif:DateTimeOriginal", .isoWithOffset),
                 sidecars: ["IMG_0005.xmp"]),
            Case(media: x + "IMG_0006.jpg", position: .none, source: nil,
                 time: .text(file: x + "IMG_0006.xmp", tag: "XMP-photoshop:DateCreated", .assumedZone),
                 sidecars: ["IMG_0006.xmp"]),
            Case(media: x + "embedded-xmp-gps.jpg", position: xmpPos("embedded-xmp-gps.jpg"),
                 source: PositionSource.xmp, time: .exif(file: x + "embedded-xmp-gps.jpg")),
            Case(media: x + "embedded-xmp-and-exif.jpg",
                 position: .tags(file: x + "embedded-xmp-and-exif.jpg", lat: "Composite:GPSLatitude",
                                 lon: "Composite:GPSLongitude", alt: nil, accuracy: 1e-6),
                 source: PositionSource.exif, time: .exif(file: x + "embedded-xmp-and-exif.jpg")),
            Case(media: x + "embedded-xmp-date.jpg", position: .none, source: nil,
                 time: .text(file: x + "embedded-xmp-date.jpg", tag: "XMP-xmp:CreateDate", .isoWithOffset)),

            Case(media: t + "IMG_1001.jpg", position: geo("IMG_1001.jpg.json"), source: takeoutSource,
                 time: taken("IMG_1001.jpg.json"), sidecars: ["IMG_1001.jpg.json"]),
            Case(media: t + "IMG_1002.jpg", position: geo("IMG_1002.jpg.supplemental-metadata.json"), source: takeoutSource,
                 time: taken("IMG_1002.jpg.supplemental-metadata.json"), sidecars: ["IMG_1002.jpg.supplemental-metadata.json"]),
            Case(media: t + "IMG_1003.jpg", position: geo("IMG_1003.jpg.supplemental-metadata.json"), source: takeoutSource,
                 time: taken("IMG_1003.jpg.supplemental-metadata.json"), sidecars: ["IMG_1003.jpg.supplemental-metadata.json"]),
            Case(media: t + "IMG_1003(1).jpg", position: geo("IMG_1003.jpg.supplemental-metadata(1).json"),
                 source: takeoutSource, time: taken("IMG_1003.jpg.supplemental-metadata(1).json"),
                 sidecars: ["IMG_1003.jpg.supplemental-metadata(1).json"]),
            Case(media: t + "IMG_1004.jpg", position: geo("IMG_1004.jpg.json"), source: takeoutSource,
                 time: taken("IMG_1004.jpg.json"), sidecars: ["IMG_1004.jpg.json"]),
            Case(media: t + "IMG_1004(1).jpg", position: geo("IMG_1004.jpg(1).json"), source: takeoutSource,
                 time: taken("IMG_1004.jpg(1).json"), sidecars: ["IMG_1004.jpg(1).json"]),
            Case(media: t + "IMG_1005.jpg", position: geo("IMG_1005.jpg.supplemental-metadata.json"), source: takeoutSource,
                 time: taken("IMG_1005.jpg.supplemental-metadata.json"), sidecars: ["IMG_1005.jpg.supplemental-metadata.json"]),
            Case(media: t + "IMG_1005-edited.jpg", position: geo("IMG_1005.jpg.supplemental-metadata.json"),
                 source: takeoutSource, time: taken("IMG_1005.jpg.supplemental-metadata.json"),
                 sidecars: ["IMG_1005.jpg.supplemental-metadata.json"]),
            Case(media: t + "IMG_1006.jpg", position: .none, source: nil,
                 time: taken("IMG_1006.jpg.supplemental-metadata.json"), sidecars: ["IMG_1006.jpg.supplemental-metadata.json"]),
            Case(media: t + "IMG_1007.jpg", position: geo("IMG_1007.jpg.supplemental-metadata.json"), source: takeoutSource,
                 time: .exif(file: t + "IMG_1007.jpg"), sidecars: ["IMG_1007.jpg.supplemental-metadata.json"]),
            Case(media: t + "IMG_1008.jpg", position: geo("IMG_1008.jpg.supplemental-metadata.json", exifCopy: true),
                 source: takeoutSource, time: taken("IMG_1008.jpg.supplemental-metadata.json"),
                 sidecars: ["IMG_1008.jpg.supplemental-metadata.json"]),
            Case(media: t + "IMG_1011.jpg",
                 position: .tags(file: t + "IMG_1011.jpg", lat: "Composite:GPSLatitude", lon: "Composite:GPSLongitude",
                                 alt: nil, accuracy: 1e-6),
                 source: PositionSource.exif, time: .exif(file: t + "IMG_1011.jpg"),
                 sidecars: ["IMG_1011.jpg.supplemental-metadata.json"]),
            // IMG_1009.json is a candidate (extension-less name) but its title names the MP4.
            Case(media: t + "IMG_1009.jpg", position: .none, source: nil, time: .mtime, sidecars: ["IMG_1009.json"]),
            Case(media: t + "IMG_1009.mp4", position: geo("IMG_1009.json"), source: takeoutSource,
                 time: taken("IMG_1009.json"), sidecars: ["IMG_1009.json"]),
            // mvhd (step 4, the file) beats photoTakenTime (step 4, Takeout) on the tie.
            Case(media: t + "VID_1010.mp4", position: geo("VID_1010.mp4.supplemental-metadata.json"), source: takeoutSource,
                 time: .text(file: t + "VID_1010.mp4", tag: "QuickTime:CreateDate", .containerUTC),
                 sidecars: ["VID_1010.mp4.supplemental-metadata.json"]),
            Case(media: t + n30, position: geo(n30 + ".supplemental-me.json"), source: takeoutSource,
                 time: taken(n30 + ".supplemental-me.json"), sidecars: [n30 + ".supplemental-me.json"]),
            Case(media: t + n43, position: geo(n43 + ".su.json"), source: takeoutSource,
                 time: taken(n43 + ".su.json"), sidecars: [n43 + ".su.json"]),
            Case(media: t + n47, position: geo(String(n47.prefix(46)) + ".json"), source: takeoutSource,
                 time: taken(String(n47.prefix(46)) + ".json"), sidecars: [String(n47.prefix(46)) + ".json"]),
        ]
    }()

    // MARK: Tests

    func testVideosAgainstExifTool() throws {
        let dir = repoRoot().appendingPathComponent(Self.video).path
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        XCTAssertEqual(Set(names), Set(videoCases.map(\.media)), "every video fixture has a case, and only those")
        for c in videoCases {
            let m = try XCTUnwrap(MetadataReader.read(path: RawPath(dir + "/" + c.media), modificationTime: mtime,
                                                      options: optionsUTC), c.media)
            XCTAssertEqual(m.format.rawValue, "quicktime", c.media)
            try check(m, c, label: c.media)
            XCTAssertNotNil(m.metadataDigest, c.media)
        }
    }

    func testSidecarFixturesAgainstExifTool() throws {
        for c in sidecarCases {
            let url = repoRoot().appendingPathComponent(c.media)
            let dir = url.deletingLastPathComponent().path
            let siblings = try FileManager.default.contentsOfDirectory(atPath: dir).map { Array($0.utf8) }
            let matched = Sidecars.match(mediaName: Array(url.lastPathComponent.utf8), siblings: siblings)
            XCTAssertEqual(matched.map { String(decoding: $0, as: UTF8.self) }, c.sidecars, c.media)
            let m = try XCTUnwrap(MetadataReader.read(path: RawPath(url.path), modificationTime: mtime, options: optionsUTC,
                                                      sidecars: matched.map { RawPath(dir).appending($0) }), c.media)
            try check(m, c, label: c.media)
        }
    }

    /// Every media file of the sidecar folders has a case.
    func testEverySidecarFolderMediaHasACase() throws {
        for dir in [Self.xmp, Self.takeout] {
            let names = try FileManager.default.contentsOfDirectory(atPath: repoRoot().appendingPathComponent(dir).path)
            let media = names.filter { !Sidecars.isSidecarName(Array($0.utf8)) }.map { dir + $0 }
            XCTAssertEqual(Set(media), Set(sidecarCases.map(\.media).filter { $0.hasPrefix(dir) }), dir)
        }
    }

    /// The truncation loop: every prefix of every video fixture gives a result or a
    /// MetadataError, never a crash; all of the first 512 bytes, ±16 around every box
    /// boundary we can find, a stride elsewhere.
    func testEveryPrefixOfEveryVideoFailsCleanly() throws {
        let dirs = [Self.video, Self.takeout]
        var checked = 0
        for dir in dirs {
            let path = repoRoot().appendingPathComponent(dir).path
            for name in try FileManager.default.contentsOfDirectory(atPath: path).sorted()
            where [".mov", ".mp4", ".m4v", ".3gp"].contains(where: name.hasSuffix) {
                let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path + "/" + name)))
                var lengths = Set(0...min(512, bytes.count))
                for boundary in Self.boxBoundaries(bytes) {
                    for delta in -16...16 where (0...bytes.count).contains(boundary + delta) {
                        lengths.insert(boundary + delta)
                    }
                }
                lengths.formUnion(stride(from: 0, through: bytes.count, by: 7))
                lengths.insert(bytes.count)
                for length in lengths.sorted() {
                    do {
                        _ = try MetadataReader.read(bytes: Array(bytes.prefix(length)), modificationTime: nil,
                                                    options: optionsUTC)
                    } catch is MetadataError {
                    } catch {
                        XCTFail("\(name) prefix \(length): non-MetadataError \(error)")
                    }
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 10_000)
    }

    /// Every video of the fixtures is read with a few KiB at most beyond the first read,
    /// wherever its moov sits.
    func testVideosReadLittle() throws {
        let dir = repoRoot().appendingPathComponent(Self.video).path
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            let (m, read) = try readCounting(RawPath(dir + "/" + name))
            XCTAssertNotNil(m, name)
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: dir + "/" + name)[.size] as? Int)
            XCTAssertLessThanOrEqual(read, max(size, MetadataLimits.firstReadSize) + 8 * 1024, name)
        }
    }

    // MARK: Checking one case

    private func check(_ m: PhotoMetadata, _ c: Case, label: String) throws {
        switch c.position {
        case .coordinates(let file, let tag):
            let text = try XCTUnwrap(reading(file)[tag] as? String, "\(label): \(tag) in \(file)")
            let parts = text.split(separator: " ").compactMap { Double($0) }
            XCTAssertGreaterThanOrEqual(parts.count, 2, label)
            let coordinate = try XCTUnwrap(m.coordinate, "\(label): no position; issue \(m.locationIssue ?? "-")")
            XCTAssertEqual(coordinate.latitude, parts[0], accuracy: 1e-6, label)
            XCTAssertEqual(coordinate.longitude, parts[1], accuracy: 1e-6, label)
            if parts.count > 2 {
                XCTAssertEqual(try XCTUnwrap(m.altitude, label), parts[2], accuracy: 1e-6, label)
            }
        case .tags(let file, let lat, let lon, let alt, let accuracy):
            let entry = try reading(file)
            let expectedLat = try XCTUnwrap(entry[lat] as? Double, "\(label): \(lat) in \(file)")
            let expectedLon = try XCTUnwrap(entry[lon] as? Double, "\(label): \(lon) in \(file)")
            let coordinate = try XCTUnwrap(m.coordinate, "\(label): no position; issue \(m.locationIssue ?? "-")")
            XCTAssertEqual(coordinate.latitude, expectedLat, accuracy: accuracy, label)
            XCTAssertEqual(coordinate.longitude, expectedLon, accuracy: accuracy, label)
            if let alt, let expected = entry[alt] as? Double {
                XCTAssertEqual(try XCTUnwrap(m.altitude, label), expected, accuracy: 1e-3, label)
            }
        case .value(let lat, let lon):
            let coordinate = try XCTUnwrap(m.coordinate, label)
            XCTAssertEqual(coordinate.latitude, lat, accuracy: 1e-9, label)
            XCTAssertEqual(coordinate.longitude, lon, accuracy: 1e-9, label)
        case .none:
            XCTAssertNil(m.coordinate, label)
            XCTAssertNil(m.locationIssue, label)
        case .issue(let issue):
            XCTAssertNil(m.coordinate, label)
            XCTAssertEqual(m.locationIssue, issue, label)
        }
        XCTAssertEqual(m.positionSource, c.source, label)

        switch c.time {
        case .text(let file, let tag, let source):
            let text = try XCTUnwrap(reading(file)[tag] as? String, "\(label): \(tag) in \(file)")
            let expected = try XCTUnwrap(Self.parseExifToolTime(text), "\(label): cannot parse '\(text)'")
            XCTAssertEqual(try XCTUnwrap(m.takenAt, label).timeIntervalSince1970, expected.timeIntervalSince1970,
                           accuracy: 1e-3, label)
            XCTAssertEqual(m.timeSource, source, label)
        case .exif(let file):
            let entry = try reading(file)
            let local = try XCTUnwrap((entry["ExifIFD:DateTimeOriginal"] as? String).flatMap(JPEGFixtureTests.parseExifToolDate), label)
            let offset = try XCTUnwrap((entry["ExifIFD:OffsetTimeOriginal"] as? String).flatMap(JPEGFixtureTests.parseExifToolOffset), label)
            XCTAssertEqual(m.takenAt, local.addingTimeInterval(-Double(offset)), label)
            XCTAssertEqual(m.timeSource, .exifOffset, label)
            XCTAssertEqual(m.utcOffsetSeconds, offset, label)
        case .seconds(let file, let tag):
            let seconds = try XCTUnwrap(reading(file)[tag] as? Double, "\(label): \(tag) in \(file)")
            XCTAssertEqual(m.takenAt, Date(timeIntervalSince1970: seconds), label)
            XCTAssertEqual(m.timeSource, .containerUTC, label)
        case .mtime:
            XCTAssertEqual(m.takenAt, mtime, label)
            XCTAssertEqual(m.timeSource, .fileModification, label)
        }
    }

    private func reading(_ file: String) throws -> [String: Any] {
        try XCTUnwrap(readings[file], "no ExifTool reading for \(file)")
    }

    /// `YYYY:MM:DD HH:MM[:SS[.f]]` then `Z`, `±HH:MM` or nothing (UTC: the readings were made
    /// with TZ=UTC). Foundation Calendar, independent of the readers' parsers.
    static func parseExifToolTime(_ text: String) -> Date? {
        var body = Substring(text)
        var offset = 0
        if body.hasSuffix("Z") {
            body = body.dropLast()
        } else if body.count > 6, let sign = body.dropLast(5).last, sign == "+" || sign == "-",
                  let parsed = JPEGFixtureTests.parseExifToolOffset(String(body.suffix(6))) {
            offset = parsed
            body = body.dropLast(6)
        }
        var fraction = 0.0
        if let dot = body.firstIndex(of: ".") {
            fraction = Double("0" + body[dot...]) ?? 0
            body = body[..<dot]
        }
        let parts = body.split(whereSeparator: { $0 == ":" || $0 == " " }).compactMap { Int($0) }
        guard parts.count >= 5, parts[0] > 0 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: parts[3],
                                        minute: parts[4], second: parts.count > 5 ? parts[5] : 0)
        return calendar.date(from: components)?.addingTimeInterval(fraction - Double(offset))
    }

    /// Start offsets of the top-level boxes and of moov's children (for the truncation loop).
    static func boxBoundaries(_ b: [UInt8]) -> [Int] {
        func u32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        var result: [Int] = []
        func walk(_ start: Int, _ end: Int, depth: Int) {
            var i = start
            while i + 8 <= end, result.count < 500 {
                result.append(i)
                var size = u32(i)
                if size == 1, i + 16 <= end {
                    size = Int(b[(i + 8)..<(i + 16)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & 0x7FFF_FFFF)
                }
                if size == 0 { size = end - i }
                guard size >= 8 else { return }
                let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
                if depth < 3, ["moov", "udta", "meta"].contains(type) { walk(i + 8, min(i + size, end), depth: depth + 1) }
                i += size
            }
            result.append(min(i, end))
        }
        walk(0, b.count, depth: 0)
        return result
    }
}

/// Reads a file through a `FileSource` and reports the bytes read.
func readCounting(_ path: RawPath, options: MetadataOptions = optionsUTC) throws -> (PhotoMetadata?, Int) {
    try withOpenFile(path) { fd, size in
        var source = try FileSource(fd: fd, size: size)
        let m = try MetadataReader.read(source: &source, modificationTime: nil, options: options)
        return (m, source.bytesRead)
    }
}
