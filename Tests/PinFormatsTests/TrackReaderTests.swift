import Foundation
import TestSupport
import XCTest
@testable import PinFormats
@testable import PinGrammar

/// The track readers on hand-written files that follow the formats' public descriptions (each
/// test says where), and on files written by real tools where Debian has one (gpsbabel).
final class TrackReaderTests: XCTestCase {
    struct Sink: TimelineSink {
        var points: [TrackPoint] = []
        var visits: [TimelineVisit] = []
        mutating func point(_ p: TrackPoint) { points.append(p) }
        mutating func visit(_ v: TimelineVisit) { visits.append(v) }
    }

    func t(_ iso: String) -> Double { TrackTime.parse(iso)! }

    func testISOTimes() {
        XCTAssertEqual(TrackTime.parse("1970-01-01T00:00:00Z"), 0)
        XCTAssertEqual(TrackTime.parse("2024-05-01T12:10:00+02:00"), TrackTime.parse("2024-05-01T10:10:00Z"))
        XCTAssertEqual(TrackTime.parse("2024-05-01T05:10:00.250-0500"), TrackTime.parse("2024-05-01T10:10:00Z")! + 0.25)
        XCTAssertEqual(TrackTime.parse("2024-05-01T10:10:00"), TrackTime.parse("2024-05-01T10:10:00Z"), "no zone: UTC, as exiftool")
        XCTAssertEqual(TrackTime.parse("2000-03-01T00:00:00Z"), 951_868_800)
        XCTAssertNil(TrackTime.parse("2024-13-01T00:00:00Z"))
        XCTAssertNil(TrackTime.parse("yesterday"))
        XCTAssertNil(TrackTime.parse("2024-05-01T10:10:00Zjunk"))
        XCTAssertEqual(TrackTime.parse(" 2024-05-01 10:10z\n"), TrackTime.parse("2024-05-01T10:10:00Z"), "no seconds, a space, z")
        XCTAssertEqual(TrackTime.parse("2024-05-01t15:10:00,5+05"), TrackTime.parse("2024-05-01T10:10:00Z")! + 0.5, "±HH, a comma")
        for bad in ["2024-05-01T10:10:00+", "2024-05-01T10:10:00+05:6", "2024-05-01T10:10:00+19:00", "2024-05-01T10:10:00.",
                    "2024-05-01X10:10:00", "2024-05-01T10", "2024-05-01T10:60:00Z"] {
            XCTAssertNil(TrackTime.parse(bad), bad)
        }
    }

