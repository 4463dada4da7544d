import Foundation
import PinCore
import PinFormats

/// A run drawn over the map: what an import would create (or created), and the photos it
/// skipped that have a position, each with its reason.
public struct RunOverlay: Sendable {
    public struct Photo: Sendable {
        /// Path relative to the imported folder, as text.
        public var photo: String
        public var latitude: Double
        public var longitude: Double
        /// ISO 8601 in the photo's own offset, or nil.
        public var takenAt: String?
        /// `created` for a pin of this run, else the skip reason (`interval`, `distance`, ...).
        public var reason: String
        /// The report's one-line detail (for `distance`: the pin that blocked it).
        public var detail: String?
        public var title: String?
        public var country: String?
        /// For a pin a real run made: its id (the page draws it once, as this run's).
        public var pin: String?
        /// Where the position came from (`PositionSource`'s raw value: exif, xmp-sidecar, track...).
        public var positionSource: String?
        /// For a position from the person's tracks: the track file and the seconds to its nearest fix.
        public var trackFile: String?
        public var secondsToTrackFix: Double?

        public init(photo: String, latitude: Double, longitude: Double, takenAt: String?, reason: String,
                    detail: String? = nil, title: String? = nil, country: String? = nil, pin: String? = nil) {
            self.photo = photo
            self.latitude = latitude
            self.longitude = longitude
            self.takenAt = takenAt
            self.reason = reason
            self.detail = detail
            self.title = title
            self.country = country
            self.pin = pin
        }
    }

    public struct Unreadable: Sendable {
        public var photo: String
        public var reason: String
        public init(photo: String, reason: String) {
            self.photo = photo
            self.reason = reason
        }
    }

    /// A pin that followed its photo because the photo's sidecar changed (edited, added or
    /// deleted): moved to the photo's new position, or kept where it was when the photo has no
    /// position any more (`ImportReport.corrected`, the report's `movedPins`).
    public struct Correction: Sendable {
        /// The pin's id.
        public var pin: String
        /// The pin's title before the run, and the one it takes (nil: kept, or unchanged).
        public var title: String
        public var newTitle: String?
        /// The photo, below the imported folder, as text.
        public var photo: String
        public var from: Coordinate
        /// Where the pin goes; nil for a pin kept where it is.
        public var to: Coordinate?
        /// The country at `to` (nil at sea, or kept).
        public var country: String?

        public init(pin: String, title: String, newTitle: String? = nil, photo: String, from: Coordinate, to: Coordinate?,
                    country: String? = nil) {
            self.pin = pin
            self.title = title
            self.newTitle = newTitle
            self.photo = photo
            self.from = from
            self.to = to
            self.country = country
        }
    }

    /// Skipped photos drawn at most (the counts still count them all): a run over 200,000
    /// photos must not make a page of 40 MB.
    public static let skippedDrawnCap = 20_000

    public var root: String
    public var dryRun: Bool
    public var created: [Photo]
    /// Skipped photos that have a position, at most `skippedDrawnCap`.
    public var skipped: [Photo]
    /// Counts per reason, as the run's report gives them (including photos without a position).
    public var counts: [String: Int]
    public var unreadable: [Unreadable]
    /// Pins moved or kept by this run, at most `skippedDrawnCap` (the counts count them all).
    public var corrected: [Correction]
    /// How many pins the run moved and kept (`pinsMoved`, `pinsKept` of the report).
    public var movedCount: Int
    public var keptCount: Int
    /// Photos skipped with no position (no location), by name and reason: listed on the run's
    /// tab (they have no place on the map), at most `unplacedListedCap`.
    public var unplaced: [Unreadable] = []
    public static let unplacedListedCap = 500

    public init(root: String, dryRun: Bool, created: [Photo], skipped: [Photo], counts: [String: Int], unreadable: [Unreadable],
                corrected: [Correction] = [], movedCount: Int? = nil, keptCount: Int? = nil) {
        self.root = root
        self.dryRun = dryRun
        self.created = created
        self.skipped = skipped
        self.counts = counts
        self.unreadable = unreadable
        self.corrected = corrected
        self.movedCount = movedCount ?? corrected.count { $0.to != nil }
        self.keptCount = keptCount ?? corrected.count { $0.to == nil }
    }
}

/// The statistics tab of the page: what `pins stats` says, and when each country was first
/// visited. Counted from the pins the page shows (so a filtered page has its own numbers).
struct PageStatistics: Sendable, Equatable {
    struct CountryLine: Sendable, Equatable {
        var code: String
        var name: String
        var continent: String
        var pinCount: Int
        /// The year of the country's earliest pin, in that pin's own offset.
        var firstYear: Int
        /// "7 of 51 states" (nil when no pin has a region); distinct places with pins.
        var regions: String? = nil
        var placesVisited = 0
    }

    struct ContinentLine: Sendable, Equatable {
        var name: String
        var countryCount: Int
        var pinCount: Int
    }

    struct YearLine: Sendable, Equatable {
        var year: Int
        /// Countries whose first pin is in this year.
        var newCountries: [String]
        var pinCount: Int
    }

    var totalPins = 0
    /// Pins of each type (`StatisticsValues.typeCounts`), said in the page's data by the
    /// type's plural ("points": 3).
    var typeCounts: [LocationTypeSelection: Int] = [:]
    var atSea = 0
    /// Places someone wants to go (left out of every other count).
    var wanted = 0
    var regionsVisited = 0
    var placesVisited = 0
    /// The countries of the list the share counts against (`Settings.countryList`: ISO
    /// 3166-1's 249 or the UN's 193), how many of them have a pin, and the list's name.
    var countriesInWorld = 0
    var countriesInList = 0
    var countryListTitle = ""
    var continentsInWorld = 0
    /// By pin count, most first, then by name.
    var countries: [CountryLine] = []
    var continents: [ContinentLine] = []
    /// Oldest year first.
    var years: [YearLine] = []
    /// The pins visited more than once, most first (`pins stats`' "most visited places").
    var mostVisited: [StatisticsValues.VisitedPlace] = []

