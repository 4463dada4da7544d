import Foundation
import PinCore
import PinFormats
import PinImport
import PinReport
import PinStore

/// The use case of the map page: everything the page shows, as PinReport's plain `PageInput`.
extension PinApp {
    /// The page's input: `pins` (nil: every stored pin), with the countries, statistics, settings,
    /// trips, imported folders and place names read from the database (none: an empty map) and
    /// the data files; `run` draws an import's run over it; `thumbnails` attaches each pin's
    /// strip of photos and, with `embedPreviews`, the EXIF thumbnails of the photos still where
    /// their pins say; `embedPreviews` embeds the previews already made (a static page; the
    /// served page asks the server for each).
    ///
    /// `trips`: the database's trips as the caller found them (pins serve keeps them between
    /// changes); nil: found now.
    public func pageInput(pins locations: consuming [Location]? = nil, title: String, filterDescription: String?,
                          run: RunOverlay? = nil, thumbnails: Bool = true, embedPreviews: Bool = true,
                          trips known: StoredTrips? = nil, islandsOnly: Bool = false) throws -> PageInput {
        try pageInput(stored: (consume locations)?.map(StoredLocation.init), title: title, filterDescription: filterDescription,
                      run: run, thumbnails: thumbnails, embedPreviews: embedPreviews, trips: known, islandsOnly: islandsOnly)
    }

    /// `pageInput` of pins held by a caller that keeps them (pins serve's list): the page's pins
    /// are those, not copies.
    ///
    /// `islandsOnly`, for a caller that sends the data islands alone (`PageRenderer.writeIslandsJSON`:
    /// pins serve's map data, an import's page data): what only the page's drawing carries, the
    /// water at city zoom, the visited regions' outlines and the borders between regions, is
    /// left out. Made for nothing, it was the outlines of every visited region decoded and kept
    /// (8.7 MB at 100,000 pins) and Water.bin read at each map data.
    public func pageInput(stored locations: [StoredLocation]?, title: String, filterDescription: String?,
                          run: RunOverlay? = nil, thumbnails: Bool = true, embedPreviews: Bool = true,
                          trips known: StoredTrips? = nil, islandsOnly: Bool = false) throws -> PageInput {
        let worldMap: WorldMap
        do {
            worldMap = try WorldMap(json: try Self.data().worldMapJSON())
        } catch let error as WorldMap.LoadError {
            throw AppFailure(error.description)
        }
        let stored = try StoredPage(self, allPins: locations == nil, trips: known)
        let catalog = try catalog()
        // Each page pin holds the one given (or read), not a copy.
        var pins = Self.pagePins(locations ?? stored.locations.map(StoredLocation.init), places: stored.places,
                                 tripOf: known?.tripOf ?? Self.tripOf(stored.trips), catalog: catalog)
        if thumbnails {
            // The served page (no previews embedded) shows each pin's photos from the server's
            // previews, its strip: the photos' own EXIF thumbnails are the static page's. Read
            // for it, up to 600 photos were opened at every making of the map data, after every
            // change (325 of a 100,000-file library, random reads on a NAS's disks).
            if embedPreviews { PageThumbnails.attach(to: &pins, places: stored.places) }
            try attachStrips(to: &pins, embed: embedPreviews)
        }
        var input = PageInput(title: title, pins: pins, catalog: catalog, settings: stored.settings, worldMap: worldMap,
                              filterDescription: filterDescription, run: run)
        input.importedFolders = stored.folders
        input.trips = stored.trips
        // The names of the larger places of the visited countries, and their region counts.
        // (A run's page names the places of the countries its new pins are in too: a first dry run
        // has no pins yet.)
        let located = input.pins.lazy.map { $0.stored.location }
        let visited = Set(located.compactMap(\.countryID) + (run?.created.compactMap(\.country) ?? [])).sorted()
        let labelsKept = islandsOnly && keptPlaceLabels(&input, countries: visited)
        if !labelsKept, !visited.isEmpty {
            do {
                let placeData = try places.loadedOrOnce()
                addPlaceLabels(&input, countries: visited, places: placeData, borders: !islandsOnly)
                if !islandsOnly { addVisitedRegions(&input, locations: located, places: placeData) }
            } catch {
                warnings(AppWarning("\(error); the map names no places"))
            }
        }
        guard !islandsOnly else { return input }
        addWater(&input, points: located.map { ($0.coordinate, $0.countryID) }
                    + (run?.created.map { (Coordinate(latitude: $0.latitude, longitude: $0.longitude), $0.country) } ?? []))
        return input
    }

    /// The page's pins: each one's trip, whether its title is the one the page makes (its
    /// object in pins-data is written from these as the page is: `PagePin.dataJSON`), its offset
    /// and its photo.
    private static func pagePins(_ locations: [StoredLocation], places: [UUID: PinPhotoPlace], tripOf tripOfPin: TripOfPins,
                                 catalog: CountryCatalog) -> [PagePin] {
        // Made at its size at once (grown by doubling it was half as large again).
        var pins: [PagePin] = []
        pins.reserveCapacity(locations.count)
        for stored in locations {
            let location = stored.location
            let place = places[location.id]
            var pin = PagePin(stored: stored, utcOffsetSeconds: location.utcOffsetSeconds ?? place?.utcOffsetSeconds,
                              photoPath: place?.relativePath.description)
            pin.trip = tripOfPin[location.id]
            pin.titleIsMade = titleIsMade(location, catalog: catalog)
            pins.append(pin)
        }
        return pins
    }

