import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

final class SidecarTests: XCTestCase {
    private func b(_ s: String) -> [UInt8] { Array(s.utf8) }
    private func match(_ media: String, _ siblings: [String]) -> [String] {
        Sidecars.match(mediaName: b(media), siblings: siblings.map(b)).map { String(decoding: $0, as: UTF8.self) }
    }

    // MARK: Names

    func testIsSidecarName() {
        for yes in ["IMG_0001.xmp", "IMG_0001.XMP", "IMG_0001.CR2.xmp", "photo.jpg.json", "x.JSON",
                    "photo.jpg.supplemental-metadata.json"] {
            XCTAssertTrue(Sidecars.isSidecarName(b(yes)), yes)
        }
        for no in ["IMG_0001.jpg", ".xmp", ".json", "xmp", "photo.jpg.json.jpg", "", "IMG.xmp.mov"] {
            XCTAssertFalse(Sidecars.isSidecarName(b(no)), no)
        }
    }

    func testXMPConventions() {
        let folder = ["IMG_0001.CR2", "IMG_0001.JPG", "IMG_0001.xmp", "IMG_0001.CR2.xmp", "IMG_0001.cr2.XMP",
                      "IMG_00011.xmp", "img_0001.xmp", "IMG_0002.xmp", "IMG_0001.JPG.xmp"]
        // Extension kept (any case) before extension replaced; the stem compares exactly.
        XCTAssertEqual(match("IMG_0001.CR2", folder), ["IMG_0001.CR2.xmp", "IMG_0001.cr2.XMP", "IMG_0001.xmp"])
        XCTAssertEqual(match("IMG_0001.JPG", folder), ["IMG_0001.JPG.xmp", "IMG_0001.xmp"])
        XCTAssertEqual(match("IMG_0002.dng", folder), ["IMG_0002.xmp"])
        XCTAssertEqual(match("IMG_0003.dng", folder), [])
        // A media name without extension.
        XCTAssertEqual(match("scan", ["scan.xmp", "scan.json"]), ["scan.xmp", "scan.json"])
        // A sidecar has no sidecars; the media name itself is not its own sibling.
        XCTAssertEqual(match("IMG_0001.xmp", folder), [])
    }

    func testTakeoutExactNames() {
        let folder = ["photo.jpg", "photo.jpg.json", "photo.jpg.supplemental-metadata.json", "photo(1).jpg",
                      "photo.jpg(1).json", "photo.jpg.supplemental-metadata(1).json", "photo.jpg(2).json",
                      "photo-edited.jpg", "other.jpg.json", "photo.JPG.JSON"]
        XCTAssertEqual(match("photo.jpg", folder),
                       ["photo.JPG.JSON", "photo.jpg.json", "photo.jpg.supplemental-metadata.json"])
        XCTAssertEqual(match("photo(1).jpg", folder), ["photo.jpg(1).json", "photo.jpg.supplemental-metadata(1).json"])
        XCTAssertEqual(match("photo(2).jpg", folder), ["photo.jpg(2).json"])
        XCTAssertEqual(match("photo(3).jpg", folder), [])
        // -edited copies share the original's sidecar (after any of their own).
        XCTAssertEqual(match("photo-edited.jpg", folder + ["photo-edited.jpg.json"]),
                       ["photo-edited.jpg.json", "photo.JPG.JSON", "photo.jpg.json", "photo.jpg.supplemental-metadata.json"])
        XCTAssertEqual(match("photo-EDITED.jpg", folder).count, 3)
        XCTAssertEqual(match("photo(1)-edited.jpg", folder), ["photo.jpg(1).json", "photo.jpg.supplemental-metadata(1).json"])
        // A name that really ends in "(1)" and has its own literal sidecar.
        XCTAssertEqual(match("scan(1).jpg", ["scan(1).jpg.json"]), ["scan(1).jpg.json"])
    }

