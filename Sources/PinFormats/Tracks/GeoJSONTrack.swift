import Foundation
import PinGrammar

/// GeoJSON tracks (RFC 7946), read as a token stream: a `FeatureCollection` (or one `Feature`,
/// or a top-level array of features), each feature giving fixes in one of two ways:
///
/// - a `Point` with a time in its properties: `time`, `timestamp` or `datetime` (ISO 8601, or
///   Unix seconds; ogr2ogr writes a GPX's `track_points` this way, `time` in ISO 8601);
/// - a `LineString`, `MultiPoint` or `MultiLineString` with one time per position in the
///   properties: `coordTimes` (togeojson, from a GPX or KML track; an array of arrays for a
///   `MultiLineString`) or `coordinateProperties.times` (togeojson 5 on). The positions and
///   the times are paired in order, as they stream (properties come first in togeojson's and
///   GDAL's output; a geometry before its times is held until they come).
///
/// A feature with a line and no times per position (gpsbabel's GeoJSON of a track) has no fix
/// time: it is ignored, with a note; so is a point without a time. A feature whose values cannot
/// be read is named (byte and reason) in the notes, and the features after it are read.
enum GeoJSONTrack {
    /// The most positions or times held while waiting for their partners (16 bytes each).
    static let maxPending = 4_000_000

    static let timeKeys: [StaticString] = ["time", "timestamp", "datetime", "recorded_at", "recordedAt"]

    static func read<Sink: TrackSink>(_ input: ByteInput, into sink: inout Sink, notes: inout TrackNotes) throws {
        let reader = GeoJSONFeatureReader(JSONReader(input: input), sink: sink, notes: notes)
        defer { (sink, notes) = (reader.sink, reader.notes) }
        try reader.readAll()
    }

    /// Whether `head` (a JSON text) looks like GeoJSON.
    static func looksLike(_ text: String) -> Bool {
        text.contains("\"FeatureCollection\"") || text.contains("\"Feature\"")
            || (text.contains("\"coordinates\"") && text.contains("\"type\""))
    }
}

/// The fixes of one feature as they stream: positions and times paired in order, the ones still
/// waiting for their partner held (at most `GeoJSONTrack.maxPending` of each).
struct FeatureFixes {
    var positions: [(Double, Double)] = [], positionHead = 0
    var times: [Double?] = [], timeHead = 0
    var hasTimes = false, dropped = 0, badPositions = 0, badTimes = 0
    var positionCount = 0, timeCount = 0
    /// A time from the properties (`time`, `timestamp`, `datetime`), or the text that is none.
    var propertyTime: Double?, badTime: String?

    /// The pairs ready so far into `sink`; once there are times per position only.
    mutating func pair<Sink: TrackSink>(into sink: inout Sink) {
        guard hasTimes else { return }
        while positionHead < positions.count && timeHead < times.count {
            let (lon, lat) = positions[positionHead]
            if let t = times[timeHead] { emit(TrackPoint(time: t, latitude: lat, longitude: lon), into: &sink) }
            positionHead += 1
            timeHead += 1
        }
        if positionHead > 4096 { positions.removeFirst(positionHead); positionHead = 0 }
        if timeHead > 4096 { times.removeFirst(timeHead); timeHead = 0 }
    }

    mutating func emit<Sink: TrackSink>(_ p: TrackPoint, into sink: inout Sink) {
        if p.isValid { sink.point(p) } else if p.latitude.isFinite, p.longitude.isFinite, abs(p.latitude) <= 90, abs(p.longitude) <= 180 {
            badTimes += 1
        } else {
            badPositions += 1
        }
    }

    mutating func add<Sink: TrackSink>(position lon: Double, _ lat: Double, into sink: inout Sink) {
        positionCount += 1
        if positions.count - positionHead >= GeoJSONTrack.maxPending { dropped += 1; return }
        positions.append((lon, lat))
        pair(into: &sink)
    }

    mutating func add<Sink: TrackSink>(time t: Double?, into sink: inout Sink) {
        timeCount += 1
        if times.count - timeHead >= GeoJSONTrack.maxPending { dropped += 1; return }
        times.append(t)
        pair(into: &sink)
    }
}

/// Reads the features of a GeoJSON text one by one (`GeoJSONTrack`), each into its own
/// `FeatureFixes`, and says in `notes` what it ignored.
final class GeoJSONFeatureReader<Sink: TrackSink> {
    let r: JSONReader
    var sink: Sink
    var notes: TrackNotes
    private var untimed = 0, untimedLines = 0

    init(_ reader: JSONReader, sink: Sink, notes: TrackNotes) {
        r = reader
        self.sink = sink
        self.notes = notes
    }

    func readAll() throws {
        guard let first = try r.next() else { return }
        switch first {
        case .objectStart: try feature()
        case .arrayStart:
            try GoogleTimeline.elements(r) { t in
                guard t == .objectStart else { return try r.skipValue() }
                try feature()
            }
        default: throw FormatError(format: "GeoJSON", offset: 0, reason: "not an object or array")
        }
        while try r.next() != nil {}
        if untimed > 0 { notes.add("\(untimed) point\(untimed == 1 ? "" : "s") without a time ignored") }
        if untimedLines > 0 {
            notes.add("\(untimedLines) line\(untimedLines == 1 ? "" : "s") without a time per position (coordTimes) ignored")
        }
    }

