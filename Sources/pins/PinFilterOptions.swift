import Foundation
import PinCore
import PinApp

/// The filters `pins list` and `pins export` share, declared once for their help and parsing.
let pinFilterOptions: [OptionSpec] = [
    OptionSpec(name: "--search", value: "TEXT", help: "Title, place, region, note, tags or \(LocationTypeSelection.sharedTypes.map(\.rawValue).joined(separator: "/")) name contain TEXT (any case, accents ignored)."),
    OptionSpec(name: "--country", value: "CC", help: "Only pins in this country (ISO 3166-1 alpha-2, e.g. FR); repeat for more.", repeatable: true),
    OptionSpec(name: "--continent", value: "NAME", help: "Only pins on this continent (e.g. Europe, \"North America\"); repeat for more.", repeatable: true),
    OptionSpec(name: "--region", value: "NAME", help: "Only pins in this region (a state, a prefecture), by name or ISO 3166-2 code (e.g. JP-26); repeat for more.", repeatable: true),
    OptionSpec(name: "--place", value: "NAME", help: "Only pins in this town or city (its whole name, any case, accents ignored); repeat for more.", repeatable: true),
    OptionSpec(name: "--type", value: "TYPE", help: "Only pins of this type: \(LocationTypeSelection.spoken()); repeat for more.", repeatable: true,
               choices: LocationTypeSelection.allCases.map(\.rawValue)),
    OptionSpec(name: "--tag", value: "T", help: "Only pins with this tag; repeat to require more tags.", repeatable: true),
    OptionSpec(name: "--since", value: "DATE", help: "Only pins dated at or after DATE (ISO 8601, e.g. 2023-07-01)."),
    OptionSpec(name: "--until", value: "DATE", help: "Only pins dated before DATE; a plain day includes that whole day."),
    OptionSpec(name: "--near", value: "LAT,LON", help: "With --within: only pins near this point."),
    OptionSpec(name: "--within", value: "KM", help: "Distance from --near in kilometres."),
    OptionSpec(name: "--source", value: "SOURCE", help: "import (made from photos), places (by import-places) or manual (made by hand).",
               choices: ["import", "places", "manual"]),
    OptionSpec(name: "--wanted", value: nil, help: "Only places you want to go (Saved Places, import-places --wanted), not visited yet."),
    OptionSpec(name: "--visited", value: nil, help: "Only places you have been (every pin but the wanted ones)."),
    OptionSpec(name: "--run", value: "N", help: "Only pins import run N created (see 'pins runs')."),
    OptionSpec(name: "--trip", value: "ID", help: "Only the pins of trip ID, its first day (see 'pins trips')."),
    OptionSpec(name: "--sort", value: "KEY", help: "date (default), title, country, distance (from --near) or visits (most first); -KEY reverses.",
               choices: ["date", "title", "country", "distance", "visits", "-date", "-title", "-country", "-distance", "-visits"]),
    OptionSpec(name: "--limit", value: "N", help: "At most N pins."),
]

/// Reads the filter options; usage errors name the option.
func pinFilter(from args: ParsedArguments) throws -> PinFilter {
    let command = args.command
    var filter = PinFilter()
    filter.search = args.value("--search")
    filter.countries = try filterCountries(args)
    filter.continents = args.all("--continent")
    filter.regions = args.all("--region")
    filter.places = args.all("--place")
    for text in args.all("--type") {
        guard let type = LocationTypeSelection(rawValue: text.lowercased()) else {
            throw UsageError("--type must be \(LocationTypeSelection.spoken()), got '\(text)'", command: command)
        }
        filter.types.insert(type)
    }
    filter.tags = args.all("--tag")
    filter.since = try filterDate(args, "--since", endOfDay: false)
    filter.until = try filterDate(args, "--until", endOfDay: true)
    if let (point, km) = try filterNear(args) {
        filter.near = point
        filter.withinKm = km
    }
    if let text = args.value("--source") {
        guard let source = PinFilter.Source(rawValue: text) else {
            throw UsageError("--source must be import, places or manual, got '\(text)'", command: command)
        }
        filter.source = source
    }
    if args.has("--wanted") && args.has("--visited") { throw UsageError("--wanted and --visited exclude each other", command: command) }
    if args.has("--wanted") { filter.wanted = true }
    if args.has("--visited") { filter.wanted = false }
    filter.runID = try args.int("--run", range: 1...Int(Int32.max)).map(Int64.init)
    if let trip = args.value("--trip") {
        guard LocalDay(text: trip) != nil else {
            throw UsageError("--trip expects a trip's id, its first day such as 2024-04-03 (see 'pins trips'), got '\(trip)'", command: command)
        }
        filter.trip = trip
    }
    try filterSort(args, into: &filter)
    filter.limit = try args.int("--limit", range: 1...Int(Int32.max))
    return filter
}

