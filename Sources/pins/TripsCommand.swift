import Foundation
import PinCore
import PinApp

let tripsSpec = CommandSpec(
    name: "trips", summary: "The journeys in your pins and photos: home, trips, days per country.",
    usage: "trips [--json] [--year Y] | trips rename ID NAME | trips rename ID --clear",
    options: [
        jsonOption,
        OptionSpec(name: "--year", value: "Y", help: "Only the trips that touch year Y, and Y's statistics."),
        OptionSpec(name: "--clear", value: nil, help: "With 'rename': the trip's own title again."),
        dbOption,
    ],
    details: """
        Home is the place where you spent the most days, month by month (a move gives a second
        home), unless you set it with 'pins settings --home NAME' or --home-lat/--home-lon. A day
        is away when one of its pins or photos is more than 50 km from home; a trip is a run of
        away days that may hold up to two days at home or without photos, at least two away days
        long (README "Trips"). A trip's id is its first day; 'pins list --trip ID' lists its pins.

        Examples:
          pins trips --year 2024
          pins trips rename 2024-04-03 "Japan with Mia"
          pins settings --home-lat 47.3769 --home-lon 8.5417
        """)

func runTrips(_ args: ParsedArguments) throws {
    let deps = try AppDependencies(databaseOption: args.value("--db"))
    switch args.positionals.first {
    case "rename"?: try renameTrip(args, deps: deps)
    case nil: try printTrips(args, deps: deps)
    case let other?: throw UsageError("unknown 'trips \(other)': expected rename, or no argument", command: "trips")
    }
}

private func printTrips(_ args: ParsedArguments, deps: AppDependencies) throws {
    let year = try args.int("--year", range: 1900...9999)
    let catalog = try deps.app.catalog()
    let timeline = try deps.app.trips()
    let trips = timeline.trips.filter { trip in year.map { trip.start.date.year <= $0 && trip.end.date.year >= $0 } ?? true }
    if args.has("--json") {
        Out.print(Out.json(TripJSON.document(timeline, trips: trips, year: year)))
        return
    }
    Out.print(TripText.render(timeline, trips: trips, year: year, catalog: catalog))
}

private func renameTrip(_ args: ParsedArguments, deps: AppDependencies) throws {
    let rest = Array(args.positionals.dropFirst())
    let clearing = args.has("--clear")
    guard rest.count == (clearing ? 1 : 2) else {
        throw UsageError(clearing ? "trips rename ID --clear takes the trip's id only" : "trips rename expects ID NAME", command: "trips")
    }
    let name = clearing ? nil : rest[1].trimmingCharacters(in: .whitespacesAndNewlines)
    if let name, name.isEmpty { throw UsageError("a trip's name must not be empty", command: "trips") }
    let trip = try deps.app.renameTrip(rest[0], to: name)
    Out.print(name.map { "Trip \(trip.id) is now \(TerminalText.escaped($0))" } ?? "Trip \(trip.id) has its own title again")
}

/// The home `pins settings` is asked to set: --no-home, --home-lat/--home-lon, or --home NAME
/// (the centre of the pins in the place called NAME: `PinApp.home(named:)`).
func homeSetting(_ args: ParsedArguments, into change: inout SettingsChange) throws {
    let lat = try args.double("--home-lat", range: -90...90), lon = try args.double("--home-lon", range: -180...180)
    let given = [args.value("--home") != nil, lat != nil || lon != nil, args.has("--no-home")].filter { $0 }.count
    guard given <= 1 else { throw UsageError("--home, --home-lat/--home-lon and --no-home exclude each other", command: "settings") }
    if args.has("--no-home") {
        change.home = .some(nil)
    } else if lat != nil || lon != nil {
        guard let lat, let lon else { throw UsageError("--home-lat and --home-lon go together", command: "settings") }
        change.home = .some(Coordinate(latitude: lat, longitude: lon))
    } else {
        change.homeNamed = args.value("--home")
    }
}

/// The `pins trips --json` document.
enum TripJSON {
    static func document(_ timeline: TripTimeline, trips: [Trip], year: Int?) -> [String: Any] {
        var document: [String: Any] = [
            "homes": timeline.homes.map(home),
            "trips": trips.map(trip),
            "statistics": statistics(timeline, trips: trips, year: year),
        ]
        if !timeline.outOfRange.isEmpty {
            document["outOfRange"] = timeline.outOfRange.map { point -> [String: Any] in
                var o: [String: Any] = ["date": ISO8601.format(point.instant, offsetSeconds: point.utcOffsetSeconds),
                                        "latitude": point.coordinate.latitude, "longitude": point.coordinate.longitude]
                if let id = point.pinID { o["pin"] = id.lowercasedText }
                if let path = point.photoPath { o["photo"] = path.description }
                return o
            }
        }
        return document
    }

    static func home(_ home: HomePeriod) -> [String: Any] {
        var o: [String: Any] = ["from": home.from.description, "to": home.to.description,
                                "latitude": home.centre.latitude, "longitude": home.centre.longitude, "set": home.isSet]
        if let c = home.country { o["country"] = c }
        if let p = home.place { o["place"] = p }
        return o
    }