    func testTakeoutTruncatedNames() throws {
        let n30 = "PXL_20230714_081112000.MP1.jpg"  // 30 + ".supplemental-me" = 46
        let n43 = "PXL_20230714_081112000.NIGHT.PORTRAIT-1.jpg"  // 43 + ".su" = 46
        let n47 = "PXL_20230714_081112000.NIGHT.PORTRAIT-01234.jpg"  // cut to 46: "….jp"
        XCTAssertEqual(n30.count, 30)
        XCTAssertEqual(n43.count, 43)
        XCTAssertEqual(n47.count, 47)
        let folder = [n30, n43, n47, n30 + ".supplemental-me.json", n43 + ".su.json", String(n47.prefix(46)) + ".json",
                      n30 + ".supplemental-me(1).json"]
        XCTAssertEqual(match(n30, folder), [n30 + ".supplemental-me.json"])
        XCTAssertEqual(match(n43, folder), [n43 + ".su.json"])
        XCTAssertEqual(match(n47, folder), [String(n47.prefix(46)) + ".json"])
        let dup = "PXL_20230714_081112000.MP1(1).jpg"
        XCTAssertEqual(match(dup, folder), [n30 + ".supplemental-me(1).json"])
        // The brief's short examples: still matched, as names needing the title check.
        XCTAssertEqual(match("photo.jpg", ["photo.jpg.su.json", "photo.jpg.supplemental-me.json", "photo.jp.json", "photo.json",
                                           "photo.j.json", "phot.json", "photo.jpg..json", "photo.jpgx.json"]),
                       ["photo.j.json", "photo.jp.json", "photo.jpg.su.json", "photo.jpg.supplemental-me.json", "photo.json"])
        for name in ["photo.jpg.su.json", "photo.jp.json", "photo.json"] {
            XCTAssertEqual(Sidecars.classify(sidecarName: b(name), mediaName: b("photo.jpg"))?.needsTitleCheck, true, name)
        }
        XCTAssertEqual(Sidecars.classify(sidecarName: b("photo.jpg.json"), mediaName: b("photo.jpg"))?.needsTitleCheck, false)
        // A live-photo pair shares an extension-less name: both are candidates, the title decides.
        XCTAssertEqual(match("IMG_1.jpg", ["IMG_1.mp4", "IMG_1.json"]), ["IMG_1.json"])
        XCTAssertEqual(match("IMG_1.mp4", ["IMG_1.jpg", "IMG_1.json"]), ["IMG_1.json"])
        XCTAssertEqual(match("IMG_1.jpg", ["IMG_1.mp4.json"]), [])
    }

    func testATakeoutTitleMatchesIgnoringCaseCopyCounterEditedSuffixAndExtension() {
        XCTAssertTrue(Sidecars.titleMatches("photo.jpg", mediaName: b("photo.jpg")))
        XCTAssertTrue(Sidecars.titleMatches("PHOTO.JPG", mediaName: b("photo.jpg")))
        XCTAssertTrue(Sidecars.titleMatches("photo.jpg", mediaName: b("photo(1).jpg")))
        XCTAssertTrue(Sidecars.titleMatches("photo.jpg", mediaName: b("photo-edited.jpg")))
        XCTAssertTrue(Sidecars.titleMatches("photo", mediaName: b("photo.jpg")))
        XCTAssertFalse(Sidecars.titleMatches("photo.mp4", mediaName: b("photo.jpg")))
        XCTAssertFalse(Sidecars.titleMatches("", mediaName: b("photo.jpg")))
        XCTAssertFalse(Sidecars.titleMatches("other.jpg", mediaName: b("photo.jpg")))
    }

    func testNonUTF8Names() {
        let media: [UInt8] = b("caf") + [0xE9] + b(".jpg")
        let xmp: [UInt8] = b("caf") + [0xE9] + b(".xmp")
        let json: [UInt8] = media + b(".json")
        XCTAssertEqual(Sidecars.match(mediaName: media, siblings: [json, xmp, b("cafe.xmp")]), [xmp, json])
    }

    // MARK: Precedence (MetadataMerge)

    let paris = Coordinate(latitude: 48.8584, longitude: 2.2945)
    let london = Coordinate(latitude: 51.5007, longitude: -0.1246)
    let rome = Coordinate(latitude: 41.8902, longitude: 12.4922)
    let tokyo = Coordinate(latitude: 35.6586, longitude: 139.7454)

    private func base(_ coordinate: Coordinate?, _ source: String?, time: TimeSource = .exifOffset,
                      format: FileKind = .jpeg) -> PhotoMetadata {
        // The source by its stored text: an unknown one fails here.
        PhotoMetadata(format: format, coordinate: coordinate, positionSource: source.map { PositionSource(rawValue: $0)! },
                      takenAt: time == .none ? nil : epoch(1_000), utcOffsetSeconds: time == .exifOffset ? 3600 : nil,
                      timeSource: time)
    }