    /// NMEA 0183 sentences as gpsd documents them (gpsd.gitlab.io/gpsd/NMEA.html, RMC and GGA),
    /// with their real checksums: $GPRMC,092204.999,A,4250.5589,S,14718.5084,E,... is exiftool's
    /// own example (Geotag.pm).
    func testNMEARMCAndGGAWithTheDateOfTheLastRMC() throws {
        func sentence(_ body: String) -> String {
            let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            return "$" + body + "*" + String(format: "%02X", sum)
        }
        let log = [
            sentence("GPGGA,235959,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),  // before any date: ignored
            sentence("GPRMC,092204.999,A,4250.5589,S,14718.5084,E,0.00,89.68,211200,,"),
            sentence("GPRMC,092205,V,4250.5589,S,14718.5084,E,0.00,89.68,211200,,"),      // void: no fix
            sentence("GNGGA,092206.5,4807.038,N,01131.000,W,1,08,0.9,545.4,M,46.9,M,,"),
            sentence("GPGGA,092207,4807.038,N,01131.000,E,0,00,,,M,,M,,"),                // quality 0: no fix
            "$GPRMC,092208,A,4250.5589,S,14718.5084,E,0.00,89.68,211200,,*00",            // wrong checksum
            "garbage line",
        ].joined(separator: "\r\n")
        var sink = Sink(), notes = TrackNotes()
        try NMEATrack.read(MemoryInput(log, chunk: 7), into: &sink, notes: &notes)
        XCTAssertEqual(sink.points.count, 2)
        // 2000-12-21 09:22:04.999Z; 42° 50.5589' S, 147° 18.5084' E.
        XCTAssertEqual(sink.points[0].time, t("2000-12-21T09:22:04Z") + 0.999, accuracy: 1e-6)
        XCTAssertEqual(sink.points[0].latitude, -(42 + 50.5589 / 60), accuracy: 1e-12)
        XCTAssertEqual(sink.points[0].longitude, 147 + 18.5084 / 60, accuracy: 1e-12)
        XCTAssertEqual(sink.points[1].time, t("2000-12-21T09:22:06Z") + 0.5, accuracy: 1e-6)
        XCTAssertEqual(sink.points[1].latitude, 48 + 7.038 / 60, accuracy: 1e-12)
        XCTAssertEqual(sink.points[1].longitude, -(11 + 31.0 / 60), accuracy: 1e-12)
        XCTAssertEqual(notes.lines.count, 2)
        XCTAssertTrue(notes.lines[0].hasPrefix("line 6 (byte "), notes.lines[0])
        XCTAssertTrue(notes.lines[0].hasSuffix("checksum '00' does not match the sentence (3E): skipped"), notes.lines[0])
        XCTAssertEqual(notes.lines[1], "1 GGA sentence before any RMC date ignored")
    }

    /// gpsbabel writes NMEA from the fixture's GPX: the same fixes come back. (Without a GPX
    /// `<fix>`, gpsbabel writes void RMC and quality-0 GGA sentences, which are no fixes: the
    /// points get `<fix>3d</fix>` first.)
    func testNMEAWrittenByGpsbabel() throws {
        let source = Repository.url("Fixtures/tracks/segments.gpx")
        let gpx = FileManager.default.temporaryDirectory.appendingPathComponent("pins-\(UUID().uuidString).gpx").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("pins-\(UUID().uuidString).nmea")
        defer { try? FileManager.default.removeItem(at: out); try? FileManager.default.removeItem(atPath: gpx) }
        try String(contentsOf: source, encoding: .utf8).replacingOccurrences(of: "</time></trkpt>", with: "</time><fix>3d</fix></trkpt>")
            .write(toFile: gpx, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gpsbabel")
        p.arguments = ["-t", "-i", "gpx", "-f", gpx, "-o", "nmea", "-F", out.path]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        var sink = Sink(), notes = TrackNotes()
        try NMEATrack.read(try FileInput(path: out.path), into: &sink, notes: &notes)
        // gpsbabel writes a GGA and an RMC per point (same time, same place): six fixes, twice.
        let times = Set(sink.points.map(\.time))
        XCTAssertEqual(times.sorted(), ["10:00:00", "10:10:00", "10:39:59", "11:10:00", "11:20:00", "13:00:00"].map { t("2024-05-01T\($0)Z") })
        let f2 = try XCTUnwrap(sink.points.first { $0.time == t("2024-05-01T10:10:00Z") })
        // gpsbabel keeps 3 decimals of minutes: 1e-3 / 60 degrees.
        XCTAssertEqual(f2.latitude, 48.1, accuracy: 2e-5)
        XCTAssertEqual(f2.longitude, 2.2, accuracy: 2e-5)
    }

    /// Records.json as Google Takeout writes it (Takeout's Location History: "locations" with
    /// latitudeE7/longitudeE7 in 1e-7 degrees, "timestampMs" in older and "timestamp" in newer
    /// exports; exiftool's Geotag.pm reads the same keys).
    func testRecordsJSONGivesTimedE7FixesAndSkipsThoseWithoutTimeOrPosition() throws {
        let json = """
        {"locations": [
          {"timestampMs": "1393177470000", "latitudeE7": 414216106, "longitudeE7": 21684775, "accuracy": 10,
           "activity": [{"timestampMs": "1393177469000", "activity": [{"type": "STILL", "confidence": 100}]}]},
          {"latitudeE7": 485000000, "longitudeE7": 4292967296, "timestamp": "2022-01-01T10:00:00.500Z", "source": "WIFI"},
          {"latitudeE7": 1, "accuracy": 5},
          {"timestamp": "2022-01-01T11:00:00Z", "latitudeE7": -338567000, "longitudeE7": 1512152000}
        ]}
        """
        var sink = Sink(), notes = TrackNotes()
        XCTAssertEqual(GoogleTimeline.sniff(Array(json.utf8)), .records)
        try GoogleTimeline.read(.records, MemoryInput(json, chunk: 5), into: &sink, notes: &notes)
        XCTAssertEqual(sink.points.count, 3)
        XCTAssertEqual(sink.points[0], TrackPoint(time: 1_393_177_470, latitude: 41.4216106, longitude: 2.1684775))
        // 4292967296 is -2000000 written as an unsigned 32-bit number: -0.2°.
        XCTAssertEqual(sink.points[1].longitude, -0.2, accuracy: 1e-12)
        XCTAssertEqual(sink.points[1].time, t("2022-01-01T10:00:00Z") + 0.5)
        XCTAssertEqual(sink.points[2].latitude, -33.8567, accuracy: 1e-12)
        XCTAssertEqual(notes.count, 1)
        XCTAssertTrue(notes.lines[0].hasPrefix("location at byte "), notes.lines[0])
    }

    /// Semantic Location History (Takeout, YYYY/YYYY_MONTH.json: timelineObjects of placeVisit
    /// and activitySegment, the keys as Google writes them).
    func testGoogleSemanticLocationHistory() throws {
        let json = """
        {"timelineObjects": [
          {"activitySegment": {"startLocation": {"latitudeE7": 480000000, "longitudeE7": 20000000},
             "endLocation": {"latitudeE7": 481000000, "longitudeE7": 22000000},
             "duration": {"startTimestamp": "2022-03-01T08:00:00Z", "endTimestamp": "2022-03-01T09:00:00Z"},
             "activityType": "IN_PASSENGER_VEHICLE",
             "waypointPath": {"waypoints": [{"latE7": 480500000, "lngE7": 21000000}]},
             "simplifiedRawPath": {"points": [{"latE7": 480200000, "lngE7": 20500000, "timestampMs": "1646122500000"}]}}},
          {"placeVisit": {"location": {"latitudeE7": 481000000, "longitudeE7": 22000000, "placeId": "ChIJ", "name": "Café", "address": "1 Rue"},
             "duration": {"startTimestampMs": "1646125200000", "endTimestampMs": "1646136000000"}}},
          {"placeVisit": {"location": {"name": "nowhere"}}}
        ]}
        """
        var sink = Sink(), notes = TrackNotes()
        XCTAssertEqual(GoogleTimeline.sniff(Array(json.utf8)), .semantic)
        try GoogleTimeline.read(.semantic, MemoryInput(json, chunk: 3), into: &sink, notes: &notes)
        XCTAssertEqual(sink.visits, [TimelineVisit(start: 1_646_125_200, end: 1_646_136_000, latitude: 48.1, longitude: 2.2,
                                                   placeID: "ChIJ", name: "Café", address: "1 Rue")])
        // The segment: start, waypoint, end spread over 08:00-09:00 (one span), its raw point at
        // 08:15; the visit: two fixes at its place (one span).
        let start = t("2022-03-01T08:00:00Z")
        XCTAssertEqual(sink.points.map(\.time), [start, start + 1800, start + 3600, start + 900, 1_646_125_200, 1_646_136_000])
        XCTAssertEqual(sink.points[1].latitude, 48.05, accuracy: 1e-12)
        XCTAssertEqual(Set(sink.points[0..<3].map(\.span)).count, 1)
        XCTAssertEqual(sink.points[3].span, 0)
        XCTAssertEqual(sink.points[4].span, sink.points[5].span)
        XCTAssertNotEqual(sink.points[4].span, sink.points[0].span)
        XCTAssertEqual(notes.count, 1)
    }

    /// The phone's own Timeline export (2024 on), both forms (the keys as the phone writes them).
    func testGooglePhoneTimelineBothForms() throws {
        let object = """
        {"semanticSegments": [
          {"startTime": "2024-06-01T10:00:00.000+02:00", "endTime": "2024-06-01T11:00:00.000+02:00",
           "timelinePath": [{"point": "48.8566°, 2.3522°", "time": "2024-06-01T10:05:00.000+02:00"}]},
          {"startTime": "2024-06-01T11:00:00.000+02:00", "endTime": "2024-06-01T12:30:00.000+02:00",
           "visit": {"hierarchyLevel": 0, "probability": 0.9, "topCandidate": {"placeId": "ChIJx", "semanticType": "UNKNOWN",
             "probability": 0.8, "placeLocation": {"latLng": "48.8606°, 2.3376°"}}}}
        ], "rawSignals": [{"position": {"LatLng": "48.85°, 2.35°", "accuracyMeters": 10, "timestamp": "2024-06-01T08:00:00.000Z"}},
                          {"wifiScan": {}}],
           "userLocationProfile": {"frequentPlaces": []}}
        """
        var sink = Sink(), notes = TrackNotes()
        XCTAssertEqual(GoogleTimeline.sniff(Array(object.utf8)), .phone)
        try GoogleTimeline.read(.phone, MemoryInput(object, chunk: 4), into: &sink, notes: &notes)
        XCTAssertEqual(sink.points.map(\.time), [t("2024-06-01T08:05:00Z"), t("2024-06-01T09:00:00Z"), t("2024-06-01T10:30:00Z"),
                                                 t("2024-06-01T08:00:00Z")])
        XCTAssertEqual(sink.points[0].latitude, 48.8566)
        XCTAssertEqual(sink.visits.count, 1)
        XCTAssertEqual(sink.visits[0].placeID, "ChIJx")
        XCTAssertEqual(sink.visits[0].longitude, 2.3376)
        XCTAssertEqual(notes.count, 0)

        let array = """
        [{"endTime": "2024-06-01T11:00:00.000+02:00", "startTime": "2024-06-01T10:00:00.000+02:00",
          "timelinePath": [{"point": "geo:48.856600,2.352200", "durationMinutesOffsetFromStartTime": "12"}]},
         {"endTime": "2024-06-01T12:00:00.000+02:00", "startTime": "2024-06-01T11:00:00.000+02:00",
          "activity": {"start": "geo:48.1,2.1", "end": "geo:48.2,2.2", "distanceMeters": "1500", "topCandidate": {"type": "walking"}}},
         {"startTime": "2024-06-01T12:00:00.000+02:00", "endTime": "2024-06-01T13:00:00.000+02:00",
          "visit": {"hierarchyLevel": "0", "topCandidate": {"placeID": "ChIJy", "placeLocation": "geo:48.3,2.3", "probability": "0.9"}}}]
        """
        var s2 = Sink(), n2 = TrackNotes()
        XCTAssertEqual(GoogleTimeline.sniff(Array(array.utf8)), .phone)
        try GoogleTimeline.read(.phone, MemoryInput(array, chunk: 6), into: &s2, notes: &n2)
        XCTAssertEqual(s2.points.map(\.time), [t("2024-06-01T08:12:00Z"), t("2024-06-01T09:00:00Z"), t("2024-06-01T10:00:00Z"),
                                               t("2024-06-01T10:00:00Z"), t("2024-06-01T11:00:00Z")])
        XCTAssertEqual(s2.points[1].latitude, 48.1)
        XCTAssertEqual(s2.visits.map(\.placeID), ["ChIJy"])
    }

    func testMalformedGoogleFilesStopWithTheirOffsetAndKeepWhatCameBefore() {
        let json = #"{"locations": [{"latitudeE7": 1, "longitudeE7": 2, "timestampMs": "1000"}, {"latitudeE7": 1,, }]}"#
        var sink = Sink(), notes = TrackNotes()
        XCTAssertThrowsError(try GoogleTimeline.read(.records, MemoryInput(json), into: &sink, notes: &notes)) { e in
            XCTAssertTrue("\(e)".contains("at byte 92"), "\(e)")
        }
        XCTAssertEqual(sink.points.count, 1)
    }
}
