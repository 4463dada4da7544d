import Foundation
import PinCore
import PinData
import PinStore

/// A pin to make by hand, as the app's long press does: the position, and what the person
/// typed. What is not given is found (the country, town, region, a title, a city's identity).
public struct NewPin: Sendable {
    public var coordinate: Coordinate
    /// ISO 8601; without an offset, the wall clock at the pin's position on that date (what
    /// someone there meant). Nil: now.
    public var date: String?
    public var title: String?
    /// #RRGGBB (any case); nil: the settings' pin colour.
    public var color: String?
    public var note: String?
    public var tags: [String] = []
    public var type: LocationTypeSelection = .point
    /// The shared object's name (a type `namedByThePlace`: by default the town the pin is in).
    public var name: String?
    /// The visit's other fields by key (`VisitField.all`: a city's `address`, a mountain's
    /// `height` and the `achievedHeight` reached, which defaults to the height).
    public var fields: [String: VisitValue] = [:]

    public init(coordinate: Coordinate) { self.coordinate = coordinate }

    /// The rules of a new pin that need nothing stored: what each type may carry.
    func check() throws {
        if let color, Settings.normalizedColor(color) == nil { throw InvalidRequest("--color expects #RRGGBB, got '\(color)'") }
        if name?.isEmpty == true { throw InvalidRequest("--name must not be empty") }
        // A field of another type: "--height and --achieved-height are for --type mountain".
        for other in LocationTypeSelection.allCases where other != type {
            let own = other.visitFields.filter { $0 != .name && !type.visitFields.contains($0) }
            guard own.contains(where: { fields[$0.key] != nil }) else { continue }
            throw InvalidRequest("\(own.map(\.option).joined(separator: " and ")) \(own.count == 1 ? "is" : "are") for --type \(other.rawValue)")
        }
        if type.shared != nil, !type.namedByThePlace, name == nil { throw InvalidRequest("--type \(type.rawValue) needs --name") }
        if type == .point, name != nil { throw InvalidRequest("--name is for --type \(LocationTypeSelection.spoken(LocationTypeSelection.sharedTypes))") }
    }

    /// The visit as given: its name, then each field given, else the field it defaults to.
    var visit: VisitValues {
        VisitValues(type: type, values: type.visitFields.map { field in
            field == .name ? name.map(VisitValue.text) : fields[field.key] ?? field.defaultKey.flatMap { fields[$0] }
        })
    }
}

/// One change of a pin (`PinApp.changePin`, `PinApp.removePin`): the pin as stored before (its
/// offset nil when it had none of its own and showed its photo's) and as the change left it
/// (nil: deleted), and the id of the shared city or mountain it was on before (nil for a
/// point); for a delete, what the store held on it beyond its fields (`PinTies`); for an edit,
/// what it altered of the shared object it put the pin on, when not the one the pin left
/// (`SharedChange`: a mountain given the pin's height, a city made a gazetteer place's). Given
/// to `undoChange` to put the pin, and that object, back as they were.
public struct PinChange: Sendable {
    public let before: Location
    public let after: Location?
    public let sharedPlaceID: UUID?
    let ties: PinTies?
    let shared: SharedChange?

    init(before: Location, after: Location?, sharedPlaceID: UUID?, ties: PinTies? = nil, shared: SharedChange? = nil) {
        (self.before, self.after, self.sharedPlaceID, self.ties, self.shared) = (before, after, sharedPlaceID, ties, shared)
    }
}

/// The use cases that change pins: add, edit, delete.
extension PinApp {
    /// Makes a pin by hand: its country by the outlines, then the town and region inside it
    /// (the title, a city's place), in one transaction with the counts.
    public func addPin(_ new: NewPin) throws -> Location {
        var new = new
        new.name = new.name.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let coordinate = new.coordinate
        let (date, offset) = try new.date.map { try localDate($0, at: coordinate) } ?? (Date(), TimeZone.current.secondsFromGMT())
        try new.check()
        let creation = try creationService()
        try creation.places.prepare()
        let (country, match) = creation.resolve(at: coordinate)
        // A city is the gazetteer's place unless named otherwise; any other visit is as given.
        let type: LocationType = new.type.namedByThePlace
            ? .city(try cityVisit(named: new.name, at: coordinate, match: match, address: new.fields["address"]?.text))
            : LocationType(new.visit, at: coordinate)
        let place = PinPlace(match)
        let title = new.title ?? type.visitValues.name
            ?? (country == nil ? coordinate.description : creation.title(country: country, place: place))
        var draft = LocationDraft(title: title, coordinate: coordinate, type: type, date: date, color: new.color,
                                  note: new.note, tags: new.tags.isEmpty ? nil : new.tags)
        // The visit's own offset: the one written with the date, else the position's zone at that date.
        draft.utcOffsetSeconds = offset
        let plan = PinPlan(id: try creation.ids.next(), country: country, title: title, place: place)
        return try writing { db in try db.write { repos in try creation.create(draft, planned: plan, in: repos) } }
    }