    /// Totals, countries and continents as `pins stats` counts them (`StatisticsService`), over
    /// these pins; then each country's first year and the years.
    init(pins: [PagePin], catalog: CountryCatalog, regionCounts: [String: Int] = [:], countryList: CountryList = .iso) {
        countriesInWorld = countryList.total(in: catalog)
        countryListTitle = countryList.title
        continentsInWorld = Set(catalog.entries.values.map(\.continent)).count
        let values = StatisticsService(catalog: catalog).calculate(stored: pins.map(\.stored))
        totalPins = values.totalPins
        typeCounts = values.typeCounts
        atSea = values.pinsWithoutCountry
        wanted = values.wantedPins
        var first: [String: (date: Date, year: Int)] = [:]
        var perYear: [Int: Int] = [:]
        // A place someone wants to go is no visit: not in a year, not a country's first.
        for pin in pins where !pin.location.wanted {
            let location = pin.location
            let year = Self.year(of: location.date, offsetSeconds: pin.utcOffsetSeconds)
            perYear[year, default: 0] += 1
            guard let code = location.countryID else { continue }
            if let known = first[code], known.date <= location.date { continue }
            first[code] = (location.date, year)
        }
        regionsVisited = values.regionsVisited
        placesVisited = values.placesVisited
        countriesInList = values.countries.filter { countryList.counts($0.id) }.count
        countries = values.countries.map {
            var entry = $0
            entry.regionCount = regionCounts[$0.id] ?? 0
            var line = CountryLine(code: $0.id, name: $0.name, continent: $0.continent, pinCount: $0.pinCount, firstYear: first[$0.id]?.year ?? 0)
            line.regions = $0.regionsVisited > 0 ? entry.regionsText : nil
            line.placesVisited = $0.placesVisited
            return line
        }
        continents = values.continents.map { ContinentLine(name: $0.name, countryCount: $0.countryCount, pinCount: $0.pinCount) }
        mostVisited = values.mostVisited
        var newByYear: [Int: [String]] = [:]
        for country in countries { newByYear[country.firstYear, default: []].append(country.code) }
        years = perYear.keys.sorted().map { YearLine(year: $0, newCountries: (newByYear[$0] ?? []).sorted(), pinCount: perYear[$0]!) }
    }

    /// The calendar year of an instant seen at a UTC offset (proleptic Gregorian, as ISO 8601).
    static func year(of date: Date, offsetSeconds: Int?) -> Int {
        let seconds = date.timeIntervalSince1970 + Double(offsetSeconds ?? 0)
        guard seconds.isFinite, abs(seconds) < 253_402_300_800 else { return 0 }
        var t = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        return Int(parts.tm_year) + 1900
    }
}

// The page's JSON islands, written by the project's one JSON writer (`JSONText`): keys sorted,
// absent optional values left out.

extension RunOverlay.Photo {
    var json: [String: Any] {
        var object: [String: Any] = ["photo": photo, "latitude": latitude, "longitude": longitude, "reason": reason]
        object["takenAt"] = takenAt
        object["detail"] = detail
        object["title"] = title
        object["country"] = country
        object["pin"] = pin
        object["positionSource"] = positionSource
        object["trackFile"] = trackFile
        object["secondsToTrackFix"] = secondsToTrackFix
        return object
    }
}

extension RunOverlay.Correction {
    var json: [String: Any] {
        func point(_ c: Coordinate) -> [String: Any] { ["latitude": jsonDegrees(c.latitude), "longitude": jsonDegrees(c.longitude)] }
        var object: [String: Any] = ["pin": pin, "title": title, "photo": photo, "from": point(from)]
        object["to"] = to.map(point)
        object["newTitle"] = newTitle
        object["country"] = country
        return object
    }
}

extension RunOverlay.Unreadable {
    var json: [String: Any] { ["photo": photo, "reason": reason] }
}

extension PageStatistics {
    var json: [String: Any] {
        var object: [String: Any] = [
            "totalPins": totalPins, "atSea": atSea,
            "countriesInWorld": countriesInWorld, "countriesInList": countriesInList, "countryList": countryListTitle,
            "continentsInWorld": continentsInWorld,
            "regionsVisited": regionsVisited, "placesVisited": placesVisited,
            "countries": countries.map { c -> [String: Any] in
                var line: [String: Any] = ["code": c.code, "name": c.name, "continent": c.continent, "pinCount": c.pinCount, "firstYear": c.firstYear]
                line["regions"] = c.regions
                if c.placesVisited > 0 { line["places"] = c.placesVisited }
                return line
            },
            "continents": continents.map { ["name": $0.name, "countryCount": $0.countryCount, "pinCount": $0.pinCount] as [String: Any] },
            "years": years.map { ["year": $0.year, "newCountries": $0.newCountries, "pinCount": $0.pinCount] as [String: Any] },
        ]
        // Absent when no pin was visited twice (a page of such pins is as it was).
        if !mostVisited.isEmpty {
            object["mostVisited"] = mostVisited.map {
                ["id": $0.id.lowercasedText, "title": $0.title, "visits": $0.visitCount, "photos": $0.photoCount] as [String: Any]
            }
        }
        for type in LocationTypeSelection.allCases { object[type.plural] = typeCounts[type] ?? 0 }
        if wanted > 0 { object["wanted"] = wanted }
        return object
    }
}
