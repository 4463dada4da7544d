import Foundation
import PinCore

/// What a place file is, found from its first bytes (never its name).
enum PlaceFileKind: String, Sendable, CaseIterable {
    case geojson
    case kml
    case kmz
    case gpx
    case csv
    /// Google Maps "Saved places" (Takeout `Saved Places.json`): GeoJSON with Google's properties.
    case savedPlaces = "saved-places"
    /// Takeout Semantic Location History (`YYYY/YYYY_MONTH.json`): `timelineObjects[].placeVisit`.
    case semanticHistory = "semantic-location-history"
    /// The phone's own Timeline export (2024 on): `semanticSegments[].visit`.
    case timeline

    /// A stable key's first part: a KMZ's placemarks are its KML's.
    var keyPrefix: String { self == .kmz ? "kml" : rawValue }

    /// Visits of a timeline follow the app's rules as photos do; place lists do not.
    var isTimeline: Bool { self == .semanticHistory || self == .timeline }

    /// What `import-places` reads, for the message about a file it does not.
    static let readableDescription = "GeoJSON points, KML or KMZ placemarks, GPX waypoints, CSV with latitude/longitude columns, "
        + "Google Maps Saved Places.json, Google Takeout Semantic Location History, the Google Maps Timeline export"
}

/// A record's date as the file says it.
enum PlaceDate: Sendable, Equatable {
    /// An instant with the offset of the visit written beside it.
    case withOffset(Date, Int)
    /// An instant whose offset the file does not know (pins' own "Z" without `utcOffset`):
    /// kept unknown, so the pin's date reads as the file's did.
    case unknownOffset(Date)
    /// An instant in UTC from a file that never writes local offsets (GPX, Google's
    /// timestamps): the pin takes the offset of its position's zone at that instant.
    case utc(Date)
    /// A wall-clock time without an offset (`2024-05-01T12:00`, `2024-05-01`): the local time at
    /// the position, as `pins add --date` reads it.
    case wallClock(String)
}

extension VisitValues {
    /// The visit of `type` with each field's value from `value` (nil: not given), as a reader
    /// finds it in its file; nil when the type has a name and `value` gives none.
    static func reading(_ type: LocationTypeSelection, _ value: (VisitField) throws -> VisitValue?) rethrows -> VisitValues? {
        let values = try type.visitFields.map(value)
        if let name = type.visitFields.firstIndex(of: .name), values[name] == nil { return nil }
        return VisitValues(type: type, values: values)
    }
}

/// One record of a place file, read but not yet decided: what a reader hands the import.
struct PlaceRecord: Sendable, Equatable {
    /// Where it is in the file, for a person: "line 12", "feature 3", "placemark 7".
    var position: String
    /// The file's own id for it (a feature id, a Google place id with its start time, a
    /// Maps URL), when it has one: the stable part of the record's key.
    var ownID: String?
    var title: String?
    /// nil: the record has no usable position; `locationIssue` says why.
    var coordinate: Coordinate?
    var locationIssue: String?
    var date: PlaceDate?
    var note: String?
    var tags: [String]?
    var color: String?
    /// The kind of pin it makes, with its visit's fields (`LocationTypeSelection.visitFields`).
    var type: VisitValues = .point
    var visitCount: Int?
    var photoIDs: [String] = []
    /// pins' own export says the pin was edited by hand.
    var edited = false
    /// What `cleaned()` cut ("title cut to 1,000 characters"), for the report; nil: nothing.
    var textNote: String?
    /// pins' own export says the pin is a place to go, not a visit (`"wanted": true`).
    var wanted = false

    init(position: String) {
        self.position = position
    }

    /// Positions a file may hold but that mean "none": NaN, out of range, or exactly 0,0
    /// (Google writes places it cannot locate at 0,0; the app treats 0,0 as no location).
    mutating func setCoordinate(latitude: Double?, longitude: Double?) {
        guard let latitude, let longitude else {
            locationIssue = "no coordinates"
            return
        }
        let c = Coordinate(latitude: latitude, longitude: longitude)
        guard c.isValid else {
            locationIssue = "coordinates out of range: \(latitude), \(longitude)"
            return
        }
        guard latitude != 0 || longitude != 0 else {
            locationIssue = "at 0,0 (no location)"
            return
        }
        coordinate = c
    }
}

