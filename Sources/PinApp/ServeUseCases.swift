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

/// An undo refused because the pin changed after the change it undoes (the server's 409).
public struct PinChangedSince: ExitStatusError {
    public let description: String
    public var exitStatus: Int32 { ExitCode.failure }
    init(_ message: String) { description = message }
}

/// Use cases `pins serve` needs beyond the CLI's: a proposal at a place, a deleted or moved pin
/// put back as it was stored (the browser's undos), and recolouring the pins that have the
/// old pin colour.
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

    /// Undoes `change` (the browser's undo of a move or a delete) in one transaction: the pin
    /// exactly as it was stored before it (every field, its edited mark and time too), counted
    /// again in its country and on its city or mountain (made again under its own id if it went
    /// meanwhile, joined as it is if another pin made it again), uncounted where a move put it;
    /// the city or mountain the move put it on, when the move altered it (`SharedChange`: gave
    /// it the pin's height, made it a gazetteer place's), its own values as before the move, shown
    /// again by its pins, unless they changed since (then a later change decides: it is left);
    /// a deleted pin under its id with its `PinTies` (row, creation time, the photos and place
    /// records that made it); its photos and visits follow as on every write. Refused
    /// (`PinChangedSince`), with nothing written, when a moved pin is no longer as the move left
    /// it (`LocationService.isAsLeft`: edited or moved again since, by anyone; what it shows of
    /// its city or mountain as stored now aside) or is gone, or when a pin with a deleted pin's
    /// id is stored again: that later change decides.
    public func undoChange(_ change: PinChange) throws -> Location {
        let id = change.before.id
        guard databaseExists else { throw AppFailure("no pin with id \(id.lowercasedText): the database \(databasePath) does not exist") }
        let service = LocationService(creation: try lazyCreationService())
        return try writing { db in
            try db.write { repos in
                let current = try repos.locations.fetch(id: id)
                if let after = change.after {
                    guard let current else { throw PinChangedSince("the pin \(id.lowercasedText) was deleted since: nothing to undo") }
                    // Showing what its shared object shows now: a new height given there since
                    // by another pin is not a change of this one (`putBack` leaves it there, below).
                    guard LocationService.isAsLeft(current, try service.showingNow(after, in: repos)) else {
                        throw PinChangedSince("the pin '\(current.title)' was changed since (here or elsewhere): it is left as it is now")
                    }
                } else if let current {
                    throw PinChangedSince("the pin '\(current.title)' (\(id.lowercasedText)) is stored again since: it is left as it is now")
                }
                if let run = change.before.runID, try repos.runs.recent(limit: Int.max).first(where: { $0.id == run })?.status == .undone {
                    // The run's undo removed what it made (a moved pin it kept: edited) and forgot
                    // its photos: the pin as before would be a pin of an undone run, without them.
                    throw PinChangedSince("the import run #\(run) that made '\(change.before.title)' was undone since: "
                        + (change.after == nil ? "the pin stays deleted (importing again makes it again)" : "the pin is left as it is now"))
                }
                try service.restore(change.before, replacing: current, sharedPlaceID: change.sharedPlaceID, in: repos)
                // Last: the pin's leaving found that object as the change left it (an adopted city
                // by its place id) and counted it down.
                if let shared = change.shared { try service.putBack(shared, in: repos) }
                if let ties = change.ties { try db.restore(ties, ofPin: id) }
            }
            // Read back: the photos and visits as the write linked them.
            return try db.read { try $0.locations.fetch(id: id) } ?? change.before
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
