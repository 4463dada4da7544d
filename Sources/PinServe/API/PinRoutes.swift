import Foundation
import PinApp
import PinCore
import PinReport

/// The Pins tab's calls: list (search and filters), show, add, edit, delete, bulk, undo.
extension AppBackend {
    /// GET /api/pins?q=&country=&type=&tag=&year=&limit=&offset=: the newest first.
    func listPins(_ target: RequestTarget) throws -> HTTPResponse {
        var filter = PinFilter()
        filter.search = target.value("q").flatMap { $0.isEmpty ? nil : $0 }
        filter.countries = Set((target.query["country"] ?? []).map { $0.uppercased() })
        filter.types = Set(try (target.query["type"] ?? []).map {
            guard let type = LocationTypeSelection(rawValue: $0) else { throw RequestError(400, "type is \(LocationTypeSelection.spoken()), not '\($0)'") }
            return type
        })
        filter.tags = target.query["tag"] ?? []
        if let year = target.value("year") {
            guard let number = Int(year), (1800...3000).contains(number) else { throw RequestError(400, "year must be a year, not '\(year)'") }
            filter.since = Self.utc(year: number)
            filter.until = Self.utc(year: number + 1).addingTimeInterval(-0.001)
        }
        filter.descending = true
        let limit = try target.value("limit").map { try Self.count($0, "limit", 1...1000) } ?? 100
        let offset = try target.value("offset").map { try Self.count($0, "offset", 0...10_000_000) } ?? 0
        // Every stored pin, newest first, read and sorted once per change of the database
        // (`storedPins`); one pass keeps the page and counts the rest, copying no other pin.
        let accepts = filter.matcher { _ in nil }
        var total = 0
        var page: [Location] = []
        for pin in try storedPins() where accepts(pin) {
            if total >= offset, page.count < limit { page.append(pin) }
            total += 1
        }
        return .json(200, ["total": total, "offset": offset, "pins": page.map(pinProperties)] as [String: Any])
    }

