import Foundation
import PinCore
import PinStore

/// What the browser asks of a place before a pin exists there (the long press): the country,
/// the town and region, and the title `addPin` would give a point there.
public struct PinProposal: Sendable {
    public var country: String?
    public var countryName: String?
    public var place: String?
    public var region: String?
    public var title: String
}

/// Use cases `pins serve` needs beyond the CLI's: a proposal at a place, a deleted pin brought
/// back (the browser's undo), and recolouring the pins that have the old pin colour.
extension PinApp {
    /// The country, town, region and title at `coordinate`, resolved as `addPin` would.
    public func proposal(at coordinate: Coordinate) throws -> PinProposal {
        let creation = try creationService()
        try creation.places.prepare()
        let (country, match) = creation.resolve(at: coordinate)
        let place = PinPlace(match)
        let title = country == nil ? coordinate.description : creation.title(country: country, place: place)
        let name = try country.map { try catalog()[$0]?.name ?? $0 }
        return PinProposal(country: country, countryName: name, place: place.place, region: place.region, title: title)
    }

    /// The pin as it was before a delete, stored again under its own id with its counts (the
    /// shared city or mountain, the country) in one transaction. Its photos' link is not
    /// restored: the import remembers them as deleted, as after any delete.
    public func restorePin(_ pin: Location) throws -> Location {
        let creation = try creationService()
        try creation.places.prepare()
        let (country, match) = creation.resolve(at: pin.coordinate)
        var draft = LocationDraft(title: pin.title, coordinate: pin.coordinate, type: pin.type, date: pin.date, color: pin.color,
                                  visitCount: pin.visitCount, note: pin.note, tags: pin.tags)
        draft.utcOffsetSeconds = pin.utcOffsetSeconds
        let plan = PinPlan(id: pin.id, country: country, title: pin.title, place: PinPlace(match))
        return try writing { db in
            if try db.read({ try $0.locations.fetch(id: pin.id) }) != nil { throw InvalidRequest("the pin \(pin.id.lowercasedText) exists") }
            return try db.write { repos in try creation.create(draft, planned: plan, in: repos) }
        }
    }

    /// Gives the pins whose colour is `from` (any case) the colour `to`: the settings' new pin
    /// colour given to the pins that had the old one, as a person asks explicitly. Returns how
    /// many changed; each is an edit (its edited mark set), all in one transaction.
    public func recolorPins(from: String, to: String) throws -> Int {
        guard let from = Settings.normalizedColor(from), let to = Settings.normalizedColor(to) else {
            throw InvalidRequest("colours are #RRGGBB")
        }
        guard databaseExists, from.lowercased() != to.lowercased() else { return 0 }
        return try writing { db in
            let service = LocationService(creation: try lazyCreationService())
            let pins = try db.read { try $0.locations.fetchAll(countryID: nil) }
                .filter { Settings.normalizedColor($0.color)?.lowercased() == from.lowercased() }
            var edit = LocationEdit()
            edit.color = to
            for pin in pins { _ = try service.edit(id: pin.id, edit, using: db) }
            return pins.count
        }
    }

    /// One pin as stored (nil when no pin has that id).
    public func storedPin(_ id: UUID) throws -> Location? {
        guard let db = try openForReadingIfExists() else { return nil }
        return try db.read { try $0.locations.fetch(id: id) }
    }

    /// A pin's photos as the database holds them (`pinDetail`'s, without the rest of it); nil
    /// when no pin has that id. One opening of the database for both (`pins serve`'s photo
    /// route asks this at every photo a browser shows).
    public func photosOfPin(_ id: UUID) throws -> [PinPhotoRecord]? {
        guard let db = try openForReadingIfExists(), try db.read({ try $0.locations.fetch(id: id) }) != nil else { return nil }
        return try db.photos(ofPin: id)
    }
}

/// What `pins serve` keeps of the pins between requests, and what it reads when the database
/// changed (`PinChangeLog`).
extension PinApp {
    /// Every stored pin, oldest first, with the change log's position (none without a database).
    public func pinSnapshot() throws -> PinSnapshot {
        guard let db = try openForReadingIfExists() else { return PinSnapshot(seq: nil, pins: []) }
        return try db.pinSnapshot()
    }

    /// The pins changed since the log's position `since`, as stored now; nil when the log cannot
    /// tell (then every pin is read again).
    public func pinChanges(since: Int64) throws -> PinChanges? {
        guard let db = try openForReadingIfExists() else { return nil }
        return try db.pinChanges(since: since)
    }
}
