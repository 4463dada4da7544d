import Foundation
import PinCore
import PinFormats
import PinApp
import PinReport

// MARK: edit

let editSpec = CommandSpec(
    name: "edit", summary: "Change a pin: title, note, tags, colour, date, position, type, visits.",
    usage: "edit ID [--title T] [--note N] [--tag T]... [--untag T]... [--color HEX] [--date ISO8601] [--lat LAT --lon LON] [--type \(LocationTypeSelection.usage)] [--name NAME] [--address A] [--height M] [--achieved-height M] [--visits N] [--visited|--wanted] [--json]",
    options: [
        OptionSpec(name: "--title", value: "T", help: "New title."),
        OptionSpec(name: "--note", value: "N", help: "New note; an empty one removes it."),
        OptionSpec(name: "--tag", value: "T", help: "Add a tag; repeat for more.", repeatable: true),
        OptionSpec(name: "--untag", value: "T", help: "Remove a tag; repeat for more.", repeatable: true),
        OptionSpec(name: "--color", value: "HEX", help: "Pin color #RRGGBB."),
        OptionSpec(name: "--date", value: "ISO8601", help: "Date of the visit, e.g. 2024-05-01T10:00:00+02:00 (the offset becomes the pin's); without an offset, the local time where the pin is."),
        OptionSpec(name: "--lat", value: "LAT", help: "New latitude (with --lon): the country, place and region are found again; a title pins made follows."),
        OptionSpec(name: "--lon", value: "LON", help: "New longitude (with --lat)."),
        OptionSpec(name: "--type", value: "TYPE", help: "\(LocationTypeSelection.spoken()) (a mountain needs --name; a city without one is the town the pin is in).", choices: LocationTypeSelection.allCases.map(\.rawValue)),
        OptionSpec(name: "--name", value: "NAME", help: "City or mountain name."),
        OptionSpec(name: "--address", value: "A", help: "The address visited (a city pin); an empty one removes it."),
        OptionSpec(name: "--height", value: "M", help: "Mountain height in metres: the shared mountain's, shown by every pin on it."),
        OptionSpec(name: "--achieved-height", value: "M", help: "How high you got on the mountain, in metres."),
        OptionSpec(name: "--visits", value: "N", help: "How many times you were there (1 or more)."),
        OptionSpec(name: "--visited", value: nil, help: "You have been there: a wanted place (a Saved Place) becomes a visit."),
        OptionSpec(name: "--wanted", value: nil, help: "You want to go there: left out of countries, statistics and trips."),
        dbOption, jsonOption,
    ],
    details: """
        ID is a pin id or a unique prefix of one (as 'pins list' shows it). Everything changes in one
        transaction: a moved pin's country is resolved again and the country counts follow; a new type or
        name moves the pin between the shared cities and mountains. An edited pin is kept when the import
        that made it is undone.

        Examples:
          pins edit 0f601b8a --title "Eiffel Tower" --tag paris --untag todo
          pins edit 0f601b8a --lat 48.8584 --lon 2.2945
          pins edit 0f601b8a --type mountain --name "Mont Blanc" --height 4806
        """)

func runEdit(_ args: ParsedArguments) throws {
    guard args.positionals.count == 1 else { throw UsageError("edit takes exactly one pin id", command: "edit") }
    let edit = try locationEdit(args)
    let app = try AppDependencies(databaseOption: args.value("--db")).app
    let pin = try app.editPin(args.positionals[0], edit, date: args.value("--date"))
    if args.has("--json") {
        Out.print(Out.json(locationJSON(pin)))
    } else {
        Out.print("Edited \(pin.id.lowercasedText): \(TerminalText.escaped(pin.title)), \(pinDateText(pin)), \(pin.countryID ?? "at sea")")
    }
}

