import Foundation

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
public enum GeoJSONTrack {
    /// The most positions or times held while waiting for their partners (16 bytes each).
    public static let maxPending = 4_000_000

    static let timeKeys: [StaticString] = ["time", "timestamp", "datetime"]

    public static func read<Sink: TrackSink>(_ input: ByteInput, into sink: inout Sink, notes: inout TrackNotes) throws {
        let r = JSONReader(input: input)
        var untimed = 0, untimedLines = 0
        guard let first = try r.next() else { return }

        func time(_ r: JSONReader) -> Double? {
            switch r.token {
            case .string?: return FlexibleTime.parse(r.string)
            case .number?: return r.double.flatMap(FlexibleTime.number)
            default: return nil
            }
        }

        /// One feature, the reader just past its `objectStart`.
        func feature() throws {
            let at = r.tokenOffset
            var propertyTime: Double?, badTime: String?
            var positions: [(Double, Double)] = [], positionHead = 0
            var times: [Double?] = [], timeHead = 0
            var hasTimes = false, dropped = 0, badPositions = 0
            var positionCount = 0, timeCount = 0
            func pair() {
                guard hasTimes else { return }
                while positionHead < positions.count && timeHead < times.count {
                    let (lon, lat) = positions[positionHead]
                    if let t = times[timeHead] {
                        let p = TrackPoint(time: t, latitude: lat, longitude: lon)
                        if p.isValid { sink.point(p) } else { badPositions += 1 }
                    }
                    positionHead += 1
                    timeHead += 1
                }
                if positionHead > 4096 { positions.removeFirst(positionHead); positionHead = 0 }
                if timeHead > 4096 { times.removeFirst(timeHead); timeHead = 0 }
            }
            func addPosition(_ lon: Double, _ lat: Double) {
                positionCount += 1
                if positions.count - positionHead >= maxPending { dropped += 1; return }
                positions.append((lon, lat))
                pair()
            }
            func addTime(_ t: Double?) {
                timeCount += 1
                if times.count - timeHead >= maxPending { dropped += 1; return }
                times.append(t)
                pair()
            }
            /// The reader just past an `arrayStart` of `coordinates`: positions at any depth.
            func positionsArray() throws {
                var numbers: [Double] = [], isPosition = false, other = false
                while let t = try r.next(), t != .arrayEnd {
                    switch t {
                    case .number:
                        isPosition = true
                        if numbers.count < 3 { numbers.append(r.double ?? .nan) }
                    case .arrayStart: try positionsArray()
                    case .objectStart: try r.skipValue(); other = true
                    default: other = true
                    }
                }
                if isPosition {
                    if numbers.count >= 2 && !other { addPosition(numbers[0], numbers[1]) } else { badPositions += 1 }
                }
            }
            /// The reader just past an `arrayStart` of times: times at any depth, in order.
            func timesArray() throws {
                hasTimes = true
                while let t = try r.next(), t != .arrayEnd {
                    switch t {
                    case .arrayStart: try timesArray()
                    case .objectStart: try r.skipValue(); addTime(nil)
                    default: addTime(time(r))
                    }
                }
                pair()
            }
            try GoogleTimeline.members(r) {
                if r.matches("properties") {
                    try GoogleTimeline.object(r) {
                        if r.matches("coordTimes") {
                            guard try r.next() == .arrayStart else { return try r.skipValue() }
                            try timesArray()
                        } else if r.matches("coordinateProperties") {
                            try GoogleTimeline.object(r) {
                                guard r.matches("times") else { return try r.skipValue() }
                                guard try r.next() == .arrayStart else { return try r.skipValue() }
                                try timesArray()
                            }
                        } else if timeKeys.contains(where: { r.matches($0) }) {
                            _ = try r.next()
                            if let t = time(r) { propertyTime = propertyTime ?? t }
                            else if r.token == .string { badTime = r.string }
                            else { try r.skipValue() }
                        } else {
                            try r.skipValue()
                        }
                    }
                } else if r.matches("geometry") {
                    try GoogleTimeline.object(r) {
                        if r.matches("coordinates") {
                            guard try r.next() == .arrayStart else { return try r.skipValue() }
                            try positionsArray()
                        } else if r.matches("geometries") {
                            try r.skipValue()  // a GeometryCollection: not a track
                        } else {
                            try r.skipValue()
                        }
                    }
                } else if r.matches("features") {
                    // A FeatureCollection read as if a feature: its features, each in turn.
                    try GoogleTimeline.array(r) { t in
                        guard t == .objectStart else { return try r.skipValue() }
                        try feature()
                    }
                } else {
                    try r.skipValue()
                }
            }
            if hasTimes {
                pair()
                let left = (positions.count - positionHead) + (times.count - timeHead)
                if left > 0 || dropped > 0 {
                    notes.add("Feature at byte \(at): \(positionCount) positions and \(timeCount) times; \(left + dropped) without a partner ignored")
                }
            } else if positionCount == 1, let (lon, lat) = positions.first {
                if let propertyTime {
                    let p = TrackPoint(time: propertyTime, latitude: lat, longitude: lon)
                    if p.isValid { sink.point(p) } else { badPositions += 1 }
                } else if let badTime {
                    notes.add("Feature at byte \(at): time '\(badTime.prefix(40))' is not ISO 8601 or Unix seconds")
                } else {
                    untimed += 1
                }
            } else if positionCount > 1 {
                untimedLines += 1
            }
            if badPositions > 0 {
                notes.add("Feature at byte \(at): \(badPositions) position\(badPositions == 1 ? "" : "s") out of range or not [longitude, latitude]")
            }
        }

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

    /// Whether `head` (a JSON text) looks like GeoJSON.
    static func looksLike(_ text: String) -> Bool {
        text.contains("\"FeatureCollection\"") || text.contains("\"Feature\"")
            || (text.contains("\"coordinates\"") && text.contains("\"type\""))
    }
}
