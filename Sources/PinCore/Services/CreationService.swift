import Foundation

public enum ServiceError: ExitStatusError, Equatable {
    /// 64 for an edit that cannot apply to the pin as asked (a usage mistake), else 1.
    public var exitStatus: Int32 {
        if case .invalidEdit = self { return ExitCode.usage }
        return ExitCode.failure
    }

    case invalidCoordinate(Coordinate)
    case invalidColor(String)
    case notFound(UUID)
    case emptyName(String)
    case invalidEdit(String)

    public var description: String {
        switch self {
        case let .invalidCoordinate(c): return "invalid coordinate \(c.latitude),\(c.longitude): latitude must be within ±90 and longitude within ±180"
        case let .invalidColor(text): return "invalid color '\(text)': expected #RRGGBB"
        case let .notFound(id): return "no pin with id \(id.lowercasedText)"
        case let .emptyName(what): return "\(what) must not be empty"
        case let .invalidEdit(why): return why
        }
    }
}

/// What a new pin is made of; CreationService adds the country and the shared objects.
public struct LocationDraft: Sendable {
    public var title: String
    public var coordinate: Coordinate
    public var type: LocationType
    public var date: Date
    public var color: String?
    public var visitCount: Int
    public var note: String?
    public var tags: [String]?
    public var photoIDs: [String]
    /// The import run that makes this pin (nil for a pin made by hand).
    public var runID: Int64?
    /// The visit's offset from UTC, when known.
    public var utcOffsetSeconds: Int? = nil
    /// A place the person wants to go, not a visit (`Location.wanted`).
    public var wanted = false

    public init(title: String, coordinate: Coordinate, type: LocationType = .point, date: Date,
                color: String? = nil, visitCount: Int = 1, note: String? = nil, tags: [String]? = nil,
                photoIDs: [String] = [], runID: Int64? = nil) {
        self.title = title
        self.coordinate = coordinate
        self.type = type
        self.date = date
        self.color = color
        self.visitCount = visitCount
        self.note = note
        self.tags = tags
        self.photoIDs = photoIDs
        self.runID = runID
    }
}

/// A new pin's identity, country, place and title, resolved once before it is stored: the import
/// reports them (a dry run shows them without storing anything) and creates the pin from them.
public struct PinPlan: Sendable, Equatable {
    public let id: UUID
    /// ISO 3166-1 alpha-2 code, nil at sea.
    public let country: String?
    public let title: String
    /// The place and region the resolver gave.
    public let place: PinPlace

    public init(id: UUID, country: String?, title: String, place: PinPlace = .none) {
        self.id = id
        self.country = country
        self.title = title
        self.place = place
    }
}

/// Creates pins the one way the app does, whether made by hand or by the photo import:
/// resolve the country, count the pin in it, find or create the shared City/Mountain and count
/// the pin there, save the Location; all in one transaction.
public struct CreationService: Sendable {
    public let countries: CountryService
    /// The shared objects' counts (a city's, a mountain's).
    public let sharedPlaces: SharedPlaceService
    public let locator: any CountryLocating
    /// The gazetteer: the place and region inside the country.
    public let places: any PlaceLocating
    /// Where new pin, city and mountain ids come from.
    public let ids: IDSource

    public init(locator: any CountryLocating, countries: CountryService, places: any PlaceLocating = NoPlaces(),
                ids: IDSource) {
        self.locator = locator
        self.countries = countries
        self.places = places
        self.ids = ids
        self.sharedPlaces = SharedPlaceService(ids: ids)
    }

    /// Country names, for titles.
    public var catalog: CountryCatalog { countries.catalog }

    /// Loads the country outlines now (the importer calls it while files are read, and only when
    /// some photo may need a country), so a damaged data file is reported before any lookup.
    public func prepareCountries() throws {
        try locator.prepare()
        try places.prepare()
    }

    /// The country (by its outline) and then the place and region inside it.
    public func resolve(at coordinate: Coordinate) -> (country: String?, match: PlaceMatch) {
        guard let country = locator.country(at: coordinate) else { return (nil, .none) }
        return (country.code, places.match(at: coordinate, countryCode: country.code, inOutline: country.inOutline))
    }

    /// The title pins gives a pin: "Kyoto, Japan" (see `PinPlace.title`).
    public func title(country: String?, place: PinPlace) -> String {
        place.title(countryName: country.map { catalog[$0]?.name ?? $0 })
    }

