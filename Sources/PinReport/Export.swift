import Foundation
import PinCore

/// The files `pins export` writes, for the apps people use: GeoJSON (RFC 7946) for GIS tools and
/// web maps, KML 2.2 for Google Earth / My Maps, GPX 1.1 for GPS devices and hiking apps, CSV
/// (RFC 4180) for spreadsheets and QGIS. Every writer escapes text for its format; none of them
/// trusts a title, note or tag.
public enum ExportFormat: String, Sendable, CaseIterable {
    case geojson, kml, gpx, csv

    var fileExtension: String { rawValue }
}

/// A visited country's outline for GeoJSON `--countries`: its geometry as RFC 7946 JSON text.
public struct ExportCountry: Sendable {
    public var code: String
    public var name: String
    public var pinCount: Int
    public var geometryJSON: String

    public init(code: String, name: String, pinCount: Int, geometryJSON: String) {
        self.code = code
        self.name = name
        self.pinCount = pinCount
        self.geometryJSON = geometryJSON
    }
}

/// What an export is made of: the pins (already filtered and sorted), the country names, the
/// settings' fill colour for country polygons.
public struct ExportInput: Sendable {
    public var pins: [Location]
    public var countryNames: [String: String]
    public var countries: [ExportCountry]
    public var fillColor: String
    /// Each pin's trip (`pins trips`): its id (the first day, "2024-04-03") and title; pins on
    /// no trip are absent.
    public var trips: [UUID: (id: String, title: String)]

    public init(pins: [Location], countryNames: [String: String] = [:], countries: [ExportCountry] = [],
                fillColor: String = Settings().mapFillColor, trips: [UUID: (id: String, title: String)] = [:]) {
        self.trips = trips
        self.pins = pins
        self.countryNames = countryNames
        self.countries = countries
        self.fillColor = fillColor
    }
}

/// The fields of one pin, as `pins list --json` prints them (and GeoJSON's properties, and the map
/// page's `pins-data` island): compact, because a page of 10,000 pins holds 10,000 of them.
/// Always present: `id`, `title`, `latitude`, `longitude` (at most 7 decimals, about 1 cm),
/// `date` (in the pin's own offset), `color`. Present only when set: `country` (absent at sea),
/// `place`, `region` and `regionCode` (the gazetteer's town and admin-1 region; absent when none),
/// `type` with the object of that name holding its visit's fields (`VisitField.key`; absent for a point), `visitCount` (absent: 1),
/// `photoCount` (the photos that belong to the pin; absent: none), `edited` (true), `wanted` (true: a place to go, not a visit), `note`, `tags` and `photoIDs` (absent when empty), and `utcOffset` when the
/// date cannot show it (see `dateShowsOffset`). Nothing is lost: an absent key has one meaning,
/// documented in the README ("The fields of a pin").
public func pinProperties(_ l: Location) -> [String: Any] {
    var object: [String: Any] = [
        "id": l.id.lowercasedText, "title": l.title, "latitude": jsonDegrees(l.coordinate.latitude),
        "longitude": jsonDegrees(l.coordinate.longitude), "date": pinDateText(l), "color": l.color,
    ]
    object["country"] = l.countryID
    object["place"] = l.place
    object["region"] = l.region
    object["regionCode"] = l.regionCode
    if let offset = l.utcOffsetSeconds, !dateShowsOffset(offset) { object["utcOffset"] = offset }
    if l.visitCount != 1 { object["visitCount"] = l.visitCount }
    if l.photoCount > 0 { object["photoCount"] = l.photoCount }
    if l.editedAt != nil { object["edited"] = true }
    if l.wanted { object["wanted"] = true }
    object["note"] = l.note
    if let tags = l.tags, !tags.isEmpty { object["tags"] = tags }
    if !l.photoIDs.isEmpty { object["photoIDs"] = l.photoIDs }
    let visit = l.type.visitValues
    if visit.type != .point {
        // The type's object: each field of its visit that is given, by its key.
        var fields: [String: Any] = [:]
        for (field, value) in visit.fields {
            switch value {
            case let .text(text)?: fields[field.key] = text
            case let .number(number)?: fields[field.key] = number
            case nil: break
            }
        }
        object["type"] = visit.type.rawValue
        object[visit.type.rawValue] = fields
    }
    return object
}

/// True when a pin's date (`pinDateText`) already says its offset: `±hh:mm` for a whole number
/// of minutes other than 0. A date of offset 0 ends in `Z`, as a date whose offset is unknown
/// does, so `utcOffset` then says which it is (and keeps an offset of odd seconds whole).
func dateShowsOffset(_ offsetSeconds: Int) -> Bool {
    offsetSeconds != 0 && offsetSeconds % 60 == 0
}

/// Degrees rounded to 7 decimals (about 1 cm) as a number: the shortest text of the nearest
/// double is then at most those 7 decimals ("48.8583701", not "48.858370100000003").
func jsonDegrees(_ value: Double) -> Double {
    guard value.isFinite else { return value }
    let rounded = (value * 10_000_000).rounded() / 10_000_000
    return rounded == 0 ? 0 : rounded
}

/// A pin's date in its own offset (UTC when unknown).
public func pinDateText(_ pin: Location) -> String {
    ISO8601.format(pin.date, offsetSeconds: pin.utcOffsetSeconds)
}

/// The name of the shared object a pin's visit is on, if it has one.
func placeName(_ pin: Location) -> String? {
    pin.type.sharedName
}

/// Where a pin is, in words: "Kyoto, Kyoto Prefecture" (its town and region; one of them, or
/// nil when it has neither). The region is left out when it is named as the town.
func whereText(_ pin: Location) -> String? {
    var parts: [String] = []
    if let place = pin.place { parts.append(place) }
    if let region = pin.region, region != pin.place { parts.append(region) }
    return parts.isEmpty ? nil : parts.joined(separator: ", ")
}

/// What the flat exports' `height` (a CSV column, KML's ExtendedData and altitude, GPX's `ele`)
/// says of a pin: the height its visit's fields give there (a mountain's reached, else its own).
func height(_ pin: Location) -> Double? {
    pin.type.visitValues.flatValue("height")?.number
}

/// Degrees with at most 7 decimals (about 1 cm; RFC 7946 section 11.2 advises no more), without
/// trailing zeros.
func exportDegrees(_ value: Double) -> String {
    var text = String(format: "%.7f", value)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    if text == "-0" { text = "0" }
    return text
}

/// A number without a needless ".0".
func exportNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
}

/// Writes an export in pieces (a file or stdout), so a large one is never held whole.
public protocol ExportSink: AnyObject {
    func write(_ text: String)
}

public enum Exporter {
    /// Writes `input` in `format`.
    public static func write(_ input: ExportInput, format: ExportFormat, bom: Bool = false, to sink: ExportSink) {
        switch format {
        case .geojson: GeoJSONExport.write(input, to: sink)
        case .kml: KMLExport.write(input, to: sink)
        case .gpx: GPXExport.write(input, to: sink)
        case .csv: CSVExport.write(input, bom: bom, to: sink)
        }
    }
}

/// Collects an export in memory (tests, small outputs).
public final class StringSink: ExportSink {
    public private(set) var text = ""
    public init() {}
    public func write(_ text: String) { self.text += text }
}
