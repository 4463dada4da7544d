import Foundation
import TestSupport
import XCTest
@testable import PinFormats
@testable import PinGrammar

/// The KMZ, OwnTracks, GeoJSON and CSV track readers (issue 29), on the files scripts/fixtures-tracks
/// makes from Fixtures/tracks/segments.gpx with real tools (gpsbabel, ogr2ogr, zip) and, where no
/// Debian tool writes the format, by its script in the writer's documented layout (OwnTracks
/// .rec, togeojson's coordTimes). Every one holds the GPX's six timed fixes: hand-worked below.
/// Then: a malformed record inside each format is named (line or byte, and why) and the records
/// after it are read; the format is found from the content whatever the name.
final class MoreTrackReaderTests: XCTestCase {
    static let fixtures = Repository.url("Fixtures/tracks")

    struct Sink: TimelineSink {
        var points: [TrackPoint] = []
        mutating func point(_ p: TrackPoint) { points.append(p) }
        mutating func visit(_ v: TimelineVisit) {}
    }

    static func t(_ iso: String) -> Double { TrackTime.parse(iso)! }

    /// segments.gpx's timed fixes, by hand: (time, latitude, longitude).
    static let fixes: [(Double, Double, Double)] = [
        (t("2024-05-01T10:00:00Z"), 48.0, 2.0), (t("2024-05-01T10:10:00Z"), 48.1, 2.2),
        (t("2024-05-01T10:39:59Z"), 48.2, 2.3), (t("2024-05-01T11:10:00Z"), 48.3, 2.5),
        (t("2024-05-01T11:20:00Z"), 48.4, 2.6), (t("2024-05-01T13:00:00Z"), 48.5, 2.7),
    ]

    func read(_ name: String, as format: TrackFileFormat, file: StaticString = #filePath, line: UInt = #line) throws -> (Sink, TrackNotes) {
        var sink = Sink(), notes = TrackNotes()
        try TrackFiles.read(path: Self.fixtures.appendingPathComponent(name).path, format: format, into: &sink, notes: &notes)
        return (sink, notes)
    }

    func assertTheSixFixes(_ points: [TrackPoint], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(points.count, 6, file: file, line: line)
        for (p, f) in zip(points, Self.fixes) {
            XCTAssertEqual(p.time, f.0, file: file, line: line)
            XCTAssertEqual(p.latitude, f.1, accuracy: 1e-9, file: file, line: line)
            XCTAssertEqual(p.longitude, f.2, accuracy: 1e-9, file: file, line: line)
        }
    }

    func testKMZWrittenByGpsbabelAndZip() throws {
        let (sink, notes) = try read("gpsbabel-segments.kmz", as: .kmz)
        assertTheSixFixes(sink.points)
        XCTAssertEqual(notes.count, 0, notes.summary ?? "")
    }

    func testOwnTracksRecTakesTheFixTimeNotTheStorageTime() throws {
        let (sink, notes) = try read("owntracks.rec", as: .ownTracks)
        // The lines are stored 4 s after each fix; the lwt and the transition are no fixes.
        assertTheSixFixes(sink.points)
        XCTAssertEqual(notes.count, 0, notes.summary ?? "")
    }

    func testGeoJSONPointsWrittenByOgr2ogr() throws {
        let (sink, notes) = try read("ogr2ogr-track-points.geojson", as: .geoJSON)
        assertTheSixFixes(sink.points)
        XCTAssertEqual(notes.summary, "1 point without a time ignored")
    }

    func testGeoJSONLineStringWithCoordTimes() throws {
        let (sink, notes) = try read("togeojson-linestring.geojson", as: .geoJSON)
        // The untimed point is a null in coordTimes: skipped, the pairs after it stay aligned.
        assertTheSixFixes(sink.points)
        XCTAssertEqual(notes.count, 0, notes.summary ?? "")
    }

