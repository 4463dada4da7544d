import Foundation
import PinCore
import PinFormats

/// One record's JSON (a feature, a timeline object) as a small tree: the streaming reader walks
/// the file, and each record alone is built, so memory is one record's, not the file's.
indirect enum JSONValue: Equatable {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case let (.object(x), .object(y)): return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case let (.array(x), .array(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.bool(x), .bool(y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }

    subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    var string: String? { if case let .string(s) = self { return s } else { return nil } }
    var number: Double? {
        switch self {
        case let .number(n): return n
        case let .string(s): return Double(s)  // Google writes `timestampMs` and E7 values as strings
        default: return nil
        }
    }
    var int: Int? { number.flatMap { $0 == $0.rounded() && abs($0) < 1e15 ? Int($0) : nil } }
    var array: [JSONValue]? { if case let .array(a) = self { return a } else { return nil } }
    var bool: Bool? { if case let .bool(b) = self { return b } else { return nil } }
    /// A non-empty string.
    var text: String? { string.flatMap { $0.isEmpty ? nil : $0 } }

    /// The most tokens one record may have: a feature of a place list has tens; this stops a
    /// record of millions (a LineString of a whole track) from being built in memory.
    static let maxTokens = 200_000

    /// The value that starts at the reader's current token.
    static func read(_ reader: JSONReader, budget: inout Int) throws -> JSONValue? {
        budget -= 1
        guard budget >= 0 else { return nil }
        switch reader.token {
        case .objectStart?:
            var members: [(String, JSONValue)] = []
            while let t = try reader.next(), t != .objectEnd {
                let key = reader.string
                _ = try reader.next()
                guard let value = try read(reader, budget: &budget) else { return nil }
                members.append((key, value))
            }
            return .object(members)
        case .arrayStart?:
            var items: [JSONValue] = []
            while let t = try reader.next(), t != .arrayEnd {
                _ = t
                guard let value = try read(reader, budget: &budget) else { return nil }
                items.append(value)
            }
            return .array(items)
        case .string?: return .string(reader.string)
        case .number?: return .number(reader.double ?? .nan)
        case .true?: return .bool(true)
        case .false?: return .bool(false)
        case .null?: return .null
        default: return .null
        }
    }
}

/// The JSON place files: GeoJSON (pins' own export among them), Google Maps Saved Places,
/// Takeout Semantic Location History, the phone's Timeline export. Each is an array of records
/// somewhere in the document (`features`, `timelineObjects`, `semanticSegments`, or the top-level
/// array); the reader finds it while streaming and reads its elements one at a time.
enum PlacesJSON {
    /// The properties a GeoJSON place's date is read from, first found first (`recorded_at`:
    /// what loggers such as Overland and PhoneTrack write).
    static let dateKeys = ["date", "time", "timestamp", "when", "datetime", "recorded_at", "recordedAt"]

    /// A date property: ISO 8601 text, or Unix seconds as a number or a text of digits
    /// (milliseconds when 10^11 or more, as the track readers take them: seconds that large are
    /// past the year 5000). A number was passed over, and the place dated with the import.
    static func placeDate(_ value: JSONValue) -> PlaceDate? {
        var seconds: Double?
        if case let .number(n) = value { seconds = n }
        if let s = value.text, s.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D }) { seconds = Double(s) }
        if let seconds {
            guard seconds.isFinite else { return nil }
            return .utc(Date(timeIntervalSince1970: abs(seconds) >= 1e11 ? seconds / 1000 : seconds))
        }
        return value.text.flatMap { PlaceDates.parse($0, zoneless: .utc) }
    }

    static func read(_ input: ByteInput, kind: PlaceFileKind, emit: (PlaceReadEvent) throws -> Void) throws {
        let reader = JSONReader(input: input)
        guard let first = try reader.next() else { throw PlaceFileError("empty file") }
        var index = 0
        func readArray(named arrayName: String) throws {
            let level = reader.depth
            // A timeline's element is named in the singular ("semanticSegment 3"): once per array,
            // not a search and replace per record.
            let label = kind == .semanticHistory && arrayName == "timelineObjects" ? "timelineObject"
                : kind == .timeline && arrayName == "semanticSegments" ? "semanticSegment" : arrayName
            while let t = try reader.next(), t != .arrayEnd {
                _ = t
                index += 1
                let position = "\(label) \(index)"
                if kind.isTimeline {
                    // Read by the parser the track reader shares (PinFormats), token by token.
                    guard t == .objectStart else {
                        try reader.skipValue()
                        continue
                    }
                    if let event = try timelineRecord(reader, kind: kind, position: position) { try emit(event) }
                    continue
                }
                var budget = JSONValue.maxTokens
                guard let value = try JSONValue.read(reader, budget: &budget) else {
                    try reader.skipRest(toDepth: level)
                    try emit(.malformed(position: position, reason: "more than \(JSONValue.maxTokens) values in one record"))
                    continue
                }
                if let event = try record(value, kind: kind, position: position) { try emit(event) }
            }
        }
        if first == .arrayStart {
            // The phone's older Timeline export: a top-level array of segments.
            try readArray(named: "segment")
            return
        }
        guard first == .objectStart else { throw PlaceFileError("not a JSON object or array") }
        let wanted: [String: String] = ["features": "feature", "timelineObjects": "timelineObjects", "semanticSegments": "semanticSegments"]
        while let t = try reader.next(), t != .objectEnd {
            guard t == .key else { continue }
            let key = reader.string
            guard let name = wanted[key] else {
                _ = try reader.next()
                try reader.skipValue()
                continue
            }
            guard try reader.next() == .arrayStart else { throw PlaceFileError("\"\(key)\" is not an array") }
            try readArray(named: name)
        }
    }

    static func record(_ value: JSONValue, kind: PlaceFileKind, position: String) throws -> PlaceReadEvent? {
        switch kind {
        case .geojson, .savedPlaces: return feature(value, position: position)
        default: return nil
        }
    }

    /// A timeline's element (the reader at its `objectStart`): its visit, or nil when it has none.
    static func timelineRecord(_ reader: JSONReader, kind: PlaceFileKind, position: String) throws -> PlaceReadEvent? {
        if kind == .semanticHistory {
            return try GoogleTimelineParse.timelineObject(reader).map { placeVisit($0, position: position) }
        }
        let segment = try GoogleTimelineParse.segment(reader, readPath: false)
        return segment.visit.map { timelineVisit($0, of: segment, position: position) }
    }

    // MARK: GeoJSON (RFC 7946) and Saved Places

    static func feature(_ value: JSONValue, position: String) -> PlaceReadEvent? {
        guard case .object = value else { return .malformed(position: position, reason: "not a JSON object") }
        let properties = value["properties"] ?? .null
        // pins' own export with --countries: the visited countries' outlines are not places.
        if properties["kind"]?.string == "country" { return nil }
        var record = PlaceRecord(position: position)
        guard let geometry = value["geometry"], case .object = geometry else {
            return .malformed(position: position, reason: "a feature without a geometry")
        }
        guard geometry["type"]?.string == "Point" else {
            record.locationIssue = "a \(geometry["type"]?.string ?? "geometry") is not a point"
            record.title = title(properties)
            return .record(record)
        }
        guard let coordinates = geometry["coordinates"]?.array, coordinates.count >= 2,
              let lon = coordinates[0].number, let lat = coordinates[1].number, lat.isFinite, lon.isFinite else {
            return .malformed(position: position, reason: "a Point without two numbers as coordinates")
        }
        record.setCoordinate(latitude: lat, longitude: lon)
        if let id = value["id"].flatMap({ $0.string ?? $0.number.map { String($0) } }) { record.ownID = id }
        if isPinObject(properties) {
            do {
                try readPin(properties, into: &record)
            } catch let failure as PlaceFileError {
                return .malformed(position: position, reason: failure.reason)
            } catch {
                return .malformed(position: position, reason: "\(error)")
            }
            return .record(record)
        }
        if properties["Google Maps URL"] != nil || properties["google_maps_url"] != nil {
            savedPlace(properties, into: &record)
            return .record(record)
        }
        record.title = title(properties)
        record.note = ["description", "desc", "note", "notes", "comment"].lazy.compactMap { properties[$0]?.text }.first
        if let id = properties["id"]?.text, record.ownID == nil { record.ownID = id }
        if let value = dateKeys.lazy.compactMap({ properties[$0] }).first(where: { $0.text != nil || $0.string == nil && $0.number != nil }) {
            guard let date = placeDate(value) else {
                return .malformed(position: position, reason: "date '\(value.text ?? "\(value.number ?? .nan)")' is not ISO 8601 or Unix seconds")
            }
            record.date = date
        }
        if let tags = properties["tags"] {
            let list = tags.array?.compactMap(\.text) ?? tags.string.map { TagList.split($0) } ?? []
            record.tags = list.isEmpty ? nil : list
        }
        if let color = (properties["color"] ?? properties["marker-color"])?.text {
            record.color = Settings.normalizedColor(color)
        }
        return .record(record)
    }

    static func title(_ properties: JSONValue) -> String? {
        ["title", "name", "Title", "Name", "label"].lazy.compactMap { properties[$0]?.text }.first
    }

    /// "A pin as JSON" (README): the object `pins list --json` prints and GeoJSON exports carry.
    static func isPinObject(_ p: JSONValue) -> Bool {
        p["id"]?.string != nil && p["title"]?.string != nil && p["latitude"]?.number != nil && p["longitude"]?.number != nil
            && p["date"]?.string != nil && p["color"]?.string != nil
    }

    static func readPin(_ p: JSONValue, into record: inout PlaceRecord) throws {
        record.ownID = p["id"]?.string
        record.title = p["title"]?.string
        guard let dateText = p["date"]?.string, let parsed = ISO8601.parse(dateText) else {
            throw PlaceFileError("date '\(p["date"]?.string ?? "")' is not ISO 8601")
        }
        // `Z` is offset 0 when `utcOffset` says 0, else unknown; an odd-seconds offset is in `utcOffset`.
        if let offset = p["utcOffset"]?.int {
            record.date = .withOffset(parsed.date, offset)
        } else if let offset = parsed.offsetSeconds, offset != 0 {
            record.date = .withOffset(parsed.date, offset)
        } else {
            record.date = .unknownOffset(parsed.date)
        }
        guard let color = p["color"]?.string.flatMap(Settings.normalizedColor) else { throw PlaceFileError("color is not #RRGGBB") }
        record.color = color
        if let visits = p["visitCount"] {
            guard let n = visits.int, n >= 1 else { throw PlaceFileError("visitCount is not a whole number from 1") }
            record.visitCount = n
        }
        record.note = p["note"]?.string
        if let tags = p["tags"]?.array {
            let list = tags.compactMap(\.string)
            record.tags = list.isEmpty ? nil : list
        }
        record.photoIDs = p["photoIDs"]?.array?.compactMap(\.string) ?? []
        record.edited = p["edited"]?.bool == true
        record.wanted = p["wanted"]?.bool == true
        record.type = try pinVisit(p)
    }

    /// A pin object's `type` and its visit: the type's object (`"city": {"name": …}`) with its
    /// fields by key (`LocationTypeSelection.visitFields`), the name a text not empty. No type
    /// (or one that is not a text): a point.
    static func pinVisit(_ p: JSONValue) throws -> VisitValues {
        guard let name = p["type"]?.string else { return .point }
        guard let type = LocationTypeSelection(rawValue: name) else {
            throw PlaceFileError("type '\(name)' is not \(LocationTypeSelection.spoken())")
        }
        let object = p[type.rawValue]
        let visit = VisitValues.reading(type) { field in
            let value = object?[field.key]
            switch field.kind {
            case .text: return (field == .name ? value?.text : value?.string).map(VisitValue.text)
            case .number: return value?.number.map(VisitValue.number)
            }
        }
        guard let visit else { throw PlaceFileError("a \(type.rawValue) without a name") }
        return visit
    }

    /// Google Maps "Saved places" (Takeout `Saved Places.json`), as the public descriptions
    /// give its two schemas: the old `properties{Title, "Google Maps URL", Location{"Business
    /// Name", Address, "Geo Coordinates"{Latitude, Longitude}, "Country Code"}, Published,
    /// Updated}`, and the 2025 `properties{date, google_maps_url, location{address,
    /// country_code, name}, Comment}`. A place Google could not locate comes at [0, 0] (the
    /// newer schema says why in `Comment`): skipped as without location.
    static func savedPlace(_ p: JSONValue, into record: inout PlaceRecord) {
        if let url = p["Google Maps URL"]?.text {
            let location = p["Location"]
            record.ownID = url
            record.title = p["Title"]?.text ?? location?["Business Name"]?.text
            record.note = location?["Address"]?.text
            if record.coordinate == nil, let geo = location?["Geo Coordinates"],
               let lat = geo["Latitude"]?.number, let lon = geo["Longitude"]?.number {
                record.locationIssue = nil
                record.setCoordinate(latitude: lat, longitude: lon)
            }
            if let text = (p["Published"] ?? p["Updated"])?.text { record.date = PlaceDates.parse(text, zoneless: .utc) }
        } else {
            let location = p["location"]
            record.ownID = p["google_maps_url"]?.text
            record.title = location?["name"]?.text
            record.note = location?["address"]?.text
            if let text = p["date"]?.text { record.date = PlaceDates.parse(text, zoneless: .utc) }
        }
        if record.coordinate == nil, let comment = p["Comment"]?.text { record.locationIssue = "at 0,0: \(comment)" }
    }

    // MARK: Google timelines

    /// Takeout Semantic Location History (`Semantic Location History/YYYY/YYYY_MONTH.json`),
    /// as the public descriptions give it: `timelineObjects[]` of `placeVisit{location{
    /// latitudeE7, longitudeE7, placeId, address, name}, duration{startTimestamp, endTimestamp}}`
    /// (older files: `startTimestampMs`, milliseconds as a string) and `activitySegment` (a
    /// journey: not a place, not a record here).
    static func placeVisit(_ visit: GoogleTimelineParse.PlaceVisit, position: String) -> PlaceReadEvent {
        var record = PlaceRecord(position: position)
        let lat = visit.latitudeE7?.double ?? visit.centerLatE7?.double
        let lon = visit.longitudeE7?.double ?? visit.centerLngE7?.double
        record.setCoordinate(latitude: lat.map { $0 / 1e7 }, longitude: lon.map { $0 / 1e7 })
        record.title = visit.name.flatMap(nonEmpty)
        record.note = visit.address.flatMap(nonEmpty)
        var start: String?
        if let text = visit.startTimestamp.flatMap(nonEmpty) {
            guard let date = PlaceDates.parse(text, zoneless: .utc) else {
                return .malformed(position: record.position, reason: "startTimestamp '\(text)' is not ISO 8601")
            }
            record.date = date
            start = text
        } else if let ms = visit.startTimestampMs, let value = ms.double {
            // Milliseconds an Int64 holds (the key below is written from it): ±292 million years.
            guard value.isFinite, abs(value) < 9.2e18 else {
                return .malformed(position: record.position, reason: "startTimestampMs '\(ms.text)' is not a time in milliseconds")
            }
            record.date = .utc(Date(timeIntervalSince1970: value / 1000))
            start = String(Int64(value))
        }
        guard let start else { return .malformed(position: record.position, reason: "a placeVisit without a start time") }
        record.ownID = (visit.placeID.flatMap(nonEmpty) ?? "-") + "@" + start
        return .record(record)
    }

    static func nonEmpty(_ s: String) -> String? { s.isEmpty ? nil : s }

    /// The phone's own Timeline export (Google Maps, 2024 on), as the public descriptions give
    /// it: `semanticSegments[]` of `{startTime, endTime, visit{hierarchyLevel, probability,
    /// topCandidate{placeId, semanticType, probability, placeLocation{latLng: "48.8566°,
    /// 2.3522°"}}}}` (other segments hold `timelinePath` or `activity`: not places); the older
    /// export is a top-level array of `{startTime, endTime, visit{topCandidate{placeID,
    /// semanticType, placeLocation: "geo:48.8566,2.3522"}}}`.
    static func timelineVisit(_ visit: GoogleTimelineParse.Visit, of segment: GoogleTimelineParse.Segment,
                              position: String) -> PlaceReadEvent {
        var record = PlaceRecord(position: position)
        guard let text = visit.placeLocation, let (lat, lon) = GoogleTimelineParse.latLng(text) else {
            return .malformed(position: record.position, reason: "a visit without a readable placeLocation")
        }
        record.setCoordinate(latitude: lat, longitude: lon)
        guard let startText = segment.startTime.flatMap(nonEmpty), let date = PlaceDates.parse(startText, zoneless: .utc) else {
            return .malformed(position: record.position, reason: "a visit without an ISO 8601 startTime")
        }
        record.date = date
        if let type = visit.semanticType.flatMap(nonEmpty), !["UNKNOWN", "Unknown", "SEARCHED_ADDRESS"].contains(type) {
            record.note = type
        }
        record.ownID = (visit.placeID.flatMap(nonEmpty) ?? "-") + "@" + startText
        return .record(record)
    }
}

extension JSONReader {
    /// Skips tokens until the reader is back at `depth` (after a record cut short).
    func skipRest(toDepth target: Int) throws {
        while depth > target {
            guard try next() != nil else { return }
        }
    }
}
