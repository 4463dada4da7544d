import Foundation
import PinGrammar

/// The parts of Google's timelines that name a place, parsed once for both readers of them: the
/// track reader (`GoogleTimeline`, fixes for `--track`) and the place reader of `import-places`
/// (pins at the visits). Each function reads one structure from a token stream and returns what
/// the file wrote, as plain values: no range checks, no time zones, nothing of pins; each reader
/// decides what it keeps (the track reader wraps E7 overflows and drops points out of range, the
/// place reader keeps offsets and says why a record is skipped).
///
/// The structures (see `GoogleTimeline` for the whole files and where they are described):
/// - Semantic Location History `placeVisit{location{latitudeE7, longitudeE7, placeId, name,
///   address}, duration{startTimestamp, endTimestamp | startTimestampMs, endTimestampMs},
///   centerLatE7, centerLngE7}`;
/// - a segment of the phone's Timeline export: `{startTime, endTime, visit{topCandidate{placeId
///   (older: placeID), semanticType, placeLocation}}, activity{start, end}, timelinePath[{point,
///   time | durationMinutesOffsetFromStartTime}]}`, places written `"48.85°, 2.35°"`,
///   `"geo:48.85,2.35"` or `{"latLng": "48.85°, 2.35°"}`.
///
/// A member named twice: the last one counts.
public enum GoogleTimelineParse {
    /// A number as Google writes it: a JSON number, or a string holding one (E7 values and
    /// `timestampMs` are often strings).
    public struct Number: Sendable, Equatable {
        /// As written (a string's text without its quotes).
        public var text: String
        /// A whole number without fraction or exponent (`JSONReader.int64`); nil otherwise.
        public var int64: Int64?
        /// A JSON number as `JSONReader.double` reads it (NaN when it does not fit a Double), a
        /// string as `Double(_:)` reads it (nil when it is no number).
        public var double: Double?
    }

    /// Semantic Location History's `placeVisit`.
    public struct PlaceVisit: Sendable, Equatable {
        public var latitudeE7: Number?
        public var longitudeE7: Number?
        public var centerLatE7: Number?
        public var centerLngE7: Number?
        public var placeID: String?
        public var name: String?
        public var address: String?
        public var startTimestamp: String?
        public var endTimestamp: String?
        public var startTimestampMs: Number?
        var endTimestampMs: Number?
        public init() {}
    }

    /// A phone export segment's `visit.topCandidate`.
    public struct Visit: Sendable, Equatable {
        /// `placeLocation` as written: the string itself or its `latLng` (`LatLng`).
        public var placeLocation: String?
        /// `placeId`, else the older export's `placeID`.
        public var placeID: String?
        public var semanticType: String?
        public init() {}
    }

    /// One point of a segment's `timelinePath`.
    public struct PathPoint: Sendable, Equatable {
        public var point: String?
        public var time: String?
        var minutesAfterStart: Double?
        /// Where the point's object ends in the file (for messages).
        public var offset: Int64
    }

    /// A segment of the phone's Timeline export.
    public struct Segment: Sendable, Equatable {
        public var startTime: String?
        public var endTime: String?
        /// Present when the segment has a `visit` member (whatever its value).
        public var visit: Visit?
        /// `activity.start` and `activity.end` as written; `hasActivity` when either is there.
        var activityStart: String?
        var activityEnd: String?
        var hasActivity: Bool { activityStart != nil || activityEnd != nil }
        public init() {}
    }

    // MARK: Values

    /// "48.8566°, 2.3522°", "48.8566, 2.3522" or "geo:48.8566,2.3522" as two numbers (latitude,
    /// longitude), unchecked; nil when it is not two numbers.
    public static func latLng(_ text: String) -> (latitude: Double, longitude: Double)? {
        if let quick = text.utf8.withContiguousStorageIfAvailable(plainLatLng), let quick { return quick }
        var s = Substring(text)
        if s.hasPrefix("geo:") { s = s.dropFirst(4) }
        let parts = s.split(separator: ",")
        guard parts.count == 2 else { return nil }
        func degrees(_ p: Substring) -> Double? {
            Double(p.replacingOccurrences(of: "°", with: "").trimmingCharacters(in: .whitespaces))
        }
        guard let lat = degrees(parts[0]), let lon = degrees(parts[1]) else { return nil }
        return (lat, lon)
    }

    /// `latLng` of the common form, from its bytes without a String: `LatLonPair.google` (a
    /// `geo:` prefix, spaces and tabs, a `°` after each number, no exponent); nil for anything
    /// else, which `latLng`'s Foundation path reads (its result is the same on this form).
    static func plainLatLng(_ all: UnsafeBufferPointer<UInt8>) -> (latitude: Double, longitude: Double)? {
        guard case let .success((lat, lon)) = LatLonPair.scan(all, .google) else { return nil }
        return (lat, lon)
    }

    /// The string value after the key the reader is on; nil for any other value (skipped).
    static func string(_ r: JSONReader) throws -> String? {
        guard let t = try r.next() else { return nil }
        if t == .string { return r.string }
        if t == .objectStart || t == .arrayStart { try r.skipValue() }
        return nil
    }

