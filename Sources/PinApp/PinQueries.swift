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
    public func tripOfPins() throws -> TripOfPins {
        Self.tripOf(try storedTrips())
    }

    /// The trips of the database found now (`storedTrips`) and each pin's trip (`tripOf`), for a
    /// caller that keeps them between changes and hands them to `pageInput` (pins serve).
    /// The same trips as the last time (a change that is no input of a trip: `TripCache`) are
    /// given with the same pins' trips, not sorted again (100,000 ids after each edit in pins
    /// serve: 10 MB at once and a sort).
    public func tripsAndTheirPins() throws -> StoredTrips {
        let trips = try storedTrips()
        if let last = lastTrips.withLock({ $0 }), last.trips == trips { return last }
        let stored = StoredTrips(trips: trips, tripOf: Self.tripOf(trips))
        lastTrips.withLock { $0 = stored }
        return stored
    }

    /// The trips of the database (none without one), found now: they follow every import,
    /// edit and undo.
    func storedTrips() throws -> [Trip] {
        guard let db = try openForReadingIfExists() else { return [] }
        return try findTrips(db).trips
    }

    /// Each pin's trip id.
    public static func tripOf(_ trips: [Trip]) -> TripOfPins { TripOfPins(trips) }

    /// The trips of `database`: home, trips, days per country.
    func findTrips(_ database: PinDatabase) throws -> TripTimeline {
        let catalog = try catalog()
        let finder = TripFinder(home: try database.tripHome(), names: try database.tripNames(),
                                countryName: { catalog[$0]?.name ?? $0 })
        var timeline = try tripCache.timeline(finder) { latest, known in try database.tripPoints(in: nil, latest: latest, unless: known) }
        // The photos left out are named by their file (at most the first few are shown).
        for i in timeline.outOfRange.indices.prefix(100) where timeline.outOfRange[i].pinID == nil {
            timeline.outOfRange[i].photoPath = try database.photoPath(of: timeline.outOfRange[i])
        }
        return timeline
    }

    /// One pin with everything the person may want to see of it. `tripOf`: each pin's trip, found
    /// from the whole history by the caller (`tripOfPins`, kept by `pins serve` between changes);
    /// nil: the pin's trip is found now from the months around it (`tripOfPin`).
    public func pinDetail(_ idText: String, tripOf: TripOfPins? = nil) throws -> PinDetail {
        let db = try openForReading()
        let id = try resolvePinID(idText, in: db)
        guard let detail = try pinDetail(id, tripOf: tripOf, in: db) else { throw AppFailure("no pin with id \(idText)") }
        return detail
    }

    /// `pinDetail` of the pin with the id `id`; nil when there is no database or no such pin
    /// (pins serve's shown pin: one opening of the database, not one to ask whether the pin
    /// is there and another to read it).
    public func pinDetail(id: UUID, tripOf: TripOfPins?) throws -> PinDetail? {
        guard let db = try openForReadingIfExists() else { return nil }
        return try pinDetail(id, tripOf: tripOf, in: db)
    }

    private func pinDetail(_ id: UUID, tripOf: TripOfPins?, in db: PinDatabase) throws -> PinDetail? {
        guard let pin = try db.read({ try $0.locations.fetch(id: id) }) else { return nil }
        let photos = try db.photos(ofPin: id)
        let countryName = try pin.countryID.map { try catalog()[$0]?.name ?? $0 }
        // An import-places run's files, as `pins runs` lists them (its pins are not made by hand).
        let importedFrom = try pin.runID.flatMap { try db.placesRuns()[$0] }
        return PinDetail(pin: pin, photos: photos, countryName: countryName, trip: try tripOf.map { pin.wanted ? nil : $0[pin.id] } ?? tripOfPin(pin, in: db), importedFrom: importedFrom)
    }

    /// The id of the trip `pin` is on (nil: none), found from the points of the months around
    /// it, not from the whole history: showing one pin of 100,000 cost the trips of all of them
    /// (seconds). The window reaches `tripWindowDays` either side of the pin and of its trip,
    /// widened until the trip ends inside it with that margin: the home of every month of the
    /// trip is found from the six months either side of it (TripRule.homeWindowMonths), and a
    /// trip's first and last days lie more than TripRule.maxGapDays from the window's edges, so
    /// its days are all those `pins trips` finds. The home is the same as the whole history's
    /// when it was set (`pins settings --home-lat`), or stayed in one place over the window
    /// (the place with the most days there); a home found from the data that moved near the
    /// pin's time may have another centre here than `pins trips` gives it (its days from the
    /// window, not from every year), so a day at the edge of the 50 km may count otherwise.
    func tripOfPin(_ pin: Location, in db: PinDatabase) throws -> String? {
        guard !pin.wanted else { return nil }
        let catalog = try catalog()
        let finder = TripFinder(home: try db.tripHome(), names: [], countryName: { catalog[$0]?.name ?? $0 })
        let day = 86_400.0
        var window = pin.date.addingTimeInterval(-Self.tripWindowDays * day)...pin.date.addingTimeInterval(Self.tripWindowDays * day)
        while true {
            let timeline = try tripCache.timeline(finder) { latest, known in try db.tripPoints(in: window, latest: latest, unless: known) }
            let trip = timeline.trips.first { $0.pinIDs.contains(pin.id) }
            guard let trip else { return nil }
            // The trip's days as dates (local days, a day either way for the offset).
            let start = Date(timeIntervalSince1970: Double(trip.start.number - 1) * day)
            let end = Date(timeIntervalSince1970: Double(trip.end.number + 2) * day)
            let needed = start.addingTimeInterval(-Self.tripWindowDays * day)...end.addingTimeInterval(Self.tripWindowDays * day)
            if window.lowerBound <= needed.lowerBound, window.upperBound >= needed.upperBound { return trip.id }
            window = min(window.lowerBound, needed.lowerBound)...max(window.upperBound, needed.upperBound)
        }
    }

    /// Seven months and a week: a month's home looks six months either side (TripRule).
    static let tripWindowDays = 222.0
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

/// The trips of a database and each pin's trip id, found together (`PinApp.tripsAndTheirPins`).
public struct StoredTrips: Sendable {
    public let trips: [Trip]
    public let tripOf: TripOfPins
}

/// Each pin's trip id (pins on no trip have none), looked up by the pin's id (`IDIndex`: 20
/// bytes a pin; a dictionary of ids to trip ids took 84, 8.4 MB at 100,000 pins, kept by pins
/// serve).
public struct TripOfPins: Sendable {
    private let trips: IDIndex<Int32>
    private let tripIDs: [String]

    /// A pin on two trips (none is, by the finder's rule) takes the later one's, as the
    /// dictionary's last write did.
    public init(_ found: [Trip]) {
        var ids: [UUID] = [], indices: [Int32] = []
        let count = found.reduce(0) { $0 + $1.pinIDs.count }
        ids.reserveCapacity(count)
        indices.reserveCapacity(count)
        for (index, trip) in found.enumerated() {
            ids += trip.pinIDs
            indices += repeatElement(Int32(index), count: trip.pinIDs.count)
        }
        trips = IDIndex(ids: ids, values: indices)
        tripIDs = found.map(\.id)
    }

    /// The trip id of the pin `id`, nil when it is on none.
    public subscript(_ id: UUID) -> String? { trips[id].map { tripIDs[Int($0)] } }

    /// How many pins are on a trip.
    public var count: Int { trips.count }

    /// The trip id of each pin on a trip, in the order of the pins' ids.
    public var values: [String] { trips.values.map { tripIDs[Int($0)] } }
}
