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

/// The one service of every shared-object type (City, Mountain): a pin's visit finds its shared
/// object (`SharedVisit.stored`: by name and rounded coordinate, else the nearest of that name
/// within the type's `sharingKm`), or makes it (`newPlace`); it is counted, and removed at zero.
/// What a type does beyond that is declared with its visit (LocationType.swift): a city is its
/// gazetteer place; a mountain's height is the last one given, shown by every pin on it. A
/// pin's visit always carries its shared object's name and coordinate, so a recount by name and
/// coordinate (`check --repair`) agrees.
public struct SharedPlaceService: Sendable {
    public let ids: IDSource

    public init(ids: IDSource) { self.ids = ids }

    /// Finds or creates the shared object of this visit and adds one pin to it; the visit as it
    /// now points at it (`SharedVisit.show`). A shared object made is given `newID` when none
    /// has it (an undo makes again the shared object a pin was on, under its own id). Without
    /// `giving`, a pin put back (an undo) joins a stored object as it is now and changes none of
    /// it (`SharedVisit.change`: a mountain's height given after the pin went stands).
    @discardableResult
    func plusPin<Visit: SharedVisit>(for visit: Visit, in repos: Repositories, newID: UUID? = nil,
                                     giving: Bool = true) throws -> (place: Visit.Place, visit: Visit) {
        var visit = visit
        let places = repos.sharedPlaces(Visit.Place.self)
        guard var place = try visit.stored(in: places, adopting: true) else {
            let place = visit.newPlace(id: try freeID(newID, in: places) ?? ids.next())
            try places.insert(place)
            visit.show(place)
            return (place, visit)
        }
        place.pinCount += 1
        let changed = giving && visit.change(&place)
        try places.update(place)
        visit.show(place)
        if changed { try showEverywhere(place, as: Visit.self, in: repos) }
        return (place, visit)
    }

    func minusPin<Visit: SharedVisit>(for visit: Visit, in repos: Repositories) throws {
        let places = repos.sharedPlaces(Visit.Place.self)
        try countDown(visit.stored(in: places, adopting: false), in: places)
    }

    /// The stored shared object `visit` points at, if any.
    func find<Visit: SharedVisit>(_ visit: Visit, in repos: Repositories) throws -> Visit.Place? {
        try visit.stored(in: repos.sharedPlaces(Visit.Place.self), adopting: false)
    }

    /// `type` as it points at its shared object, counted there (`plusPin`); a point as it is.
    func plusPin(_ type: LocationType, in repos: Repositories, newID: UUID?, giving: Bool = true) throws -> LocationType {
        func counted<Visit: SharedVisit>(_ visit: Visit) throws -> LocationType {
            try plusPin(for: visit, in: repos, newID: newID, giving: giving).visit.locationType
        }
        return try type.sharedVisit.map { try counted($0) } ?? type
    }

    /// Undoes `plusPin(_:in:newID:)`.
    func minusPin(_ type: LocationType, in repos: Repositories) throws {
        if let visit = type.sharedVisit { try minusPin(for: visit, in: repos) }
    }

    /// The id of the stored shared object `type` points at; nil for a point, or when none is stored.
    func storedID(of type: LocationType, in repos: Repositories) throws -> UUID? {
        func id<Visit: SharedVisit>(_ visit: Visit) throws -> UUID? { try find(visit, in: repos)?.id }
        return try type.sharedVisit.flatMap { try id($0) }
    }

    /// Every pin on `place` shows it as it is (`showOwn`), by the visit of its type in the registry.
    func showEverywhere<Place: SharedPlace>(_ place: Place, in repos: Repositories) throws {
        func show<Visit: SharedVisit>(_: Visit.Type) throws {
            if let place = place as? Visit.Place { try showEverywhere(place, as: Visit.self, in: repos) }
        }
        if let visit = Place.pinType.visitType { try show(visit) }
    }

    /// Every other pin on `place` shows it as changed (a mountain's new height).
    private func showEverywhere<Visit: SharedVisit>(_ place: Visit.Place, as _: Visit.Type, in repos: Repositories) throws {
        let key = SharedPlaceKey(name: place.name, coordinate: place.coordinate)
        for var pin in try repos.locations.fetchAll(countryID: nil) {
            guard let visit = pin.type.sharedVisit as? Visit,
                  SharedPlaceKey(name: visit.sharedName, coordinate: visit.sharedCoordinate) == key else { continue }
            var shown = visit
            shown.showOwn(place)
            guard shown != visit else { continue }
            pin.type = shown.locationType
            try repos.locations.update(pin)
        }
    }
}

extension SharedVisit {
    public func stored(in places: any SharedPlaceRepository<Place>, adopting: Bool) throws -> Place? {
        try storedByName(in: places)
    }

    public func change(_ place: inout Place) -> Bool { false }

    /// The shared object's name and coordinate, and what the type shows of it (`showOwn`).
    mutating func show(_ place: Place) {
        sharedName = place.name
        sharedCoordinate = place.coordinate
        showOwn(place)
    }

    /// By exact name and rounded coordinate (as stored), else the nearest of that name within
    /// `sharingKm`: the stored shared object of a type that declares no rule of its own.
    func storedByName(in places: any SharedPlaceRepository<Place>) throws -> Place? {
        if let place = try places.find(key: SharedPlaceKey(name: sharedName, coordinate: sharedCoordinate)) { return place }
        return Place.nearest(named: sharedName, to: sharedCoordinate, within: Self.sharingKm, in: try places.fetchAll())
    }
}

/// What the shared-object types share: the nearest place of a name, and the count down of a
/// place a pin leaves.
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
