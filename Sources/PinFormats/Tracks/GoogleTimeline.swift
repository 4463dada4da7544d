import Foundation
import PinGrammar

/// A stay at one place from Google's timeline (Semantic Location History `placeVisit`, the
/// phone export's `visit`): what the place importer (issue 26) makes pins of, and two fixes (its
/// start and end, one span) for the track matcher.
public struct TimelineVisit: Sendable, Hashable {
    public var start: Double
    public var end: Double
    public var latitude: Double
    public var longitude: Double
    public var placeID: String?
    public var name: String?
    public var address: String?
}

/// Receives what the Google readers find: fixes (as every track reader) and visits.
public protocol TimelineSink: TrackSink {
    mutating func visit(_ v: TimelineVisit)
}

extension TrackPointArray: TimelineSink {
    public mutating func visit(_ v: TimelineVisit) {}
}

/// Google's location exports, read as token streams (a 1 GB file in the reader's window):
///
/// - Takeout `Records.json`: `{"locations": [{"latitudeE7", "longitudeE7", "timestampMs" or
///   "timestamp", ...}]}` (described in Takeout's own "Location History" archive notes and in
///   the tools that read it, e.g. exiftool's Geotag.pm, "Google Takeout JSON"). Values above
///   90e7/180e7 are Google's old signed-32-bit overflow and are wrapped back (as
///   location-history tools do);
/// - Takeout Semantic Location History (`YYYY/YYYY_MONTH.json`): `timelineObjects[]` of
///   `placeVisit{location{latitudeE7, longitudeE7, placeId, name, address}, duration{
///   startTimestamp, endTimestamp}}` and `activitySegment{startLocation, endLocation,
///   duration, waypointPath{waypoints[{latE7, lngE7}]}, simplifiedRawPath{points[{latE7, lngE7,
///   timestamp}]}}`; older files use `…TimestampMs`. A visit gives two fixes at its place (one
///   span); a segment its start and end, its raw path points with their times, and its
///   waypoints (no times of their own) spread evenly over its duration, inside one span, as
///   exiftool spreads a KML TimeSpan's points;
/// - the phone's own Timeline export (2024 on): `{"semanticSegments": [{startTime, endTime,
///   visit{topCandidate{placeId, placeLocation{latLng: "48.85°, 2.35°"}}}, activity{start{latLng},
///   end{latLng}}, timelinePath[{point, time}]}], "rawSignals": [{position{LatLng, timestamp}}]}`,
///   and the other form, a top-level array of segments with `"geo:48.85,2.35"` points and
///   `durationMinutesOffsetFromStartTime`.
enum GoogleTimeline {
    enum Kind: String, Sendable { case records = "Records.json", semantic = "Semantic Location History", phone = "Timeline export" }