    /// A city pin's visit: the gazetteer place at the pin (its name, centre and id) when no `name`
    /// is given or the name is the place's (any case, accents ignored); else a city named by hand
    /// at the pin, shared with others of that name nearby (`CityVisitData.stored`).
    func cityVisit(named name: String?, at coordinate: Coordinate, match: PlaceMatch, address: String?) throws -> CityVisitData {
        let address = address.flatMap { $0.isEmpty ? nil : $0 }
        if let place = match.place, name.map({ PinFilter.fold($0) == PinFilter.fold(place.name) }) ?? true {
            return CityVisitData(place: place, address: address)
        }
        guard let name else {
            throw AppFailure("no town or city is known at \(coordinate.description): give the city's name with --name")
        }
        return CityVisitData(cityName: name, cityCoordinate: coordinate, address: address)
    }

    /// A pin's date written in ISO 8601: the instant and its offset. A date written without an
    /// offset is the wall clock of the position's time zone on that date; when the zone outlines
    /// cannot be read, the machine's zone, with a warning.
    func localDate(_ text: String, at coordinate: Coordinate) throws -> (date: Date, offsetSeconds: Int) {
        guard let parsed = ISO8601.parse(text, defaultZone: .current) else {
            throw InvalidRequest("--date expects ISO 8601 such as 2024-05-01 or 2024-05-01T10:00:00+02:00 in the years 1 to 9999, got '\(text)'")
        }
        if let offset = parsed.offsetSeconds { return (parsed.date, offset) }
        let zone: TimeZone
        do {
            zone = try LazyTimeZones(onlyAtLatitude: coordinate.latitude).timeZone(at: coordinate)
        } catch {
            warnings(AppWarning("\(error): --date is read in this machine's zone \(TimeZone.current.identifier)", general: false))
            return (parsed.date, TimeZone.current.secondsFromGMT(for: parsed.date))
        }
        // A wall clock of 9999-12-31 west of Greenwich is the year 10000 in UTC: refused, as
        // pins could not write it back (issue 40 item 5).
        guard let local = ISO8601.parse(text, defaultZone: zone), ISO8601.canWrite(local.date, offsetSeconds: zone.secondsFromGMT(for: local.date)) else {
            throw InvalidRequest("--date '\(text)' is outside the years 1 to 9999 at this position, in UTC or in its zone")
        }
        return (local.date, zone.secondsFromGMT(for: local.date))
    }

    /// Changes a pin (`idText`: its id or a unique prefix) in one transaction: a moved pin's
    /// country is resolved again and the counts follow; a new type or name moves it between the
    /// shared cities and mountains. `date` as in `NewPin`, read where the pin is (or goes).
    public func editPin(_ idText: String, _ edit: LocationEdit, date: String? = nil) throws -> Location {
        let change = try changePin(idText, edit, date: date)
        return change.after ?? change.before  // an edit leaves its pin: `after` is set
    }

    /// `editPin`, returning the pin as it was stored before the change too (and the shared city
    /// or mountain it was on), read in the change's own transaction: what `undoChange` needs.
    public func changePin(_ idText: String, _ edit: LocationEdit, date: String? = nil) throws -> PinChange {
        var edit = try Self.checked(edit, date: date)
        guard databaseExists else {
            throw AppFailure("no pin with id \(idText): the database \(databasePath) does not exist")
        }
        return try writing { db in
            let id = try resolvePinID(idText, in: db)
            if let date {
                let at = try edit.coordinate ?? db.read { try $0.locations.fetch(id: id) }?.coordinate ?? Coordinate(latitude: 0, longitude: 0)
                let local = try localDate(date, at: at)
                edit.date = (local.date, local.offsetSeconds)
            }
            // The outlines are loaded only when the pin moves.
            let service = LocationService(creation: try edit.coordinate == nil ? lazyCreationService() : creationService())
            do {
                return try db.write { repos in
                    guard let change = try Self.change(id, edit, repos: repos, service: service) else { throw ServiceError.notFound(id) }
                    return change
                }
            } catch ServiceError.invalidEdit(let why) {
                // A city without a name on a point, a height for a city: how it was asked.
                throw InvalidRequest(why)
            }
        }
    }

