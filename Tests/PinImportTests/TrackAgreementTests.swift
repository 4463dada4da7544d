import Foundation
@testable import PinCore
@testable import PinFormats
@testable import PinImport
@testable import PinMetadata
import TestSupport
import XCTest

/// Issue 29 item 5: on the same photos and the same track, the position pins gives each photo
/// equals the one `exiftool -geotag` writes (read back with exiftool), within 1e-6°, and pins
/// gives none where exiftool writes none. The photos and tracks are Fixtures/tracks, made by
/// scripts/fixtures-tracks (ImageMagick, exiftool, gpsbabel; the hand-written GPX validated by
/// xmllint); exiftool runs here, on copies, every time the tests run.
///
/// exiftool's `-geotag` reads DateTimeOriginal in the system zone (TZ) unless told to use
/// another tag: the photos with OffsetTimeOriginal are given `-Geotime<SubSecDateTimeOriginal`
/// (the composite with the offset and sub-seconds, what pins reads), the camera without an
/// offset runs with TZ=America/New_York (pins: `--camera-timezone America/New_York`), the camera
/// clock 100 s fast with `-geosync=-100` (pins: `--camera-clock-offset -100`).
final class TrackAgreementTests: XCTestCase {
    static let fixtures = Repository.url("Fixtures/tracks")

    struct Case {
        var folder: String
        var track: String
        var exiftoolArgs: [String]
        var tz: String
        var options: TrackOptions
        /// What exiftool reads when it does not read `track`'s format: the same fixes as a GPX or
        /// KML (made by a real tool from `track`, or the file `track` was made from). Nil: `track`.
        var reference: URL? = nil
    }