    /// The number (or numeric string) after the key the reader is on; nil for any other value.
    static func number(_ r: JSONReader) throws -> Number? {
        guard let t = try r.next() else { return nil }
        switch t {
        case .number: return Number(text: r.string, int64: r.int64, double: r.double ?? .nan)
        case .string:
            let text = r.string
            return Number(text: text, int64: r.int64, double: Double(text))
        case .objectStart, .arrayStart: try r.skipValue(); return nil
        default: return nil
        }
    }

    /// The number (or numeric string) after the key the reader is on as `JSONReader.double`
    /// reads it; nil for any other value.
    static func double(_ r: JSONReader) throws -> Double? {
        guard let t = try r.next() else { return nil }
        if t == .objectStart || t == .arrayStart { try r.skipValue(); return nil }
        return t == .number || t == .string ? r.double : nil
    }

    /// A place after the key the reader is on: a string, or an object's `latLng` (`LatLng`).
    static func place(_ r: JSONReader) throws -> String? {
        guard let t = try r.next() else { return nil }
        if t == .string { return r.string }
        guard t == .objectStart else {
            if t == .arrayStart { try r.skipValue() }
            return nil
        }
        var out: String?
        try GoogleTimeline.members(r) {
            if r.matches("latLng") || r.matches("LatLng") { out = try string(r) } else { try r.skipValue() }
        }
        return out
    }

    // MARK: Structures

    /// The `placeVisit` whose key the reader is on.
    public static func placeVisit(_ r: JSONReader) throws -> PlaceVisit {
        var v = PlaceVisit()
        try GoogleTimeline.object(r) {
            if r.matches("location") {
                try GoogleTimeline.object(r) {
                    if r.matches("latitudeE7") { v.latitudeE7 = try number(r) }
                    else if r.matches("longitudeE7") { v.longitudeE7 = try number(r) }
                    else if r.matches("placeId") { v.placeID = try string(r) }
                    else if r.matches("name") { v.name = try string(r) }
                    else if r.matches("address") { v.address = try string(r) }
                    else { try r.skipValue() }
                }
            } else if r.matches("duration") {
                try GoogleTimeline.object(r) {
                    if r.matches("startTimestamp") { v.startTimestamp = try string(r) }
                    else if r.matches("endTimestamp") { v.endTimestamp = try string(r) }
                    else if r.matches("startTimestampMs") { v.startTimestampMs = try number(r) }
                    else if r.matches("endTimestampMs") { v.endTimestampMs = try number(r) }
                    else { try r.skipValue() }
                }
            } else if r.matches("centerLatE7") {
                v.centerLatE7 = try number(r)
            } else if r.matches("centerLngE7") {
                v.centerLngE7 = try number(r)
            } else {
                try r.skipValue()
            }
        }
        return v
    }

    /// The `placeVisit` of the `timelineObjects` element whose `objectStart` the reader is at
    /// (the first, if it has two); nil when it has none.
    public static func timelineObject(_ r: JSONReader) throws -> PlaceVisit? {
        var visit: PlaceVisit?
        try GoogleTimeline.members(r) {
            if visit == nil, r.matches("placeVisit") { visit = try placeVisit(r) } else { try r.skipValue() }
        }
        return visit
    }

    /// The segment whose `objectStart` the reader is at. `path` gets each point of its
    /// `timelinePath`; with `readPath` false the path is skipped unread.
    public static func segment(_ r: JSONReader, readPath: Bool = true, path: (PathPoint) -> Void = { _ in }) throws -> Segment {
        var s = Segment()
        try GoogleTimeline.members(r) {
            if r.matches("startTime") { s.startTime = try string(r) }
            else if r.matches("endTime") { s.endTime = try string(r) }
            else if r.matches("visit") {
                var visit = Visit()
                var placeId: String?, placeID: String?
                try GoogleTimeline.object(r) {
                    guard r.matches("topCandidate") else { return try r.skipValue() }
                    try GoogleTimeline.object(r) {
                        if r.matches("placeLocation") { visit.placeLocation = try place(r) }
                        else if r.matches("placeId") { placeId = try string(r) }
                        else if r.matches("placeID") { placeID = try string(r) }
                        else if r.matches("semanticType") { visit.semanticType = try string(r) }
                        else { try r.skipValue() }
                    }
                }
                visit.placeID = placeId ?? placeID
                s.visit = visit
            } else if r.matches("activity") {
                try GoogleTimeline.object(r) {
                    if r.matches("start") { s.activityStart = try place(r) }
                    else if r.matches("end") { s.activityEnd = try place(r) }
                    else { try r.skipValue() }
                }
            } else if readPath, r.matches("timelinePath") {
                guard try r.next() == .arrayStart else { return try r.skipValue() }
                while let t = try r.next(), t != .arrayEnd {
                    guard t == .objectStart else { try r.skipValue(); continue }
                    var p = PathPoint(offset: 0)
                    try GoogleTimeline.members(r) {
                        if r.matches("point") { p.point = try string(r) }
                        else if r.matches("time") { p.time = try string(r) }
                        else if r.matches("durationMinutesOffsetFromStartTime") { p.minutesAfterStart = try double(r) }
                        else { try r.skipValue() }
                    }
                    p.offset = r.tokenOffset
                    path(p)
                }
            } else {
                try r.skipValue()
            }
        }
        return s
    }
}
