import Foundation
import PinCore
import PinFormats

/// KML placemarks and GPX waypoints, read with the streaming pull parser.
enum PlacesXML {
    static func read(_ input: ByteInput, kind: PlaceFileKind, emit: (PlaceReadEvent) throws -> Void) throws {
        let parser = XMLPullParser(input: input)
        switch kind {
        case .gpx: try gpx(parser, emit: emit)
        default: try kml(parser, emit: emit)
        }
    }

    // MARK: KML 2.2 (OGC 07-147r2)

    /// Placemarks with a Point (also inside a MultiGeometry), as Google My Maps, Google Earth,
    /// ogr2ogr, gpsbabel and pins write them: `name`, `description`, `TimeStamp/when`,
    /// `ExtendedData` (`Data name/value` and `SchemaData/SimpleData`), the `id` attribute as the
    /// record's own id, and the Folder it is in (its name becomes a tag: a My Maps layer).
    /// pins' own KML (ExtendedData `id`, `type`, `note`, `tags`, `name`, `height`, `wanted`) is
    /// read back with its note, tags, type and wanted. A placemark of a line or polygon is skipped as without
    /// location.
    static func kml(_ parser: XMLPullParser, emit: (PlaceReadEvent) throws -> Void) throws {
        var folders: [(depth: Int, name: String?)] = []
        var count = 0
        while let event = try parser.next() {
            guard event == .startElement else {
                if event == .endElement, parser.localName == "Folder" || parser.localName == "Document", let last = folders.last, parser.depth < last.depth {
                    folders.removeLast()
                }
                continue
            }
            switch parser.localName {
            case "Folder", "Document":
                folders.append((parser.depth, nil))
            case "name" where !folders.isEmpty && folders[folders.count - 1].depth == parser.depth - 1:
                folders[folders.count - 1].name = try parser.readText().trimmingCharacters(in: .whitespacesAndNewlines)
            case "Placemark":
                count += 1
                let folder = folders.last { $0.name != nil && !$0.name!.isEmpty }?.name
                try emit(try placemark(parser, position: "placemark \(count)", folder: folders.count > 1 ? folder : nil))
            default:
                break
            }
        }
    }

    static func placemark(_ parser: XMLPullParser, position: String, folder: String?) throws -> PlaceReadEvent {
        var record = PlaceRecord(position: position)
        let id = parser.attribute("id")
        let fields = try PlacemarkFields(parser)
        record.title = fields.name?.trimmingCharacters(in: .whitespacesAndNewlines).nonEmpty
        guard let coordinates = fields.coordinates else {
            record.locationIssue = fields.geometry.map { "a \($0), not a point" } ?? "a placemark without a point"
            return .record(record)
        }
        let (longitude, latitude) = KMLCoordinates.first(coordinates)
        guard let lon = longitude, let lat = latitude else {
            return .malformed(position: position, reason: "coordinates '\(coordinates.prefix(80))' are not 'longitude,latitude'")
        }
        record.setCoordinate(latitude: lat, longitude: lon)
        if let when = fields.when?.trimmingCharacters(in: .whitespacesAndNewlines), !when.isEmpty {
            guard let date = PlaceDates.parse(when, zoneless: .utc) else {
                return .malformed(position: position, reason: "TimeStamp '\(when)' is not an xsd:dateTime")
            }
            record.date = date
        }
        let data = fields.data
        record.ownID = data["id"] ?? id.map { $0.hasPrefix("p-") ? String($0.dropFirst(2)) : $0 }
        if data["id"] != nil, data["type"] != nil {
            readPinsOwn(data, into: &record)
            return .record(record)
        }
        record.note = (fields.description ?? data["description"] ?? data["desc"])?.trimmingCharacters(in: .whitespacesAndNewlines).nonEmpty
        if record.date == nil, let text = (data["time"] ?? data["date"] ?? data["timestamp"])?.nonEmpty {
            record.date = PlaceDates.parse(text, zoneless: .utc)
        }
        if let folder { record.tags = [folder] }
        return .record(record)
    }

    /// What a Placemark element holds, read to its end.
    struct PlacemarkFields {
        var data: [String: String] = [:]
        var coordinates: String?
        /// The first geometry: "Point", or the line or polygon that makes it no place.
        var geometry: String?
        var when: String?
        var name: String?
        var description: String?

