import Foundation
import PinCore
import PinStore

/// The use cases of trips (the journeys found in the pins and photos, and their names) and of
/// the shared objects the pins point at.
extension PinApp {
    /// Home, the trips and the days per country, found now from what is stored (a missing
    /// database is an error naming it).
    public func trips() throws -> TripTimeline {
        try findTrips(try openForReading())
    }

    /// Names the trip whose id (its first day) is `id`; nil gives it its own title again.
    /// Returns the trip as it was found.
    @discardableResult
    public func renameTrip(_ id: String, to name: String?) throws -> Trip {
        if let name, name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw InvalidRequest("a trip's name must not be empty")
        }
        return try writing { database in
            let timeline = try findTrips(database)
            guard let trip = timeline.trips.first(where: { $0.id == id }) else {
                throw AppFailure("no trip starts on \(TerminalText.escaped(id)) (see 'pins trips')")
            }
            try database.nameTrip(start: trip.start, end: trip.end, name: name)
            return trip
        }
    }

    /// The shared objects of one type (`City.self`) its pins point at, by name, with their pin
    /// counts.
    public func sharedPlaces<Place: SharedPlace>(_ type: Place.Type) throws -> [Place] {
        try openForReading().read { try $0.sharedPlaces(Place.self).fetchAll() }
    }

    /// The shared objects of the pin type `type` (`pins cities`); none for a point.
    public func sharedPlaces(of type: LocationTypeSelection) throws -> [any SharedPlace] {
        func all<Visit: SharedVisit>(_: Visit.Type) throws -> [any SharedPlace] { try sharedPlaces(Visit.Place.self) }
        return try type.visitType.map { try all($0) } ?? []
    }
}