    /// `edit` with its colour as stored (#RRGGBB), refused when it changes nothing.
    private static func checked(_ edit: LocationEdit, date: String?) throws -> LocationEdit {
        var edit = edit
        if let color = edit.color {
            guard let normalized = Settings.normalizedColor(color) else { throw InvalidRequest("--color expects #RRGGBB, got '\(color)'") }
            edit.color = normalized
        }
        guard !edit.isEmpty || date != nil else { throw InvalidRequest("nothing to change: give at least one option") }
        return edit
    }

    /// `changePin` of every pin of `ids` still stored (the others passed over), with the same
    /// edit, in one transaction and one opening of the database: a bulk action on a filtered
    /// list (pins serve) opened it for writing once per pin, 120-170 ms each at 100,000 pins
    /// (200 pins took 34 s). All or none are changed. The changes in the order of `ids`.
    public func changePins(_ ids: [UUID], _ edit: LocationEdit) throws -> [PinChange] {
        let edit = try Self.checked(edit, date: nil)
        guard databaseExists, !ids.isEmpty else { return [] }
        let service = LocationService(creation: try edit.coordinate == nil ? lazyCreationService() : creationService())
        return try writing { db in
            do {
                return try db.write { repos in
                    try ids.compactMap { id in try Self.change(id, edit, repos: repos, service: service) }
                }
            } catch ServiceError.invalidEdit(let why) {
                throw InvalidRequest(why)
            }
        }
    }

    /// `removePin` of every pin of `ids` still stored, in one transaction and one opening of
    /// the database (a bulk delete: see `changePins`). The deleted pins as they were stored,
    /// with their ties, for their undo, in the order of `ids`.
    public func removePins(_ ids: [UUID]) throws -> [PinChange] {
        guard databaseExists, !ids.isEmpty else { return [] }
        let service = LocationService(creation: try lazyCreationService())
        return try writing { db in
            try db.write { repos in
                try ids.compactMap { id in try Self.remove(id, db: db, repos: repos, service: service) }
            }
        }
    }

    /// One pin edited inside a transaction, with the pin as it was stored before (nil: no such
    /// pin) and what the edit altered of another shared object (`SharedChange`).
    private static func change(_ id: UUID, _ edit: LocationEdit, repos: Repositories, service: LocationService) throws -> PinChange? {
        guard var before = try repos.locations.fetch(id: id) else { return nil }
        // As stored: no offset of its own when it shows its photo's (an undo keeps it so).
        before.utcOffsetSeconds = try repos.locations.ownUTCOffset(id: id)
        let shared = try service.creation.sharedPlaceID(of: before, in: repos)
        // The shared objects as they were, read only when the edit may put the pin on another.
        let objects = edit.mayJoinShared ? try service.sharedObjects(in: repos) : [:]
        let after = try service.edit(id: id, edit, in: repos)
        return PinChange(before: before, after: after, sharedPlaceID: shared,
                         shared: try service.sharedChange(of: after, leaving: shared, before: objects, in: repos))
    }

    /// One pin deleted inside a transaction, as it was stored (nil: no such pin).
    private static func remove(_ id: UUID, db: PinDatabase, repos: Repositories, service: LocationService) throws -> PinChange? {
        guard var before = try repos.locations.fetch(id: id), let ties = try db.ties(ofPin: id) else { return nil }
        before.utcOffsetSeconds = try repos.locations.ownUTCOffset(id: id)
        let shared = try service.creation.sharedPlaceID(of: before, in: repos)
        try service.delete(id: id, in: repos)
        return PinChange(before: before, after: nil, sharedPlaceID: shared, ties: ties)
    }

    /// Deletes a pin (`idText`: its id or a unique prefix); its country and shared city or
    /// mountain counts go down with it. Returns its id. There is no undo of a delete in the
    /// store: a pin made by an import and deleted is remembered as deleted (later imports do
    /// not bring it back), and nothing keeps the deleted pin itself.
    public func deletePin(_ idText: String) throws -> UUID {
        guard databaseExists else {
            throw AppFailure("no pin with id \(idText): the database \(databasePath) does not exist")
        }
        return try writing { db in
            let id = try resolvePinID(idText, in: db)
            try LocationService(creation: try lazyCreationService()).delete(id: id, using: db) // deleting needs no outlines
            return id
        }
    }

    /// `deletePin` of pin `id`, returning it as it was stored (its own offset, the shared city or
    /// mountain it was on, its `PinTies`), read in the delete's own transaction: what `undoChange`
    /// needs to store it again as it was. nil when no pin has that id.
    public func removePin(_ id: UUID) throws -> PinChange? {
        guard databaseExists else { return nil }
        let service = LocationService(creation: try lazyCreationService())  // deleting needs no outlines
        return try writing { db in
            try db.write { repos in try Self.remove(id, db: db, repos: repos, service: service) }
        }
    }
}