    /// The pin a photo taken at `takenAt` (local offset `utcOffsetSeconds`) at `coordinate` makes:
    /// its country, place and region, and its title, "Kyoto, Japan" (the date is the pin's
    /// `date`, not in the title).
    /// Its id comes from `ids` now: the report of a real run names it before it is stored.
    public func planPhotoPin(at coordinate: Coordinate, takenAt: Date, utcOffsetSeconds: Int) throws -> PinPlan {
        let id = try ids.next()
        let (country, match) = resolve(at: coordinate)
        let place = PinPlace(match)
        return PinPlan(id: id, country: country, title: title(country: country, place: place), place: place)
    }

    /// Creates a planned pin inside a transaction the caller holds, with the plan's id, title
    /// and country (not resolved again).
    @discardableResult
    public func create(_ draft: LocationDraft, planned plan: PinPlan, in repos: Repositories) throws -> Location {
        var draft = draft
        draft.title = plan.title
        return try insert(draft, id: plan.id, resolved: (plan.country, plan.place), in: repos)
    }

    /// Creates a pin in its own transaction.
    @discardableResult
    public func create(_ draft: LocationDraft, using database: TransactionRunner) throws -> Location {
        try database.write { repos in try create(draft, in: repos) }
    }

    /// Creates a pin inside a transaction the caller holds (the importer batches many), with
    /// `id` (the importer picks ids before saving) or a new one from `ids`.
    @discardableResult
    public func create(_ draft: LocationDraft, in repos: Repositories, id: UUID? = nil) throws -> Location {
        try insert(draft, id: try id ?? ids.next(), resolved: nil, in: repos)
    }

    private func insert(_ draft: LocationDraft, id: UUID, resolved: (country: String?, place: PinPlace?)?, in repos: Repositories) throws -> Location {
        let settings = try repos.settings.load()
        var location = try validated(draft, id: id, defaultColor: settings.defaultPinColor, resolved: resolved)
        location = try attach(location, in: repos)
        try repos.locations.insert(location)
        return location
    }

    /// The location a draft makes; its country and place are `resolved` when the caller resolved
    /// them already, else looked up here (the outlines and gazetteer are loaded first when they
    /// are not yet).
    func validated(_ draft: LocationDraft, id: UUID, defaultColor: String,
                   resolved: (country: String?, place: PinPlace?)? = nil) throws -> Location {
        guard draft.coordinate.isValid else { throw ServiceError.invalidCoordinate(draft.coordinate) }
        var color = defaultColor
        if let requested = draft.color {
            guard let normalized = Settings.normalizedColor(requested) else { throw ServiceError.invalidColor(requested) }
            color = normalized
        }
        if let visit = draft.type.sharedVisit, visit.sharedName.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ServiceError.emptyName("\(draft.type.selection.rawValue) name")
        }
        let countryID: String?
        let place: PinPlace?
        if let resolved {
            (countryID, place) = resolved
        } else {
            try locator.prepare()
            try places.prepare()
            let found = resolve(at: draft.coordinate)
            (countryID, place) = (found.country, PinPlace(found.match))
        }
        var location = Location(id: id, title: draft.title, coordinate: draft.coordinate,
                        countryID: countryID, type: draft.type, date: draft.date,
                        color: color, visitCount: max(1, draft.visitCount), note: draft.note, tags: draft.tags,
                        photoIDs: draft.photoIDs, runID: draft.runID)
        location.utcOffsetSeconds = draft.utcOffsetSeconds
        location.wanted = draft.wanted
        location.placeFields = place ?? .none
        location.placesResolved = place != nil && places.decidesPlaces
        // A count above one was given by a person (an import makes 1).
        location.visitsByHand = draft.visitCount > 1
        return location
    }

    /// Counts a location in its country and shared object; the location as it points at that
    /// object (a city's name and centre, a mountain's name, coordinate and height). A shared
    /// object made here is given `sharedID` when none has it (see `SharedPlaceService.plusPin`).
    func attach(_ location: Location, in repos: Repositories, sharedID: UUID? = nil, giving: Bool = true) throws -> Location {
        var location = location
        if let code = location.countryID { try countries.plusPin(for: code, in: repos) }
        location.type = try sharedPlaces.plusPin(location.type, in: repos, newID: sharedID, giving: giving)
        return location
    }

    /// The id of the shared city or mountain `location` is counted on (nil for a point, or
    /// when none is stored).
    public func sharedPlaceID(of location: Location, in repos: Repositories) throws -> UUID? {
        try sharedPlaces.storedID(of: location.type, in: repos)
    }

    /// Undoes `attach`: the pin no longer counts in its country and shared object.
    func detach(_ location: Location, in repos: Repositories) throws {
        if let code = location.countryID { try countries.minusPin(for: code, in: repos) }
        try sharedPlaces.minusPin(location.type, in: repos)
    }
}

