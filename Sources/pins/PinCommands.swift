import Foundation
import PinCore
import PinApp
import PinReport

let dbOption = OptionSpec(name: "--db", value: "FILE", help: "Database file (default: $PINS_DB, else $XDG_DATA_HOME/pins/pins.sqlite).")
let jsonOption = OptionSpec(name: "--json", value: nil, help: "Print JSON instead of text.")

// MARK: add

let addSpec = CommandSpec(
    name: "add", summary: "Create a pin by hand, as the app's long press does.",
    usage: "add --lat LAT --lon LON [--title T] [--date ISO8601] [--color HEX] [--note N] [--tag T]... [--type \(LocationTypeSelection.usage)] [--name NAME] [--address A] [--height M] [--achieved-height M]",
    options: [
        OptionSpec(name: "--lat", value: "LAT", help: "Latitude in decimal degrees, -90 to 90."),
        OptionSpec(name: "--lon", value: "LON", help: "Longitude in decimal degrees, -180 to 180."),
        OptionSpec(name: "--title", value: "T", help: "Title (default: the town and country, \"Kyoto, Japan\"; a city's or mountain's name)."),
        OptionSpec(name: "--date", value: "ISO8601", help: "Date of the visit, e.g. 2024-05-01, 2024-05-01T10:00 (local time there) or 2024-05-01T10:00:00+02:00 (default: now)."),
        OptionSpec(name: "--color", value: "HEX", help: "Pin color #RRGGBB (default: the settings' pin color)."),
        OptionSpec(name: "--note", value: "N", help: "A note."),
        OptionSpec(name: "--tag", value: "T", help: "A tag; repeat for more.", repeatable: true),
        OptionSpec(name: "--type", value: "TYPE", help: "point (default), \(LocationTypeSelection.spoken(LocationTypeSelection.sharedTypes)).", choices: LocationTypeSelection.allCases.map(\.rawValue)),
        OptionSpec(name: "--name", value: "NAME", help: "City or mountain name (a city's default: the town the pin is in)."),
        OptionSpec(name: "--address", value: "A", help: "The address visited (for --type city)."),
        OptionSpec(name: "--height", value: "M", help: "Mountain height in metres (for --type mountain)."),
        OptionSpec(name: "--achieved-height", value: "M", help: "How high you got, in metres (for --type mountain; default: --height)."),
        dbOption, jsonOption,
    ],
    details: """
        Prints the new pin as 'pins show' does (id, title, country, place, ...); --json prints it
        as JSON (its "id" for scripts). The country, town and region are resolved offline from
        the coordinate.

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

/// The visit's fields but the name, each by its option (`--address`, `--height`,
/// `--achieved-height`): what `pins add` and `pins edit` read.
func visitFieldOptions(_ args: ParsedArguments) throws -> [String: VisitValue] {
    var fields: [String: VisitValue] = [:]
    for field in VisitField.all where field != .name {
        switch field.kind {
        case .text: fields[field.key] = args.value(field.option).map(VisitValue.text)
        case .number: fields[field.key] = try args.double(field.option, range: field.range).map(VisitValue.number)
        }
    }
    return fields
}

func runAdd(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "add") }
    guard let lat = try args.double("--lat", range: -90...90), let lon = try args.double("--lon", range: -180...180) else {
        throw UsageError("--lat and --lon are required", command: "add")
    }
    var new = NewPin(coordinate: Coordinate(latitude: lat, longitude: lon))
    new.date = try dateOption(args).map { _ in args.value("--date")! }
    let typeName = args.value("--type") ?? "point"
    guard let type = LocationTypeSelection(rawValue: typeName) else {
        throw UsageError("--type must be \(LocationTypeSelection.spoken()), got '\(typeName)'", command: "add")
    }
    new.type = type
    (new.title, new.color, new.note, new.tags) = (args.value("--title"), args.value("--color"), args.value("--note"), args.all("--tag"))
    new.name = args.value("--name")
    new.fields = try visitFieldOptions(args)
    let deps = try AppDependencies(databaseOption: args.value("--db"))
    let location = try deps.app.addPin(new)
    if args.has("--json") {
        Out.print(Out.json(locationJSON(location)))
    } else {
        // As `pins show` prints it: where it landed (title, place, country) with its id
        // (issue 40); `--json` is the form for scripts.
        Out.print(pinText(try deps.app.pinDetail(location.id.lowercasedText)))
    }
}

/// `--date`: the instant (read in the machine's zone when it has no offset) and the offset it
/// was written with (nil when it had none); a usage error when it is not ISO 8601.
func dateOption(_ args: ParsedArguments) throws -> (Date, Int?)? {
    guard let text = args.value("--date") else { return nil }
    guard let parsed = ISO8601.parse(text, defaultZone: .current) else {
        throw UsageError("--date expects ISO 8601 such as 2024-05-01 or 2024-05-01T10:00:00+02:00 in the years 1 to 9999, got '\(text)'", command: args.command)
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
        A place you want to go, not visited yet (a wanted pin), has * after its TYPE: "point*".

        --json prints one object per pin: id, title, latitude, longitude, date and color always; country,
        place, region, regionCode, type (city or mountain), visitCount (more than 1), edited, wanted, note, tags, photoIDs and utcOffset only
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

/// After a wanted pin's type in `pins list`'s table.
let wantedMark = "*"

func runList(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "list") }
    let filter = try pinFilter(from: args)
    let app = try AppDependencies(databaseOption: args.value("--db")).app
    let locations = try app.pins(matching: filter)
    if args.has("--json") {
        let tripOf = try app.tripOfPins()
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
         TerminalText.escaped(l.place ?? l.region ?? "-"), l.type.selection.rawValue + (l.wanted ? wantedMark : ""),
         formatDegrees(l.coordinate.latitude), formatDegrees(l.coordinate.longitude), TerminalText.escaped(l.title)]
    }
    Out.print(Out.table(["ID", "DATE", "CC", "PLACE", "TYPE", "LATITUDE", "LONGITUDE", "TITLE"], rows))
    // The count says what the mark means, only when a pin has it (a list of visits is as before).
    let wanted = locations.lazy.filter(\.wanted).count
    Out.print("\(locations.count) pin\(locations.count == 1 ? "" : "s")"
              + (wanted > 0 ? ", \(wanted) wanted (TYPE \(wantedMark): a place to go, not a visit)" : ""))
}

// MARK: delete

let deleteSpec = CommandSpec(
    name: "delete", summary: "Delete a pin; its country and shared city/mountain counts go down with it.",
    usage: "delete UUID", options: [dbOption],
    details: "A pin made by the photo import and deleted here is not brought back by later imports.")

func runDelete(_ args: ParsedArguments) throws {
    guard args.positionals.count == 1 else { throw UsageError("delete takes exactly one pin id", command: "delete") }
    let id = try AppDependencies(databaseOption: args.value("--db")).app.deletePin(args.positionals[0])
    Out.print("Deleted \(id.lowercasedText)")
}

// MARK: stats

let statsSpec = CommandSpec(
    name: "stats", summary: "Countries, continents, regions and places visited, and totals per pin type.",
    usage: "stats [--json]", options: [dbOption, jsonOption],
    details: "Places you want to go (wanted pins: Saved Places, import-places --wanted) count in nothing but their own line.")

func runStats(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "stats") }
    let stats = try AppDependencies(databaseOption: args.value("--db")).app.statistics()
    if args.has("--json") {
        Out.print(Out.json(stats.jsonObject))
        return
    }
    var text = "Pins: \(stats.totalPins) (" + LocationTypeSelection.allCases.map { "\($0.plural) \(stats.count(of: $0))" }.joined(separator: ", ")
    text += stats.pinsWithoutCountry > 0 ? ", \(stats.pinsWithoutCountry) at sea)\n" : ")\n"
    text += "Countries visited: \(stats.countryShareText)\n"
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
    if !stats.mostVisited.isEmpty {
        text += "Most visited places:\n"
        text += Out.table(["VISITS", "PHOTOS", "ID", "TITLE"], stats.mostVisited.map {
            [String($0.visitCount), String($0.photoCount), String($0.id.lowercasedText.prefix(8)), TerminalText.escaped($0.title)]
        }).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n"
    }
    if stats.wantedPins > 0 {
        text += "Wanted, not visited yet: \(stats.wantedPins) (counted in nothing above; 'pins list --wanted')\n"
    }
    Out.raw(text, to: 1)
}