/// The changes `pins edit` asks for, checked before the database is opened (the date is read
/// at the pin's position later).
private func locationEdit(_ args: ParsedArguments) throws -> LocationEdit {
    var edit = LocationEdit()
    edit.title = args.value("--title")
    edit.note = args.value("--note")
    edit.addTags = args.all("--tag")
    edit.removeTags = args.all("--untag")
    if let text = args.value("--color") {
        guard let color = Settings.normalizedColor(text) else { throw UsageError("--color expects #RRGGBB, got '\(text)'", command: "edit") }
        edit.color = color
    }
    _ = try dateOption(args)
    let lat = try args.double("--lat", range: -90...90), lon = try args.double("--lon", range: -180...180)
    switch (lat, lon) {
    case let (lat?, lon?): edit.coordinate = Coordinate(latitude: lat, longitude: lon)
    case (nil, nil): break
    default: throw UsageError("--lat and --lon go together", command: "edit")
    }
    if let text = args.value("--type") {
        guard let type = LocationTypeSelection(rawValue: text) else {
            throw UsageError("--type must be \(LocationTypeSelection.spoken()), got '\(text)'", command: "edit")
        }
        edit.type = type
    }
    if let name = args.value("--name") {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw UsageError("--name must not be empty", command: "edit") }
        edit.name = name
    }
    edit.fields = try visitFieldOptions(args)
    edit.visitCount = try args.int("--visits", range: 1...1_000_000)
    if args.has("--visited") && args.has("--wanted") { throw UsageError("--visited and --wanted exclude each other", command: "edit") }
    if args.has("--visited") { edit.wanted = false }
    if args.has("--wanted") { edit.wanted = true }
    guard !edit.isEmpty || args.value("--date") != nil else { throw UsageError("nothing to change: give at least one option", command: "edit") }
    return edit
}

// MARK: show

let showSpec = CommandSpec(
    name: "show", summary: "Show one pin with everything: place, date, tags, the photos it came from and their run.",
    usage: "show ID [--json]", options: [dbOption, jsonOption],
    details: """
        ID is a pin id or a unique prefix of one.

        Example:
          pins show 0f601b8a
        """)

func runShow(_ args: ParsedArguments) throws {
    guard args.positionals.count == 1 else { throw UsageError("show takes exactly one pin id", command: "show") }
    let detail = try AppDependencies(databaseOption: args.value("--db")).app.pinDetail(args.positionals[0])
    let (pin, photos, countryName) = (detail.pin, detail.photos, detail.countryName)
    if args.has("--json") {
        var object = locationJSON(pin)
        object["trip"] = detail.trip
        object["countryName"] = orNull(countryName)
        object["editedAt"] = orNull(pin.editedAt.map { ISO8601.format($0) })
        object["photoCount"] = photos.count
        object["photos"] = photos.map { photo -> [String: Any] in
            ["path": photo.path.description, "takenAt": orNull(photo.takenAt.map { ISO8601.format($0, offsetSeconds: photo.utcOffsetSeconds) }),
             "timeSource": orNull(photo.timeSource?.rawValue), "run": orNull(photo.runID), "missing": photo.missing,
             "detail": orNull(photo.detail)]
        }
        Out.print(Out.json(object))
        return
    }
    Out.print(pinText(detail))
}

/// A pin as `pins show` prints it (and `pins add` after making it): one "name  value" row each.
func pinText(_ detail: PinDetail) -> String {
    let (pin, countryName) = (detail.pin, detail.countryName)
    var rows: [(String, String)] = [
        ("id", pin.id.lowercasedText), ("title", TerminalText.escaped(pin.title)),
        ("position", pin.coordinate.description),
        ("country", pin.countryID.map { "\(TerminalText.escaped(countryName ?? $0)) (\(TerminalText.escaped($0)))" } ?? "- (at sea or unknown)"),
    ]
    if let place = pin.place { rows.append(("place", TerminalText.escaped(place))) }
    if let region = pin.region { rows.append(("region", TerminalText.escaped(region + (pin.regionCode.map { " (\($0))" } ?? "")))) }
    rows += [("date", pinDateText(pin)), ("type", pin.type.selection.rawValue)]
    switch pin.type {
    case .point: break
    case let .city(visit):
        rows.append(("city", TerminalText.escaped(visit.cityName)))
        if let address = visit.address { rows.append(("address", TerminalText.escaped(address))) }
    case let .mountain(visit):
        rows.append(("mountain", TerminalText.escaped(visit.mountainName) + (visit.height.map { ", \(formatNumber($0)) m" } ?? "")))
        if let achieved = visit.achievedHeight { rows.append(("achieved", "\(formatNumber(achieved)) m")) }
    }
    rows += [("color", pin.color), ("visits", String(pin.visitCount) + (pin.visitsByHand ? " (set by hand)" : ""))]
    if let note = pin.note { rows.append(("note", TerminalText.escaped(note))) }
    if let tags = pin.tags, !tags.isEmpty { rows.append(("tags", tags.map(TerminalText.escaped).joined(separator: ", "))) }
    if pin.wanted { rows.append(("wanted", "yes: a place to go, not a visit ('pins edit \(pin.id.lowercasedText.prefix(8)) --visited' when you have been)")) }
    rows.append(("source", pinSource(pin, importedFrom: detail.importedFrom)))
    if let edited = pin.editedAt { rows.append(("edited", ISO8601.format(edited))) }
    rows += photoRows(detail)
    let width = rows.map(\.0.count).max() ?? 0
    return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n")
}

