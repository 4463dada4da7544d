import Foundation

/// One ISO 3166-1 entry with its UN M49 continent, region and sub-region (Countries.json).
public struct CountryInfo: Codable, Sendable, Hashable {
    public var alpha2: String
    public var alpha3: String
    var numeric: String
    public var name: String
    public var continent: String
    var region: String
    var subRegion: String

    init(alpha2: String, alpha3: String, numeric: String, name: String, continent: String, region: String, subRegion: String) {
        self.alpha2 = alpha2
        self.alpha3 = alpha3
        self.numeric = numeric
        self.name = name
        self.continent = continent
        self.region = region
        self.subRegion = subRegion
    }
}

/// Every country the app knows: names and continents for the codes the resolver returns.
public struct CountryCatalog: Sendable {
    public let entries: [String: CountryInfo]

    init(entries: [CountryInfo]) {
        var map: [String: CountryInfo] = [:]
        for entry in entries { map[entry.alpha2] = entry }
        self.entries = map
    }

    /// Parses Countries.json (a JSON array of CountryInfo).
    public init(json: Data) throws {
        self.init(entries: try JSONDecoder().decode([CountryInfo].self, from: json))
    }

    public subscript(code: String) -> CountryInfo? { entries[code] }

    /// A new Country row for a code, with a readable fallback for a code the catalogue lacks.
    func makeCountry(code: String) -> Country {
        let info = entries[code]
        return Country(id: code, name: info?.name ?? code, continent: info?.continent ?? "Unknown", pinCount: 0)
    }
}
