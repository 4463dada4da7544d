import Foundation
import PinCore
import PinFormats

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
    var object: [String: Any] = [:]
    PinObjectText.forEachMember(of: l) { key, value in object[key.text] = value.any }
    return object
}

/// A pin's object (`pinProperties`) as its members, and as JSON text written straight from the
/// pin: what `JSONText.string(pinProperties(pin))` writes, byte for byte, without a dictionary
/// per pin. pins serve writes a page of the list and every pin of the map data so, from the pins
/// it keeps; it kept each pin's text beside the pin instead (32 MB at 100,000 pins, a quarter of
/// its memory).
public enum PinObjectText {
    /// One member's value.
    public enum Value {
        case text(String)
        case number(Double)
        /// A coordinate as `jsonDegrees` rounds it (`appendDegrees`).
        case degrees(Double)
        case integer(Int)
        case yes
        case texts([String])
        case id(UUID)
        /// A pin's date in its own offset (`pinDateText`).
        case date(Date, offsetSeconds: Int?)
        /// A visit's fields (`VisitValues.fields`), written sorted by key (`fields(of:)`).
        case visit(VisitValues)

        /// As `pinProperties` holds it.
        var any: Any {
            switch self {
            case let .text(text): text
            case let .number(number), let .degrees(number): number
            case let .integer(integer): integer
            case .yes: true
            case let .texts(texts): texts
            case let .id(id): id.lowercasedText
            case let .date(date, offset): ISO8601.format(date, offsetSeconds: offset)
            case let .visit(visit):
                Dictionary(uniqueKeysWithValues: Value.fields(of: visit).map { ($0.key, $0.value.any) })
            }
        }

        /// A visit's given fields, sorted by key, each as a text or a number.
        static func fields(of visit: VisitValues) -> [(key: String, value: Value)] {
            visit.fields.compactMap { field, value -> (key: String, value: Value)? in
                switch value {
                case let .text(text)?: (field.key, .text(text))
                case let .number(number)?: (field.key, .number(number))
                case nil: nil
                }
            }.sorted { $0.key < $1.key }
        }
    }

    /// A member's key: one of `keys`, `trip`, or a type's name (its visit's object).
    public struct Key {
        let index: Int
        /// The key's text.
        public var text: String {
            index < keys.count ? keys[index] : index == keys.count ? "trip" : LocationTypeSelection.allCases[index - keys.count - 1].rawValue
        }
    }