/// How many photos `pins show` lists by path; `--json` lists them all.
let shownPhotoPaths = 5

/// A pin's photos in `pins show`: how many, the first and last capture dates (each in its
/// photo's own offset), the first `shownPhotoPaths` by time, and how many more there are.
func photoRows(_ detail: PinDetail) -> [(String, String)] {
    let photos = detail.photos
    guard !photos.isEmpty else { return [] }
    var summary = String(photos.count)
    let dated = photos.filter { $0.takenAt != nil } // by time: the first and last are the ends
    if let first = dated.first, let last = dated.last {
        summary += ", " + ISO8601.format(first.takenAt!, offsetSeconds: first.utcOffsetSeconds)
        if dated.count > 1 { summary += " to " + ISO8601.format(last.takenAt!, offsetSeconds: last.utcOffsetSeconds) }
    }
    var rows = [("photos", summary)]
    for photo in photos.prefix(shownPhotoPaths) {
        var line = TerminalText.quoted(photo.path)
        if let run = photo.runID { line += " (run \(run))" }
        if photo.missing { line += " [missing]" }
        if let detail = photo.detail { line += ": " + TerminalText.escaped(detail) }
        rows.append(("photo", line))
    }
    if photos.count > shownPhotoPaths { rows.append(("", "and \(photos.count - shownPhotoPaths) more (pins show --json lists them all)")) }
    return rows
}

/// Who made the pin, for `show`: the photo import, an import-places run (with its files, as
/// `pins runs` lists them), or a person.
private func pinSource(_ pin: Location, importedFrom: String?) -> String {
    if let run = pin.runID, let files = importedFrom {
        return "imported from \(TerminalText.escaped(files)) (run \(run))"
    }
    return pin.photoIDs.isEmpty ? "made by hand" : "import"
}

/// A number without a needless ".0".
func formatNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
}

// MARK: the shared objects (cities, mountains)

/// `pins <plural>` of each shared-object type, in the registry's order.
@MainActor
let sharedPlacesCommands: [Command] = LocationTypeSelection.sharedTypes.map { type in
    Command(spec: sharedPlacesSpec(type), run: { try runSharedPlaces(type, $0) })
}

/// "The shared cities your city pins point at, with their pin counts."; the columns it lists
/// besides the name, the coordinate and the count are the shared object's (`OwnColumn.listing`).
func sharedPlacesSpec(_ type: LocationTypeSelection) -> CommandSpec {
    let listed = type.ownColumns.compactMap(\.listing).map(\.plural)
    let counts = listed.isEmpty ? "their pin counts" : (listed + ["pin counts"]).joined(separator: " and ")
    return CommandSpec(
        name: type.plural, summary: "The shared \(type.plural) your \(type.rawValue) pins point at, with \(counts).",
        usage: "\(type.plural) [--json]", options: [dbOption, jsonOption],
        details: "Example:\n  " + (type.shared?.listingExample ?? ""))
}

func runSharedPlaces(_ type: LocationTypeSelection, _ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: type.plural) }
    let places = try AppDependencies(databaseOption: args.value("--db")).app.sharedPlaces(of: type)
    printSharedPlaces(args, type, places)
}

/// The listed own columns' values of `place`, each with its listing.
private func listedValues(_ place: any SharedPlace, _ columns: [OwnColumn]) -> [(listing: OwnColumn.Listing, value: ColumnValue)] {
    zip(columns, place.ownValues).compactMap { column, value in column.listing.map { ($0, value) } }
}

private func printSharedPlaces(_ args: ParsedArguments, _ type: LocationTypeSelection, _ places: [any SharedPlace]) {
    let columns = type.ownColumns
    if args.has("--json") {
        Out.print(Out.json(places.map { place -> [String: Any] in
            var object: [String: Any] = ["id": place.id.lowercasedText, "name": place.name,
                                         "latitude": place.coordinate.latitude, "longitude": place.coordinate.longitude,
                                         "pinCount": place.pinCount]
            for (listing, value) in listedValues(place, columns) {
                switch value {
                case let .integer(v): object[listing.key] = orNull(v)
                case let .real(v): object[listing.key] = orNull(v)
                }
            }
            return object
        }))
        return
    }
    if places.isEmpty {
        Out.print("No \(type.plural).")
        return
    }
    let header = ["NAME"] + columns.compactMap { $0.listing?.key.uppercased() } + ["LATITUDE", "LONGITUDE", "PINS"]
    let rows = places.map { place -> [String] in
        let own = listedValues(place, columns).map { listing, value -> String in
            switch value {
            case let .integer(v): v.map { String($0) + listing.unit } ?? "-"
            case let .real(v): v.map { formatNumber($0) + listing.unit } ?? "-"
            }
        }
        return [TerminalText.escaped(place.name)] + own
            + [formatDegrees(place.coordinate.latitude), formatDegrees(place.coordinate.longitude), String(place.pinCount)]
    }
    // The name, free text, goes last so a long one does not push the numbers apart.
    let reordered = ([header] + rows).map { Array($0.dropFirst()) + [$0[0]] }
    Out.print(Out.table(reordered[0], Array(reordered.dropFirst())))
    Out.print("\(places.count) \(places.count == 1 ? type.rawValue : type.plural)")
}