    @discardableResult
    private func run(_ args: [String], tz: String = "UTC", in dir: URL) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        p.currentDirectoryURL = dir
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = tz
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return data
    }

    private func exiftoolPositions(_ c: Case, work: URL) throws -> [String: Coordinate?] {
        let dir = work.appendingPathComponent(c.folder)
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(c.folder), to: dir)
        let track = c.reference?.path ?? Self.fixtures.appendingPathComponent(c.track).path
        try run(["exiftool", "-q", "-q", "-m", "-overwrite_original", "-geotag", track] + c.exiftoolArgs + [dir.path],
                tz: c.tz, in: work)
        let json = try run(["exiftool", "-j", "-n", "-Composite:GPSLatitude", "-Composite:GPSLongitude", dir.path], in: work)
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [[String: Any]])
        var out: [String: Coordinate?] = [:]
        for e in entries {
            let name = URL(fileURLWithPath: try XCTUnwrap(e["SourceFile"] as? String)).lastPathComponent
            if let lat = e["GPSLatitude"] as? Double, let lon = e["GPSLongitude"] as? Double {
                out[name] = Coordinate(latitude: lat, longitude: lon)
            } else {
                out[name] = .some(nil)
            }
        }
        return out
    }

    private func assertAgreement(_ c: Case, expectPlaced: Int, expectUnplaced: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pins-tracks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let reference = try exiftoolPositions(c, work: work)
        XCTAssertFalse(reference.isEmpty, "exiftool read no photo", file: file, line: line)
        var options = c.options
        options.paths = [Self.fixtures.appendingPathComponent(c.track).path]
        let tracks = TrackSet.load(options)
        XCTAssertNil(tracks.files.first?.error, file: file, line: line)
        var placed = 0, unplaced = 0
        for (name, want) in reference.sorted(by: { $0.key < $1.key }) {
            // pins reads the original photo (exiftool wrote into the copy).
            let path = Self.fixtures.appendingPathComponent(c.folder).appendingPathComponent(name).path
            let metadata = try XCTUnwrap(MetadataReader.read(path: RawPath(path), modificationTime: Date(),
                                                             options: MetadataOptions(defaultTimeZone: options.cameraTimeZone ?? TimeZone(identifier: "UTC")!,
                                                                                      cameraClockOffset: options.clockOffset)))
            XCTAssertNil(metadata.coordinate, "\(name) has no GPS of its own", file: file, line: line)
            let got = tracks.place(metadata)
            if let want {
                placed += 1
                guard let c = got.coordinate else {
                    XCTFail("\(name): exiftool wrote \(want), pins: \(got.reason ?? "-")", file: file, line: line)
                    continue
                }
                XCTAssertEqual(c.latitude, want.latitude, accuracy: 1e-6, "\(name) latitude", file: file, line: line)
                XCTAssertEqual(c.longitude, want.longitude, accuracy: 1e-6, "\(name) longitude", file: file, line: line)
                XCTAssertEqual(got.file, options.paths[0], file: file, line: line)
            } else {
                unplaced += 1
                XCTAssertNil(got.coordinate, "\(name): exiftool wrote no position, pins gave one", file: file, line: line)
                XCTAssertNotNil(got.reason, file: file, line: line)
            }
        }
        // The fixtures cover both outcomes (a test that cannot fail is a defect).
        XCTAssertEqual(placed, expectPlaced, "photos exiftool placed", file: file, line: line)
        XCTAssertEqual(unplaced, expectUnplaced, "photos exiftool left without a position", file: file, line: line)
    }

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else {
            XCTFail("exiftool is missing: scripts/setup installs libimage-exiftool-perl")
            throw SetupFailed()
        }
    }

    /// On a fix, between fixes (and with sub-seconds), across gaps of 1799 s and 1801 s, before
    /// the first and after the last fix, across a new track segment, inside a wide gap.
    func testPhotosWithOffsetsAgreeWithExiftool() throws {
        try assertAgreement(Case(folder: "offset", track: "segments.gpx", exiftoolArgs: ["-Geotime<SubSecDateTimeOriginal"],
                                 tz: "UTC", options: TrackOptions()), expectPlaced: 9, expectUnplaced: 3)
    }

    func testACameraClockOffsetAgreesWithExiftoolsGeosync() throws {
        var options = TrackOptions()
        options.clockOffset = -100
        try assertAgreement(Case(folder: "clock", track: "segments.gpx",
                                 exiftoolArgs: ["-Geotime<SubSecDateTimeOriginal", "-Geosync=-100"], tz: "UTC", options: options),
                            expectPlaced: 1, expectUnplaced: 0)
    }

    func testACameraWithoutAnOffsetInAnotherZoneAgreesWithExiftool() throws {
        var options = TrackOptions()
        options.cameraTimeZone = TimeZone(identifier: "America/New_York")
        try assertAgreement(Case(folder: "local", track: "segments.gpx", exiftoolArgs: [], tz: "America/New_York", options: options),
                            expectPlaced: 2, expectUnplaced: 0)
    }

    /// gpsbabel's GPX 1.1 track across the antimeridian (179.5 E to 179.5 W).
    func testATrackAcrossTheAntimeridianAgreesWithExiftool() throws {
        try assertAgreement(Case(folder: "antimeridian", track: "gpsbabel-antimeridian.gpx",
                                 exiftoolArgs: ["-Geotime<SubSecDateTimeOriginal"], tz: "UTC", options: TrackOptions()),
                            expectPlaced: 3, expectUnplaced: 0)
    }

    // MARK: The other formats (the same fixes as segments.gpx, written by scripts/fixtures-tracks)

    /// `tool args...` in `work`, failing the test when it fails; returns `work/name`.
    private func convert(_ args: [String], output name: String, in work: URL, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = args
        p.currentDirectoryURL = work
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "\(args.joined(separator: " ")) failed", file: file, line: line)
        return work.appendingPathComponent(name)
    }

    private func scratch() throws -> URL {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pins-ref-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: work) }
        return work
    }

    private func offsetCase(_ track: String, reference: URL?) -> Case {
        Case(folder: "offset", track: track, exiftoolArgs: ["-Geotime<SubSecDateTimeOriginal"], tz: "UTC", options: TrackOptions(),
             reference: reference)
    }

    /// KMZ: exiftool reads KML, not KMZ: it reads the doc.kml unzipped from the same archive.
    func testKMZAgreesWithExiftoolOnItsDocKML() throws {
        let work = try scratch()
        let kml = try convert(["unzip", "-q", Self.fixtures.appendingPathComponent("gpsbabel-segments.kmz").path, "doc.kml", "-d", work.path],
                              output: "doc.kml", in: work)
        try assertAgreement(offsetCase("gpsbabel-segments.kmz", reference: kml), expectPlaced: 9, expectUnplaced: 3)
    }

    /// GeoJSON points (ogr2ogr): exiftool reads the GPX ogr2ogr writes back from the same file.
    func testGeoJSONPointsAgreeWithExiftoolOnTheirGPX() throws {
        let work = try scratch()
        let gpx = try convert(["ogr2ogr", "-f", "GPX", "back.gpx", Self.fixtures.appendingPathComponent("ogr2ogr-track-points.geojson").path],
                              output: "back.gpx", in: work)
        try assertAgreement(offsetCase("ogr2ogr-track-points.geojson", reference: gpx), expectPlaced: 9, expectUnplaced: 3)
    }

    /// CSV with X, Y and GDAL's time (ogr2ogr): exiftool reads the GPX ogr2ogr writes from it
    /// (the time column typed as a date by AUTODETECT_TYPE, as the GPX driver needs).
    func testOgr2ogrCSVAgreesWithExiftoolOnItsGPX() throws {
        let work = try scratch()
        let gpx = try convert(["ogr2ogr", "-f", "GPX", "back.gpx", Self.fixtures.appendingPathComponent("ogr2ogr-track-points.csv").path,
                               "-oo", "X_POSSIBLE_NAMES=X", "-oo", "Y_POSSIBLE_NAMES=Y", "-oo", "AUTODETECT_TYPE=YES"],
                              output: "back.gpx", in: work)
        try assertAgreement(offsetCase("ogr2ogr-track-points.csv", reference: gpx), expectPlaced: 9, expectUnplaced: 3)
    }

    /// CSV with Date and Time columns (gpsbabel's unicsv): exiftool reads this CSV itself.
    func testGpsbabelCSVAgreesWithExiftoolReadingTheSameCSV() throws {
        try assertAgreement(offsetCase("gpsbabel-unicsv.csv", reference: nil), expectPlaced: 9, expectUnplaced: 3)
    }

    /// OwnTracks .rec and togeojson's LineString: no Debian tool reads or writes them; they were
    /// written by scripts/fixtures-tracks from segments.gpx's points, which exiftool reads.
    func testOwnTracksAndCoordTimesAgreeWithExiftoolOnTheGPXTheyWereWrittenFrom() throws {
        let gpx = Self.fixtures.appendingPathComponent("segments.gpx")
        try assertAgreement(offsetCase("owntracks.rec", reference: gpx), expectPlaced: 9, expectUnplaced: 3)
        try assertAgreement(offsetCase("togeojson-linestring.geojson", reference: gpx), expectPlaced: 9, expectUnplaced: 3)
    }

    /// Hand-worked, so the agreement above is not only two programs agreeing with each other.
    func testHandWorkedPositionsOfTheFixtures() throws {
        var options = TrackOptions()
        options.paths = [Self.fixtures.appendingPathComponent("segments.gpx").path]
        let tracks = TrackSet.load(options)
        XCTAssertEqual(tracks.files.first?.points, 6)
        XCTAssertEqual(tracks.files.first?.notes, "1 point without a time ignored")
        func at(_ iso: String) -> TrackPlacement {
            let t = try! XCTUnwrap(TrackTime.parse(iso))
            var m = PhotoMetadata(format: .jpeg, takenAt: Date(timeIntervalSince1970: t), utcOffsetSeconds: 0, timeSource: .exifOffset)
            m.timeTag = "DateTimeOriginal"
            return tracks.place(m)
        }
        // 10:03:20Z: a third of the way from F1 (48.0, 2.0) to F2 (48.1, 2.2), 200 s from F1.
        let a = at("2024-05-01T10:03:20Z")
        XCTAssertEqual(a.coordinate!.latitude, 48.0 + 0.1 / 3, accuracy: 1e-12)
        XCTAssertEqual(a.coordinate!.longitude, 2.0 + 0.2 / 3, accuracy: 1e-12)
        XCTAssertEqual(a.secondsToNearestFix, 200)
        // 11:15:00Z: halfway across the segment break, F4 (48.3, 2.5) to F5 (48.4, 2.6).
        let b = at("2024-05-01T11:15:00Z")
        XCTAssertEqual(b.coordinate!.latitude, 48.35, accuracy: 1e-12)
        XCTAssertEqual(b.coordinate!.longitude, 2.55, accuracy: 1e-12)
        XCTAssertEqual(at("2024-05-01T13:40:00Z").reason, "nearest track fix 40 min away (after the track)")
        XCTAssertEqual(at("2024-05-01T12:10:00Z").reason, "nearest track fix 50 min away (in a gap of the track)")
    }
}

/// Ends a test after the XCTFail that says why (a machine that cannot run it is a failure, not a skip).
private struct SetupFailed: Error {}
