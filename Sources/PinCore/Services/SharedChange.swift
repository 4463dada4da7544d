import Foundation

/// A shared object a pin's change altered besides the one the pin left, by what the pin's visit
/// does to the shared object it joins (`SharedVisit.change`, `SharedVisit.stored` adopting): a
/// mountain a moved pin joined and gave its height (the last one given), a city without a
/// gazetteer place that a moved city pin made its place's. Its own values before the change and
/// as the change left it: the change's undo puts the first back while it still holds the second
/// (`LocationService.putBack`).
public struct SharedChange: Sendable {
    let before: any SharedPlace
    let left: any SharedPlace
}

extension LocationEdit {
    /// Whether the edit may put its pin on another shared object (a move, a new type, name or
    /// visit field) and so alter it: only then are the shared objects read before the edit.
    public var mayJoinShared: Bool { coordinate != nil || type != nil || name != nil || !fields.isEmpty }
}

extension LocationService {
    /// Every stored shared object of every shared-object type of the registry, by id: what a
    /// change may alter, read before it (`sharedChange`).
    public func sharedObjects(in repos: Repositories) throws -> [UUID: any SharedPlace] {
        var all: [UUID: any SharedPlace] = [:]
        func read<Visit: SharedVisit>(_: Visit.Type) throws {
            for place in try repos.sharedPlaces(Visit.Place.self).fetchAll() { all[place.id] = place }
        }
        for type in LocationTypeSelection.sharedTypes {
            if let visit = type.visitType { try read(visit) }
        }
        return all
    }

    /// What a change altered of the shared object its pin is on now (`after`), when that is not
    /// the one the pin left (`left`, its id): its own values as `before` (read before the change,
    /// `sharedObjects`) held them and as stored now. Nil when the pin is on none or on the one it
    /// left, on one the change made, or on one whose own values the change kept.
    public func sharedChange(of after: Location, leaving left: UUID?, before: [UUID: any SharedPlace],
                             in repos: Repositories) throws -> SharedChange? {
        func change<Visit: SharedVisit>(_ visit: Visit) throws -> SharedChange? {
            guard let now = try creation.sharedPlaces.find(visit, in: repos), now.id != left,
                  let was = before[now.id] as? Visit.Place, was.ownValues != now.ownValues else { return nil }
            return SharedChange(before: was, left: now)
        }
        return try after.type.sharedVisit.flatMap { try change($0) }
    }

    /// `pin` as its visit shows the shared object it is on as stored now (`SharedVisit.showOwn`):
    /// a pin as a change left it, seen after that object changed since (another pin gave the
    /// mountain a new height, which every pin on it shows). `pin` itself when it is on none.
    public func showingNow(_ pin: Location, in repos: Repositories) throws -> Location {
        func shown<Visit: SharedVisit>(_ visit: Visit) throws -> Location {
            guard let place = try creation.sharedPlaces.find(visit, in: repos) else { return pin }
            var (pin, visit) = (pin, visit)
            visit.showOwn(place)
            pin.type = visit.locationType
            return pin
        }
        return try pin.type.sharedVisit.map { try shown($0) } ?? pin
    }

    /// Puts back the own values `change` recorded of its shared object before the change (its
    /// count as it is now), and every pin on it shows them again; inside the caller's transaction.
    /// Nothing when that object is gone or its own values are no longer as the change left them:
    /// a later change decides. Returns whether they were put back.
    @discardableResult
    public func putBack(_ change: SharedChange, in repos: Repositories) throws -> Bool {
        func put<Place: SharedPlace>(_ was: Place) throws -> Bool {
            let places = repos.sharedPlaces(Place.self)
            guard let now = try places.fetch(id: was.id), now.ownValues == change.left.ownValues else { return false }
            let back = Place(id: now.id, name: now.name, coordinate: now.coordinate, pinCount: now.pinCount, own: was.ownValues)
            try places.update(back)
            try creation.sharedPlaces.showEverywhere(back, in: repos)
            return true
        }
        return try put(change.before)
    }
}