    func testPositionComesFromAnXMPSidecarThenTakeoutGeoDataThenTheFileThenGeoDataExif() {
        let sidecar = XMPValues(coordinate: london)
        let edited = TakeoutValues(geoData: rome, geoDataExif: tokyo)
        let exifCopy = TakeoutValues(geoDataExif: tokyo)
        func merge(_ b: PhotoMetadata, xmp: [XMPValues] = [], takeout: [TakeoutValues] = []) -> (Coordinate?, String?) {
            let m = MetadataMerge.applySidecars(xmp: xmp, takeout: takeout, to: b, modificationTime: nil)
            return (m.coordinate, m.positionSource?.rawValue)
        }
        // 1 XMP sidecar over everything.
        XCTAssertTrue(merge(base(paris, "exif"), xmp: [sidecar], takeout: [edited]) == (london, "xmp-sidecar"))
        // 2 Takeout geoData over embedded Exif.
        XCTAssertTrue(merge(base(paris, "exif"), takeout: [edited]) == (rome, "takeout"))
        // 3–6 the file's own, over geoDataExif.
        for source in ["exif", "xmp", "quicktime"] {
            XCTAssertTrue(merge(base(paris, source), takeout: [exifCopy]) == (paris, source), source)
        }
        // 7 geoDataExif only when nothing else.
        XCTAssertTrue(merge(base(nil, nil), takeout: [exifCopy]) == (tokyo, "takeout"))
        // A sidecar without position does not hide the next source.
        XCTAssertTrue(merge(base(nil, nil), xmp: [XMPValues(locationIssue: "malformed")], takeout: [exifCopy]) == (tokyo, "takeout"))
        // The first sidecar with a position wins (match order: IMG.CR2.xmp, then IMG.xmp).
        XCTAssertTrue(merge(base(nil, nil), xmp: [XMPValues(), XMPValues(coordinate: rome), sidecar]) == (rome, "xmp-sidecar"))
    }

    func testReplacedPositionsAreNoted() {
        var b = base(nil, nil)
        b.locationIssue = GPSConversion.Issue.nullIsland
        let m = MetadataMerge.applySidecars(xmp: [XMPValues(coordinate: london)], takeout: [], to: b, modificationTime: nil)
        XCTAssertNil(m.locationIssue)
        XCTAssertTrue(m.warnings.contains { $0.contains("unusable") })
        let n = MetadataMerge.applySidecars(xmp: [XMPValues(coordinate: london)], takeout: [], to: base(paris, "exif"),
                                            modificationTime: nil)
        XCTAssertTrue(n.warnings.contains { $0.contains("replaces") })
        // Without any position, the sidecar's issue is reported.
        let o = MetadataMerge.applySidecars(xmp: [XMPValues(locationIssue: "malformed XMP GPSLatitude 'x'")], takeout: [],
                                            to: base(nil, nil), modificationTime: nil)
        XCTAssertEqual(o.locationIssue, "malformed XMP GPSLatitude 'x'")
    }

    func testMovieXMPPrecedence() {
        let xmp = XMPValues(coordinate: london, takenAt: epoch(2_000), utcOffsetSeconds: 0, timeSource: .isoWithOffset,
                            timeProperty: "xmp:CreateDate")
        // XMP over the QuickTime atoms, also on a tie.
        let c = MetadataMerge.applyEmbeddedXMP(xmp, toMovie: base(paris, "quicktime", time: .isoWithOffset, format: .quicktime))
        XCTAssertEqual(c.coordinate, london)
        XCTAssertEqual(c.positionSource?.rawValue, "xmp")
        XCTAssertEqual(c.takenAt, epoch(2_000))
        XCTAssertEqual(c.timeTag, "XMP xmp:CreateDate")
        // A better step of the atoms stays.
        let d = MetadataMerge.applyEmbeddedXMP(XMPValues(takenAt: epoch(3), timeSource: .assumedZone),
                                               toMovie: base(nil, nil, time: .containerUTC, format: .quicktime))
        XCTAssertEqual(d.takenAt, epoch(1_000))
        // Any XMP date beats the file's mtime.
        let e = MetadataMerge.applyEmbeddedXMP(XMPValues(takenAt: epoch(3), timeSource: .assumedZone),
                                               toMovie: base(nil, nil, time: .fileModification, format: .quicktime))
        XCTAssertEqual(e.timeSource, .assumedZone)
    }

