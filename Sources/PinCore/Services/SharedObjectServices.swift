import Foundation

/// Country pin counts: a country row exists while at least one pin is in it.
public struct CountryService: Sendable {
    public let catalog: CountryCatalog

    public init(catalog: CountryCatalog) { self.catalog = catalog }

    public func plusPin(for code: String, in repos: Repositories) throws {
        var country = try repos.countries.fetch(id: code) ?? catalog.makeCountry(code: code)
        country.pinCount += 1
        try repos.countries.save(country)
    }

    public func minusPin(for code: String, in repos: Repositories) throws {
        guard var country = try repos.countries.fetch(id: code) else { return }
        country.pinCount -= 1
        if country.pinCount <= 0 {
            try repos.countries.delete(id: code)
        } else {
            try repos.countries.save(country)
        }
    }
}

/// Shared City objects: found by name and rounded coordinate, counted, removed at zero.
public struct CityService: Sendable {
    public let ids: IDSource

    public init(ids: IDSource = .system) { self.ids = ids }

    /// Finds or creates the City for this visit and adds one pin to it.
    @discardableResult
    public func plusPin(for visit: CityVisitData, in repos: Repositories) throws -> City {
        let key = SharedPlaceKey(name: visit.cityName, coordinate: visit.cityCoordinate)
        guard var city = try repos.cities.find(key: key) else {
            let city = City(id: try ids.next(), name: key.name, coordinate: key.roundedCoordinate, pinCount: 1)
            try repos.cities.insert(city)
            return city
        }
        city.pinCount += 1
        try repos.cities.update(city)
        return city
    }

    public func minusPin(for visit: CityVisitData, in repos: Repositories) throws {
        let key = SharedPlaceKey(name: visit.cityName, coordinate: visit.cityCoordinate)
        guard var city = try repos.cities.find(key: key) else { return }
        city.pinCount -= 1
        if city.pinCount <= 0 { try repos.cities.delete(id: city.id) } else { try repos.cities.update(city) }
    }
}

/// Shared Mountain objects, as cities.
public struct MountainService: Sendable {
    public let ids: IDSource

    public init(ids: IDSource = .system) { self.ids = ids }

    @discardableResult
    public func plusPin(for visit: MountainVisitData, in repos: Repositories) throws -> Mountain {
        let key = SharedPlaceKey(name: visit.mountainName, coordinate: visit.mountainCoordinate)
        guard var mountain = try repos.mountains.find(key: key) else {
            let mountain = Mountain(id: try ids.next(), name: key.name, height: visit.height,
                                    coordinate: key.roundedCoordinate, pinCount: 1)
            try repos.mountains.insert(mountain)
            return mountain
        }
        if mountain.height == nil { mountain.height = visit.height }
        mountain.pinCount += 1
        try repos.mountains.update(mountain)
        return mountain
    }

    public func minusPin(for visit: MountainVisitData, in repos: Repositories) throws {
        let key = SharedPlaceKey(name: visit.mountainName, coordinate: visit.mountainCoordinate)
        guard var mountain = try repos.mountains.find(key: key) else { return }
        mountain.pinCount -= 1
        if mountain.pinCount <= 0 {
            try repos.mountains.delete(id: mountain.id)
        } else {
            try repos.mountains.update(mountain)
        }
    }
}