/// Edits and deletes, keeping every count equal to what the locations table says.
public struct LocationService: Sendable {
    public let creation: CreationService

    public init(creation: CreationService) { self.creation = creation }

    /// Saves an edited pin: a new coordinate gets its country again; a type change moves the
    /// pin from the old shared object to the new one.
    @discardableResult
    public func save(_ edited: Location, using database: TransactionRunner) throws -> Location {
        try database.write { repos in
            guard let old = try repos.locations.fetch(id: edited.id) else { throw ServiceError.notFound(edited.id) }
            return try save(edited, replacing: old, in: repos)
        }
    }

    /// The one way a stored pin changes: validated as a new one, uncounted as it was, counted as
    /// it is now, written; inside the caller's transaction.
    @discardableResult
    public func save(_ edited: Location, replacing old: Location, in repos: Repositories) throws -> Location {
        var draft = LocationDraft(title: edited.title, coordinate: edited.coordinate, type: edited.type,
                                  date: edited.date, color: edited.color, visitCount: edited.visitCount,
                                  note: edited.note, tags: edited.tags, photoIDs: edited.photoIDs,
                                  runID: edited.runID)
        draft.utcOffsetSeconds = edited.utcOffsetSeconds
        draft.wanted = edited.wanted
        // A pin that did not move keeps its country, and the outlines need not be loaded.
        let moved = edited.coordinate != old.coordinate
        var location = try creation.validated(draft, id: edited.id, defaultColor: edited.color,
                                              resolved: moved ? nil : (old.countryID, old.placesResolved ? old.placeFields : nil))
        location.editedAt = edited.editedAt
        location.visitsByHand = edited.visitsByHand
        // Counted in the new place first (its country row must exist before the pin points at
        // it), uncounted from the old one last (a country row that reaches zero is deleted, and
        // no pin may still point at it then).
        location = try creation.attach(location, in: repos)
        try repos.locations.update(location)
        try creation.detach(old, in: repos)
        return location
    }

    /// Puts back a pin as it was stored (`before`, as a run recorded it) in place of `current`,
    /// or stores it again under its id when it was deleted (`current` nil): every field as it
    /// was, not validated again (it was valid when stored), counted where it was and uncounted
    /// where it is. The city or mountain it was on, when it went meanwhile (its last pin left),
    /// is made again under `sharedPlaceID`, the id it had; one made again since under another
    /// id (the same name and place) is joined as it is. A stored one is joined as it is now: the
    /// pin gives it nothing (a mountain's height given since stands, and the pin shows it).
    @discardableResult
    public func restore(_ before: Location, replacing current: Location?, sharedPlaceID: UUID? = nil, in repos: Repositories) throws -> Location {
        let location = try creation.attach(before, in: repos, sharedID: sharedPlaceID, giving: false)
        guard let current else {
            try repos.locations.insert(location)
            return location
        }
        try repos.locations.update(location)
        try creation.detach(current, in: repos)
        return location
    }

    /// Whether `pin` is as a change left it (`after`: a run's, a browser's move) in what a person
    /// or a run sets; the counts the photo links keep (visits, photos) and the places a backfill
    /// fills may have moved. An edit (`LocationService.edit`) sets `editedAt`: any edit since shows.
    public static func isAsLeft(_ pin: Location, _ after: Location) -> Bool {
        // Dates within a millisecond: `after` is the run's value in memory, `pin` read back from
        // the file (seconds since 1970 there, since 2001 in memory: the last bit may differ).
        func same(_ a: Date?, _ b: Date?) -> Bool {
            guard let a, let b else { return a == nil && b == nil }
            return abs(a.timeIntervalSince(b)) < 0.001
        }
        return pin.title == after.title && pin.coordinate == after.coordinate && pin.type == after.type && same(pin.date, after.date)
            && pin.color == after.color && pin.note == after.note && pin.tags == after.tags && pin.photoIDs == after.photoIDs
            && pin.utcOffsetSeconds == after.utcOffsetSeconds && pin.wanted == after.wanted && same(pin.editedAt, after.editedAt)
    }

    /// Deletes a pin and uncounts it; a shared object goes when its count reaches zero.
    public func delete(id: UUID, using database: TransactionRunner) throws {
        try database.write { repos in
            try delete(id: id, in: repos)
        }
    }

    /// Deletes a pin inside a transaction the caller holds (undoing a run removes many at once).
    public func delete(id: UUID, in repos: Repositories) throws {
        guard let old = try repos.locations.fetch(id: id) else { throw ServiceError.notFound(id) }
        // The pin goes first: its country row may go with the last pin in it.
        try repos.locations.delete(id: id)
        try creation.detach(old, in: repos)
    }
}
