import Foundation

/// Country pin counts: a country row exists while at least one pin is in it.
public struct CountryService: Sendable {
    public let catalog: CountryCatalog

    public init(catalog: CountryCatalog) { self.catalog = catalog }

    func plusPin(for code: String, in repos: Repositories) throws {
        var country = try repos.countries.fetch(id: code) ?? catalog.makeCountry(code: code)
        country.pinCount += 1
        try repos.countries.save(country)
    }

    func minusPin(for code: String, in repos: Repositories) throws {
        guard var country = try repos.countries.fetch(id: code) else { return }
        country.pinCount -= 1
        if country.pinCount <= 0 {
            try repos.countries.delete(id: code)
        } else {
            try repos.countries.save(country)
        }
    }
}

/// Shared City objects. A city is the gazetteer place its pins are in (found by GeoNames id), or,
/// named by hand, the city of that name within `sharingKm` of the pin (an older city of that
/// name there, made before cities had places, becomes the place's, keeping its name and
/// coordinate); counted, removed at zero. A pin's visit always carries its city's name and
/// coordinate, so a recount by name and coordinate (`check --repair`) agrees.
public struct CityService: Sendable {
    public let ids: IDSource
    /// Two city pins named alike this close to one city's centre share it (a city is large).
    static let sharingKm = 15.0

    public init(ids: IDSource) { self.ids = ids }

    /// Finds or creates the City for this visit and adds one pin to it; the visit as it now
    /// points at it (the city's name, centre and place id). A city made is given `newID` when
    /// no city has it (an undo makes again the city a pin was on, under its own id).
    @discardableResult
    func plusPin(for visit: CityVisitData, in repos: Repositories, newID: UUID? = nil) throws -> (city: City, visit: CityVisitData) {
        var visit = visit
        let name = visit.cityName.trimmingCharacters(in: .whitespacesAndNewlines)
        if var city = try find(visit, in: repos, adopting: true) {
            city.pinCount += 1
            try repos.sharedPlaces(City.self).update(city)
            visit.cityName = city.name
            visit.cityCoordinate = city.coordinate
            visit.placeID = city.placeID
            return (city, visit)
        }
        let coordinate = visit.placeID == nil ? SharedPlaceKey(name: name, coordinate: visit.cityCoordinate).roundedCoordinate : visit.cityCoordinate
        let id = try freeID(newID, in: repos.sharedPlaces(City.self)) ?? ids.next()
        let city = City(id: id, name: name, coordinate: coordinate, pinCount: 1, placeID: visit.placeID)
        try repos.sharedPlaces(City.self).insert(city)
        visit.cityName = city.name
        visit.cityCoordinate = city.coordinate
        return (city, visit)
    }

    func minusPin(for visit: CityVisitData, in repos: Repositories) throws {
        try countDown(find(visit, in: repos, adopting: false), in: repos.sharedPlaces(City.self))
    }

    /// The stored city a visit points at: by place id; else by its exact name and rounded
    /// coordinate (as stored); else the nearest city of that name (any case, accents ignored)
    /// within `sharingKm`. `adopting`: a place's visit takes a city of the place's name there
    /// that has no place yet (made by hand or before cities had places), which becomes the place.
    func find(_ visit: CityVisitData, in repos: Repositories, adopting: Bool) throws -> City? {
        if let placeID = visit.placeID {
            let all = try repos.sharedPlaces(City.self).fetchAll()
            if let city = all.first(where: { $0.placeID == placeID }) { return city }
            guard adopting else { return nil }
            if var city = City.nearest(named: visit.cityName, to: visit.cityCoordinate, within: Self.sharingKm, in: all.filter { $0.placeID == nil }) {
                // Its name and coordinate stay: they are what its older pins point at.
                city.placeID = placeID
                return city
            }
            return nil
        }
        if let city = try repos.sharedPlaces(City.self).find(key: SharedPlaceKey(name: visit.cityName, coordinate: visit.cityCoordinate)) { return city }
        return City.nearest(named: visit.cityName, to: visit.cityCoordinate, within: Self.sharingKm, in: try repos.sharedPlaces(City.self).fetchAll())
    }
}

/// Shared Mountain objects: the mountain of that name (any case, accents ignored) within
/// `sharingKm` of the pin, or a new one there. Its height is the last one given: a pin made or
/// edited with a new height changes the mountain's, and every pin on it shows that height.
public struct MountainService: Sendable {
    public let ids: IDSource
    /// Two mountain pins named alike this close share the mountain (a summit and a hut below it).
    static let sharingKm = 5.0

