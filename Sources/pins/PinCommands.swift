import Foundation
import PinCore
import PinData
import PinReport
import PinStore

let dbOption = OptionSpec(name: "--db", value: "FILE", help: "Database file (default: $PINS_DB, else $XDG_DATA_HOME/pins/pins.sqlite).")
let jsonOption = OptionSpec(name: "--json", value: nil, help: "Print JSON instead of text.")

// MARK: add

let addSpec = CommandSpec(
    name: "add", summary: "Create a pin by hand, as the app's long press does.",
    usage: "add --lat LAT --lon LON [--title T] [--date ISO8601] [--color HEX] [--note N] [--tag T]... [--type point|city|mountain] [--name NAME] [--address A] [--height M] [--achieved-height M]",
    options: [
        OptionSpec(name: "--lat", value: "LAT", help: "Latitude in decimal degrees, -90 to 90."),
        OptionSpec(name: "--lon", value: "LON", help: "Longitude in decimal degrees, -180 to 180."),
        OptionSpec(name: "--title", value: "T", help: "Title (default: the town and country, \"Kyoto, Japan\"; a city's or mountain's name)."),
        OptionSpec(name: "--date", value: "ISO8601", help: "Date of the visit, e.g. 2024-05-01, 2024-05-01T10:00 (local time there) or 2024-05-01T10:00:00+02:00 (default: now)."),
        OptionSpec(name: "--color", value: "HEX", help: "Pin color #RRGGBB (default: the settings' pin color)."),
        OptionSpec(name: "--note", value: "N", help: "A note."),
        OptionSpec(name: "--tag", value: "T", help: "A tag; repeat for more.", repeatable: true),
        OptionSpec(name: "--type", value: "TYPE", help: "point (default), city or mountain.", choices: LocationTypeSelection.allCases.map(\.rawValue)),
        OptionSpec(name: "--name", value: "NAME", help: "City or mountain name (a city's default: the town the pin is in)."),
        OptionSpec(name: "--address", value: "A", help: "The address visited (for --type city)."),
        OptionSpec(name: "--height", value: "M", help: "Mountain height in metres (for --type mountain)."),
        OptionSpec(name: "--achieved-height", value: "M", help: "How high you got, in metres (for --type mountain; default: --height)."),
        dbOption, jsonOption,
    ],
    details: """
        Prints the new pin's id. The country, town and region are resolved offline from the coordinate.

        A city pin's city is the town it is in (GeoNames): two city pins in Paris share one "Paris"
        ('pins cities'). --name names it by hand instead (a name the town there does not have); city
        pins named alike within 15 km share it. Mountain pins named alike within 5 km share the
        mountain; its height is the last one given.

        A --date without an offset is the time a clock at the pin's position showed: it is read
        in the time zone there on that date (summer time included), not in this machine's zone.
        In Tokyo, --date 2024-05-01T12:00 is 2024-05-01T12:00:00+09:00 (03:00 UTC).

        Example:
          pins add --lat 35.6586 --lon 139.7454 --title "Tokyo Tower" --date 2024-05-01T12:00
        """)

func runAdd(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "add") }
    guard let lat = try args.double("--lat", range: -90...90), let lon = try args.double("--lon", range: -180...180) else {
        throw UsageError("--lat and --lon are required", command: "add")
    }
    let coordinate = Coordinate(latitude: lat, longitude: lon)
    let (date, offset) = try dateOption(args, at: coordinate) ?? (Date(), TimeZone.current.secondsFromGMT())
    if let color = args.value("--color"), Settings.normalizedColor(color) == nil {
        throw UsageError("--color expects #RRGGBB, got '\(color)'", command: "add")
    }
    let typeName = args.value("--type") ?? "point"
    guard ["point", "city", "mountain"].contains(typeName) else {
        throw UsageError("--type must be point, city or mountain, got '\(typeName)'", command: "add")
    }
    let name = args.value("--name").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    if name?.isEmpty == true { throw UsageError("--name must not be empty", command: "add") }
    if typeName != "city", args.value("--address") != nil { throw UsageError("--address is for --type city", command: "add") }
    if typeName != "mountain", args.value("--height") != nil || args.value("--achieved-height") != nil {
        throw UsageError("--height and --achieved-height are for --type mountain", command: "add")
    }
    if typeName == "mountain", name == nil { throw UsageError("--type mountain needs --name", command: "add") }
    let height = try args.double("--height", range: -500...9000)
    let achieved = try args.double("--achieved-height", range: -500...9000)
    let deps = try AppDependencies(databaseOption: args.value("--db"))
    let creation = try deps.creationService(near: coordinate)
    try creation.places.prepare()
    // The country by its outline, then the town and region inside it: the title, and a city's place.
    let (country, match) = creation.resolve(at: coordinate)
    let type: LocationType
    switch typeName {
    case "city":
        type = .city(try cityVisit(named: name, at: coordinate, match: match, address: args.value("--address"), command: "add"))
    case "mountain":
        type = .mountain(MountainVisitData(mountainName: name!, height: height, mountainCoordinate: coordinate,
                                           achievedHeight: achieved ?? height))
    default:
        if name != nil { throw UsageError("--name is for --type city or mountain", command: "add") }
        type = .point
    }
    let place = PinPlace(match)
    let title: String = args.value("--title") ?? {
        switch type {
        case let .city(visit): return visit.cityName
        case let .mountain(visit): return visit.mountainName
        case .point: return country == nil ? coordinate.description : creation.title(country: country, place: place)
        }
    }()
    var draft = LocationDraft(title: title, coordinate: coordinate, type: type, date: date, color: args.value("--color"),
                              note: args.value("--note"), tags: args.all("--tag").isEmpty ? nil : args.all("--tag"))
    // The visit's own offset: the one written with --date, else the position's zone at that date.
    draft.utcOffsetSeconds = offset
    let plan = PinPlan(id: try creation.ids.next(), country: country, title: title, place: place)
    let location = try deps.database().write { repos in try creation.create(draft, planned: plan, in: repos) }
    if args.has("--json") {
        Out.print(Out.json(locationJSON(location)))
    } else {
        Out.print(location.id.lowercasedText)
    }
}

