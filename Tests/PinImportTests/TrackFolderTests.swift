import Foundation
@testable import PinCore
@testable import PinFormats
@testable import PinImport
import TestSupport
import XCTest

/// `--track DIR` (issue 29): the folder is walked for track files of every format, found by their
/// content whatever their name; its other CSV and JSON files are passed over; a track file that
/// cannot be read is named with why, and the others are used.
final class TrackFolderTests: XCTestCase {
    static let fixtures = Repository.url("Fixtures/tracks")

    func folder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-trackdir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("phone/2024"), withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        func copy(_ fixture: String, _ to: String) throws {
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(fixture), to: dir.appendingPathComponent(to))
        }
        try copy("owntracks.rec", "phone/2024/2024-05.txt")            // OwnTracks, by content
        try copy("ogr2ogr-track-points.geojson", "points.json")        // GeoJSON, by content
        try copy("gpsbabel-segments.kmz", "phone/trip.kmz")            // KMZ, by name and content
        try copy("gpsbabel-unicsv.csv", "logger.csv")                  // a CSV track
        try copy("segments.gpx", "export")                             // GPX without an extension
        try copy("offset/on-fix.jpg", "photo.jpg")                     // not a track
        try Data("name,lat,lon\nParis,48.85,2.35\n".utf8).write(to: dir.appendingPathComponent("places.csv"))  // a CSV of places
        try Data(#"{"title": "IMG_1.jpg", "geoData": {"latitude": 0}}"#.utf8).write(to: dir.appendingPathComponent("IMG_1.jpg.json"))
        try Data("PK\u{3}\u{4} not really a zip".utf8).write(to: dir.appendingPathComponent("damaged.kmz"))  // 4 + 17 bytes
        return dir
    }

    func testAFolderIsWalkedForEveryFormatByContentAndAFileThatCannotBeReadIsNamed() throws {
        let dir = try folder()
        var options = TrackOptions()
        options.paths = [dir.path]
        let set = TrackSet.load(options)
        let byName = Dictionary(uniqueKeysWithValues: set.files.map { (String($0.path.dropFirst(dir.path.count + 1)), $0) })
        XCTAssertEqual(byName.keys.sorted(), ["damaged.kmz", "export", "logger.csv", "phone/2024/2024-05.txt", "phone/trip.kmz", "points.json"])
        XCTAssertEqual(byName["phone/2024/2024-05.txt"]?.format, .ownTracks)
        XCTAssertEqual(byName["points.json"]?.format, .geoJSON)
        XCTAssertEqual(byName["phone/trip.kmz"]?.format, .kmz)
        XCTAssertEqual(byName["logger.csv"]?.format, .csv)
        XCTAssertEqual(byName["export"]?.format, .gpx)
        for name in ["phone/2024/2024-05.txt", "points.json", "phone/trip.kmz", "logger.csv", "export"] {
            XCTAssertEqual(byName[name]?.points, 6, name)
            XCTAssertNil(byName[name]?.error, name)
        }
        XCTAssertEqual(byName["damaged.kmz"]?.points, 0)
        XCTAssertEqual(byName["damaged.kmz"]?.error, "malformed KMZ: not a readable ZIP archive: not a ZIP archive: 21 bytes, less than an end record")
        // The run goes on with the others: 10:10:00Z is the second fix, (48.1, 2.2).
        var m = PhotoMetadata(format: .jpeg, takenAt: Date(timeIntervalSince1970: TrackTime.parse("2024-05-01T10:10:00Z")!),
                              utcOffsetSeconds: 0, timeSource: .exifOffset)
        m.timeTag = "DateTimeOriginal"
        let placed = set.place(m)
        XCTAssertEqual(placed.coordinate?.latitude ?? 0, 48.1, accuracy: 1e-9)
        XCTAssertEqual(placed.secondsToNearestFix, 0)
    }

    /// A file named on the command line is read by its content first, then by its name; one that
    /// is neither is named with the formats read.
    func testANamedFileIsReadByContentThenByName() throws {
        let dir = try folder()
        var options = TrackOptions()
        options.paths = [dir.appendingPathComponent("phone/2024/2024-05.txt").path, dir.appendingPathComponent("places.csv").path,
                         dir.appendingPathComponent("photo.jpg").path, dir.appendingPathComponent("missing.gpx").path]
        let set = TrackSet.load(options)
        // The missing one is reported as the paths are listed, before any file is read.
        XCTAssertEqual(set.files.map(\.path).first, dir.appendingPathComponent("missing.gpx").path)
        XCTAssertEqual(set.files.first?.error, "no such file or folder")
        let files = Array(set.files.dropFirst())
        XCTAssertEqual(files.map(\.format), [.ownTracks, .csv, nil])
        XCTAssertEqual(files[0].points, 6)
        XCTAssertEqual(files[1].error, "malformed CSV track: line 1: the header names no latitude, longitude and time columns (lat/latitude/y, lon/lng/long/longitude/x, time/timestamp/datetime/date_time or date and time)")
        XCTAssertEqual(files[2].error, "malformed track: not a track file this version reads (GPX, KML, KMZ, TCX, NMEA, OwnTracks .rec, GeoJSON, CSV, Google location history)")
    }
}
