import Foundation
import PinCore

/// What each call's body and query say, decoded and checked before any use case runs: every
/// request decoder of the API in one file that knows neither PinApp nor SQLite, so the fuzz
/// target (Fuzz/Serve.swift) runs exactly these on any bytes. A wrong value is a 400 or 422
/// naming the field; nothing here reads or changes the database.
public enum APIRequest {
    /// GET /api/pins?q=&country=&type=&tag=&year=&limit=&offset=: the filter (newest first) and the page.
    public static func pinList(_ target: RequestTarget) throws -> (filter: PinFilter, limit: Int, offset: Int) {
        var filter = PinFilter()
        filter.search = target.value("q").flatMap { $0.isEmpty ? nil : $0 }
        filter.countries = Set((target.query["country"] ?? []).map { $0.uppercased() })
        filter.types = Set(try (target.query["type"] ?? []).map {
            guard let type = LocationTypeSelection(rawValue: $0) else { throw RequestError(400, "type is \(LocationTypeSelection.spoken()), not '\($0)'") }
            return type
        })
        filter.tags = target.query["tag"] ?? []
        if let year = target.value("year") {
            guard let number = Int(year), (1800...3000).contains(number) else { throw RequestError(400, "year must be a year, not '\(year)'") }
            filter.since = utc(year: number)
            filter.until = utc(year: number + 1).addingTimeInterval(-0.001)
        }
        filter.descending = true
        let limit = try target.value("limit").map { try count($0, "limit", 1...1000) } ?? 100
        let offset = try target.value("offset").map { try count($0, "offset", 0...10_000_000) } ?? 0
        return (filter, limit, offset)
    }

    /// GET /api/locate?lat=&lon=.
    public static func position(_ target: RequestTarget) throws -> Coordinate {
        guard let lat = target.value("lat").flatMap(Double.init), lat.isFinite, (-90...90).contains(lat),
              let lon = target.value("lon").flatMap(Double.init), lon.isFinite, (-180...180).contains(lon) else {
            throw RequestError(400, "lat (-90 to 90) and lon (-180 to 180) are required")
        }
        return Coordinate(latitude: lat, longitude: lon)
    }

    /// POST /api/pins: the fields of `pins add`.
    public struct NewPinFields: Sendable {
        public var coordinate: Coordinate
        public var title, date, color, note, name: String?
        public var tags: [String] = []
        public var type: LocationTypeSelection?
        /// The visit's other fields by key (`VisitField.all`), as `NewPin.fields`.
        public var fields: [String: VisitValue] = [:]
    }

    public static func newPin(_ body: JSONBody) throws -> NewPinFields {
        guard let lat = try body.number("latitude", in: -90...90), let lon = try body.number("longitude", in: -180...180) else {
            throw RequestError(422, "'latitude' and 'longitude' are required")
        }
        var new = NewPinFields(coordinate: Coordinate(latitude: lat, longitude: lon))
        new.title = try body.string("title", maxLength: 500).flatMap { $0.isEmpty ? nil : $0 }
        new.date = try body.string("date", maxLength: 64).flatMap { $0.isEmpty ? nil : $0 }
        new.color = try body.string("color", maxLength: 16)
        new.note = try body.string("note").flatMap { $0.isEmpty ? nil : $0 }
        new.tags = try body.strings("tags", maxCount: 100) ?? []
        new.type = try type(body)
        new.name = try body.string("name", maxLength: 500).flatMap { $0.isEmpty ? nil : $0 }
        new.fields = try visitFields(body)
        return new
    }

    /// The visit's fields but the name, each by its key (`address`, `height`, `achievedHeight`):
    /// what POST /api/pins and PATCH /api/pins/ID read.
    private static func visitFields(_ body: JSONBody) throws -> [String: VisitValue] {
        var fields: [String: VisitValue] = [:]
        for field in VisitField.all where field != .name {
            switch field.kind {
            case .text: fields[field.key] = try body.string(field.key, maxLength: 500).map(VisitValue.text)
            case .number: fields[field.key] = try body.number(field.key, in: field.range ?? -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude).map(VisitValue.number)
            }
        }
        return fields
    }