        init(_ parser: XMLPullParser) throws {
            let depth = parser.depth
            while let event = try parser.next() {
                if event == .endElement, parser.depth < depth { break }
                guard event == .startElement else { continue }
                switch parser.localName {
                case "name" where parser.depth == depth + 1: name = try parser.readText()
                case "description" where parser.depth == depth + 1: description = try parser.readText()
                case "when": if when == nil { when = try parser.readText() }
                case "Data":
                    let key = parser.attribute("name")
                    let value = try Self.dataValue(parser)
                    if let key { data[key] = value }
                case "SimpleData":
                    let key = parser.attribute("name")
                    let value = try parser.readText()
                    if let key { data[key] = value }
                case "Point":
                    geometry = geometry ?? "Point"
                case "coordinates" where geometry == "Point" && coordinates == nil:
                    coordinates = try parser.readText()
                case "LineString", "Polygon", "LinearRing", "Track", "MultiTrack", "Model":
                    if geometry == nil { geometry = String(parser.localName) }
                    try parser.skipElement()
                default:
                    break
                }
            }
        }

        /// A `Data` element's `value`, read to the element's end.
        static func dataValue(_ parser: XMLPullParser) throws -> String {
            let d = parser.depth
            var value = ""
            while let e = try parser.next() {
                if e == .endElement, parser.depth < d { break }
                if e == .startElement, parser.localName == "value" { value = try parser.readText() }
            }
            return value
        }
    }

    /// pins' own KML export: its note, tags, visit count, type and wanted from ExtendedData.
    static func readPinsOwn(_ data: [String: String], into record: inout PlaceRecord) {
        record.note = data["note"]?.nonEmpty
        if let tags = data["tags"], !tags.isEmpty { record.tags = TagList.split(tags, trim: false) }
        if let visits = data["visitCount"].flatMap(Int.init), visits >= 1 { record.visitCount = visits }
        record.wanted = data["wanted"] == "true"
        // The visit's fields by their flat keys (`name`, `height`); a type it does not know, or
        // one without its name, leaves the record a point.
        guard let type = data["type"].flatMap(LocationTypeSelection.init(rawValue:)) else { return }
        let visit = VisitValues.reading(type) { field in
            guard let text = field.flatKey.flatMap({ data[$0] }) else { return nil }
            switch field.kind {
            case .text: return text.nonEmpty.map(VisitValue.text)
            case .number: return Double(text).map(VisitValue.number)
            }
        }
        if let visit { record.type = visit }
    }

    // MARK: GPX 1.0 / 1.1

    /// Waypoints (`wpt lat lon` with `ele`, `time`, `name`, `cmt`, `desc`): each a place; routes
    /// and tracks are journeys, not places, and are not read here.
    static func gpx(_ parser: XMLPullParser, emit: (PlaceReadEvent) throws -> Void) throws {
        var count = 0
        while let event = try parser.next() {
            guard event == .startElement else { continue }
            switch parser.localName {
            case "wpt":
                count += 1
                try emit(try waypoint(parser, position: "waypoint \(count)"))
            case "trk", "rte":
                try parser.skipElement()
            default:
                break
            }
        }
    }

    static func waypoint(_ parser: XMLPullParser, position: String) throws -> PlaceReadEvent {
        var record = PlaceRecord(position: position)
        let latText = parser.attribute("lat"), lonText = parser.attribute("lon")
        let depth = parser.depth
        var fields: [String: String] = [:]
        while let event = try parser.next() {
            if event == .endElement, parser.depth < depth { break }
            guard event == .startElement else { continue }
            let name = String(parser.localName)
            if parser.depth == depth + 1, ["name", "desc", "cmt", "time", "ele"].contains(name) {
                fields[name] = try parser.readText().trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        guard let latText, let lonText, let lat = Double(latText.trimmingCharacters(in: .whitespaces)),
              let lon = Double(lonText.trimmingCharacters(in: .whitespaces)), lat.isFinite, lon.isFinite else {
            return .malformed(position: position, reason: "lat '\(latText ?? "")' or lon '\(lonText ?? "")' is not a number")
        }
        record.setCoordinate(latitude: lat, longitude: lon)
        record.title = fields["name"]?.nonEmpty
        record.note = (fields["desc"]?.nonEmpty ?? fields["cmt"]?.nonEmpty)
        if let time = fields["time"]?.nonEmpty {
            guard let date = PlaceDates.parse(time, zoneless: .utc) else {
                return .malformed(position: position, reason: "time '\(time)' is not an xsd:dateTime")
            }
            record.date = date
        }
        return .record(record)
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