    func testTimeSourcesRankFromExifWithOffsetDownToTheFileModificationTime() {
        let zoned = XMPValues(takenAt: epoch(2_000), utcOffsetSeconds: 0, timeSource: .isoWithOffset)
        let local = XMPValues(takenAt: epoch(3_000), utcOffsetSeconds: 0, timeSource: .assumedZone)
        let takeout = TakeoutValues(photoTakenTime: epoch(4_000))
        func merge(_ b: PhotoMetadata, xmp: [XMPValues] = [], takeout t: [TakeoutValues] = [],
                   mtime: Date? = epoch(9)) -> (Date?, TimeSource) {
            let m = MetadataMerge.applySidecars(xmp: xmp, takeout: t, to: b, modificationTime: mtime)
            return (m.takenAt, m.timeSource)
        }
        // Exif with its offset (step 1) rules.
        XCTAssertTrue(merge(base(nil, nil, time: .exifOffset), xmp: [zoned], takeout: [takeout]) == (epoch(1_000), .exifOffset))
        // A sidecar XMP date with zone (step 2) beats a GPS-inferred offset (3), an mvhd (4) and
        // a default-zone reading (5), and ties with an embedded ISO date (the sidecar wins).
        for t in [TimeSource.gpsInferredOffset, .containerUTC, .assumedZone, .isoWithOffset] {
            XCTAssertTrue(merge(base(nil, nil, time: t), xmp: [zoned]) == (epoch(2_000), .isoWithOffset), "\(t)")
        }
        // mvhd (the file, step 4) beats Takeout photoTakenTime (step 4).
        XCTAssertTrue(merge(base(nil, nil, time: .containerUTC), takeout: [takeout]) == (epoch(1_000), .containerUTC))
        // Takeout (step 4) beats a wall time read in the default zone (step 5).
        XCTAssertTrue(merge(base(nil, nil, time: .assumedZone), takeout: [takeout]) == (epoch(4_000), .containerUTC))
        // A sidecar XMP without zone ties the Exif default-zone reading and wins (person-edited).
        XCTAssertTrue(merge(base(nil, nil, time: .assumedZone), xmp: [local]) == (epoch(3_000), .assumedZone))
        // Takeout when nothing else; then the mtime.
        XCTAssertTrue(merge(base(nil, nil, time: .fileModification), takeout: [takeout]) == (epoch(4_000), .containerUTC))
        XCTAssertTrue(merge(base(nil, nil, time: .none), takeout: []) == (epoch(9), .fileModification))
        XCTAssertTrue(merge(base(nil, nil, time: .none), takeout: [], mtime: nil) == (nil, .none))
    }

    // MARK: Reading sidecar files

    private var tempDir: URL!

