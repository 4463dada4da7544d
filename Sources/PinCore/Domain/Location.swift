import Foundation

/// A stored pin held once and handed on by reference: `pins serve` keeps every pin so and
/// gives the map page's pins the same ones. A `Location` is about 320 bytes held inline, and the
/// page copied each of 100,000 twice for every map data it made (80 MB at a time,
/// scripts/bench-serve's RSS peak).
public final class StoredLocation: Sendable {
    public let location: Location
    public init(_ location: Location) { self.location = location }
}

/// A pin: the central model, as in the app.
public struct Location: Identifiable, Codable, Sendable, Hashable {
    public var id: UUID
    public var title: String
    public var coordinate: Coordinate
    /// ISO 3166-1 alpha-2 code of the country the pin lies in, nil at sea or where unknown.
    public var countryID: String?
    public var type: LocationType
    public var date: Date
    /// `#RRGGBB`.
    public var color: String
    public var visitCount: Int
    public var note: String?
    public var tags: [String]?
    /// Identities of the photos that made this pin (the importer's photo identity).
    public var photoIDs: [String]
    /// The import run that made this pin (`pins runs` lists it); nil for a pin made by hand.
    public var runID: Int64?
    /// The offset from UTC of the place and moment of the visit (the photo's own offset, or the
    /// one written with `--date`): dates are shown in it. nil when unknown (then UTC).
    public var utcOffsetSeconds: Int? = nil
    /// When the user last changed the pin (`pins edit`); nil for a pin as it was created. An
    /// undone import leaves edited pins alone.
    public var editedAt: Date? = nil
    /// The populated place the pin is in (the gazetteer's name, GeoNames), nil where none is
    /// near enough or the pin was never resolved; `placeID` is its GeoNames id.
    public var place: String? = nil
    public var placeID: Int? = nil
    /// The admin-1 region (state, prefecture, …) and its ISO 3166-2 code where one exists.
    public var region: String? = nil
    public var regionCode: String? = nil
    /// False for a pin stored before pins knew places, until the backfill resolves it
    /// (`PlaceBackfill`); every pin made or moved since is resolved, with or without a place.
    public var placesResolved = true
    /// Whether a person gave `visitCount` (`pins edit --visits`, `pins add --visits`, a place
    /// file's count): then it stands. Otherwise it is the number of stays among the pin's
    /// photos, kept by the store whenever a pin's photos change (README: "Visits").
    public var visitsByHand = false
    /// How many recorded photos belong to the pin (the photo that made it and every photo with
    /// a position nearest to it within the distance rule's radius): read, never written, by the
    /// store.
    public var photoCount = 0
    /// A place the person wants to go, not one they have been (Google's Saved Places,
    /// `import-places --wanted`): drawn apart on the map and left out of the countries,
    /// regions, statistics and trips until a photo near it or `pins edit --visited` makes it
    /// visited. It still counts in its country's row of the countries table (that table counts
    /// the pins that point at a country, as `pins check` verifies).
    public var wanted = false

    public init(id: UUID, title: String, coordinate: Coordinate, countryID: String? = nil,
                type: LocationType = .point, date: Date, color: String = Settings.defaultPinColor,
                visitCount: Int = 1, note: String? = nil, tags: [String]? = nil, photoIDs: [String] = [],
                runID: Int64? = nil) {
        self.id = id
        self.title = title
        self.coordinate = coordinate
        self.countryID = countryID
        self.type = type
        self.date = date
        self.color = color
        self.visitCount = visitCount
        self.note = note
        self.tags = tags
        self.photoIDs = photoIDs
        self.runID = runID
    }

    /// The place, place id and region together, as the resolver gave them.
    public var placeFields: PinPlace {
        get { PinPlace(placeID: placeID, place: place, region: region, regionCode: regionCode) }
        set {
            placeID = newValue.placeID
            place = newValue.place
            region = newValue.region
            regionCode = newValue.regionCode
        }
    }
}

/// What a pin stores of a PlaceMatch: the place's name and GeoNames id, the region's name and
/// ISO 3166-2 code; each nil when the resolver gave none.
public struct PinPlace: Sendable, Hashable {
    public var placeID: Int?
    public var place: String?
    public var region: String?
    public var regionCode: String?

    public init(placeID: Int? = nil, place: String? = nil, region: String? = nil, regionCode: String? = nil) {
        self.placeID = placeID
        self.place = place
        self.region = region
        self.regionCode = regionCode
    }

    public init(_ match: PlaceMatch) {
        self.init(placeID: match.place?.id, place: match.place?.name, region: match.region?.name, regionCode: match.region?.code)
    }

    public static let none = PinPlace()

    /// A pin's title from where it is: "Kyoto, Japan" (the place and the country), the region
    /// where there is no place ("Hokkaido, Japan"), the country alone where neither is known,
    /// "At sea" outside every country. A place named as its country (Singapore, Monaco) is
    /// named once.
    public func title(countryName: String?) -> String {
        guard let countryName else { return "At sea" }
        guard let local = place ?? region, !local.isEmpty else { return countryName }
        if Self.sameName(local, countryName) { return countryName }
        return "\(local), \(countryName)"
    }

    /// `PinFilter.fold(a) == PinFilter.fold(b)`, without Foundation's folding where both are
    /// ASCII (most names): there the fold is the lower case, letter for letter.
    static func sameName(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.allSatisfy({ $0 < 0x80 }), y.allSatisfy({ $0 < 0x80 }) else { return PinFilter.fold(a) == PinFilter.fold(b) }
        func lower(_ c: UInt8) -> UInt8 { c &- 0x41 < 26 ? c | 0x20 : c }
        return x.count == y.count && zip(x, y).allSatisfy { lower($0) == lower($1) }
    }
}
