import Foundation
import PinCore
import PinFormats

/// One pin as the map page shows it.
public struct PagePin: Sendable {
    /// The pin, shared with whoever holds it (pins serve's list), not copied per page.
    public private(set) var stored: StoredLocation
    // A plain getter: `_read { yield stored.location }` gave another pin's bytes in a debug
    // build (Swift 6.3.1: the thumbnails' pin ids were garbage, ReportCommandTests).
    public var location: Location {
        get { stored.location }
        set { stored = StoredLocation(newValue) }
    }
    /// The object `pins list --json` prints for this pin, as JSON text: the page's `pins-data`
    /// island holds exactly these, so other tools read the page as they read `pins list --json`.
    public var listJSON: String
    /// The pin's own UTC offset (its photo's), for its date; nil shows the date in UTC.
    public var utcOffsetSeconds: Int?
    /// For an imported pin: the photo's path relative to the imported folder, as text.
    public var photoPath: String?
    /// A small JPEG (the photo's EXIF thumbnail), embedded as a data: URI.
    public var thumbnailJPEG: [UInt8]?
    /// The first of the pin's photos for the popup's strip of previews (issue 39): the served
    /// page asks the server for each by its id; a static page embeds the previews already made
    /// (`jpeg`), within `PageRenderer.stripPageCap`.
    public var strip: [StripPhoto] = []
    /// When set, `listJSON` is the pin's list object (`pinProperties`) and its object in
    /// pins-data is that text edited so (`dataJSON`), made as the data is written: a caller that
    /// keeps each pin's list text (pins serve) keeps no second text per pin.
    public var edit: PinObjectEdit?

    /// The pin's object in pins-data: `listJSON`, edited when `edit` says so.
    public var dataJSON: String {
        var out: [UInt8] = []
        appendDataJSON(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `dataJSON`'s bytes appended to `out` (the page's writer: no String per pin).
    func appendDataJSON(to out: inout [UInt8]) {
        if let edit { edit.apply(to: listJSON, appendingTo: &out) } else { out.append(contentsOf: listJSON.utf8) }
    }

    public init(location: Location, listJSON: String, utcOffsetSeconds: Int? = nil, photoPath: String? = nil,
                thumbnailJPEG: [UInt8]? = nil) {
        self.init(stored: StoredLocation(location), listJSON: listJSON, utcOffsetSeconds: utcOffsetSeconds,
                  photoPath: photoPath, thumbnailJPEG: thumbnailJPEG)
    }

    public init(stored: StoredLocation, listJSON: String, utcOffsetSeconds: Int? = nil, photoPath: String? = nil,
                thumbnailJPEG: [UInt8]? = nil) {
        self.stored = stored
        self.listJSON = listJSON
        self.utcOffsetSeconds = utcOffsetSeconds
        self.photoPath = photoPath
        self.thumbnailJPEG = thumbnailJPEG
    }
}

/// One photo of a pin's strip: its record's id, and its preview when one is made.
public struct StripPhoto: Sendable, Equatable {
    public var id: Int64
    public var jpeg: [UInt8]?
    public init(id: Int64, jpeg: [UInt8]? = nil) {
        self.id = id
        self.jpeg = jpeg
    }
}

/// Everything the page shows: plain values, nothing of SQLite or of how they were made.
public struct PageInput: Sendable {
    public var title: String
    public var pins: [PagePin]
    public var catalog: CountryCatalog
    public var settings: Settings
    /// Resources/WorldMap.json (scripts/build-basemap): the projected country outlines.
    public var worldMap: WorldMap
    var generatedAt: Date
    /// The filters the page was made with, as the command line said them ("--country FR").
    public var filterDescription: String?
    /// A dry or real import run drawn over the map.
    public var run: RunOverlay?
    /// The folders imports were made on: the page finds a photo's path below its folder from
    /// the pin's `photoIDs` (its absolute path) and these, instead of storing it twice.
    public var importedFolders: [String] = []
    /// The larger places of the visited countries (GeoNames), most populous first: their names
    /// are drawn on the map when zoomed in (`places-data`; see `PageRenderer.placeLabels`).
    public var labelPlaces: [Place] = []
    /// Each visited country's admin-1 count in the gazetteer, for "7 of 51 states".
    public var regionCounts: [String: Int] = [:]
    /// The borders between the admin-1 units of each visited country where outlines exist
    /// (DCW-GMT: AR AU BR CA CN IN RU US), drawn at region zoom (`PageRenderer.appendRegionBorders`).
    public var regionBorders: [String: [[Coordinate]]] = [:]
    /// The outlines of the visited regions by country, unit by unit (each unit's rings taken by
    /// parity), filled at region zoom in a lighter shade of the fill colour
    /// (`PageRenderer.appendVisitedRegions`).
    public var visitedRegions: [String: [[[Coordinate]]]] = [:]
    /// The water at city zoom where the pins are (GSHHG: `PageWater`); empty without Water.bin.
    public var water = PageWater()
    /// The trips (`pins trips`) with at least one pin on the page, oldest first: the Trips tab.
    public var trips: [Trip] = []
    /// The page `pins serve` sends: its own script and style sheet join the page's (`{{app}}`).
    public var served = false