    /// Whether the pin's title is the one the page makes from its place (then pins-data has none).
    private static func titleIsMade(_ location: Location, catalog: CountryCatalog) -> Bool {
        // page-data's names (the catalog's, else the code; page.js takes an empty name as none).
        let countryName = location.countryID.map { code in catalog[code].map(\.name).flatMap { $0.isEmpty ? nil : $0 } ?? code }
        return location.title == PageRenderer.madeTitle(place: location.place, region: location.region, countryName: countryName)
    }

    /// The water at city zoom where the pins are, within the page's budget (`PageWater`).
    /// Without a readable Water.bin the page draws none (a warning names the file); the
    /// countries are drawn as before.
    private func addWater(_ input: inout PageInput, points: [(Coordinate, String?)]) {
        guard !points.isEmpty else { return }
        do {
            input.water = try PageWater.nearPins(points, map: try Self.data().waterMap(), width: input.worldMap.width)
        } catch {
            warnings(AppWarning("\(error); the map draws no water at city zoom"))
        }
    }

    /// The outlines of the regions the pins (visits, not wanted places) are in, for the fill at
    /// region zoom; none without the outlines (the gazetteer's warning, above, says why).
    private func addVisitedRegions(_ input: inout PageInput, locations: some Sequence<Location>, places: any PlaceLocating) {
        guard let places = places as? OutlinedRegionPlaces else { return }
        var seen = Set<[String]>()
        for location in locations where !location.wanted {
            guard let country = location.countryID, let name = location.region else { continue }
            guard seen.insert([country, location.regionCode ?? "", name]).inserted else { continue }
            let units = places.regionUnits(countryCode: country, code: location.regionCode, name: name)
            if !units.isEmpty { input.visitedRegions[country, default: []] += units }
        }
    }

    /// The names of the larger places of `countries` and their region counts as made for the
    /// same countries the last time (`placeLabels`), when they were: the map data of pins serve
    /// after a change that moved no pin into another country.
    private func keptPlaceLabels(_ input: inout PageInput, countries: [String]) -> Bool {
        guard let kept = placeLabels.withLock({ $0 }), kept.countries == countries else { return false }
        input.labelPlaces = kept.labels
        input.regionCounts = kept.regionCounts
        return true
    }

    /// The names of the larger places of `countries`, their region counts and (`borders`) the
    /// borders between their regions where outlines exist (DCW-GMT). Without a readable
    /// Places.bin the page names no places (the caller's warning says why); nothing else is lost.
    private func addPlaceLabels(_ input: inout PageInput, countries: [String], places: any PlaceLocating, borders withBorders: Bool) {
        var labels: [Place] = []
        for code in countries {
            labels += places.largestPlaces(of: code, limit: PageRenderer.labelsPerCountry)
            input.regionCounts[code] = places.regions(of: code).count
            guard withBorders, let outlined = places as? OutlinedRegionPlaces else { continue }
            let borders = outlined.borderLines(of: code)
            if !borders.isEmpty { input.regionBorders[code] = borders }
        }
        input.labelPlaces = Array(labels.sorted { ($0.population, $1.id) > ($1.population, $0.id) }.prefix(PageRenderer.labelsPerPage))
        placeLabels.withLock { $0 = (countries, input.labelPlaces, input.regionCounts) }
    }
}

/// What the page reads from the database: nothing when there is none.
private struct StoredPage {
    var settings = Settings()
    var places: [UUID: PinPhotoPlace] = [:]
    var locations: [Location] = []
    /// As text the way photo ids write paths, so the page finds each photo below its folder.
    var folders: [String] = []
    var trips: [Trip] = []

    /// `allPins`: read every pin too (the page of the whole database). `trips`: found by the
    /// caller already (nil: found now).
    init(_ app: PinApp, allPins: Bool, trips known: StoredTrips?) throws {
        guard let db = try app.openForReadingIfExists() else { return }
        trips = try known?.trips ?? app.findTrips(db).trips
        (locations, settings) = try db.read { (allPins ? try $0.locations.fetchAll(countryID: nil) : [], try $0.settings.load()) }
        places = try db.photoPlaces()
        folders = try db.importedFolders().map { RawPath($0).description }
    }
}

extension PinApp {
    /// The base map of `pins serve --basemap FILE`: the raster MBTiles file opened read-only
    /// and checked; a missing file (`.noInput`) or one that is no raster MBTiles (`.dataError`)
    /// is an error that names it (`MBTiles.init(path:)`).
    public static func basemap(at path: String) throws -> MBTiles { try MBTiles(path: path) }
}