    /// PATCH /api/pins/ID: the edit (absent fields: unchanged), the whole new tag list when
    /// given (the caller turns it into tags added and removed), and the date's text.
    public static func pinEdit(_ body: JSONBody) throws -> (edit: LocationEdit, tags: [String]?, date: String?) {
        var edit = LocationEdit()
        edit.title = try body.string("title", maxLength: 500)
        if edit.title?.trimmingCharacters(in: .whitespaces).isEmpty == true { throw RequestError(422, "'title' must not be empty") }
        edit.note = try body.string("note")
        edit.color = try body.string("color", maxLength: 16)
        let tags = try body.strings("tags", maxCount: 100)
        let lat = try body.number("latitude", in: -90...90), lon = try body.number("longitude", in: -180...180)
        guard (lat == nil) == (lon == nil) else { throw RequestError(422, "moving a pin needs both 'latitude' and 'longitude'") }
        if let lat, let lon { edit.coordinate = Coordinate(latitude: lat, longitude: lon) }
        edit.type = try type(body)
        edit.name = try body.string("name", maxLength: 500).flatMap { $0.isEmpty ? nil : $0 }
        edit.fields = try visitFields(body)
        edit.visitCount = try body.number("visitCount", in: 1...100_000).map { Int($0) }
        let date = try body.string("date", maxLength: 64).flatMap { $0.isEmpty ? nil : $0 }
        return (edit, tags, date)
    }

    private static func type(_ body: JSONBody) throws -> LocationTypeSelection? {
        guard let type = try body.string("type", maxLength: 16) else { return nil }
        guard let selection = LocationTypeSelection(rawValue: type) else { throw RequestError(422, "'type' is \(LocationTypeSelection.spoken())") }
        return selection
    }

    /// POST /api/pins/bulk `{"ids": [...], "action": "color"|"addTag"|"removeTag"|"delete", "value": ...}`:
    /// the ids and the edit (nil: delete them).
    public static func bulk(_ body: JSONBody) throws -> (ids: [UUID], edit: LocationEdit?) {
        let ids = try body.ids("ids")
        guard let action = try body.string("action", maxLength: 16) else { throw RequestError(422, "'action' is required") }
        if action == "delete" { return (ids, nil) }
        var edit = LocationEdit()
        let value = try body.string("value", maxLength: 200)
        switch action {
        case "color":
            guard let value, Settings.normalizedColor(value) != nil else { throw RequestError(422, "'value' must be a colour #RRGGBB") }
            edit.color = value
        case "addTag", "removeTag":
            guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else { throw RequestError(422, "'value' must be a tag") }
            if action == "addTag" { edit.addTags = [value] } else { edit.removeTags = [value] }
        default: throw RequestError(422, "'action' is color, addTag, removeTag or delete, not '\(action)'")
        }
        return (ids, edit)
    }

    /// POST /api/pins/restore `{"ids": [...]}` (pins deleted) and/or `{"moved": [...]}` (pins moved).
    public static func restore(_ body: JSONBody) throws -> (deleted: [UUID], moved: [UUID]) {
        guard body.has("ids") || body.has("moved") else { throw RequestError(422, "'ids' (pins deleted) or 'moved' (pins moved) is required: a list of pin ids") }
        return (try body.has("ids") ? body.ids("ids") : [], try body.has("moved") ? body.ids("moved") : [])
    }

