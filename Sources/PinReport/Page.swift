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
    /// The pin's trip (`pins trips`' id): the `trip` member of its object in pins-data.
    public var trip: String?
    /// Whether its title is the one the page makes from its place (`PageRenderer.madeTitle`):
    /// then its object in pins-data has none.
    public var titleIsMade = false

    /// The pin's object in pins-data: the object `pins list --json` prints for it (so other
    /// tools read the page as they read that), with its trip, without its place keys (the page
    /// gives them once per distinct place, `pins-places`) and without a title the page makes.
    public var dataJSON: String {
        var out: [UInt8] = []
        appendDataJSON(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `dataJSON`'s bytes appended to `out` (the page's writer: no String per pin), written
    /// from the pin as the page is written: no text per pin is kept.
    func appendDataJSON(to out: inout [UInt8]) {
        PinObjectText.append(stored, trip: trip, omitting: titleIsMade ? [.placeKeys, .title] : .placeKeys, to: &out)
    }

    public init(location: Location, utcOffsetSeconds: Int? = nil, photoPath: String? = nil,
                thumbnailJPEG: [UInt8]? = nil) {
        self.init(stored: StoredLocation(location), utcOffsetSeconds: utcOffsetSeconds,
                  photoPath: photoPath, thumbnailJPEG: thumbnailJPEG)
    }

    public init(stored: StoredLocation, utcOffsetSeconds: Int? = nil, photoPath: String? = nil,
                thumbnailJPEG: [UInt8]? = nil) {
        self.stored = stored
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