    public init(ids: IDSource) { self.ids = ids }

    /// Finds or creates the Mountain for this visit and adds one pin to it (`newID` as for a city).
    @discardableResult
    func plusPin(for visit: MountainVisitData, in repos: Repositories, newID: UUID? = nil) throws -> (mountain: Mountain, visit: MountainVisitData) {
        var visit = visit
        let key = SharedPlaceKey(name: visit.mountainName, coordinate: visit.mountainCoordinate)
        guard var mountain = try find(visit, in: repos) else {
            let mountain = Mountain(id: try freeID(newID, in: repos.sharedPlaces(Mountain.self)) ?? ids.next(), name: key.name, height: visit.height,
                                    coordinate: key.roundedCoordinate, pinCount: 1)
            try repos.sharedPlaces(Mountain.self).insert(mountain)
            visit.mountainName = mountain.name
            visit.mountainCoordinate = mountain.coordinate
            return (mountain, visit)
        }
        mountain.pinCount += 1
        let newHeight = visit.height != nil && visit.height != mountain.height
        if newHeight { mountain.height = visit.height }
        try repos.sharedPlaces(Mountain.self).update(mountain)
        visit.mountainName = mountain.name
        visit.mountainCoordinate = mountain.coordinate
        visit.height = mountain.height
        if newHeight { try showHeight(of: mountain, in: repos) }
        return (mountain, visit)
    }

    func minusPin(for visit: MountainVisitData, in repos: Repositories) throws {
        try countDown(find(visit, in: repos), in: repos.sharedPlaces(Mountain.self))
    }

    /// By exact name and rounded coordinate (as stored), else the nearest of that name within `sharingKm`.
    func find(_ visit: MountainVisitData, in repos: Repositories) throws -> Mountain? {
        if let mountain = try repos.sharedPlaces(Mountain.self).find(key: SharedPlaceKey(name: visit.mountainName, coordinate: visit.mountainCoordinate)) {
            return mountain
        }
        return Mountain.nearest(named: visit.mountainName, to: visit.mountainCoordinate, within: Self.sharingKm,
                                in: try repos.sharedPlaces(Mountain.self).fetchAll())
    }

    /// Every other pin on `mountain` shows its height now.
    func showHeight(of mountain: Mountain, in repos: Repositories) throws {
        let key = SharedPlaceKey(name: mountain.name, coordinate: mountain.coordinate)
        for var pin in try repos.locations.fetchAll(countryID: nil) {
            guard case var .mountain(visit) = pin.type, visit.height != mountain.height,
                  SharedPlaceKey(name: visit.mountainName, coordinate: visit.mountainCoordinate) == key else { continue }
            visit.height = mountain.height
            pin.type = .mountain(visit)
            try repos.locations.update(pin)
        }
    }
}

/// What the services of every shared-object type (CityService, MountainService) share: the
/// nearest place of a name, and the count down of a place a pin leaves.
extension SharedPlace {
    /// The one of `places` named `name` (any case, accents and surrounding spaces ignored)
    /// nearest to `point`, within `km`.
    static func nearest(named name: String, to point: Coordinate, within km: Double, in places: [Self]) -> Self? {
        let folded = PinFilter.fold(name.trimmingCharacters(in: .whitespacesAndNewlines))
        return places.filter { PinFilter.fold($0.name) == folded }
            .map { ($0, PinFilter.kilometres($0.coordinate, point)) }
            .filter { $0.1 <= km }
            .min { $0.1 < $1.1 }?.0
    }
}

/// `id` when no place of `repository` has it, else nil (then a new id is drawn).
func freeID<Place: SharedPlace>(_ id: UUID?, in repository: any SharedPlaceRepository<Place>) throws -> UUID? {
    guard let id, try repository.fetch(id: id) == nil else { return nil }
    return id
}

/// One pin fewer on `place` (the one a leaving pin's visit points at, if stored): it is removed
/// at zero, as a country is.
func countDown<Place: SharedPlace>(_ place: Place?, in repository: any SharedPlaceRepository<Place>) throws {
    guard var place else { return }
    place.pinCount -= 1
    if place.pinCount <= 0 { try repository.delete(id: place.id) } else { try repository.update(place) }
}
