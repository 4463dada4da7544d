import Foundation

/// Travel statistics: countries and continents visited, totals per type.
public struct StatisticsService: Sendable {
    let catalog: CountryCatalog
    /// The gazetteer: how many regions each country has ("7 of 51 states").
    let places: any PlaceLocating
    /// What the share of countries visited counts against.
    public var countryList = CountryList.iso

    public init(catalog: CountryCatalog, places: any PlaceLocating = NoPlaces()) {
        self.catalog = catalog
        self.places = places
    }

    /// The statistics of the visits: a place someone only wants to go (`Location.wanted`) is
    /// left out of every count but `wantedPins`, and of its country's.
    public func calculate(using database: TransactionRunner) throws -> StatisticsValues {
        try database.read { repos in
            calculate(pins: try repos.locations.fetchAll(countryID: nil), countries: try repos.countries.fetchAll())
        }
    }

    /// `calculate(using:)` of every stored pin `all` as the caller holds them and the countries
    /// table `stored` (pins serve's list at the database's version: the pins not read again,
    /// 100,000 Locations, 27 MB at once, twice per Statistics tab).
    public func calculate<Pins: Collection<Location>>(pins all: Pins, countries stored: [Country]) -> StatisticsValues {
        var countries = stored
        var wantedIn: [String: Int] = [:], wanted = 0
        for pin in all where pin.wanted {
            wanted += 1
            if let code = pin.countryID { wantedIn[code, default: 0] += 1 }
        }
        guard wanted > 0 else { return calculate(countries: countries, locations: all) }
        // The countries table counts every pin (wanted ones too): their share is taken off.
        for i in countries.indices { countries[i].pinCount -= wantedIn[countries[i].id] ?? 0 }
        var stats = calculate(countries: countries, locations: all.filter { !$0.wanted })
        stats.wantedPins = wanted
        return stats
    }

    /// The statistics of `locations` alone (a filtered set, the pins of a page): each country's
    /// pins are counted from them, not taken from the stored counts.
    /// `all` may be a lazy view of the pins, read where they lie (`calculate(stored:)`): an array
    /// of every pin's Location made for the statistics was 33 MB at 100,000 pins, at each map
    /// data of pins serve.
    public func calculate<Pins: Collection<Location>>(locations all: Pins) -> StatisticsValues {
        guard all.contains(where: \.wanted) else { return calculate(visits: all, count: all.count) }
        return calculate(visits: all.filter { !$0.wanted }, count: all.count)
    }

    /// `calculate(locations:)` of pins held once (`StoredLocation`: the map page's), made here
    /// for that collection. Called with a view of them from another module, the generic code ran
    /// unspecialised: every pin copied through its type's value witnesses, pass after pass (a
    /// fifth of the CPU of pins serve's map data).
    public func calculate(stored: [StoredLocation]) -> StatisticsValues {
        // A closure, not a key path: a lazy view's key path is read through the runtime per pin.
        calculate(locations: stored.lazy.map { $0.location })
    }

    /// `calculate(pins:countries:)` of pins held once (pins serve's), made here for them
    /// (`calculate(stored:)`).
    public func calculate(stored: [StoredLocation], countries: [Country]) -> StatisticsValues {
        calculate(pins: stored.lazy.map { $0.location }, countries: countries)
    }

    /// `calculate(locations:)` of the visits `locations`, out of `count` pins.
    private func calculate(visits locations: some Collection<Location>, count: Int) -> StatisticsValues {
        var counts: [String: Int] = [:]
        for location in locations {
            if let code = location.countryID { counts[code, default: 0] += 1 }
        }
        let countries = counts.map { code, count in
            var country = catalog.makeCountry(code: code)
            country.pinCount = count
            return country
        }
        var stats = calculate(countries: countries, locations: locations)
        stats.wantedPins = count - locations.count
        return stats
    }

    public func calculate(countries: [Country], locations: some Collection<Location>) -> StatisticsValues {
        var stats = StatisticsValues()
        var regions: [String: Set<String>] = [:], towns: [String: Set<String>] = [:]
        for location in locations {
            if let code = location.countryID {
                if let region = location.regionCode ?? location.region { regions[code, default: []].insert(region) }
                if let town = location.placeID.map(String.init) ?? location.place { towns[code, default: []].insert(town) }
            }
            stats.totalPins += 1
            stats.typeCounts[location.type.selection, default: 0] += 1
            if location.countryID == nil { stats.pinsWithoutCountry += 1 }
        }
        let visited = countries.filter { $0.pinCount > 0 }
            .sorted { ($0.pinCount, $1.name) > ($1.pinCount, $0.name) }
        stats.countries = visited.map {
            var entry = StatisticsValues.CountryEntry(id: $0.id, name: $0.name, continent: $0.continent, pinCount: $0.pinCount)
            entry.regionsVisited = regions[$0.id]?.count ?? 0
            entry.placesVisited = towns[$0.id]?.count ?? 0
            if entry.regionsVisited > 0 { entry.regionCount = places.regions(of: $0.id).count }
            return entry
        }
        stats.countryList = countryList.rawValue
        stats.countryListTitle = countryList.title
        stats.countryListTotal = countryList.total(in: catalog)
        stats.countriesInList = visited.filter { countryList.counts($0.id) }.count
        stats.regionsVisited = regions.values.reduce(0) { $0 + $1.count }
        stats.placesVisited = towns.values.reduce(0) { $0 + $1.count }
        var continents: [String: StatisticsValues.ContinentEntry] = [:]
        for country in visited {
            var entry = continents[country.continent] ?? .init(name: country.continent, countryCount: 0, pinCount: 0)
            entry.countryCount += 1
            entry.pinCount += country.pinCount
            continents[country.continent] = entry
        }
        stats.continents = continents.values.sorted { ($0.pinCount, $1.name) > ($1.pinCount, $0.name) }
        stats.mostVisited = Self.mostVisited(locations)
        return stats
    }

    /// How many pins "most visited places" names.
    static let mostVisitedShown = 10

    /// The pins visited more than once, in the order of `pins list --sort visits`.
    static func mostVisited(_ locations: some Collection<Location>) -> [StatisticsValues.VisitedPlace] {
        var filter = PinFilter()
        filter.sort = .visits
        filter.limit = mostVisitedShown
        return filter.apply(to: locations.filter { $0.visitCount > 1 }, continentOf: { _ in nil }).map {
            StatisticsValues.VisitedPlace(id: $0.id, title: $0.title, visitCount: $0.visitCount, photoCount: $0.photoCount)
        }
    }
}