    func testGpsbabelsGeoJSONLineHasNoTimesAndIsIgnoredWithANote() throws {
        let (sink, notes) = try read("gpsbabel-line-without-times.geojson", as: .geoJSON)
        XCTAssertEqual(sink.points.count, 0)
        XCTAssertEqual(notes.summary, "1 line without a time per position (coordTimes) ignored")
    }

    func testCSVWrittenByOgr2ogrWithXYAndGDALsTime() throws {
        // X,Y,...,time with "2024/05/01 10:00:00+00".
        let (sink, notes) = try read("ogr2ogr-track-points.csv", as: .csv)
        assertTheSixFixes(sink.points)
        XCTAssertEqual(notes.summary, "1 row without a time ignored")
    }

    func testCSVWrittenByGpsbabelWithDateAndTimeColumns() throws {
        let (sink, notes) = try read("gpsbabel-unicsv.csv", as: .csv)
        assertTheSixFixes(sink.points)
        XCTAssertEqual(notes.summary, "1 row without a time ignored")
    }

    /// togeojson's newer layout (coordinateProperties.times), a MultiLineString with nested times,
    /// the geometry before the properties, times as Unix seconds and milliseconds, and the other
    /// time property names.
    func testGeoJSONVariants() throws {
        let json = """
        [{"type": "Feature", "geometry": {"coordinates": [[[2.0, 48.0], [2.2, 48.1]], [[2.3, 48.2]]], "type": "MultiLineString"},
          "properties": {"coordinateProperties": {"times": [["2024-05-01T10:00:00Z", 1714558200], [1714559999000]]}}},
         {"type": "Feature", "properties": {"timestamp": "1714561800"}, "geometry": {"type": "Point", "coordinates": [2.5, 48.3, 12]}},
         {"type": "Feature", "properties": {"datetime": "2024-05-01T13:20:00+02:00"}, "geometry": {"type": "Point", "coordinates": [2.6, 48.4]}}]
        """
        var sink = Sink(), notes = TrackNotes()
        XCTAssertEqual(TrackFiles.sniff(Array(json.utf8)), .geoJSON)
        try GeoJSONTrack.read(MemoryInput(json, chunk: 5), into: &sink, notes: &notes)
        XCTAssertEqual(sink.points.map(\.time), Self.fixes[0..<5].map(\.0))
        XCTAssertEqual(sink.points.map(\.latitude), [48.0, 48.1, 48.2, 48.3, 48.4])
        XCTAssertEqual(notes.count, 0, notes.summary ?? "")
    }

    func testCSVVariants() throws {
        // Semicolons, quoted names, `lat`/`lng`/`timestamp` in Unix seconds, a BOM, CRLF.
        let csv = "\u{FEFF}\"id\";\"lat\";\"lng\";\"timestamp\"\r\n1;48.0;2.0;1714557600\r\n2;48.1;2.2;1714558200.5\r\n"
        var sink = Sink(), notes = TrackNotes()
        XCTAssertEqual(TrackFiles.sniff(Array(csv.utf8)), .csv)
        try CSVTrack.read(MemoryInput(csv, chunk: 3), into: &sink, notes: &notes)
        XCTAssertEqual(sink.points.map(\.time), [1_714_557_600, 1_714_558_200.5])
        XCTAssertEqual(sink.points.map(\.longitude), [2.0, 2.2])
        // A header without a time column is not a track: named, nothing read.
        var s2 = Sink(), n2 = TrackNotes()
        XCTAssertThrowsError(try CSVTrack.read(MemoryInput("name,lat,lon\nParis,48.85,2.35\n"), into: &s2, notes: &n2)) { e in
            XCTAssertTrue("\(e)".contains("line 1: the header names no latitude, longitude and time columns"), "\(e)")
        }
        XCTAssertNil(TrackFiles.sniff(Array("name,lat,lon\nParis,48.85,2.35\n".utf8)))
    }

    // MARK: A malformed record is named, and the rest of the file is read

