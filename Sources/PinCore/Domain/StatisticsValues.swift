/// What the Statistics tab shows: countries and continents visited, totals per type.
public struct StatisticsValues: Codable, Sendable, Equatable {
    public struct CountryEntry: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var continent: String
        public var pinCount: Int
    }

    public struct ContinentEntry: Codable, Sendable, Equatable {
        public var name: String
        public var countryCount: Int
        public var pinCount: Int
    }

    public var countries: [CountryEntry] = []
    public var continents: [ContinentEntry] = []
    public var totalPins = 0
    public var pointCount = 0
    public var cityCount = 0
    public var mountainCount = 0
    /// Pins outside every country (at sea).
    public var pinsWithoutCountry = 0

    public init() {}
}
