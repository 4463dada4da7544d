import Foundation
import PinCore
import PinImport
import PinReport
import PinStore

// MARK: report

let reportSpec = CommandSpec(
    name: "report", summary: "Write the map page: one offline HTML file of the pins, countries and statistics.",
    usage: "report [--out FILE] [--title T] [--no-thumbnails] [the filters of list]",
    options: [
        OptionSpec(name: "--out", value: "FILE", help: "The page to write (default: pins-map.html; - is stdout); replaced atomically."),
        OptionSpec(name: "--title", value: "T", help: "The page's title (default: pins)."),
        OptionSpec(name: "--no-thumbnails", value: nil, help: "Leave out the photos' EXIF thumbnails (shown for photos still where their pins say)."),
    ] + pinFilterOptions + [dbOption],
    details: """
    The page opens from disk in any current browser, with no network and no server: the map with
    the visited countries filled, the pins (grouped when zoomed out), their details on a click, a
    searchable list with filters, and the statistics. Other tools can read its data: the element
    <script id="pins-data"> holds the objects of 'pins list --json' (with the same filters).
    """)

func runReport(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "report") }
    let filter = try pinFilter(from: args)
    let out = args.path("--out") ?? RawPath("pins-map.html")
    guard !out.bytes.isEmpty else { throw UsageError("--out needs a file name", command: "report") }
    let deps = try AppDependencies(databaseOption: args.value("--db"))
    // The filters as they were typed, for the page's header.
    let described = pinFilterOptions.flatMap { option in
        option.value == nil ? (args.has(option.name) ? [option.name] : []) : args.all(option.name).map { "\(option.name) \($0)" }
    }.joined(separator: " ")
    let input = try pageInput(deps: deps, locations: try filteredPins(filter, deps: deps), title: args.value("--title") ?? "pins",
                              filterDescription: described.isEmpty ? nil : described, thumbnails: !args.has("--no-thumbnails"))
    try writeOutput(to: out) { $0.write(PageRenderer.render(input)) }
    // With `--out -` standard output is the page.
    if !out.goesToStandardOutput {
        Out.print("Wrote \(TerminalText.quoted(out)): \(input.pins.count) pin\(input.pins.count == 1 ? "" : "s")")
    }
}

/// Everything the page shows, read from the database (an absent database is an empty map).
func pageInput(deps: AppDependencies, locations: [Location]? = nil, title: String, filterDescription: String?,
               run: RunOverlay? = nil, thumbnails: Bool = true) throws -> PageInput {
    let worldMap: WorldMap
    do {
        worldMap = try WorldMap(json: try AppDependencies.data().read("WorldMap.json"))
    } catch let error as WorldMap.LoadError {
        throw CommandFailure(error.description)
    }
    let stored = try StoredPage(deps, allPins: locations == nil)
    let locations = locations ?? stored.locations
    let catalog = try deps.catalog()
    var pins = pagePins(locations, places: stored.places, trips: stored.trips, catalog: catalog)
    if thumbnails { PageThumbnails.attach(to: &pins, places: stored.places) }
    var input = PageInput(title: title, pins: pins, catalog: catalog, settings: stored.settings, worldMap: worldMap,
                          filterDescription: filterDescription, run: run)
    input.importedFolders = stored.folders
    input.trips = stored.trips
    // The names of the larger places of the visited countries, and their region counts.
    // (A run's page names the places of the countries its new pins are in too: a first dry run
    // has no pins yet.)
    let visited = Set(locations.compactMap(\.countryID) + (run?.created.compactMap(\.country) ?? [])).sorted()
    addPlaceLabels(&input, countries: visited, deps: deps)
    return input
}

/// What the page reads from the database: nothing when there is none.
private struct StoredPage {
    var settings = Settings()
    var places: [UUID: PinPhotoPlace] = [:]
    var locations: [Location] = []
    /// As text the way photo ids write paths, so the page finds each photo below its folder.
    var folders: [String] = []
    var trips: [Trip] = []

    /// `allPins`: read every pin too (the page of the whole database).
    init(_ deps: AppDependencies, allPins: Bool) throws {
        guard let db = try deps.existingDatabaseForReading() else { return }
        trips = try findTrips(db, catalog: try deps.catalog()).trips
        (locations, settings) = try db.read { (allPins ? try $0.locations.fetchAll(countryID: nil) : [], try $0.settings.load()) }
        places = try db.photoPlaces()
        folders = try db.importedFolders().map { RawPath($0).description }
    }
}

/// The page's pins: each one's list JSON (with its trip, without its place keys: the page
/// gives them once per distinct place, `pins-places`; without a title that is the one the page
/// makes from them, `PageRenderer.madeTitle`), offset and photo.
private func pagePins(_ locations: [Location], places: [UUID: PinPhotoPlace], trips: [Trip], catalog: CountryCatalog) -> [PagePin] {
    let tripOfPin = tripOf(trips)
    return locations.map { location -> PagePin in
        let place = places[location.id]
        var object = locationJSON(location)
        object["trip"] = tripOfPin[location.id]
        for key in PageRenderer.placeKeys { object[key] = nil }
        // page-data's names (the catalog's, else the code; page.js takes an empty name as none).
        let countryName = location.countryID.map { code in catalog[code].map(\.name).flatMap { $0.isEmpty ? nil : $0 } ?? code }
        if location.title == PageRenderer.madeTitle(place: location.place, region: location.region, countryName: countryName) {
            object["title"] = nil
        }
        return PagePin(location: location, listJSON: Out.json(object),
                       utcOffsetSeconds: location.utcOffsetSeconds ?? place?.utcOffsetSeconds,
                       photoPath: place?.relativePath.description)
    }
}


/// The names of the larger places of `countries`, their region counts and the borders between
/// their regions where outlines exist (DCW-GMT). Without a readable
/// Places.bin the page names no places (a warning says why); nothing else is lost.
private func addPlaceLabels(_ input: inout PageInput, countries: [String], deps: AppDependencies) {
    guard !countries.isEmpty else { return }
    do { try deps.places.prepare() } catch {
        Out.error("pins: warning: \(error); the map names no places")
        return
    }
    var labels: [Place] = []
    for code in countries {
        labels += deps.places.largestPlaces(of: code, limit: PageRenderer.labelsPerCountry)
        input.regionCounts[code] = deps.places.regions(of: code).count
        let borders = deps.places.borderLines(of: code)
        if !borders.isEmpty { input.regionBorders[code] = borders }
    }
    input.labelPlaces = Array(labels.sorted { ($0.population, $1.id) > ($1.population, $0.id) }.prefix(PageRenderer.labelsPerPage))
}

// MARK: import --html

/// `pins import --html FILE`: the page of the database with the run drawn over it.
func writeRunPage(_ report: ImportReport, to path: RawPath, deps: AppDependencies) throws {
    let input = try pageInput(deps: deps, title: "pins: " + (report.dryRun ? "dry run of " : "import of ") + report.root,
                              filterDescription: nil, run: report.runOverlay)
    try writeOutput(to: path) { $0.write(PageRenderer.render(input)) }
}