/// --country codes (a name gets "did you mean"), each one pins knows; --continent names,
/// each one of the catalog's.
private func filterCountries(_ args: ParsedArguments) throws -> Set<String> {
    let command = args.command
    var countries = Set<String>()
    for text in args.all("--country") {
        let code = text.uppercased()
        guard code.count == 2, code.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            // A country's name for its code: "did you mean --country FR (France)?".
            let named = (try? filterCatalog())?.entries.values.first { PinFilter.fold($0.name) == PinFilter.fold(text) || $0.alpha3 == code }
            throw UsageError("--country expects a two-letter ISO code such as FR, got '\(text)'"
                             + (named.map { "; did you mean --country \($0.alpha2) (\($0.name))?" } ?? ""), command: command)
        }
        countries.insert(code)
    }
    guard !countries.isEmpty || !args.all("--continent").isEmpty else { return countries }
    let catalog = try filterCatalog()
    for code in countries.sorted() where catalog[code] == nil {
        throw UsageError("--country \(code) is not a country code pins knows; the codes:\n"
                         + wrapped(catalog.entries.keys.sorted(), width: 78, indent: "  "), command: command)
    }
    let continents = Set(catalog.entries.values.map(\.continent)).sorted()
    for text in args.all("--continent") where !continents.contains(where: { PinFilter.fold($0) == PinFilter.fold(text) }) {
        throw UsageError("--continent '\(text)' is not a continent; the continents:\n  "
                         + continents.joined(separator: ", "), command: command)
    }
    return countries
}

/// --near LAT,LON with its --within KM (each needs the other).
private func filterNear(_ args: ParsedArguments) throws -> (Coordinate, Double)? {
    let command = args.command
    guard let text = args.value("--near") else {
        if args.value("--within") != nil { throw UsageError("--within needs --near LAT,LON", command: command) }
        return nil
    }
    guard let point = LatLonText.parse(text) else {
        throw UsageError("--near expects LAT,LON such as 48.85,2.35, got '\(text)'", command: command)
    }
    guard let km = try args.double("--within", range: 0...20_100) else {
        throw UsageError("--near needs --within KM", command: command)
    }
    return (point, km)
}

/// --sort FIELD or -FIELD (descending); distance needs --near.
private func filterSort(_ args: ParsedArguments, into filter: inout PinFilter) throws {
    guard var text = args.value("--sort") else { return }
    if text.hasPrefix("-") { filter.descending = true; text.removeFirst() }
    guard let sort = PinFilter.Sort(rawValue: text) else {
        throw UsageError("--sort must be date, title, country, distance or visits, got '\(args.value("--sort")!)'", command: args.command)
    }
    if sort == .distance, filter.near == nil { throw UsageError("--sort distance needs --near LAT,LON", command: args.command) }
    filter.sort = sort
}

/// The country catalog, for checking --country and --continent before any database is read.
private func filterCatalog() throws -> CountryCatalog {
    try PinApp.loadCatalog()
}

/// Words in lines of at most `width` characters, each line indented.
func wrapped(_ words: [String], width: Int, indent: String) -> String {
    var lines: [String] = []
    var line = indent
    for word in words {
        if line.count > indent.count, line.count + 1 + word.count > width {
            lines.append(line)
            line = indent
        }
        line += (line.count > indent.count ? " " : "") + word
    }
    if line.count > indent.count { lines.append(line) }
    return lines.joined(separator: "\n")
}

/// A date option: ISO 8601, read in the machine's zone when it has no offset; a plain day as
/// an upper bound means the end of that day.
private func filterDate(_ args: ParsedArguments, _ name: String, endOfDay: Bool) throws -> Date? {
    guard let text = args.value(name) else { return nil }
    guard let parsed = ISO8601.parse(text, defaultZone: .current) else {
        throw UsageError("\(name) expects ISO 8601 such as 2024-05-01 or 2024-05-01T10:00:00+02:00, got '\(text)'", command: args.command)
    }
    let plainDay = text.trimmingCharacters(in: .whitespaces).count == 10
    guard endOfDay, plainDay else { return parsed.date }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .current
    return calendar.date(byAdding: .day, value: 1, to: parsed.date)
}