/// A city pin's visit: the gazetteer place at the pin (its name, centre and id) when no `name`
/// is given or the name is the place's (any case, accents ignored); else a city named by hand
/// at the pin, shared with others of that name nearby (`CityService`).
func cityVisit(named name: String?, at coordinate: Coordinate, match: PlaceMatch, address: String?, command: String) throws -> CityVisitData {
    let address = address.flatMap { $0.isEmpty ? nil : $0 }
    if let place = match.place, name.map({ PinFilter.fold($0) == PinFilter.fold(place.name) }) ?? true {
        return CityVisitData(place: place, address: address)
    }
    guard let name else {
        throw CommandFailure("no town or city is known at \(coordinate.description): give the city's name with --name")
    }
    return CityVisitData(cityName: name, cityCoordinate: coordinate, address: address)
}

/// `--date` for a pin at `coordinate`: the instant and its offset. A date written without an
/// offset is the wall clock of the position's time zone on that date (what someone there meant);
/// when the zone outlines cannot be read, the machine's zone, with a warning on stderr.
func dateOption(_ args: ParsedArguments, at coordinate: Coordinate) throws -> (date: Date, offsetSeconds: Int)? {
    guard let (date, offset) = try dateOption(args) else { return nil }
    if let offset { return (date, offset) }
    let zone: TimeZone
    do {
        zone = try LazyTimeZones(onlyAtLatitude: coordinate.latitude).timeZone(at: coordinate)
    } catch {
        Out.error("pins \(args.command): warning: \(error): --date is read in this machine's zone \(TimeZone.current.identifier)")
        return (date, TimeZone.current.secondsFromGMT(for: date))
    }
    guard let text = args.value("--date"), let local = ISO8601.parse(text, defaultZone: zone) else { return nil }
    return (local.date, zone.secondsFromGMT(for: local.date))
}

/// `--date`: the instant (read in the machine's zone when it has no offset) and the offset it
/// was written with (nil when it had none); a usage error when it is not ISO 8601.
func dateOption(_ args: ParsedArguments) throws -> (Date, Int?)? {
    guard let text = args.value("--date") else { return nil }
    guard let parsed = ISO8601.parse(text, defaultZone: .current) else {
        throw UsageError("--date expects ISO 8601 such as 2024-05-01 or 2024-05-01T10:00:00+02:00, got '\(text)'", command: args.command)
    }
    return (parsed.date, parsed.offsetSeconds)
}

// MARK: list

let listSpec = CommandSpec(
    name: "list", summary: "List the pins, oldest first, filtered like the app's Pins tab.",
    usage: "list [--search TEXT] [--country CC]... [--region R]... [--place P]... [--type TYPE]... [--tag T]... [--since DATE] [--until DATE] [--near LAT,LON --within KM] [--sort KEY] [--limit N] [--json]",
    options: pinFilterOptions + [dbOption, jsonOption],
    details: """
        Every filter given must hold. DATE is the pin's own local date (the photo's offset, or the one given to add).

        --json prints one object per pin: id, title, latitude, longitude, date and color always; country,
        place, region, regionCode, type (city or mountain), visitCount (more than 1), edited, note, tags, photoIDs and utcOffset only
        when set (a point with one visit has no type or visitCount key; README: "A pin as JSON").

        Examples:
          pins list --search zurich             # finds "Zürich" in a title, place, region, note, tag or city name
          pins list --region JP-26 --place kyoto
          pins list --country FR --since 2023-01-01 --until 2023-12-31
          pins list --near 48.8566,2.3522 --within 25 --sort distance
          pins list --tag hiking --type mountain --json
        """)

/// The fields of a pin in every command's JSON (and in GeoJSON exports).
func locationJSON(_ l: Location) -> [String: Any] { pinProperties(l) }