extension PlaceRecord {
    /// The record with its text as pins keeps it (`StoredText`): control characters dropped,
    /// titles and names cut to `StoredText.maxTitle` characters, notes to `maxNote`; what was
    /// cut said in `textNote`. Every reader's record goes through this once, before its key and
    /// digest are made, so a re-import of the same file compares equal.
    func cleaned() -> PlaceRecord {
        var r = self
        var cuts: [String] = []
        func short(_ text: String, _ what: String) -> String {
            let (kept, cut) = StoredText.clean(text, limit: StoredText.maxTitle)
            if cut, !cuts.contains(what) { cuts.append(what) }
            return kept
        }
        r.ownID = ownID.map { short($0, "id") }
        r.title = title.map { short($0, "title") }
        r.note = note.map { text in
            let (kept, cut) = StoredText.clean(text, limit: StoredText.maxNote)
            if cut { cuts.append("note cut to \(StoredText.maxNote) characters") }
            return kept
        }
        r.tags = tags.map { $0.map { short($0, "tag") } }
        r.color = color.map { short($0, "colour") }
        r.photoIDs = photoIDs.map { short($0, "photo id") }
        // The visit's text fields; its name is said with the type's ("city name").
        r.type.values = type.fields.map { field, value in
            guard let text = value?.text else { return value }
            return .text(short(text, field == .name ? "\(type.type.rawValue) name" : field.key))
        }
        let titled = cuts.filter { !$0.hasPrefix("note") }
        let notes = cuts.filter { $0.hasPrefix("note") }
        let said = (titled.isEmpty ? [] : [titled.joined(separator: ", ") + " cut to \(StoredText.maxTitle) characters"]) + notes
        r.textNote = said.isEmpty ? nil : said.joined(separator: "; ")
        return r
    }
}

extension PlaceReadEvent {
    /// `.record`'s record `cleaned()`; a malformed one as it is.
    func cleaned() -> PlaceReadEvent {
        if case let .record(r) = self { return .record(r.cleaned()) }
        return self
    }
}

/// What a reader reports: a record, or one it could not read (listed with its position, and
/// skipped; the rest of the file is read).
enum PlaceReadEvent: Sendable, Equatable {
    case record(PlaceRecord)
    case malformed(position: String, reason: String)
}

/// Why a whole file could not be read (an unknown kind, a file that ends in the middle, a
/// broken archive). What was read before the failure is kept.
struct PlaceFileError: Error, CustomStringConvertible, Equatable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
    var description: String { reason }
}

extension PlaceRecord {
    /// The record's stable key: its file kind, then its own id, else its title and position
    /// (to about 1 m). A record whose own id is the same is the same record, changed or not.
    func key(kind: PlaceFileKind) -> String {
        if let ownID, !ownID.isEmpty { return kind.keyPrefix + ":id:" + ownID }
        let where_ = coordinate.map { String(format: "%.5f,%.5f", $0.latitude, $0.longitude) } ?? "-"
        return kind.keyPrefix + ":at:" + where_ + ":" + (title ?? "")
    }

    /// Everything the record says, as one text: two reads of an unchanged record give the same
    /// digest, a change anywhere gives another.
    var digest: String {
        var parts: [String] = []
        parts.append(title ?? "\u{1}")
        parts.append(coordinate.map { "\($0.latitude),\($0.longitude)" } ?? "-")
        switch date {
        case nil: parts.append("-")
        case let .withOffset(d, o): parts.append("o\(d.timeIntervalSince1970)\(o)")
        case let .unknownOffset(d): parts.append("u\(d.timeIntervalSince1970)")
        case let .utc(d): parts.append("z\(d.timeIntervalSince1970)")
        case let .wallClock(text): parts.append("w" + text)
        }
        parts.append(note ?? "\u{1}")
        parts.append(tags.map { $0.joined(separator: "\u{2}") } ?? "\u{1}")
        parts.append(color ?? "\u{1}")
        // The type, then each field of its visit: a text given or \u{1}, a number or "-".
        parts.append(([type.type.rawValue] + type.fields.map { field, value in
            switch field.kind {
            case .text: value?.text ?? "\u{1}"
            case .number: value?.number.map { "\($0)" } ?? "-"
            }
        }).joined(separator: "\u{2}"))
        parts.append(visitCount.map(String.init) ?? "-")
        parts.append(photoIDs.joined(separator: "\u{2}"))
        parts.append(edited ? "edited" : "")
        // Only when set: the records imported before this field existed keep their digests.
        if wanted { parts.append("wanted") }
        return parts.joined(separator: "\u{3}")
    }
}
