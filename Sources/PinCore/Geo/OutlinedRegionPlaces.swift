import Foundation

/// The places rule's step 6 where an admin-1 outline exists (Resources/PLACES.md, "Regions"):
/// the place is the gazetteer's (chosen as before, among the country's places), the region is the
/// DCW-GMT unit (LGPL-3+) whose outline holds the point, in the 8 countries DCW divides:
///   * inside a unit: that unit;
///   * in no unit (DCW's coasts and borders lie some hundreds of metres from Natural Earth's):
///     the unit with the nearest edge within `landKm` on land, `seaKm` at sea (the coastal rule);
///   * else, or where the unit stands for several of today's regions (IN.AP is Andhra Pradesh and
///     Telangana, IN.JK Jammu and Kashmir and Ladakh), or outside the 8: the place's region.
public final class OutlinedRegionPlaces: PlaceLocating, @unchecked Sendable {
    // Immutable after init.
    /// Inside the country's outline but in none of its units: the nearest unit within 10 km.
    public static let landKm = 10.0
    /// At sea (outside the outline, the country from the 22 km coastal rule).
    public static let seaKm = 22.0

    public let places: any PlaceLocating
    public let outlines: RegionOutlines
    /// Each unit's region, the gazetteer's own (nil: the unit stands for several).
    private let regionOfUnit: [Region?]
    private let onLand: (@Sendable (Coordinate, String) -> Bool)?

    /// `onLand`: whether a point is inside its country's outline (at sea otherwise). Throws
    /// when a unit names a region the gazetteer does not have (the two files do not match).
    public init(places: any PlaceLocating, outlines: RegionOutlines,
                onLand: (@Sendable (Coordinate, String) -> Bool)? = nil) throws {
        self.places = places
        self.outlines = outlines
        self.onLand = onLand
        var byCode: [String: Region] = [:]
        for code in outlines.countryCodes {
            for region in places.regions(of: code) where region.countryCode == code {
                if let iso = region.code { byCode[iso] = region }
            }
        }
        var regions: [Region?] = []
        for unit in 0..<outlines.unitCount {
            let codes = outlines.regionCodes(ofUnit: unit)
            for code in codes where byCode[code] == nil {
                throw RegionDataError.malformed(offset: 0, what: "unit \(outlines.dcwCode(ofUnit: unit)) names \(code), a region Places.bin does not have; rebuild it with scripts/build-regions")
            }
            regions.append(codes.count == 1 ? byCode[codes[0]] : nil)
        }
        regionOfUnit = regions
    }

    public func match(at point: Coordinate, countryCode: String?) -> PlaceMatch {
        match(at: point, countryCode: countryCode, inOutline: nil)
    }

    public func match(at point: Coordinate, countryCode: String?, inOutline: Bool?) -> PlaceMatch {
        var match = places.match(at: point, countryCode: countryCode, inOutline: inOutline)
        if let countryCode, let region = outlineRegion(at: point, countryCode: countryCode, inOutline: inOutline) {
            match.region = region
        }
        return match
    }

    /// The region the outlines decide at the point, nil where they do not. `inOutline`: whether
    /// the country's outline holds the point, where the caller knows (nil: asked when needed).
    public func outlineRegion(at point: Coordinate, countryCode: String, inOutline: Bool? = nil) -> Region? {
        guard outlines.covers(countryCode) else { return nil }
        if let unit = outlines.unit(at: point, countryCode: countryCode) { return regionOfUnit[unit] }
        // Within 10 km the answer is the same on land and at sea; only farther is the (costly)
        // land-or-sea question asked.
        if let unit = outlines.nearestUnit(to: point, countryCode: countryCode, withinKm: Self.landKm) { return regionOfUnit[unit] }
        guard !(inOutline ?? onLand.map { $0(point, countryCode) } ?? true) else { return nil }
        return outlines.nearestUnit(to: point, countryCode: countryCode, withinKm: Self.seaKm).flatMap { regionOfUnit[$0] }
    }

    public func regions(of countryCode: String) -> [Region] { places.regions(of: countryCode) }

    public func prepare() throws { try places.prepare() }

    public func largestPlaces(of countryCode: String, limit: Int) -> [Place] {
        places.largestPlaces(of: countryCode, limit: limit)
    }

    /// The borders between the admin-1 units of a country, for the map page (empty outside the 8).
    public func borderLines(of countryCode: String) -> [[Coordinate]] { outlines.borderLines(of: countryCode) }
}