func runList(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "list") }
    let filter = try pinFilter(from: args)
    let deps = try AppDependencies(databaseOption: args.value("--db"))
    let locations = try filteredPins(filter, deps: deps)
    if args.has("--json") {
        let tripOf = try tripsOfPins(deps)
        Out.print(Out.json(locations.map { pin in
            var object = locationJSON(pin)
            object["trip"] = tripOf[pin.id]
            return object
        }))
        return
    }
    if locations.isEmpty {
        Out.print("No pins.")
        return
    }
    let rows = locations.map { l in
        [l.id.lowercasedText.prefix(8).description, pinDateText(l).prefix(10).description, l.countryID ?? "-",
         TerminalText.escaped(l.place ?? l.region ?? "-"), l.type.selection.rawValue, formatDegrees(l.coordinate.latitude),
         formatDegrees(l.coordinate.longitude), TerminalText.escaped(l.title)]
    }
    Out.print(Out.table(["ID", "DATE", "CC", "PLACE", "TYPE", "LATITUDE", "LONGITUDE", "TITLE"], rows))
    Out.print("\(locations.count) pin\(locations.count == 1 ? "" : "s")")
}

// MARK: delete

let deleteSpec = CommandSpec(
    name: "delete", summary: "Delete a pin; its country and shared city/mountain counts go down with it.",
    usage: "delete UUID", options: [dbOption],
    details: "A pin made by the photo import and deleted here is not brought back by later imports.")

func runDelete(_ args: ParsedArguments) throws {
    guard args.positionals.count == 1 else { throw UsageError("delete takes exactly one pin id", command: "delete") }
    let text = args.positionals[0]
    let deps = try AppDependencies(databaseOption: args.value("--db"))
    guard FileManager.default.fileExists(atPath: deps.databasePath) else {
        throw CommandFailure("no pin with id \(text): the database \(deps.databasePath) does not exist")
    }
    let db = try deps.database()
    let id = try resolvePinID(text, in: db)
    try LocationService(creation: try deps.lazyCreationService()).delete(id: id, using: db) // deleting needs no outlines
    Out.print("Deleted \(id.lowercasedText)")
}

// MARK: stats

let statsSpec = CommandSpec(
    name: "stats", summary: "Countries, continents, regions and places visited, and totals per pin type.",
    usage: "stats [--json]", options: [dbOption, jsonOption], details: "")

func runStats(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "stats") }
    let deps = try AppDependencies(databaseOption: args.value("--db"))
    let db = try deps.databaseForReading()
    let service = StatisticsService(catalog: try deps.catalog(), places: deps.places)
    // The regions' totals ("of 51 states") need the gazetteer; without it, "7 states".
    if try db.read({ try $0.locations.fetchAll(countryID: nil).contains { $0.region != nil } }) { try? deps.places.prepare() }
    let stats = try service.calculate(using: db)
    if args.has("--json") {
        let object: [String: Any] = [
            "countries": stats.countries.map { c -> [String: Any] in
                var entry: [String: Any] = ["id": c.id, "name": c.name, "continent": c.continent, "pinCount": c.pinCount,
                                            "regionsVisited": c.regionsVisited, "placesVisited": c.placesVisited]
                if c.regionCount > 0 { entry["regionCount"] = c.regionCount }
                return entry
            },
            "continents": stats.continents.map { ["name": $0.name, "countryCount": $0.countryCount, "pinCount": $0.pinCount] },
            "countriesVisited": stats.countries.count, "continentsVisited": stats.continents.count,
            "regionsVisited": stats.regionsVisited, "placesVisited": stats.placesVisited,
            "totals": ["pins": stats.totalPins, "point": stats.pointCount, "city": stats.cityCount,
                       "mountain": stats.mountainCount, "withoutCountry": stats.pinsWithoutCountry],
        ]
        Out.print(Out.json(object))
        return
    }
    var text = "Pins: \(stats.totalPins) (points \(stats.pointCount), cities \(stats.cityCount), mountains \(stats.mountainCount)"
    text += stats.pinsWithoutCountry > 0 ? ", \(stats.pinsWithoutCountry) at sea)\n" : ")\n"
    text += "Countries visited: \(stats.countries.count)\n"
    if !stats.countries.isEmpty {
        text += Out.table(["CC", "COUNTRY", "CONTINENT", "PINS"],
                          stats.countries.map { [$0.id, $0.name, $0.continent, String($0.pinCount)] }).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n"
    }
    text += "Continents visited: \(stats.continents.count)\n"
    if !stats.continents.isEmpty {
        text += Out.table(["CONTINENT", "COUNTRIES", "PINS"],
                          stats.continents.map { [$0.name, String($0.countryCount), String($0.pinCount)] }).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n"
    }
    text += "Regions visited: \(stats.regionsVisited)\n"
    for country in stats.countries where country.regionsVisited > 0 {
        text += "  \(country.name): \(country.regionsText)\n"
    }
    text += "Places visited: \(stats.placesVisited)\n"
    Out.raw(text, to: 1)
}