    func testAMalformedOwnTracksLineIsNamedAndTheNextLinesRead() throws {
        let rec = [
            "2024-05-01T10:00:04Z\t*                 \t{\"_type\":\"location\",\"lat\":48.0,\"lon\":2.0,\"tst\":1714557600}",
            "2024-05-01T10:05:04Z\t*                 \t{\"_type\":\"location\",\"lat\":48.05,,\"lon\":2.1,\"tst\":1714557900}",
            "2024-05-01T10:06:00Z\t*                 \t{\"_type\":\"location\",\"lat\":91.0,\"lon\":2.1,\"tst\":1714557960}",
            "2024-05-01T10:07:00Z\t*                 \t{\"_type\":\"location\",\"lat\":48.07,\"lon\":2.1}",
            "garbage",
            "2024-05-01T10:10:04Z\t*                 \t{\"_type\":\"location\",\"lat\":48.1,\"lon\":2.2,\"tst\":1714558200}",
        ].joined(separator: "\n")
        var sink = Sink(), notes = TrackNotes()
        XCTAssertEqual(TrackFiles.sniff(Array(rec.utf8)), .ownTracks)
        try OwnTracksTrack.read(MemoryInput(rec, chunk: 9), into: &sink, notes: &notes)
        XCTAssertEqual(sink.points.map(\.time), [1_714_557_600, 1_714_558_200])
        // Line 1 is 98 bytes and its LF: line 2 starts at byte 99, its payload at 99 + 40 = 139,
        // the second comma after "lat":48.05 at 139 + 32 = 171.
        XCTAssertEqual(notes.lines, [
            "line 2 (byte 99): malformed JSON at byte 171: expected a member name in quotes",
            "line 3 (byte 200): position 91.0, 2.1 out of range",
            "line 4 (byte 299): a location without a number 'tst'",
            "line 5 (byte 382): no JSON payload",
        ])
    }

    func testAMalformedGeoJSONFeatureIsNamedAndTheNextFeaturesRead() throws {
        let json = """
        {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"time": "2024-05-01T10:00:00Z"}, "geometry": {"type": "Point", "coordinates": [2.0, 48.0]}},
        {"type": "Feature", "properties": {"time": "yesterday"}, "geometry": {"type": "Point", "coordinates": [2.1, 48.05]}},
        {"type": "Feature", "properties": {"time": "2024-05-01T10:05:00Z"}, "geometry": {"type": "Point", "coordinates": [200, 48.05]}},
        {"type": "Feature", "properties": {"time": "2024-05-01T10:10:00Z"}, "geometry": {"type": "Point", "coordinates": [2.2, 48.1]}}
        ]}
        """
        var sink = Sink(), notes = TrackNotes()
        try GeoJSONTrack.read(MemoryInput(json), into: &sink, notes: &notes)
        XCTAssertEqual(sink.points.map(\.latitude), [48.0, 48.1])
        XCTAssertEqual(notes.lines, [
            "Feature at byte 172: time 'yesterday' is not ISO 8601 or Unix seconds",
            "Feature at byte 290: 1 position out of range or not [longitude, latitude]",
        ])
    }

    func testAMalformedCSVRowIsNamedAndTheNextRowsRead() throws {
        let csv = "lat,lon,time\n48.0,2.0,2024-05-01T10:00:00Z\n48.x,2.1,2024-05-01T10:05:00Z\n48.05,2.1,soon\n48.05\n95,2.1,2024-05-01T10:06:00Z\n48.1,2.2,2024-05-01T10:10:00Z\n"
        var sink = Sink(), notes = TrackNotes()
        try CSVTrack.read(MemoryInput(csv), into: &sink, notes: &notes)
        XCTAssertEqual(sink.points.map(\.latitude), [48.0, 48.1])
        XCTAssertEqual(notes.lines, [
            "line 3: latitude '48.x' or longitude '2.1' is not a number",
            "line 4: time 'soon' is not ISO 8601 or Unix seconds",
            "line 6: position 95.0, 2.1 out of range",
            "1 row without a time ignored",
        ])
    }