    public init(title: String = "pins", pins: [PagePin], catalog: CountryCatalog, settings: Settings, worldMap: WorldMap,
                generatedAt: Date = Date(), filterDescription: String? = nil, run: RunOverlay? = nil) {
        self.title = title
        self.pins = pins
        self.catalog = catalog
        self.settings = settings
        self.worldMap = worldMap
        self.generatedAt = generatedAt
        self.filterDescription = filterDescription
        self.run = run
    }
}

/// The base map: each country's outline as an SVG path in a square Web Mercator world.
public struct WorldMap: Sendable, Decodable {
    public struct Country: Sendable, Decodable {
        public var id: String
        public var d: String
    }

    public var width: Int
    public var countries: [Country]

    public enum LoadError: Error, CustomStringConvertible {
        case damaged(String)
        public var description: String {
            switch self { case let .damaged(why): return "WorldMap.json is damaged: \(why)" }
        }
    }

    /// Parses Resources/WorldMap.json. Path data is checked to hold only SVG path characters,
    /// so a damaged or altered file cannot put markup into the page.
    public init(json: [UInt8]) throws {
        let decoded: WorldMap
        do {
            decoded = try JSONDecoder().decode(WorldMap.self, from: Data(json))
        } catch {
            throw LoadError.damaged("\(error)")
        }
        let allowed = Set("0123456789 -.MmLlZz".utf8)
        for country in decoded.countries {
            guard country.id.utf8.count == 2, country.id.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }) else {
                throw LoadError.damaged("country id '\(country.id)' is not an ISO alpha-2 code")
            }
            guard country.d.utf8.allSatisfy(allowed.contains) else {
                throw LoadError.damaged("the outline of \(country.id) holds characters that are not SVG path data")
            }
        }
        guard decoded.width > 0 else { throw LoadError.damaged("width \(decoded.width)") }
        self = decoded
    }

    public init(width: Int, countries: [Country]) {
        self.width = width
        self.countries = countries
    }
}

/// A JSON object's text as JSONText writes it (keys sorted, no spaces) with some of its keys taken
/// out and a "trip" string put in its sorted place: a pin's list object made into its object in
/// pins-data (`PinApp.pageInput`), the same bytes as the object written again without those keys
/// and with the trip, for no dictionary per pin.
public struct PinObjectEdit: Sendable, Equatable {
    /// The keys left out (one array shared by the pins that leave out the same keys).
    public let dropped: [String]
    /// The "trip" member's value, nil for none (the trip's own id text, not a copy per pin).
    public let trip: String?

    public init(dropping dropped: [String], trip: String?) {
        self.dropped = dropped
        self.trip = trip
    }

    /// `object`'s text edited, appended to `out`. The object is one JSONText wrote: members
    /// `"key":value` joined by commas, keys plain ASCII without "trip".
    public func apply(to object: String, appendingTo out: inout [UInt8]) {
        var object = object
        object.withUTF8 { apply(to: $0, appendingTo: &out) }
    }

    private func apply(to bytes: UnsafeBufferPointer<UInt8>, appendingTo out: inout [UInt8]) {
        let droppedBytes = dropped.map { Array($0.utf8) }
        let tripKey = Array("trip".utf8)
        var tripDone = trip == nil
        var first = true
        out.append(UInt8(ascii: "{"))
        var index = 1
        while index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            let keyStart = index + 1
            var keyEnd = keyStart
            while bytes[keyEnd] != UInt8(ascii: "\"") { keyEnd += 1 }
            let valueEnd = Self.valueEnd(bytes, from: keyEnd + 2)
            let key = UnsafeBufferPointer(rebasing: bytes[keyStart..<keyEnd])
            if !tripDone, !key.lexicographicallyPrecedes(tripKey) {
                appendTrip(&out, first: &first)
                tripDone = true
            }
            if !droppedBytes.contains(where: { $0.elementsEqual(key) }) {
                if !first { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<valueEnd]))
                first = false
            }
            index = valueEnd + 1  // past the comma (or the closing brace)
        }
        if !tripDone { appendTrip(&out, first: &first) }
        out.append(UInt8(ascii: "}"))
    }

    private func appendTrip(_ out: inout [UInt8], first: inout Bool) {
        guard let trip else { return }
        if !first { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: "\"trip\":".utf8)
        out.append(contentsOf: JSONText.string(trip).utf8)
        first = false
    }

    /// The index just past the JSON value that starts at `start`: a string, an array or object
    /// (strings in it skipped whole), or a number, literal, up to the next comma or brace.
    private static func valueEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start, depth = 0, inString = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
                if !inString, depth == 0 { return index + 1 }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { return index }
                    depth -= 1
                    if depth == 0 { return index + 1 }
                case UInt8(ascii: ","): if depth == 0 { return index }
                default: break
                }
            }
            index += 1
        }
        return index
    }
}
