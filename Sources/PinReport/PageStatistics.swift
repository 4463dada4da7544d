import Foundation
import PinCore

/// A run drawn over the map: what an import would create (or created), and the photos it
/// skipped that have a position, each with its reason.
public struct RunOverlay: Sendable {
    public struct Photo: Sendable, Encodable {
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

    public struct Unreadable: Sendable, Encodable {
        public var photo: String
        public var reason: String
        public init(photo: String, reason: String) {
            self.photo = photo
            self.reason = reason
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

    public init(root: String, dryRun: Bool, created: [Photo], skipped: [Photo], counts: [String: Int], unreadable: [Unreadable]) {
        self.root = root
        self.dryRun = dryRun
        self.created = created
        self.skipped = skipped
        self.counts = counts
        self.unreadable = unreadable
    }
}

/// The statistics tab of the page: what `pins stats` says, and when each country was first
/// visited. Counted from the pins the page shows (so a filtered page has its own numbers).
public struct PageStatistics: Sendable, Equatable, Encodable {
    public struct CountryLine: Sendable, Equatable, Encodable {
        public var code: String
        public var name: String
        public var continent: String
        public var pinCount: Int
        /// The year of the country's earliest pin, in that pin's own offset.
        public var firstYear: Int
    }

    public struct ContinentLine: Sendable, Equatable, Encodable {
        public var name: String
        public var countryCount: Int
        public var pinCount: Int
    }

    public struct YearLine: Sendable, Equatable, Encodable {
        public var year: Int
        /// Countries whose first pin is in this year.
        public var newCountries: [String]
        public var pinCount: Int
    }

    public var totalPins = 0
    public var points = 0
    public var cities = 0
    public var mountains = 0
    public var atSea = 0
    /// Every ISO 3166-1 country the catalogue knows.
    public var countriesInWorld = 0
    public var continentsInWorld = 0
    /// By pin count, most first, then by name.
    public var countries: [CountryLine] = []
    public var continents: [ContinentLine] = []
    /// Oldest year first.
    public var years: [YearLine] = []

    public init(pins: [PagePin], catalog: CountryCatalog) {
        countriesInWorld = catalog.entries.count
        continentsInWorld = Set(catalog.entries.values.map(\.continent)).count
        var perCountry: [String: (count: Int, first: Date, firstYear: Int)] = [:]
        var perYear: [Int: Int] = [:]
        for pin in pins {
            let location = pin.location
            totalPins += 1
            switch location.type.selection {
            case .point: points += 1
            case .city: cities += 1
            case .mountain: mountains += 1
            }
            let year = Self.year(of: location.date, offsetSeconds: pin.utcOffsetSeconds)
            perYear[year, default: 0] += 1
            guard let code = location.countryID else {
                atSea += 1
                continue
            }
            if var entry = perCountry[code] {
                entry.count += 1
                if location.date < entry.first { entry.first = location.date; entry.firstYear = year }
                perCountry[code] = entry
            } else {
                perCountry[code] = (1, location.date, year)
            }
        }
        countries = perCountry.map { code, entry in
            let country = catalog.makeCountry(code: code)
            return CountryLine(code: code, name: country.name, continent: country.continent, pinCount: entry.count,
                               firstYear: entry.firstYear)
        }.sorted { ($0.pinCount, $1.name) > ($1.pinCount, $0.name) }
        var continentMap: [String: ContinentLine] = [:]
        for country in countries {
            var line = continentMap[country.continent] ?? ContinentLine(name: country.continent, countryCount: 0, pinCount: 0)
            line.countryCount += 1
            line.pinCount += country.pinCount
            continentMap[country.continent] = line
        }
        continents = continentMap.values.sorted { ($0.pinCount, $1.name) > ($1.pinCount, $0.name) }
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
