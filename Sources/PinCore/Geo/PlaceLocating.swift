/// The populated place and the admin-1 region a point lies in, from the offline gazetteer
/// (GeoNames, CC BY 4.0; see Resources/PLACES.md). The country always comes first, from its
/// outline (CountryLocating); the place is then chosen among that country's places only.
///
/// This file is the contract between the gazetteer and resolver (the places issue, part 1-2)
/// and everything that shows a place (part 3-5): keep it small.

/// A populated place of the gazetteer.
public struct Place: Sendable, Hashable {
    /// The GeoNames id: a shared City's identity (two City pins in one town share it).
    public var id: Int
    public var name: String
    /// ISO 3166-1 alpha-2.
    var countryCode: String
    /// The place's centre, as GeoNames gives it.
    public var coordinate: Coordinate
    public var population: Int

    init(id: Int, name: String, countryCode: String, coordinate: Coordinate, population: Int) {
        self.id = id
        self.name = name
        self.countryCode = countryCode
        self.coordinate = coordinate
        self.population = population
    }
}

/// An admin-1 unit (state, prefecture, région, …).
public struct Region: Sendable, Hashable {
    /// ISO 3166-2 ("JP-26") where one exists.
    public var code: String?
    public var name: String
    /// ISO 3166-1 alpha-2 of its country.
    var countryCode: String

    init(code: String?, name: String, countryCode: String) {
        self.code = code
        self.name = name
        self.countryCode = countryCode
    }
}

/// What the resolver says of one point. Every part may be absent: a point 80 km into the
/// outback has a region but no place; a point at sea far from any coast has neither.
public struct PlaceMatch: Sendable, Hashable {
    public var place: Place?
    /// Great-circle distance from the point to the place's centre, in km.
    public var placeDistanceKm: Double?
    public var region: Region?

    init(place: Place? = nil, placeDistanceKm: Double? = nil, region: Region? = nil) {
        self.place = place
        self.placeDistanceKm = placeDistanceKm
        self.region = region
    }

    public static let none = PlaceMatch()
}

/// A lookup's answer as indices into the gazetteer's tables, no String made: what a caller that
/// shows it names (`PlaceResolver.match(_:at:)`, `OutlinedRegionPlaces.match(_:at:)`).
public struct PlaceHit: Sendable, Hashable {
    /// The place's index in the gazetteer; -1: none.
    public var place: Int32
    /// The region's index in the gazetteer's regions (their order in Places.bin); -1: none.
    public var region: Int32

    public init(place: Int32, region: Int32) {
        self.place = place
        self.region = region
    }

    public static let none = PlaceHit(place: -1, region: -1)
}

/// Anything that names the place at a coordinate (the gazetteer resolver; a stub in tests).
public protocol PlaceLocating: Sendable {
    /// The place and region at `point`, inside `countryCode` (the country its outline gave, or
    /// the coastal country within 22 km at sea); `.none` when `countryCode` is nil.
    func match(at point: Coordinate, countryCode: String?) -> PlaceMatch
    /// `match(at:countryCode:)` where the caller knows whether the country's outline holds the
    /// point (`CountryLocating.country(at:)`): false is at sea. nil: the resolver asks the
    /// outlines itself (a second point-in-polygon test).
    func match(at point: Coordinate, countryCode: String?, inOutline: Bool?) -> PlaceMatch
    /// Every admin-1 region of a country, for "United States: 7 of 51 states".
    func regions(of countryCode: String) -> [Region]
    /// Loads the gazetteer now, reporting a damaged or missing resource (naming the file)
    /// before the first lookup instead of answering "no place".
    func prepare() throws
    /// The `limit` most populous places of a country, most populous first: the map page's
    /// labels (names of the larger places in view). Empty where the gazetteer cannot list them.
    func largestPlaces(of countryCode: String, limit: Int) -> [Place]
    /// Whether a pin made through it has its place decided (false: a stand-in that names
    /// nothing yet, `PlacesLeftOpen`; its pins wait for `PlaceBackfill`).
    var decidesPlaces: Bool { get }
}

extension PlaceLocating {
    public func match(at point: Coordinate, countryCode: String?, inOutline: Bool?) -> PlaceMatch {
        match(at: point, countryCode: countryCode)
    }
    public func prepare() throws {}
    public func largestPlaces(of countryCode: String, limit: Int) -> [Place] { [] }
    public var decidesPlaces: Bool { true }
}

/// No gazetteer: every point matches nothing (commands and tests that need no places).
public struct NoPlaces: PlaceLocating {
    public init() {}
    public func match(at point: Coordinate, countryCode: String?) -> PlaceMatch { .none }
    public func regions(of countryCode: String) -> [Region] { [] }
}

/// Names nothing, and the pins made through it wait for their places as those stored before
/// places do (`placesResolved` false: `PlaceBackfill` names them at the next open with a
/// gazetteer). For the benches' import without places (PINS_BENCH_WITHOUT_PLACES).
public struct PlacesLeftOpen: PlaceLocating {
    public init() {}
    public func match(at point: Coordinate, countryCode: String?) -> PlaceMatch { .none }
    public func regions(of countryCode: String) -> [Region] { [] }
    public var decidesPlaces: Bool { false }
}