    /// Members left out of the object (`append`'s).
    public struct Omitted: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let place = Omitted(rawValue: 1)
        public static let region = Omitted(rawValue: 2)
        public static let regionCode = Omitted(rawValue: 4)
        public static let title = Omitted(rawValue: 8)
        /// The keys the map page gives once per distinct place (`pins-places`).
        public static let placeKeys: Omitted = [.place, .region, .regionCode]
    }

    /// The keys every pin's object may have but its visit's, in JSONText's (sorted) order (String's
    /// order; for these ASCII keys, their bytes'). The visit's object, keyed by its type's name,
    /// goes before the first key its name sorts before, `trip` before `type`.
    static let keys = ["color", "country", "date", "edited", "id", "latitude", "longitude", "note", "photoCount", "photoIDs",
                       "place", "region", "regionCode", "tags", "title", "type", "utcOffset", "visitCount", "wanted"]
    private static let tripPlace = keys.firstIndex(of: "type")!
    /// `"key":` of each key of `keys`, then of `trip`, then of each type's object (`Key.index`).
    private static let memberStarts: [[UInt8]] = (keys + ["trip"] + LocationTypeSelection.allCases.map(\.rawValue)).map { Array("\"\($0)\":".utf8) }
    /// For each type (`LocationTypeSelection.allCases`' order), the index in `keys` its object goes before.
    private static let visitPlaces = LocationTypeSelection.allCases.map { type in keys.firstIndex { type.rawValue < $0 } ?? keys.count }

    /// Each member of the pin's object in order, the one definition of its members: always `id`,
    /// `title`, `latitude`, `longitude`, `date`, `color`; the others only when set (see
    /// `pinProperties`); `trip` when one is given (the map data's and `pins list --json`'s).
    @inline(__always)
    public static func forEachMember(of l: Location, trip: String? = nil, omitting: Omitted = [], _ body: (Key, Value) -> Void) {
        let visit = l.type.visitValues
        let typeIndex = LocationTypeSelection.allCases.firstIndex(of: visit.type)!
        let visitPlace = visit.type == .point ? -1 : visitPlaces[typeIndex]
        // The member at `index` in `keys`, after what goes before it.
        @inline(__always) func member(_ index: Int, _ value: Value?) {
            if index == visitPlace { body(Key(index: keys.count + 1 + typeIndex), .visit(visit)) }
            if index == tripPlace, let trip { body(Key(index: keys.count), .text(trip)) }
            if let value { body(Key(index: index), value) }
        }
        member(0, .text(l.color))
        member(1, l.countryID.map(Value.text))
        member(2, .date(l.date, offsetSeconds: l.utcOffsetSeconds))
        member(3, l.editedAt == nil ? nil : .yes)
        member(4, .id(l.id))
        member(5, .degrees(jsonDegrees(l.coordinate.latitude)))
        member(6, .degrees(jsonDegrees(l.coordinate.longitude)))
        member(7, l.note.map(Value.text))
        member(8, l.photoCount > 0 ? .integer(l.photoCount) : nil)
        member(9, l.photoIDs.isEmpty ? nil : .texts(l.photoIDs))
        member(10, omitting.contains(.place) ? nil : l.place.map(Value.text))
        member(11, omitting.contains(.region) ? nil : l.region.map(Value.text))
        member(12, omitting.contains(.regionCode) ? nil : l.regionCode.map(Value.text))
        member(13, l.tags.flatMap { $0.isEmpty ? nil : .texts($0) })
        member(14, omitting.contains(.title) ? nil : .text(l.title))
        member(15, visit.type == .point ? nil : .text(visit.type.rawValue))
        member(16, l.utcOffsetSeconds.flatMap { dateShowsOffset($0) ? nil : .integer($0) })
        member(17, l.visitCount != 1 ? .integer(l.visitCount) : nil)
        member(18, l.wanted ? .yes : nil)
        member(keys.count, nil)
    }

    /// The pin's object appended to `out` as JSONText writes it (`forEachMember`), written in a
    /// `ByteRoom`.
    public static func append(_ l: Location, trip: String? = nil, omitting: Omitted = [], to out: inout [UInt8]) {
        ByteRoom.append(to: &out) { room in
            room.put(UInt8(ascii: "{"))
            var first = true
            forEachMember(of: l, trip: trip, omitting: omitting) { key, value in
                if !first { room.put(UInt8(ascii: ",")) }
                first = false
                room.put(memberStarts[key.index])
                put(value, in: &room)
            }
            room.put(UInt8(ascii: "}"))
        }
    }

    /// `append` of a pin held once (pins serve's), read where it lies.
    public static func append(_ stored: StoredLocation, trip: String? = nil, omitting: Omitted = [], to out: inout [UInt8]) {
        append(stored.location, trip: trip, omitting: omitting, to: &out)
    }

    /// The pin's object as text (`append`).
    public static func string(_ l: Location, trip: String? = nil, omitting: Omitted = []) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(320)
        append(l, trip: trip, omitting: omitting, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `JSONText.numberText(v)` of a coordinate `jsonDegrees` rounded (at most 7 decimals), written
    /// without a shortest-digits search: the double is the nearest to the decimal n·10⁻⁷, and that
    /// decimal without its trailing zeros is the shortest text that reads back as it (any other
    /// such decimal differs from it by 10⁻⁷ at least, far more than the doubles' spacing below
    /// 10⁸), and the one Swift's description writes, in plain notation from 0.001 up. Anything
    /// else (whole, non-finite, smaller, larger, not so rounded) is `numberText`'s. Coordinates
    /// were a sixth of writing a pin.
    static func putDegrees(_ v: Double, in room: inout ByteRoom) {
        let scaled = (v * 10_000_000).rounded()
        guard v.isFinite, abs(v) >= 0.001, abs(v) < 100_000_000, v != v.rounded(), scaled / 10_000_000 == v else {
            room.put(JSONText.numberText(v))
            return
        }
        let n = Int64(scaled).magnitude
        var whole = n / 10_000_000, fraction = n % 10_000_000, digits = 7
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        // Written from the end: the fraction's digits, the point, the whole part's, the sign.
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &text) { raw in
            var at = raw.count
            for _ in 0..<digits {
                at -= 1
                raw[at] = UInt8(ascii: "0") + UInt8(fraction % 10)
                fraction /= 10
            }
            at -= 1
            raw[at] = UInt8(ascii: ".")
            repeat {
                at -= 1
                raw[at] = UInt8(ascii: "0") + UInt8(whole % 10)
                whole /= 10
            } while whole > 0
            if v < 0 {
                at -= 1
                raw[at] = UInt8(ascii: "-")
            }
            room.put(UnsafeRawBufferPointer(rebasing: raw[at...]))
        }
    }

    /// A member's value.
    @inline(__always)
    private static func put(_ value: Value, in room: inout ByteRoom) {
        switch value {
        case let .text(text): room.putJSONString(text)
        case let .number(number): room.put(JSONText.numberText(number))
        case let .degrees(degrees): putDegrees(degrees, in: &room)
        case let .integer(integer): room.put(String(integer))
        case .yes: room.put(UnsafeRawBufferPointer(start: ("true" as StaticString).utf8Start, count: 4))
        case let .texts(texts):
            room.put(UInt8(ascii: "["))
            for (index, text) in texts.enumerated() {
                if index > 0 { room.put(UInt8(ascii: ",")) }
                room.putJSONString(text)
            }
            room.put(UInt8(ascii: "]"))
        case let .id(id):
            room.put(UInt8(ascii: "\""))
            _ = room.write(atMost: 36) { id.writeLowercased(into: $0) }
            room.put(UInt8(ascii: "\""))
        case let .date(date, offset):
            room.put(UInt8(ascii: "\""))
            if !room.write(atMost: 48, { ISO8601.write(date, offsetSeconds: offset, into: $0) }) {
                room.put(ISO8601.format(date, offsetSeconds: offset))
            }
            room.put(UInt8(ascii: "\""))
        case let .visit(visit):
            room.put(UInt8(ascii: "{"))
            var first = true
            for (key, member) in Value.fields(of: visit) {
                if !first { room.put(UInt8(ascii: ",")) }
                first = false
                room.putJSONString(key)
                room.put(UInt8(ascii: ":"))
                put(member, in: &room)
            }
            room.put(UInt8(ascii: "}"))
        }
    }
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
