import Foundation
import PinCore
import PinStore

/// The use cases that read pins: list (search, filter, sort), show, the trips they belong to.
extension PinApp {
    /// The pins that pass `filter` (the app's Pins tab: search, countries, types, dates, near,
    /// trip, sort, limit). A missing database is an error naming it, or no pins when
    /// `missingIsEmpty` (the map page of nothing is an empty map).
    public func pins(matching filter: PinFilter, missingIsEmpty: Bool = false) throws -> [Location] {
        guard let db = missingIsEmpty ? try openForReadingIfExists() : try openForReading() else { return [] }
        let countryFilter = filter.countries.count == 1 ? filter.countries.first : nil
        let pins = try db.read { try $0.locations.fetchAll(countryID: countryFilter) }
        var filter = filter
        if let trip = filter.trip {
            let timeline = try findTrips(db)
            guard let found = timeline.trips.first(where: { $0.id == trip }) else {
                throw AppFailure("no trip starts on \(TerminalText.escaped(trip)) (see 'pins trips')")
            }
            filter.ids = Set(found.pinIDs)
        }
        if filter.source != nil { filter.placesRuns = Set(try db.placesRuns().keys) }
        let catalog = filter.continents.isEmpty ? nil : try catalog()
        return filter.apply(to: pins) { catalog?[$0]?.continent }
    }

    /// Each pin's trip id, for the pin JSON's `trip` (pins on no trip are absent; no database,
    /// no trips).
    public func tripOfPins() throws -> [UUID: String] {
        Self.tripOf(try storedTrips())
    }

    /// The trips of the database (none without one), found now: they follow every import,
    /// edit and undo.
    public func storedTrips() throws -> [Trip] {
        guard let db = try openForReadingIfExists() else { return [] }
        return try findTrips(db).trips
    }

    /// Each pin's trip id.
    public static func tripOf(_ trips: [Trip]) -> [UUID: String] {
        var tripOf: [UUID: String] = [:]
        for trip in trips {
            for id in trip.pinIDs { tripOf[id] = trip.id }
        }
        return tripOf
    }

    /// The trips of `database`: home, trips, days per country.
    func findTrips(_ database: PinDatabase) throws -> TripTimeline {
        let catalog = try catalog()
        let finder = TripFinder(home: try database.tripHome(), names: try database.tripNames(),
                                countryName: { catalog[$0]?.name ?? $0 })
        var timeline = finder.find(try database.tripPoints())
        // The photos left out are named by their file (at most the first few are shown).
        for i in timeline.outOfRange.indices.prefix(100) where timeline.outOfRange[i].pinID == nil {
            timeline.outOfRange[i].photoPath = try database.photoPath(of: timeline.outOfRange[i])
        }
        return timeline
    }

    /// One pin with everything the person may want to see of it.
    public func pinDetail(_ idText: String) throws -> PinDetail {
        let db = try openForReading()
        let id = try resolvePinID(idText, in: db)
        guard let pin = try db.read({ try $0.locations.fetch(id: id) }) else { throw AppFailure("no pin with id \(idText)") }
        let photos = try db.photos(ofPin: id)
        let countryName = try pin.countryID.map { try catalog()[$0]?.name ?? $0 }
        // An import-places run's files, as `pins runs` lists them (its pins are not made by hand).
        let importedFrom = try pin.runID.flatMap { try db.placesRuns()[$0] }
        return PinDetail(pin: pin, photos: photos, countryName: countryName, trip: try tripOfPins()[pin.id], importedFrom: importedFrom)
    }
}

/// `pinDetail`'s answer: the pin, the photos it came from, its country's name and its trip.
public struct PinDetail: Sendable {
    public let pin: Location
    /// Its photos as the database holds them (PinStore's record, a plain value).
    public let photos: [PinPhotoRecord]
    /// The catalog's name of the pin's country (its code when the catalog has none).
    public let countryName: String?
    /// The id of the trip the pin belongs to.
    public let trip: String?
    /// For a pin `import-places` made: the files its run read ("/abs/Saved Places.json").
    public var importedFrom: String? = nil
}
