import Foundation

/// The changes `pins edit` asks of one pin; nil / empty means "leave as it is".
public struct LocationEdit: Sendable {
    public var title: String?
    /// An empty note removes it.
    public var note: String?
    public var addTags: [String] = []
    public var removeTags: [String] = []
    public var color: String?
    /// The new date, and the offset it was written with (nil: keep the pin's offset).
    public var date: (date: Date, offsetSeconds: Int?)?
    public var coordinate: Coordinate?
    public var type: LocationTypeSelection?
    /// The shared object's name (with `type`, or alone to rename a city/mountain pin's place).
    public var name: String?
    /// The visit's other fields by key (`VisitField.all`, as a new pin's): a city's `address`
    /// (empty removes it); a mountain's `height` (the shared Mountain's, for every pin on it)
    /// and the `achievedHeight` reached.
    public var fields: [String: VisitValue] = [:]
    public var visitCount: Int?
    /// true: a place the person wants to go (`Location.wanted`); false: one they have been.
    public var wanted: Bool?
    /// What the gazetteer says at the pin's position after the edit, given by the caller when
    /// the edit needs it (`needsPlace`): a city pin without `--name` is that place's, and a city
    /// pin that was the town it stood in follows it when it moves.
    var placeThere: PlaceMatch?

    public init() {}

    public var isEmpty: Bool {
        title == nil && note == nil && addTags.isEmpty && removeTags.isEmpty && color == nil && date == nil
            && coordinate == nil && type == nil && name == nil && fields.isEmpty && visitCount == nil && wanted == nil
    }

    /// Whether `applied(to:)` needs `placeThere`: the pin moves, or becomes a city without a name.
    func needsPlace(_ old: Location) -> Bool {
        coordinate != nil || (type == .city && old.type.selection != .city && name == nil)
    }

    /// The pin as this edit makes it (not yet validated for coordinate and colour: the service does).
    public func applied(to old: Location) throws -> Location {
        var pin = old
        if let title {
            guard !title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw ServiceError.emptyName("title") }
            pin.title = title
        }
        if let note { pin.note = note.isEmpty ? nil : note }
        if !addTags.isEmpty || !removeTags.isEmpty {
            var tags = pin.tags ?? []
            for tag in addTags where !tag.isEmpty && !tags.contains(tag) { tags.append(tag) }
            tags.removeAll { removeTags.contains($0) }
            pin.tags = tags.isEmpty ? nil : tags
        }
        if let color { pin.color = color }
        if let wanted { pin.wanted = wanted }
        if let date {
            pin.date = date.date
            if let offset = date.offsetSeconds { pin.utcOffsetSeconds = offset }
        }
        if let visitCount {
            guard visitCount >= 1 else { throw ServiceError.invalidEdit("the visit count must be at least 1") }
            pin.visitCount = visitCount
            pin.visitsByHand = true
        }
        if let coordinate {
            // A city or mountain recorded where the pin was moves with it; one placed elsewhere stays.
            switch pin.type {
            case .point: break
            case var .city(visit):
                if visit.placeID != nil, visit.placeID == old.placeID {
                    // The town it stood in: the town it stands in now (kept when there is none).
                    if let place = placeThere?.place { visit = CityVisitData(place: place, address: visit.address) }
                } else if visit.cityCoordinate == old.coordinate {
                    visit.cityCoordinate = coordinate
                }
                pin.type = .city(visit)
            default:
                pin.type = Self.moved(pin.type, from: old.coordinate, to: coordinate)
            }
            pin.coordinate = coordinate
        }
        pin.type = try changedType(pin.type, at: pin.coordinate)
        return pin
    }

    /// The shared object of a visit recorded where the pin was (`from`) moves with it.
    private static func moved(_ type: LocationType, from old: Coordinate, to new: Coordinate) -> LocationType {
        func moved<Visit: SharedVisit>(_ visit: Visit) -> LocationType {
            var visit = visit
            if visit.sharedCoordinate == old { visit.sharedCoordinate = new }
            return visit.locationType
        }
        return type.sharedVisit.map { moved($0) } ?? type
    }

    private func changedType(_ current: LocationType, at coordinate: Coordinate) throws -> LocationType {
        let target = type ?? current.selection
        if target == .point {
            if name != nil || !fields.isEmpty {
                throw ServiceError.invalidEdit("a point has no name, address or height: use \(LocationTypeSelection.sharedTypes.map { "--type \($0.rawValue)" }.joined(separator: " or "))")
            }
            return .point
        }
        // A field of another type, by the column of the flat files that carries it ("a city
        // has no height"), else its key.
        if let other = VisitField.all.first(where: { field in fields[field.key] != nil && !target.visitFields.contains { $0.key == field.key } }) {
            throw ServiceError.invalidEdit("a \(target.rawValue) has no \(other.flatKey ?? other.key)")
        }
        return target == .city ? try changedCity(current, at: coordinate) : try changedVisit(target, current, at: coordinate)
    }

    /// A city pin's visit: the gazetteer's town there unless named otherwise by hand.
    private func changedCity(_ current: LocationType, at coordinate: Coordinate) throws -> LocationType {
        let address = fields["address"]?.text
        if case let .city(visit) = current {
            var changed = visit
            if let name, PinFilter.fold(name) != PinFilter.fold(visit.cityName) {
                // Named by hand now: no longer the gazetteer's town (unless the town there has that name).
                if let place = placeThere?.place, PinFilter.fold(place.name) == PinFilter.fold(name) {
                    changed = CityVisitData(place: place, address: visit.address)
                } else {
                    changed.cityName = name
                    changed.placeID = nil
                }
            }
            if let address { changed.address = address.isEmpty ? nil : address }
            return .city(changed)
        }
        let given = address.flatMap { $0.isEmpty ? nil : $0 }
        if let place = placeThere?.place, name.map({ PinFilter.fold($0) == PinFilter.fold(place.name) }) ?? true {
            return .city(CityVisitData(place: place, address: given))
        }
        guard let name else { throw ServiceError.invalidEdit("no town or city is known here: --type city needs --name") }
        return .city(CityVisitData(cityName: name, cityCoordinate: coordinate, address: given))
    }

    /// The visit of a type that has no rule of its own (a mountain): the one it has with the
    /// fields given changed (its shared object where it was); or, made that type now, a new one
    /// at the pin, named by `name`, each field as given or as the field it defaults to.
    private func changedVisit(_ target: LocationTypeSelection, _ current: LocationType, at coordinate: Coordinate) throws -> LocationType {
        if current.selection == target, let visit = current.sharedVisit {
            var values = current.visitValues
            for (i, field) in target.visitFields.enumerated() {
                if let value = field == .name ? name.map(VisitValue.text) : fields[field.key] { values.values[i] = value }
            }
            return LocationType(values, at: visit.sharedCoordinate)
        }
        guard let name else { throw ServiceError.invalidEdit("--type \(target.rawValue) needs --name") }
        return LocationType(VisitValues(type: target, values: target.visitFields.map { field in
            field == .name ? .text(name) : fields[field.key] ?? field.defaultKey.flatMap { fields[$0] }
        }), at: coordinate)
    }
}