    /// PATCH /api/settings `{"pinColor", "fillColor", "mapStyle", "recolorPins": true}`.
    public static func settings(_ body: JSONBody) throws -> (pinColor: String?, fillColor: String?, mapStyle: Settings.MapStyle?, recolor: Bool) {
        let pinColor = try body.string("pinColor", maxLength: 16), fillColor = try body.string("fillColor", maxLength: 16)
        var mapStyle: Settings.MapStyle?
        if let style = try body.string("mapStyle", maxLength: 16) {
            guard let parsed = Settings.MapStyle(rawValue: style) else { throw RequestError(422, "'mapStyle' is light, dark or print") }
            mapStyle = parsed
        }
        let recolor = try body.bool("recolorPins") ?? false
        guard pinColor != nil || fillColor != nil || mapStyle != nil else {
            throw RequestError(422, "nothing to change: give pinColor, fillColor or mapStyle")
        }
        return (pinColor, fillColor, mapStyle, recolor)
    }

    /// PATCH /api/trips/ID `{"title": "..."}`: nil (null, empty) gives back the title pins makes.
    public static func tripTitle(_ body: JSONBody) throws -> String? {
        guard body.has("title") else { throw RequestError(422, "'title' is required (null gives back the title pins makes)") }
        return try body.string("title", maxLength: 200).flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
    }

    /// POST /api/runs/N/undo `{"dryRun": true}` (an empty body: the undo itself).
    public static func undoDryRun(_ bytes: [UInt8]) throws -> Bool {
        try bytes.isEmpty ? false : JSONBody(bytes).bool("dryRun") ?? false
    }

    /// POST /api/imports `{"library": ID, "dryRun": true|false}`: the library's id (checked
    /// against the server's `libraryCount` folders) and whether it is a dry run (the default).
    public static func libraryImport(_ body: JSONBody, libraryCount: Int) throws -> (library: Int, dryRun: Bool) {
        guard libraryCount > 0 else {
            throw RequestError(409, "this server was started without --library: there is no folder to import (start it with --library DIR)")
        }
        guard let number = try body.number("library", in: -1e9...1e9) else {
            throw RequestError(422, "'library' is required: the id of a --library folder (GET /api/imports lists them)")
        }
        guard let index = Int(exactly: number) else { throw RequestError(422, "'library' must be a whole number (an id of GET /api/imports)") }
        guard (0..<libraryCount).contains(index) else {
            throw RequestError(404, "no library \(index): this server imports \(libraryCount) folder(s), ids 0 to \(libraryCount - 1)")
        }
        return (index, try body.bool("dryRun") ?? true)
    }

    /// POST /api/imports/places?name=FILE&dryRun=true&wanted=false, the file as the body: its
    /// name as reports say it, the flags, after `refusal` (why the first bytes are no place
    /// file, nil when they are one: PlaceFiles.refusal) let it through.
    public static func placesUpload(_ target: RequestTarget, _ body: [UInt8], refusal: (String, [UInt8]) -> String?) throws
        -> (name: String, dryRun: Bool, wanted: Bool) {
        let name = uploadName(target.value("name"))
        let dryRun = try flag(target, "dryRun") ?? true
        let wanted = try flag(target, "wanted") ?? false
        guard !body.isEmpty else {
            throw RequestError(400, "the upload is empty: send a place file (GeoJSON, KML, KMZ, GPX, CSV, Google's Saved Places or timeline)")
        }
        if let refused = refusal(name, Array(body.prefix(64 << 10))) { throw RequestError(415, refused) }
        return (name, dryRun, wanted)
    }

    /// A query flag: true/false (or 1/0); nil when absent.
    static func flag(_ target: RequestTarget, _ name: String) throws -> Bool? {
        guard let text = target.value(name) else { return nil }
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default: throw RequestError(400, "\(name) is true or false, not '\(Gate.printable(text))'")
        }
    }

    /// The uploaded file's name as the report and the run record say it: its last component,
    /// printable, at most 100 characters ("upload" when none was given).
    static func uploadName(_ given: String?) -> String {
        let last = (given ?? "").split(separator: "/").last.map(String.init) ?? ""
        let clean = String(String.UnicodeScalarView(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(100)))
        return clean.trimmingCharacters(in: .whitespaces).isEmpty ? "upload" : clean
    }

    static func utc(year: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: 1, day: 1))!
    }

    static func count(_ text: String, _ name: String, _ range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw RequestError(400, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