    override func setUpWithError() throws {
        tempDir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-sidecar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tempDir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: tempDir)
    }

    private func write(_ text: String, _ name: String) throws -> RawPath {
        try write(Array(text.utf8), name)
    }

    private func write(_ bytes: [UInt8], _ name: String) throws -> RawPath {
        let url = tempDir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return RawPath(url.path)
    }

    func testReadWithSidecars() throws {
        let photo = try write(Samples.exiftoolJPEG, "IMG_1234.jpg")  // Exif: -48.85833, -2.2945
        let xmp = try write(XMPTests.packet(attributes: "exif:GPSLatitude='10,30N' exif:GPSLongitude='20,15W'"), "IMG_1234.xmp")
        let json = try write(TakeoutTests.sidecar(geo: (1, 2)), "IMG_1234.jpg.json")
        let mtime = epoch(1_735_646_400)
        let m = try XCTUnwrap(MetadataReader.read(path: photo, modificationTime: mtime, options: optionsUTC, sidecars: [xmp, json]))
        XCTAssertEqual(m.coordinate, Coordinate(latitude: 10.5, longitude: -20.25))
        XCTAssertEqual(m.positionSource?.rawValue, "xmp-sidecar")
        XCTAssertEqual(m.timeSource, .exifOffset)
        let n = try XCTUnwrap(MetadataReader.read(path: photo, modificationTime: mtime, options: optionsUTC, sidecars: [json]))
        XCTAssertEqual(n.coordinate, Coordinate(latitude: 1, longitude: 2))
        XCTAssertEqual(n.positionSource?.rawValue, "takeout")
        // No sidecars: exactly the plain overload.
        XCTAssertEqual(try MetadataReader.read(path: photo, modificationTime: mtime, options: optionsUTC, sidecars: []),
                       try MetadataReader.read(path: photo, modificationTime: mtime, options: optionsUTC))
    }

    func testBadSidecarsAreWarningsOnly() throws {
        let photo = try write(Samples.exiftoolJPEG, "IMG_1234.jpg")
        let garbage = try write("not xml at all", "IMG_1234.xmp")
        let notJSON = try write("{ nope", "IMG_1234.jpg.json")
        let missing = RawPath(tempDir.appendingPathComponent("IMG_1234.jpg.supplemental-metadata.json").path)
        let wrongTitle = try write(TakeoutTests.sidecar(title: "IMG_1234.mp4", geo: (1, 2)), "IMG_1234.json")
        let m = try XCTUnwrap(MetadataReader.read(path: photo, modificationTime: epoch(5), options: optionsUTC,
                                                  sidecars: [garbage, notJSON, wrongTitle]))
        XCTAssertEqual(m.positionSource?.rawValue, "exif")
        XCTAssertEqual(try XCTUnwrap(m.coordinate).latitude, -48.85833, accuracy: 1e-6)
        XCTAssertEqual(m.warnings.filter { $0.hasPrefix("sidecar ") }.count, 3, "\(m.warnings)")
        // A sidecar listed with the photo and gone before its read is no warning: the photo is
        // not decided this run (FileLost), and the next run reads it with what is there then
        // (issue 22 item 1).
        XCTAssertThrowsError(try MetadataReader.read(path: photo, modificationTime: epoch(5), options: optionsUTC,
                                                     sidecars: [garbage, missing])) { error in
            XCTAssertTrue(error is FileLost, "\(error)")
        }
        XCTAssertTrue(m.warnings.contains { $0.contains("does not name this file") })
        // An oversized sidecar is refused without being read.
        let big = try write([UInt8](repeating: 0x20, count: MetadataLimits.maxTakeoutJSONBytes + 1), "IMG_1234.jpg.supplemental-metadata.json")
        let n = try XCTUnwrap(MetadataReader.read(path: photo, modificationTime: epoch(5), options: optionsUTC, sidecars: [big]))
        XCTAssertTrue(n.warnings.contains { $0.contains("over limit") }, "\(n.warnings)")
        // Not media: nil, whatever the sidecars.
        let text = try write("hello", "notes.txt")
        XCTAssertNil(try MetadataReader.read(path: text, modificationTime: epoch(5), options: optionsUTC, sidecars: [garbage]))
    }

    func testTruncatedNameConfirmedByTitle() throws {
        let photo = try write(TestJPEG.file(TestJPEG.app0JFIF), "photo.jpg")
        let good = try write(TakeoutTests.sidecar(title: "photo.jpg", geo: (1, 2)), "photo.jp.json")
        let m = try XCTUnwrap(MetadataReader.read(path: photo, modificationTime: epoch(5), options: optionsUTC, sidecars: [good]))
        XCTAssertEqual(m.coordinate, Coordinate(latitude: 1, longitude: 2))
        XCTAssertEqual(m.takenAt, epoch(1_521_408_455))
        XCTAssertEqual(m.timeSource, .containerUTC)
        let bad = try write(TakeoutTests.sidecar(title: "photo.jpeg", geo: (1, 2)), "photo.json")
        let n = try XCTUnwrap(MetadataReader.read(path: photo, modificationTime: epoch(5), options: optionsUTC, sidecars: [bad]))
        XCTAssertNil(n.coordinate)
        XCTAssertEqual(n.timeSource, .fileModification)
    }
}

private func == (a: (Coordinate?, String?), b: (Coordinate?, String?)) -> Bool { a.0 == b.0 && a.1 == b.1 }
private func == (a: (Date?, TimeSource), b: (Date?, TimeSource)) -> Bool { a.0 == b.0 && a.1 == b.1 }