    func testAMalformedGPXKMLAndTCXPointIsNamedWithItsByteAndTheNextPointsRead() throws {
        let gpx = """
        <gpx><trk><trkseg><trkpt lat="48.0" lon="2.0"><time>2024-05-01T10:00:00Z</time></trkpt>\
        <trkpt lat="abc" lon="2.1"><time>2024-05-01T10:05:00Z</time></trkpt>\
        <trkpt lat="48.1" lon="2.2"><time>2024-05-01T10:10:00Z</time></trkpt></trkseg></trk></gpx>
        """
        var sink = Sink(), notes = TrackNotes()
        try TrackFiles.read(bytes: Array(gpx.utf8), format: .gpx, into: &sink, notes: &notes)
        XCTAssertEqual(sink.points.map(\.latitude), [48.0, 48.1])
        XCTAssertEqual(notes.lines, ["<trkpt> at byte 87: no latitude and longitude in degrees"])

        let kml = """
        <kml><Document><Placemark><TimeStamp><when>2024-05-01T10:00:00Z</when></TimeStamp><Point><coordinates>2.0,48.0</coordinates></Point></Placemark>\
        <Placemark><TimeStamp><when>10 o'clock</when></TimeStamp><Point><coordinates>2.1,48.05</coordinates></Point></Placemark>\
        <Placemark><TimeStamp><when>2024-05-01T10:10:00Z</when></TimeStamp><Point><coordinates>2.2,48.1</coordinates></Point></Placemark></Document></kml>
        """
        var s2 = Sink(), n2 = TrackNotes()
        try TrackFiles.read(bytes: Array(kml.utf8), format: .kml, into: &s2, notes: &n2)
        XCTAssertEqual(s2.points.map(\.latitude), [48.0, 48.1])
        XCTAssertEqual(n2.lines, ["<Placemark> at byte 144: time '10 o'clock' is not ISO 8601"])

        let tcx = """
        <TrainingCenterDatabase><Activities><Activity><Lap><Track>\
        <Trackpoint><Time>2024-05-01T10:00:00Z</Time><Position><LatitudeDegrees>48.0</LatitudeDegrees><LongitudeDegrees>2.0</LongitudeDegrees></Position></Trackpoint>\
        <Trackpoint><Time>2024-05-01T10:05:00Z</Time><Position><LatitudeDegrees>-100</LatitudeDegrees><LongitudeDegrees>2.1</LongitudeDegrees></Position></Trackpoint>\
        <Trackpoint><Time>2024-05-01T10:10:00Z</Time><Position><LatitudeDegrees>48.1</LatitudeDegrees><LongitudeDegrees>2.2</LongitudeDegrees></Position></Trackpoint>\
        </Track></Lap></Activity></Activities></TrainingCenterDatabase>
        """
        var s3 = Sink(), n3 = TrackNotes()
        try TrackFiles.read(bytes: Array(tcx.utf8), format: .tcx, into: &s3, notes: &n3)
        XCTAssertEqual(s3.points.map(\.latitude), [48.0, 48.1])
        XCTAssertEqual(n3.lines, ["<Trackpoint> at byte 216: position -100.0, 2.1 out of range"])
    }

    func testAMalformedNMEASentenceIsNamedWithItsLineAndTheNextSentencesRead() throws {
        let log = [
            "$GPRMC,092204.999,A,4250.5589,S,14718.5084,E,0.00,89.68,211200,,*25",
            "$GPRMC,092208,A,4250.5589,S,14718.5084,E,0.00,89.68,211200,,*00",
            "$GPRMC,092209,A,42x0.5589,S,14718.5084,E,0.00,89.68,211200,,",
            "$GPRMC,092210,A,4250.5589,S,14718.5084,E,0.00,89.68,211200,,",
        ].joined(separator: "\n")
        var sink = Sink(), notes = TrackNotes()
        try TrackFiles.read(bytes: Array(log.utf8), format: .nmea, into: &sink, notes: &notes)
        XCTAssertEqual(sink.points.count, 2)
        XCTAssertEqual(sink.points[0].time, Self.t("2000-12-21T09:22:04Z") + 0.999, accuracy: 1e-6)
        XCTAssertEqual(sink.points[1].time, Self.t("2000-12-21T09:22:10Z"))
        // Line 1 is 67 bytes and its LF; the XOR of line 2's sentence is 3E (worked out apart).
        XCTAssertEqual(notes.lines, [
            "line 2 (byte 68): checksum '00' does not match the sentence (3E): skipped",
            "line 3 (byte 132): RMC without a readable position",
        ])
    }

