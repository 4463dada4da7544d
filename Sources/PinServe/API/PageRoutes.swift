import Foundation
import PinApp
import PinCore
import PinReport

/// The calls around the map: what is at a place, settings, trips, photos.
extension AppBackend {
    /// GET /api/locate?lat=&lon=: the country, town, region and the title a pin there would get.
    func locate(_ target: RequestTarget) throws -> HTTPResponse {
        let position = try APIRequest.position(target)
        let (lat, lon) = (position.latitude, position.longitude)
        let found = try app.proposal(at: position)
        var object: [String: Any] = ["title": found.title, "latitude": lat, "longitude": lon]
        object["country"] = found.country
        object["countryName"] = found.countryName
        object["place"] = found.place
        object["region"] = found.region
        return .json(200, object)
    }

    func settings() throws -> HTTPResponse {
        guard app.databaseExists else { return .json(200, Self.settingsJSON(Settings())) }
        return .json(200, Self.settingsJSON(try app.settings().settings))
    }

    static func settingsJSON(_ settings: Settings) -> [String: Any] {
        ["pinColor": settings.defaultPinColor, "fillColor": settings.mapFillColor, "mapStyle": settings.mapStyle.rawValue]
    }

    /// PATCH /api/settings `{"pinColor", "fillColor", "mapStyle", "recolorPins": true}`: with
    /// recolorPins, the pins that had the old pin colour get the new one (an explicit choice).
    func changeSettings(_ body: JSONBody) throws -> HTTPResponse {
        let decoded = try APIRequest.settings(body)
        var change = SettingsChange()
        change.pinColor = decoded.pinColor
        change.fillColor = decoded.fillColor
        change.mapStyle = decoded.mapStyle
        let recolor = decoded.recolor
        let old = app.databaseExists ? try app.settings().settings.defaultPinColor : Settings.defaultPinColor
        let new = try app.settings(change).settings
        var object = Self.settingsJSON(new)
        if recolor { object["recolored"] = try app.recolorPins(from: old, to: new.defaultPinColor) }
        return .json(200, object)
    }

    func trips() throws -> HTTPResponse {
        let timeline = try app.trips()
        return .json(200, ["trips": timeline.trips.map {
            ["id": $0.id, "title": $0.title, "start": $0.start.description, "end": $0.end.description, "days": $0.days,
             "countries": $0.countries, "pins": $0.pinIDs.count] as [String: Any]
        }])
    }

    /// PATCH /api/trips/ID `{"title": "..."}` (null or empty: the title pins makes).
    func renameTrip(_ id: String, _ body: JSONBody) throws -> HTTPResponse {
        let title = try APIRequest.tripTitle(body)
        let trip = try app.renameTrip(id, to: title)
        return .json(200, ["id": trip.id, "title": trip.title])
    }
}