// MARK: settings

let settingsSpec = CommandSpec(
    name: "settings", summary: "Show or change the app's settings: pin colour, map fill colour, map style, country list.",
    usage: "settings [--pin-color HEX] [--fill-color HEX] [--map-style light|dark|print] [--country-list iso|un] [--json]",
    options: [
        OptionSpec(name: "--pin-color", value: "HEX", help: "Colour of new pins, #RRGGBB."),
        OptionSpec(name: "--fill-color", value: "HEX", help: "Fill colour of visited countries on the map, #RRGGBB."),
        OptionSpec(name: "--map-style", value: "STYLE", help: "Map palette: light, dark or print.", choices: Settings.MapStyle.allCases.map(\.rawValue)),
        OptionSpec(name: "--country-list", value: "LIST", help: "What the share of countries visited counts: iso (ISO 3166-1, 249) or un (UN members, 193).",
                   choices: CountryList.allCases.map(\.rawValue)),
        OptionSpec(name: "--home", value: "NAME", help: "Home for 'pins trips': the place of your pins called NAME."),
        OptionSpec(name: "--home-lat", value: "LAT", help: "Home for 'pins trips', with --home-lon."),
        OptionSpec(name: "--home-lon", value: "LON", help: "Home for 'pins trips', with --home-lat."),
        OptionSpec(name: "--no-home", value: nil, help: "Find home from your pins and photos again (the default)."),
        dbOption, jsonOption,
    ],
    details: """
        Without options, prints the settings. New pins, made by hand or by an import, take the pin colour;
        existing pins keep theirs.

        Examples:
          pins settings
          pins settings --pin-color "#1E88E5" --map-style dark
        """)

func runSettings(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "settings") }
    func color(_ name: String) throws -> String? {
        guard let text = args.value(name) else { return nil }
        guard let color = Settings.normalizedColor(text) else { throw UsageError("\(name) expects #RRGGBB, got '\(text)'", command: "settings") }
        return color
    }
    let pinColor = try color("--pin-color"), fillColor = try color("--fill-color")
    var style: Settings.MapStyle?
    if let text = args.value("--map-style") {
        guard let parsed = Settings.MapStyle(rawValue: text) else {
            throw UsageError("--map-style must be one of \(Settings.MapStyle.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'", command: "settings")
        }
        style = parsed
    }
    var change = SettingsChange()
    (change.pinColor, change.fillColor, change.mapStyle) = (pinColor, fillColor, style)
    if let text = args.value("--country-list") {
        guard let list = CountryList(rawValue: text) else {
            throw UsageError("--country-list must be iso or un, got '\(text)'", command: "settings")
        }
        change.countryList = list
    }
    try homeSetting(args, into: &change)
    let answer = try AppDependencies(databaseOption: args.value("--db")).app.settings(change)
    let (settings, setHome) = (answer.settings, answer.home)
    if args.has("--json") {
        var object: [String: Any] = ["pinColor": settings.defaultPinColor, "fillColor": settings.mapFillColor, "mapStyle": settings.mapStyle.rawValue,
                                     "countryList": settings.countryList.rawValue]
        if let setHome { object["home"] = ["latitude": setHome.latitude, "longitude": setHome.longitude] }
        Out.print(Out.json(object))
    } else {
        Out.print("pin color   \(settings.defaultPinColor)\nfill color  \(settings.mapFillColor)\nmap style   \(settings.mapStyle.rawValue)"
                  + "\ncountries   \(settings.countryList.rawValue) (\(settings.countryList.title))"
                  + (setHome.map { "\nhome        \(formatDegrees($0.latitude)),\(formatDegrees($0.longitude))" } ?? ""))
    }
}
