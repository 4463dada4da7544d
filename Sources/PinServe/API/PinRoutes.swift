import Foundation
import PinApp
import PinCore
import PinFormats
import PinReport

/// The Pins tab's calls: list (search and filters), show, add, edit, delete, bulk, undo.
extension AppBackend {
    /// GET /api/pins?q=&country=&type=&tag=&year=&limit=&offset=: the newest first.
    func listPins(_ target: RequestTarget) throws -> HTTPResponse {
        let (filter, limit, offset) = try APIRequest.pinList(target)
        // Every stored pin, newest first, read and sorted once per change of the database
        // (`storedPins`); one pass keeps the page and counts the rest, copying no other pin.
        let list = try storedList()
        let pins = list.pins
        var total = 0
        var page: ArraySlice<ListedPin> = []
        if filter.acceptsEveryPin {
            total = pins.count
            page = pins.dropFirst(offset).prefix(limit)
        } else {
            // Scanned once per filter and version of the pins (`FilterMatches`); each pin's text is
            // folded once, as it enters the list: a search folds its needle only.
            let matching = list.matches.indices(for: Self.filterKey(target), filter: filter) { FilterMatches.scan(filter, pins) }
            total = matching.count
            page = ArraySlice(matching.dropFirst(offset).prefix(limit).map { pins[Int($0)] })
        }
        return .json(200, bytes: Self.listText(total: total, offset: offset, page))
    }

    /// `{"offset":…,"pins":[…],"total":…}`, the keys in JSONText's order, each pin's object
    /// written from the pin kept (`PinObjectText`: `pinProperties` as JSONText writes it).
    static func listText(total: Int, offset: Int, _ page: ArraySlice<ListedPin>) -> [UInt8] {
        var out: [UInt8] = Array("{\"offset\":\(offset),\"pins\":[".utf8)
        out.reserveCapacity(page.count * 320 + 64)
        for (index, listed) in page.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            PinObjectText.append(listed.stored, to: &out)
        }
        out.append(contentsOf: "],\"total\":\(total)}".utf8)
        return out
    }

    /// What a list's filter is made of: its query without the page's limit and offset, in a
    /// fixed order (a new filter parameter is part of it with no change here).
    static func filterKey(_ target: RequestTarget) -> String {
        JSONText.string(target.query.keys.sorted().filter { $0 != "limit" && $0 != "offset" }.map { [$0] + (target.query[$0] ?? []) })
    }

    func showPin(_ id: UUID) throws -> HTTPResponse {
        guard let detail = try app.pinDetail(id: id, tripOf: try tripOfPins()) else {
            throw RequestError(404, "no pin with id \(id.lowercasedText)")
        }
        var object = pinProperties(detail.pin)
        object["countryName"] = detail.countryName
        object["trip"] = detail.trip
        object["photos"] = detail.photos.enumerated().map { index, photo in
            ["index": index, "path": photo.path.description, "missing": photo.missing, "shown": servable(photo.path) != nil] as [String: Any]
        }
        return .json(200, object)
    }

    /// POST /api/pins: the fields of `pins add`, as JSON.
    func addPin(_ body: JSONBody) throws -> HTTPResponse {
        let fields = try APIRequest.newPin(body)
        var new = NewPin(coordinate: fields.coordinate)
        new.title = fields.title
        new.date = fields.date
        new.color = fields.color
        new.note = fields.note
        new.tags = fields.tags
        if let type = fields.type { new.type = type }
        new.name = fields.name
        new.fields = fields.fields
        let pin = try app.addPin(new)
        return .json(201, pinProperties(pin))
    }

    /// PATCH /api/pins/ID: the fields to change (absent: unchanged; `tags` replaces the list).
    /// A move (a new latitude and longitude) is kept with the pin as it was stored before, for
    /// its undo (`restorePins` with "moved").
    func editPin(_ id: UUID, _ body: JSONBody) throws -> HTTPResponse {
        guard let old = try app.storedPin(id) else { throw RequestError(404, "no pin with id \(id.lowercasedText)") }
        var (edit, tags, date) = try APIRequest.pinEdit(body)
        if let tags {
            let had = old.tags ?? []
            edit.addTags = tags.filter { !had.contains($0) }
            edit.removeTags = had.filter { !tags.contains($0) }
        }
        let change = try app.changePin(id.uuidString, edit, date: date)
        if edit.coordinate != nil { moves.keep(change, id: id) }
        return .json(200, pinProperties(change.after ?? change.before))  // an edit leaves its pin
    }

    /// DELETE /api/pins/ID and the bulk delete: each pin deleted, kept as it was stored (read in
    /// the delete's transaction, `PinApp.removePin`) for the undo.
    func deletePins(_ ids: [UUID]) throws -> HTTPResponse {
        // One transaction for all (`PinApp.removePins`): a bulk delete of thousands of pins.
        let changes = try app.removePins(ids)
        if ids.count == 1, changes.isEmpty { throw RequestError(404, "no pin with id \(ids[0].lowercasedText)") }
        for change in changes { trash.keep(change, id: change.before.id) }
        return .json(200, ["deleted": changes.map(\.before.id.lowercasedText)])
    }

    /// POST /api/pins/restore: the browser's undos, through `PinApp.undoChange`. `{"ids": [...]}`:
    /// the pins deleted from this server, back as they were stored, under their ids (a 409 when
    /// a pin with that id is stored again). `{"moved": [...]}`: the pins moved from this server,
    /// back as they were stored before their last move (a 409 when one changed since, here or
    /// elsewhere, which is left as it is). Answers `{"restored": [ids], "pins": [each pin as
    /// restored]}`; a refusal keeps what was kept, and the pins before it stay restored.
    func restorePins(_ body: JSONBody) throws -> HTTPResponse {
        let (deleted, moved) = try APIRequest.restore(body)
        var restored: [Location] = []
        for (ids, kept, what) in [(deleted, trash, "deleted"), (moved, moves, "moved")] {
            for id in ids {
                guard let change = kept.take(id) else { throw RequestError(404, "the pin \(id.lowercasedText) was not \(what) here (or too long ago)") }
                do {
                    restored.append(try app.undoChange(change))
                } catch let refused as PinChangedSince {
                    kept.putBack(change, id: id)
                    throw RequestError(409, refused.description)
                } catch {
                    kept.putBack(change, id: id)
                    throw error
                }
            }
        }
        return .json(200, ["restored": restored.map(\.id.lowercasedText), "pins": restored.map(pinProperties)] as [String: Any])
    }

    /// POST /api/pins/bulk `{"ids": [...], "action": "color"|"addTag"|"removeTag"|"delete", "value": ...}`.
    func bulk(_ body: JSONBody) throws -> HTTPResponse {
        let (ids, bulkEdit) = try APIRequest.bulk(body)
        guard let edit = bulkEdit else { return try deletePins(ids) }
        // One transaction for all (`PinApp.changePins`): 200 pins took 34 s one by one.
        return .json(200, ["changed": try app.changePins(ids, edit).count])
    }
}