    static func trip(_ trip: Trip) -> [String: Any] {
        ["id": trip.id, "start": trip.start.description, "end": trip.end.description, "days": trip.days,
         "awayDays": trip.awayDays, "title": trip.title, "renamed": trip.renamed, "countries": trip.countries,
         "newCountries": trip.newCountries, "places": trip.places, "pinCount": trip.pinIDs.count,
         "pins": trip.pinIDs.map { $0.lowercasedText }, "daysByCountry": trip.daysByCountry]
    }

    static func statistics(_ timeline: TripTimeline, trips: [Trip], year: Int?) -> [String: Any] {
        let keep: (Int) -> Bool = { y in year.map { $0 == y } ?? true }
        func byYear(_ counts: [Int: Int]) -> [String: Int] {
            Dictionary(uniqueKeysWithValues: counts.filter { keep($0.key) }.map { (String($0.key), $0.value) })
        }
        var perCountry: [String: [String: Int]] = [:]
        for (country, years) in timeline.daysByCountryAndYear {
            let kept = byYear(years)
            if !kept.isEmpty { perCountry[country] = kept }
        }
        var o: [String: Any] = ["days": byYear(timeline.daysByYear), "daysAbroad": byYear(timeline.daysAbroadByYear),
                                "daysByCountry": perCountry, "tripCount": trips.count]
        if let longest = TripText.longest(trips) { o["longestTrip"] = longest.id }
        return o
    }
}

/// The `pins trips` text: home, one line per trip, then the statistics.
enum TripText {
    static func longest(_ trips: [Trip]) -> Trip? {
        trips.max { ($0.days, -$0.start.number) < ($1.days, -$1.start.number) }
    }

    static func render(_ timeline: TripTimeline, trips: [Trip], year: Int?, catalog: CountryCatalog) -> String {
        var lines: [String] = []
        for home in timeline.homes {
            let name = [home.place, home.country.map { catalog[$0]?.name ?? $0 }].compactMap { $0 }.map(TerminalText.escaped).joined(separator: ", ")
            let at = "\(formatDegrees(home.centre.latitude)),\(formatDegrees(home.centre.longitude))"
            lines.append("Home\(home.isSet ? " (set)" : ""): \(name.isEmpty ? at : "\(name) (\(at))"), \(home.from) to \(home.to)")
        }
        if trips.isEmpty {
            lines.append(timeline.homes.isEmpty ? "No pins, so no trips." : "No trips\(year.map { " in \($0)" } ?? "").")
        } else {
            let rows = trips.map { trip -> [String] in
                let places = trip.places.prefix(4).joined(separator: ", ") + (trip.places.count > 4 ? ", …" : "")
                return [trip.id, trip.end.description, "\(trip.days)", "\(trip.pinIDs.count)", TerminalText.escaped(trip.title),
                        TerminalText.escaped(places)]
            }
            lines.append("")
            lines.append(Out.table(["START", "END", "DAYS", "PINS", "TRIP", "PLACES"], rows))
            lines.append("\(trips.count) trip\(trips.count == 1 ? "" : "s")")
        }
        lines += statistics(timeline, trips: trips, year: year, catalog: catalog)
        for point in timeline.outOfRange.prefix(10) {
            lines.append("Left out (date before 1900 or in the future): \(ISO8601.format(point.instant, offsetSeconds: point.utcOffsetSeconds))"
                         + (point.pinID.map { " pin \($0.lowercasedText.prefix(8))" }
                            ?? " photo" + (point.photoPath.map { " " + TerminalText.quoted($0) } ?? "")))
        }
        return lines.joined(separator: "\n")
    }

    static func statistics(_ timeline: TripTimeline, trips: [Trip], year: Int?, catalog: CountryCatalog) -> [String] {
        let years = timeline.daysByYear.keys.sorted().filter { y in year.map { $0 == y } ?? true }
        guard !years.isEmpty else { return [] }
        var lines = ["", "Days away from home's country, per year:"]
        for y in years {
            var countries = timeline.daysByCountryAndYear.compactMap { c, byYear in byYear[y].map { (c, $0) } }
            countries.sort { ($0.1, $1.0) > ($1.1, $0.0) }
            let list = countries.prefix(6).map { "\(catalog[$0.0]?.name ?? $0.0) \($0.1)" }.joined(separator: ", ")
            lines.append("  \(y): \(timeline.daysAbroadByYear[y] ?? 0) of \(timeline.daysByYear[y] ?? 0) days with pins or photos"
                         + (list.isEmpty ? "" : " (\(list)\(countries.count > 6 ? ", …" : ""))"))
        }
        if let longest = longest(trips) {
            lines.append("Longest trip: \(TerminalText.escaped(longest.title)), \(longest.days) days from \(longest.id)")
        }
        let firsts = trips.filter { !$0.newCountries.isEmpty }
        if !firsts.isEmpty {
            lines.append("New countries: " + firsts.map { trip in
                trip.newCountries.map { catalog[$0]?.name ?? $0 }.joined(separator: ", ") + " (\(trip.id))"
            }.joined(separator: "; "))
        }
        return lines
    }
}