    static func utc(year: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: 1, day: 1))!
    }

    static func count(_ text: String, _ name: String, _ range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw RequestError(400, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    func showPin(_ id: UUID) throws -> HTTPResponse {
        guard try app.storedPin(id) != nil else { throw RequestError(404, "no pin with id \(id.lowercasedText)") }
        let detail = try app.pinDetail(id.uuidString)
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
        guard let lat = try body.number("latitude", in: -90...90), let lon = try body.number("longitude", in: -180...180) else {
            throw RequestError(422, "'latitude' and 'longitude' are required")
        }
        var new = NewPin(coordinate: Coordinate(latitude: lat, longitude: lon))
        new.title = try body.string("title", maxLength: 500).flatMap { $0.isEmpty ? nil : $0 }
        new.date = try body.string("date", maxLength: 64).flatMap { $0.isEmpty ? nil : $0 }
        new.color = try body.string("color", maxLength: 16)
        new.note = try body.string("note").flatMap { $0.isEmpty ? nil : $0 }
        new.tags = try body.strings("tags", maxCount: 100) ?? []
        if let type = try body.string("type", maxLength: 16) {
            guard let selection = LocationTypeSelection(rawValue: type) else { throw RequestError(422, "'type' is \(LocationTypeSelection.spoken())") }
            new.type = selection
        }
        new.name = try body.string("name", maxLength: 500).flatMap { $0.isEmpty ? nil : $0 }
        new.address = try body.string("address", maxLength: 500)
        new.height = try body.number("height", in: -500...9000)
        new.achievedHeight = try body.number("achievedHeight", in: -500...9000)
        let pin = try app.addPin(new)
        return .json(201, pinProperties(pin))
    }

    /// PATCH /api/pins/ID: the fields to change (absent: unchanged; `tags` replaces the list).
    func editPin(_ id: UUID, _ body: JSONBody) throws -> HTTPResponse {
        guard let old = try app.storedPin(id) else { throw RequestError(404, "no pin with id \(id.lowercasedText)") }
        var edit = LocationEdit()
        edit.title = try body.string("title", maxLength: 500)
        if edit.title?.trimmingCharacters(in: .whitespaces).isEmpty == true { throw RequestError(422, "'title' must not be empty") }
        edit.note = try body.string("note")
        edit.color = try body.string("color", maxLength: 16)
        if let tags = try body.strings("tags", maxCount: 100) {
            let had = old.tags ?? []
            edit.addTags = tags.filter { !had.contains($0) }
            edit.removeTags = had.filter { !tags.contains($0) }
        }
        let lat = try body.number("latitude", in: -90...90), lon = try body.number("longitude", in: -180...180)
        guard (lat == nil) == (lon == nil) else { throw RequestError(422, "moving a pin needs both 'latitude' and 'longitude'") }
        if let lat, let lon { edit.coordinate = Coordinate(latitude: lat, longitude: lon) }
        if let type = try body.string("type", maxLength: 16) {
            guard let selection = LocationTypeSelection(rawValue: type) else { throw RequestError(422, "'type' is \(LocationTypeSelection.spoken())") }
            edit.type = selection
        }
        edit.name = try body.string("name", maxLength: 500).flatMap { $0.isEmpty ? nil : $0 }
        edit.height = try body.number("height", in: -500...9000)
        edit.achievedHeight = try body.number("achievedHeight", in: -500...9000)
        edit.address = try body.string("address", maxLength: 500)
        edit.visitCount = try body.number("visitCount", in: 1...100_000).map { Int($0) }
        let date = try body.string("date", maxLength: 64).flatMap { $0.isEmpty ? nil : $0 }
        let pin = try app.editPin(id.uuidString, edit, date: date)
        return .json(200, pinProperties(pin))
    }

    /// DELETE /api/pins/ID and the bulk delete: each pin kept for the undo, then deleted.
    func deletePins(_ ids: [UUID]) throws -> HTTPResponse {
        var deleted: [String] = []
        for id in ids {
            guard let pin = try app.storedPin(id) else {
                if ids.count == 1 { throw RequestError(404, "no pin with id \(id.lowercasedText)") }
                continue
            }
            trash.keep(pin)
            _ = try app.deletePin(id.uuidString)
            deleted.append(id.lowercasedText)
        }
        return .json(200, ["deleted": deleted])
    }

    /// POST /api/pins/restore `{"ids": [...]}`: the pins deleted from this server, back as they were.
    func restorePins(_ body: JSONBody) throws -> HTTPResponse {
        var restored: [String] = []
        for id in try body.ids("ids") {
            guard let pin = trash.take(id) else { throw RequestError(404, "the pin \(id.lowercasedText) was not deleted here (or too long ago)") }
            do {
                restored.append(pinProperties(try app.restorePin(pin))["id"] as? String ?? "")
            } catch {
                trash.putBack(pin)
                throw error
            }
        }
        return .json(200, ["restored": restored])
    }

    /// POST /api/pins/bulk `{"ids": [...], "action": "color"|"addTag"|"removeTag"|"delete", "value": ...}`.
    func bulk(_ body: JSONBody) throws -> HTTPResponse {
        let ids = try body.ids("ids")
        guard let action = try body.string("action", maxLength: 16) else { throw RequestError(422, "'action' is required") }
        if action == "delete" { return try deletePins(ids) }
        var edit = LocationEdit()
        let value = try body.string("value", maxLength: 200)
        switch action {
        case "color":
            guard let value, Settings.normalizedColor(value) != nil else { throw RequestError(422, "'value' must be a colour #RRGGBB") }
            edit.color = value
        case "addTag", "removeTag":
            guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else { throw RequestError(422, "'value' must be a tag") }
            if action == "addTag" { edit.addTags = [value] } else { edit.removeTags = [value] }
        default: throw RequestError(422, "'action' is color, addTag, removeTag or delete, not '\(action)'")
        }
        var changed = 0
        for id in ids where try app.storedPin(id) != nil {
            _ = try app.editPin(id.uuidString, edit)
            changed += 1
        }
        return .json(200, ["changed": changed])
    }
}
