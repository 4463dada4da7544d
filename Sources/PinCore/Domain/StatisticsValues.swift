import Foundation

/// What the Statistics tab shows: countries and continents visited, totals per type.
public struct StatisticsValues: Codable, Sendable, Equatable {
    public struct CountryEntry: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var continent: String
        public var pinCount: Int
        /// Admin-1 regions with at least one pin (by ISO 3166-2 code, else name).
        public var regionsVisited = 0
        /// The country's admin-1 regions in the gazetteer; 0 when it has none or none is loaded.
        public var regionCount = 0
        /// Distinct places (towns) with at least one pin.
        public var placesVisited = 0
    }

    public struct ContinentEntry: Codable, Sendable, Equatable {
        public var name: String
        public var countryCount: Int
        public var pinCount: Int
    }

    /// A pin among the most visited places.
    public struct VisitedPlace: Codable, Sendable, Equatable {
        public var id: UUID
        public var title: String
        public var visitCount: Int
        public var photoCount: Int
    }

    public var countries: [CountryEntry] = []
    public var continents: [ContinentEntry] = []
    /// The pins visited more than once, most visits first (then most photos, then oldest),
    /// at most `StatisticsService.mostVisitedShown`.
    public var mostVisited: [VisitedPlace] = []
    public var totalPins = 0
    /// Pins of each type; a type without pins has no entry (`count(of:)` says 0).
    public var typeCounts: [LocationTypeSelection: Int] = [:]
    /// Pins outside every country (at sea).
    public var pinsWithoutCountry = 0
    /// Places someone wants to go (`Location.wanted`): counted here only, in nothing above.
    public var wantedPins = 0
    /// The list the share of countries counts against (`CountryList`: "iso" or "un"), its
    /// title, how many countries it has, and how many of them have a pin.
    public var countryList = "iso"
    public var countryListTitle = "ISO 3166-1"
    public var countryListTotal = 0
    public var countriesInList = 0
    /// Regions and places with at least one pin, all countries together.
    public var regionsVisited = 0
    public var placesVisited = 0

    public init() {}
}

extension StatisticsValues {
    /// "12 of 249 (4.8 %, ISO 3166-1)"; the bare count when no list is loaded.
    public var countryShareText: String {
        guard countryListTotal > 0 else { return String(countries.count) }
        let share = (Double(countriesInList) / Double(countryListTotal) * 1000).rounded() / 10
        return "\(countriesInList) of \(countryListTotal) (\(share) %, \(countryListTitle))"
    }
}

extension StatisticsValues.CountryEntry {
    /// "7 of 51 states" (what a country's admin-1 units are called, for the countries people
    /// ask about most; "regions" elsewhere), or "7 regions" when the total is unknown. The
    /// word agrees with the total where there is one: Réunion is "1 of 1 region".
    public var regionsText: String {
        let one = regionCount > 0 ? regionCount == 1 : regionsVisited == 1
        let word = one ? Self.regionWord(id).singular : Self.regionWord(id).plural
        return regionCount > 0 ? "\(regionsVisited) of \(regionCount) \(word)" : "\(regionsVisited) \(word)"
    }

    static func regionWord(_ code: String) -> (singular: String, plural: String) {
        switch code {
        case "US", "DE", "AT", "BR", "MX", "MY", "NG", "VE": return ("state", "states")
        case "AU": return ("state or territory", "states and territories")
        case "IN": return ("state or union territory", "states and union territories")
        case "CA": return ("province or territory", "provinces and territories")
        case "CN", "AR", "ZA", "PH", "KR", "TR", "IR", "TH": return ("province", "provinces")
        case "JP": return ("prefecture", "prefectures")
        case "CH": return ("canton", "cantons")
        case "ES": return ("autonomous community", "autonomous communities")
        case "RU": return ("federal subject", "federal subjects")
        case "GB": return ("country", "countries")
        case "PL": return ("voivodeship", "voivodeships")
        case "SE", "NO": return ("county", "counties")
        default: return ("region", "regions")
        }
    }
}

extension StatisticsValues {
    /// How many pins are of `type`.
    public func count(of type: LocationTypeSelection) -> Int { typeCounts[type] ?? 0 }
}