    /// Which of the three a file is, from its first bytes; nil for other JSON.
    static func sniff(_ head: [UInt8]) -> Kind? {
        let text = String(decoding: head, as: UTF8.self)
        if text.contains("\"timelineObjects\"") { return .semantic }
        if text.contains("\"semanticSegments\"") || text.contains("\"rawSignals\"") || text.contains("\"userLocationProfile\"") { return .phone }
        if text.contains("\"locations\"") && (text.contains("E7\"") || text.contains("\"timestamp")) { return .records }
        if text.drop(while: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\u{FEFF}" }).first == "[",
           text.contains("\"startTime\"") || text.contains("\"geo:") { return .phone }
        return nil
    }

    static func read<Sink: TimelineSink>(_ kind: Kind, _ input: ByteInput, into sink: inout Sink, notes: inout TrackNotes) throws {
        let r = JSONReader(input: input)
        switch kind {
        case .records: try readRecords(r, into: &sink, notes: &notes)
        case .semantic: try readSemantic(r, into: &sink, notes: &notes)
        case .phone: try readPhone(r, into: &sink, notes: &notes)
        }
        // Only white space may follow the value.
        while try r.next() != nil {}
    }

    // MARK: Shared pieces

    static func e7(_ v: Int64, limit: Int64) -> Double {
        var x = v
        if x > limit { x -= 4_294_967_296 }  // Google's signed 32-bit overflow
        return Double(x) / 1e7
    }

    /// `timestampMs` (a string or a number of milliseconds) or an ISO `timestamp`.
    static func time(_ r: JSONReader, millis: Bool) -> Double? {
        if millis { return r.int64.map { Double($0) / 1000 } }
        guard r.token == .string else { return nil }
        return r.withBytes(TrackTime.parse(bytes:))
    }

    /// Calls `body` for each member of the object the reader is at (after `objectStart`), with
    /// the reader on the key; `body` must consume the value (read it or `skipValue`).
    static func members(_ r: JSONReader, _ body: () throws -> Void) throws {
        while let t = try r.next(), t != .objectEnd {
            guard t == .key else { throw FormatError(format: "JSON", offset: r.tokenOffset, reason: "expected a member name") }
            try body()
        }
    }

    /// Each element of the array the reader is at (after `arrayStart`); `body` gets the first
    /// token of the element and must consume it.
    static func elements(_ r: JSONReader, _ body: (JSONToken) throws -> Void) throws {
        while let t = try r.next(), t != .arrayEnd { try body(t) }
    }

    /// Reads the value after a key as an object of members, or skips it if it is not one.
    static func object(_ r: JSONReader, _ body: () throws -> Void) throws {
        guard let t = try r.next() else { return }
        if t == .objectStart { try members(r, body) } else if t == .arrayStart { try r.skipValue() }
    }

    static func array(_ r: JSONReader, _ body: (JSONToken) throws -> Void) throws {
        guard let t = try r.next() else { return }
        if t == .arrayStart { try elements(r, body) } else if t == .objectStart { try r.skipValue() }
    }

    /// "48.8566°, 2.3522°", "48.8566, 2.3522" or "geo:48.8566,2.3522" (`GoogleTimelineParse`),
    /// nil when out of range.
    static func latLng(_ text: String) -> (Double, Double)? {
        guard let (la, lo) = GoogleTimelineParse.latLng(text), abs(la) <= 90, abs(lo) <= 180 else { return nil }
        return (la, lo)
    }

    /// An E7 value (`GoogleTimelineParse.Number`) in degrees, wrapped back from Google's overflow.
    static func e7(_ n: GoogleTimelineParse.Number?, limit: Int64) -> Double? {
        n?.int64.map { e7($0, limit: limit) }
    }

    /// An ISO 8601 time as written, or else milliseconds (`timestampMs`).
    static func time(_ iso: String?, millis: GoogleTimelineParse.Number?) -> Double? {
        iso.flatMap(TrackTime.parse) ?? millis?.int64.map { Double($0) / 1000 }
    }

    static func emit<Sink: TrackSink>(_ t: Double?, _ lat: Double?, _ lon: Double?, span: Int32 = 0, what: String, at offset: Int64,
                                      into sink: inout Sink, notes: inout TrackNotes) {
        guard let t, let lat, let lon else { return notes.add("\(what) at byte \(offset): no position or no time") }
        let p = TrackPoint(time: t, latitude: lat, longitude: lon, span: span)
        if let problem = p.problem { return notes.add("\(what) at byte \(offset): \(problem)") }
        sink.point(p)
    }

    // MARK: Records.json

    static func readRecords<Sink: TimelineSink>(_ r: JSONReader, into sink: inout Sink, notes: inout TrackNotes) throws {
        guard try r.next() == .objectStart else { throw FormatError(format: "Records.json", offset: 0, reason: "not an object") }
        try members(r) {
            guard r.matches("locations") else { return try r.skipValue() }
            try array(r) { t in
                guard t == .objectStart else { return try r.skipValue() }
                let at = r.tokenOffset
                var lat: Double?, lon: Double?, time: Double?
                try members(r) {
                    if r.matches("latitudeE7") {
                        _ = try r.next(); lat = r.int64.map { e7($0, limit: 900_000_000) }
                    } else if r.matches("longitudeE7") {
                        _ = try r.next(); lon = r.int64.map { e7($0, limit: 1_800_000_000) }
                    } else if r.matches("timestampMs") {
                        _ = try r.next(); time = time ?? GoogleTimeline.time(r, millis: true)
                    } else if r.matches("timestamp") {
                        _ = try r.next(); time = GoogleTimeline.time(r, millis: false) ?? time
                    } else {
                        try r.skipValue()
                    }
                }
                emit(time, lat, lon, what: "location", at: at, into: &sink, notes: &notes)
            }
        }
    }

    // MARK: Semantic Location History

    static func readSemantic<Sink: TimelineSink>(_ r: JSONReader, into sink: inout Sink, notes: inout TrackNotes) throws {
        guard try r.next() == .objectStart else { throw FormatError(format: "Semantic Location History", offset: 0, reason: "not an object") }
        var span: Int32 = 0
        try members(r) {
            guard r.matches("timelineObjects") else { return try r.skipValue() }
            try array(r) { t in
                guard t == .objectStart else { return try r.skipValue() }
                try members(r) {
                    let at = r.tokenOffset
                    if r.matches("placeVisit") {
                        try semanticPlaceVisit(r, at: at, span: &span, into: &sink, notes: &notes)
                    } else if r.matches("activitySegment") {
                        try semanticActivity(r, at: at, span: &span, into: &sink, notes: &notes)
                    } else {
                        try r.skipValue()
                    }
                }
            }
        }
    }

    /// A `placeVisit`: the visit, and a fix at its start and its end (one span).
    private static func semanticPlaceVisit<Sink: TimelineSink>(_ r: JSONReader, at: Int64, span: inout Int32,
                                                              into sink: inout Sink, notes: inout TrackNotes) throws {
        let v = try GoogleTimelineParse.placeVisit(r)
        let visit = TimelineVisit(start: time(v.startTimestamp, millis: v.startTimestampMs) ?? .nan,
                                  end: time(v.endTimestamp, millis: v.endTimestampMs) ?? .nan,
                                  latitude: e7(v.latitudeE7, limit: 900_000_000) ?? .nan,
                                  longitude: e7(v.longitudeE7, limit: 1_800_000_000) ?? .nan,
                                  placeID: v.placeID, name: v.name, address: v.address)
        guard visit.start.isFinite, visit.end.isFinite, visit.latitude.isFinite, visit.longitude.isFinite,
              abs(visit.latitude) <= 90, abs(visit.longitude) <= 180, visit.start <= visit.end else {
            return notes.add("placeVisit at byte \(at): no place or no duration")
        }
        sink.visit(visit)
        span += 1
        emit(visit.start, visit.latitude, visit.longitude, span: span, what: "placeVisit", at: at, into: &sink, notes: &notes)
        if visit.end > visit.start {
            emit(visit.end, visit.latitude, visit.longitude, span: span, what: "placeVisit", at: at, into: &sink, notes: &notes)
        }
    }

    /// What an `activitySegment` says of where it went: its duration, start and end
    /// locations, waypoints (no times of their own) and raw points (with times).
    private struct Activity {
        var start = Double.nan, end = Double.nan
        var from: (Double, Double)?, to: (Double, Double)?
        var waypoints: [(Double, Double)] = []
        var raw: [TrackPoint] = []
    }

    /// An `activitySegment`: its path (start, waypoints, end) spread evenly over its duration as
    /// one span, then its raw points at their own times.
    private static func semanticActivity<Sink: TimelineSink>(_ r: JSONReader, at: Int64, span: inout Int32,
                                                            into sink: inout Sink, notes: inout TrackNotes) throws {
        let a = try activity(r)
        guard a.start.isFinite, a.end.isFinite, a.start <= a.end else {
            return notes.add("activitySegment at byte \(at): no duration")
        }
        span += 1
        var path: [(Double, Double)] = []
        if let from = a.from { path.append(from) }
        path += a.waypoints
        if let to = a.to { path.append(to) }
        // Points without times of their own, spread evenly over the duration.
        for (i, p) in path.enumerated() {
            let t = path.count == 1 ? a.start : a.start + (a.end - a.start) * Double(i) / Double(path.count - 1)
            emit(t, p.0, p.1, span: span, what: "activitySegment", at: at, into: &sink, notes: &notes)
        }
        for p in a.raw { emit(p.time, p.latitude, p.longitude, what: "simplifiedRawPath", at: at, into: &sink, notes: &notes) }
    }

    private static func activity(_ r: JSONReader) throws -> Activity {
        var a = Activity()
        try object(r) {
            if r.matches("startLocation") { a.from = try location(r) ?? a.from }
            else if r.matches("endLocation") { a.to = try location(r) ?? a.to }
            else if r.matches("duration") { try duration(r, start: &a.start, end: &a.end) }
            else if r.matches("waypointPath") {
                try listed(r, "waypoints") {
                    var point: (latitude: Double?, longitude: Double?, time: Double?) = (nil, nil, nil)
                    try members(r) { try e7Member(r, &point) }
                    if let la = point.latitude, let lo = point.longitude, a.waypoints.count < 100_000 { a.waypoints.append((la, lo)) }
                }
            } else if r.matches("simplifiedRawPath") {
                try listed(r, "points") {
                    var point: (latitude: Double?, longitude: Double?, time: Double?) = (nil, nil, nil)
                    try members(r) { try e7Member(r, &point, timed: true) }
                    if let la = point.latitude, let lo = point.longitude, let time = point.time {
                        a.raw.append(TrackPoint(time: time, latitude: la, longitude: lo))
                    }
                }
            } else { try r.skipValue() }
        }
        return a
    }

    /// `{latitudeE7|latE7, longitudeE7|lngE7}`: both, or nil.
    private static func location(_ r: JSONReader) throws -> (Double, Double)? {
        var point: (latitude: Double?, longitude: Double?, time: Double?) = (nil, nil, nil)
        try object(r) { try e7Member(r, &point) }
        guard let la = point.latitude, let lo = point.longitude else { return nil }
        return (la, lo)
    }

    /// The objects of the array under `key` in the object at the reader, each handed to `body`
    /// just past its `objectStart`.
    private static func listed(_ r: JSONReader, _ key: StaticString, _ body: () throws -> Void) throws {
        try object(r) {
            guard r.matches(key) else { return try r.skipValue() }
            try array(r) { t in
                guard t == .objectStart else { return try r.skipValue() }
                try body()
            }
        }
    }

    /// One member of a point: its E7 latitude or longitude (either name), with `timed` its
    /// time (`timestampMs` or `timestamp`, the ISO one winning); anything else skipped.
    private static func e7Member(_ r: JSONReader, _ point: inout (latitude: Double?, longitude: Double?, time: Double?),
                                 timed: Bool = false) throws {
        if r.matches("latE7") || r.matches("latitudeE7") { _ = try r.next(); point.latitude = r.int64.map { e7($0, limit: 900_000_000) } }
        else if r.matches("lngE7") || r.matches("longitudeE7") { _ = try r.next(); point.longitude = r.int64.map { e7($0, limit: 1_800_000_000) } }
        else if timed, r.matches("timestampMs") { _ = try r.next(); point.time = point.time ?? GoogleTimeline.time(r, millis: true) }
        else if timed, r.matches("timestamp") { _ = try r.next(); point.time = GoogleTimeline.time(r, millis: false) ?? point.time }
        else { try r.skipValue() }
    }

    /// `duration{startTimestamp, endTimestamp}` or `{startTimestampMs, endTimestampMs}`.
    static func duration(_ r: JSONReader, start: inout Double, end: inout Double) throws {
        try object(r) {
            if r.matches("startTimestamp") { _ = try r.next(); start = time(r, millis: false) ?? start }
            else if r.matches("endTimestamp") { _ = try r.next(); end = time(r, millis: false) ?? end }
            else if r.matches("startTimestampMs") { _ = try r.next(); start = time(r, millis: true) ?? start }
            else if r.matches("endTimestampMs") { _ = try r.next(); end = time(r, millis: true) ?? end }
            else { try r.skipValue() }
        }
    }

    // MARK: The phone's Timeline export

    static func readPhone<Sink: TimelineSink>(_ r: JSONReader, into sink: inout Sink, notes: inout TrackNotes) throws {
        var span: Int32 = 0
        guard let first = try r.next() else { return }
        if first == .arrayStart {
            try elements(r) { t in
                guard t == .objectStart else { return try r.skipValue() }
                try segment(r, span: &span, into: &sink, notes: &notes)
            }
            return
        }
        guard first == .objectStart else { throw FormatError(format: "Timeline export", offset: 0, reason: "not an object or array") }
        try members(r) {
            if r.matches("semanticSegments") {
                try array(r) { t in
                    guard t == .objectStart else { return try r.skipValue() }
                    try segment(r, span: &span, into: &sink, notes: &notes)
                }
            } else if r.matches("rawSignals") {
                try array(r) { t in
                    guard t == .objectStart else { return try r.skipValue() }
                    let at = r.tokenOffset
                    var found = false
                    var pos: (Double, Double)?, time: Double?
                    try members(r) {
                        guard r.matches("position") else { return try r.skipValue() }
                        found = true
                        try object(r) {
                            if r.matches("LatLng") || r.matches("latLng") { _ = try r.next(); pos = r.token == .string ? latLng(r.string) : nil }
                            else if r.matches("timestamp") { _ = try r.next(); time = GoogleTimeline.time(r, millis: false) }
                            else { try r.skipValue() }
                        }
                    }
                    if found { emit(time, pos?.0, pos?.1, what: "rawSignals position", at: at, into: &sink, notes: &notes) }
                }
            } else {
                try r.skipValue()
            }
        }
    }

    static func segment<Sink: TimelineSink>(_ r: JSONReader, span: inout Int32, into sink: inout Sink, notes: inout TrackNotes) throws {
        let at = r.tokenOffset
        // Path points: a time, or minutes after the start (the start may come later in the object).
        var path: [(pos: (Double, Double), time: Double?, minutes: Double?)] = []
        let segment = try GoogleTimelineParse.segment(r) { p in
            let pos = p.point.flatMap(latLng)
            if let pos, path.count < 1_000_000 { path.append((pos, p.time.flatMap(TrackTime.parse), p.minutesAfterStart)) }
            else if pos == nil { notes.add("timelinePath point at byte \(p.offset): no position") }
        }
        let start = segment.startTime.flatMap(TrackTime.parse), end = segment.endTime.flatMap(TrackTime.parse)
        let visitPlace = segment.visit?.placeLocation.flatMap(latLng), placeID = segment.visit?.placeID
        let hasVisit = segment.visit != nil
        let from = segment.activityStart.flatMap(latLng), to = segment.activityEnd.flatMap(latLng)
        if hasVisit {
            guard let start, let end, let p = visitPlace, start <= end else {
                return notes.add("visit at byte \(at): no place or no start and end time")
            }
            sink.visit(TimelineVisit(start: start, end: end, latitude: p.0, longitude: p.1, placeID: placeID))
            span += 1
            emit(start, p.0, p.1, span: span, what: "visit", at: at, into: &sink, notes: &notes)
            if end > start { emit(end, p.0, p.1, span: span, what: "visit", at: at, into: &sink, notes: &notes) }
        }
        if from != nil || to != nil {
            if let start, let end, let from, let to, start <= end {
                span += 1
                emit(start, from.0, from.1, span: span, what: "activity", at: at, into: &sink, notes: &notes)
                emit(end, to.0, to.1, span: span, what: "activity", at: at, into: &sink, notes: &notes)
            } else {
                notes.add("activity at byte \(at): no start and end place and time")
            }
        }
        for p in path {
            let t = p.time ?? p.minutes.flatMap { m in start.map { $0 + m * 60 } }
            emit(t, p.pos.0, p.pos.1, what: "timelinePath point", at: at, into: &sink, notes: &notes)
        }
    }
}