    /// One feature, the reader just past its `objectStart` (a FeatureCollection is read as if a
    /// feature: its `features`, each in turn).
    private func feature() throws {
        let at = r.tokenOffset
        var fixes = FeatureFixes()
        try GoogleTimeline.members(r) {
            if r.matches("properties") {
                try GoogleTimeline.object(r) { try property(&fixes) }
            } else if r.matches("geometry") {
                try GoogleTimeline.object(r) {
                    guard r.matches("coordinates") else { return try r.skipValue() }  // `geometries`: not a track
                    guard try r.next() == .arrayStart else { return try r.skipValue() }
                    try positions(&fixes)
                }
            } else if r.matches("features") {
                try GoogleTimeline.array(r) { t in
                    guard t == .objectStart else { return try r.skipValue() }
                    try feature()
                }
            } else {
                try r.skipValue()
            }
        }
        finish(&fixes, at: at)
    }

    /// One member of a feature's properties: the times per position, or the feature's time.
    private func property(_ fixes: inout FeatureFixes) throws {
        if r.matches("coordTimes") {
            guard try r.next() == .arrayStart else { return try r.skipValue() }
            try times(&fixes)
        } else if r.matches("coordinateProperties") {
            try GoogleTimeline.object(r) {
                guard r.matches("times") else { return try r.skipValue() }
                guard try r.next() == .arrayStart else { return try r.skipValue() }
                try times(&fixes)
            }
        } else if GeoJSONTrack.timeKeys.contains(where: { r.matches($0) }) {
            _ = try r.next()
            if let t = time() { fixes.propertyTime = fixes.propertyTime ?? t }
            else if r.token == .string { fixes.badTime = r.string }
            else { try r.skipValue() }
        } else {
            try r.skipValue()
        }
    }

    /// The reader just past an `arrayStart` of `coordinates`: positions at any depth.
    private func positions(_ fixes: inout FeatureFixes) throws {
        var numbers: [Double] = [], isPosition = false, other = false
        while let t = try r.next(), t != .arrayEnd {
            switch t {
            case .number:
                isPosition = true
                if numbers.count < 3 { numbers.append(r.double ?? .nan) }
            case .arrayStart: try positions(&fixes)
            case .objectStart: try r.skipValue(); other = true
            default: other = true
            }
        }
        guard isPosition else { return }
        if numbers.count >= 2 && !other { fixes.add(position: numbers[0], numbers[1], into: &sink) } else { fixes.badPositions += 1 }
    }

    /// The reader just past an `arrayStart` of times: times at any depth, in order.
    private func times(_ fixes: inout FeatureFixes) throws {
        fixes.hasTimes = true
        while let t = try r.next(), t != .arrayEnd {
            switch t {
            case .arrayStart: try times(&fixes)
            case .objectStart: try r.skipValue(); fixes.add(time: nil, into: &sink)
            default: fixes.add(time: time(), into: &sink)
            }
        }
        fixes.pair(into: &sink)
    }

    /// The value at the reader as a time: ISO 8601 text or Unix seconds.
    private func time() -> Double? {
        switch r.token {
        case .string?: return FlexibleTime.parse(r.string)
        case .number?: return r.double.flatMap(FlexibleTime.number)
        default: return nil
        }
    }

    /// The feature's last fixes, or its one timed point; what it leaves out, in the notes.
    private func finish(_ fixes: inout FeatureFixes, at: Int64) {
        if fixes.hasTimes {
            fixes.pair(into: &sink)
            let left = (fixes.positions.count - fixes.positionHead) + (fixes.times.count - fixes.timeHead)
            if left > 0 || fixes.dropped > 0 {
                notes.add("Feature at byte \(at): \(fixes.positionCount) positions and \(fixes.timeCount) times; \(left + fixes.dropped) without a partner ignored")
            }
        } else if fixes.positionCount == 1, let (lon, lat) = fixes.positions.first {
            if let t = fixes.propertyTime {
                fixes.emit(TrackPoint(time: t, latitude: lat, longitude: lon), into: &sink)
            } else if let badTime = fixes.badTime {
                notes.add("Feature at byte \(at): time '\(badTime.prefix(40))' is not ISO 8601 or Unix seconds")
            } else {
                untimed += 1
            }
        } else if fixes.positionCount > 1 {
            untimedLines += 1
        }
        if fixes.badTimes > 0 {
            let n = fixes.badTimes
            notes.add("Feature at byte \(at): \(n) time\(n == 1 ? "" : "s") outside the years 1 to 9999")
        }
        if fixes.badPositions > 0 {
            let n = fixes.badPositions
            notes.add("Feature at byte \(at): \(n) position\(n == 1 ? "" : "s") out of range or not [longitude, latitude]")
        }
    }
}