extension LocationService {
    /// Applies `edit` to the pin `id` in one transaction: its country is resolved again when it
    /// moved, its counts move with it, and it is marked as edited by the user at `now`.
    @discardableResult
    public func edit(id: UUID, _ edit: LocationEdit, now: Date = Date(), using database: TransactionRunner) throws -> Location {
        try database.write { repos in try self.edit(id: id, edit, now: now, in: repos) }
    }

    /// `edit(id:_:now:using:)` inside a transaction the caller holds.
    @discardableResult
    public func edit(id: UUID, _ edit: LocationEdit, now: Date = Date(), in repos: Repositories) throws -> Location {
        guard let old = try repos.locations.fetch(id: id) else { throw ServiceError.notFound(id) }
        var edit = edit
        var there: (country: String?, match: PlaceMatch)?
        if edit.needsPlace(old) {
            try creation.locator.prepare()
            try creation.places.prepare()
            there = creation.resolve(at: edit.coordinate ?? old.coordinate)
            if edit.placeThere == nil { edit.placeThere = there?.match }
        }
        var pin = try edit.applied(to: old)
        if edit.title == nil, let there, let title = titleAfterMove(from: old, to: pin, there: there) { pin.title = title }
        pin.editedAt = now
        return try save(pin, replacing: old, in: repos)
    }
}

extension LocationService {
    /// The title of a moved pin whose title is the one pins made where it was: the one pins
    /// makes where it is now ("Paris, France" dragged to Lyon is "Lyon, France"; a City pin
    /// titled by its town takes the new town's name), as an import's moved pin does. Nil (the
    /// title stays) for a title the person wrote, a pin that did not move, and a Mountain,
    /// which keeps its mountain.
    func titleAfterMove(from old: Location, to new: Location, there: (country: String?, match: PlaceMatch)) -> String? {
        guard new.coordinate != old.coordinate else { return nil }
        switch (old.type, new.type) {
        case (.point, .point):
            let made = [creation.title(country: old.countryID, place: old.placeFields), old.coordinate.description]
            guard old.placesResolved, made.contains(old.title) else { return nil }
            return creation.title(country: there.country, place: PinPlace(there.match))
        case let (.city(was), .city(now)):
            return old.title == was.cityName && now.cityName != was.cityName ? now.cityName : nil
        default:
            return nil
        }
    }
}