    func testAMalformedGoogleRecordIsNamedWithItsByteAndTheNextRecordsRead() throws {
        let json = #"{"locations": [{"latitudeE7": 480000000, "longitudeE7": 20000000, "timestamp": "2024-05-01T10:00:00Z"}, {"latitudeE7": "north", "longitudeE7": 21000000, "timestamp": "2024-05-01T10:05:00Z"}, {"latitudeE7": 481000000, "longitudeE7": 22000000, "timestamp": "2024-05-01T10:10:00Z"}]}"#
        var sink = Sink(), notes = TrackNotes()
        try TrackFiles.read(bytes: Array(json.utf8), format: .googleRecords, into: &sink, notes: &notes)
        XCTAssertEqual(sink.points.map(\.latitude), [48.0, 48.1])
        XCTAssertEqual(notes.lines, ["location at byte 104: no position or no time"])
    }

    /// A damaged archive or entry: the file is named with why (the caller adds its path).
    func testADamagedKMZSaysWhy() throws {
        var bytes = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent("gpsbabel-segments.kmz")))
        var sink = Sink(), notes = TrackNotes()
        XCTAssertThrowsError(try TrackFiles.read(bytes: Array(bytes.prefix(200)), format: .kmz, into: &sink, notes: &notes)) { e in
            XCTAssertEqual("\(e)", "malformed KMZ: not a readable ZIP archive: not a ZIP archive: no end of central directory record")
        }
        // One byte of the deflated doc.kml changed: zlib or the CRC-32 says so.
        bytes[60] ^= 0xFF
        XCTAssertThrowsError(try TrackFiles.read(bytes: bytes, format: .kmz, into: &sink, notes: &notes)) { e in
            XCTAssertTrue("\(e)".hasPrefix("malformed KMZ: entry doc.kml: "), "\(e)")
        }
    }

    // MARK: Found by content

    /// Every track fixture's format, from its bytes alone (as a folder's walk and a file with
    /// another name are read).
    func testEveryFormatIsFoundFromItsContent() throws {
        let expected: [String: TrackFileFormat] = [
            "segments.gpx": .gpx, "gpsbabel-antimeridian.gpx": .gpx, "gpsbabel-waypoints-1.0.gpx": .gpx,
            "gpsbabel-segments.kmz": .kmz, "owntracks.rec": .ownTracks, "ogr2ogr-track-points.geojson": .geoJSON,
            "togeojson-linestring.geojson": .geoJSON, "gpsbabel-line-without-times.geojson": .geoJSON,
            "ogr2ogr-track-points.csv": .csv, "gpsbabel-unicsv.csv": .csv,
        ]
        for (name, format) in expected {
            let head = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent(name)).prefix(TrackFiles.sniffBytes))
            XCTAssertEqual(TrackFiles.sniff(head), format, name)
        }
        XCTAssertEqual(TrackFiles.sniff(Array("$GPRMC,092204.999,A,4250.5589,S,14718.5084,E,0.00,89.68,211200,,*25\n".utf8)), .nmea)
        XCTAssertEqual(TrackFiles.sniff(Array("<?xml version=\"1.0\"?>\n<TrainingCenterDatabase>".utf8)), .tcx)
        XCTAssertEqual(TrackFiles.sniff(Array(#"{"locations": [{"latitudeE7": 1"#.utf8)), .googleRecords)
        XCTAssertNil(TrackFiles.sniff(Array(#"{"title": "IMG_1.jpg", "geoData": {}}"#.utf8)), "a Takeout sidecar is no track")
        XCTAssertNil(TrackFiles.sniff(Array("\u{FF}\u{D8}\u{FF}".utf8)))
    }
}
