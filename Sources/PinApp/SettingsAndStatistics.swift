import Foundation
import PinCore
import PinStore

/// The settings as a person sees them: the app's (colours, map style) and the trips' home.
public struct AppSettings: Sendable {
    public var settings: Settings
    /// The home set for the trips (nil: found from the pins and photos).
    public var home: Coordinate?
}

/// What to change in the settings; nil changes nothing.
public struct SettingsChange: Sendable {
    public var pinColor: String?
    public var fillColor: String?
    public var mapStyle: Settings.MapStyle?
    public var countryList: CountryList?
    /// `.some(nil)`: forget the home set (find it from the pins again).
    public var home: Coordinate??
    /// Home is the place of the pins called so (`home(named:)`).
    public var homeNamed: String?
    public init() {}

    var changesAppSettings: Bool { pinColor != nil || fillColor != nil || mapStyle != nil || countryList != nil }
}

/// The use cases of settings and statistics.
extension PinApp {
    /// The settings, changed first when `change` asks for something (one transaction for the
    /// app's settings; the home after it). Reading them needs the database to exist.
    public func settings(_ change: SettingsChange = SettingsChange()) throws -> AppSettings {
        for (name, color) in [("--pin-color", change.pinColor), ("--fill-color", change.fillColor)] {
            if let color, Settings.normalizedColor(color) == nil { throw InvalidRequest("\(name) expects #RRGGBB, got '\(color)'") }
        }
        let home = try change.homeNamed.map { Optional(try self.home(named: $0)) } ?? change.home
        let settings: Settings
        if change.changesAppSettings {
            settings = try writing { db in
                try db.write { repos in
                    var settings = try repos.settings.load()
                    if let pinColor = change.pinColor.flatMap(Settings.normalizedColor) { settings.defaultPinColor = pinColor }
                    if let fillColor = change.fillColor.flatMap(Settings.normalizedColor) { settings.mapFillColor = fillColor }
                    if let style = change.mapStyle { settings.mapStyle = style }
                    if let list = change.countryList { settings.countryList = list }
                    try repos.settings.save(settings)
                    return settings
                }
            }
        } else {
            settings = try openForReading().read { try $0.settings.load() }
        }
        if let home { try writing { try $0.setTripHome(home) } }
        return AppSettings(settings: settings, home: try openForReadingIfExists()?.tripHome())
    }

    /// The home called `name`: the centre of the pins in the place called so (its gazetteer
    /// place, a City pin's city, or a title that starts with it), whatever the case and accents.
    public func home(named name: String) throws -> Coordinate {
        let fold = { (text: String) in text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .trimmingCharacters(in: .whitespaces) }
        let wanted = fold(name)
        guard !wanted.isEmpty else { throw InvalidRequest("--home expects a place name") }
        let pins = try openForReading().read { try $0.locations.fetchAll(countryID: nil) }
        let matching = pins.filter { pin in
            if let place = PinDatabase.placeName(of: pin), fold(place) == wanted { return true }
            let title = fold(pin.title)
            return title == wanted || title.hasPrefix(wanted + ",")
        }
        guard !matching.isEmpty else {
            throw AppFailure("no pin is in a place called \(TerminalText.escaped(name)): give --home-lat and --home-lon instead")
        }
        return Spherical.centre(of: matching.map(\.coordinate))
    }

    /// Countries, continents, regions and places visited, and the totals per pin type.
    public func statistics() throws -> StatisticsValues {
        let db = try openForReading()
        // The pins and the countries in one read (the pins were read twice: a check for regions,
        // then the statistics).
        let (pins, countries) = try db.read { (try $0.locations.fetchAll(countryID: nil), try $0.countries.fetchAll()) }
        return try statisticsService(regions: pins.contains { $0.region != nil }, db).calculate(pins: pins, countries: countries)
    }

    /// `statistics()` of every stored pin as the caller holds them (pins serve's list, at the
    /// database's version): the same numbers, the pins not read again.
    public func statistics(of pins: [StoredLocation]) throws -> StatisticsValues {
        let db = try openForReading()
        let countries = try db.read { try $0.countries.fetchAll() }
        return try statisticsService(regions: pins.contains { $0.location.region != nil }, db).calculate(stored: pins, countries: countries)
    }

    /// The statistics' service: the regions' totals ("of 51 states") need the gazetteer when a
    /// pin has a region (loaded for this call alone unless the lookups loaded it:
    /// `loadedOrOnce`); without it, "7 states".
    private func statisticsService(regions: Bool, _ db: PinDatabase) throws -> StatisticsService {
        var service = StatisticsService(catalog: try catalog(), places: regions ? (try? places.loadedOrOnce()) ?? NoPlaces() : NoPlaces())
        service.countryList = try db.read { try $0.settings.load() }.countryList
        return service
    }
}
