import Foundation

/// The places rule's step 6 where an admin-1 outline exists (Resources/PLACES.md, "Regions"):
/// the place is the gazetteer's (chosen as before, among the country's places), the region is the
/// admin-1 unit whose outline holds the point: DCW-GMT's (LGPL-3+) in the 8 countries DCW
/// divides, Natural Earth's (public domain) rolled up to the gazetteer's regions elsewhere:
///   * inside a unit: that unit;
///   * in no unit (DCW's coasts and borders lie some hundreds of metres from Natural Earth's):
///     the unit with the nearest edge within `landKm` on land, `seaKm` at sea (the coastal rule);
///   * else, or where the unit stands for several of today's regions (IN.AP is Andhra Pradesh and
///     Telangana; Natural Earth's Katanga four of Congo's provinces of 2015), or in a country
///     without outlines: the place's region.
public final class OutlinedRegionPlaces: PlaceLocating, @unchecked Sendable {
    // Immutable after init.
    /// Inside the country's outline but in none of its units: the nearest unit within 10 km.
    static let landKm = 10.0
    /// At sea (outside the outline, the country from the 22 km coastal rule).
    static let seaKm = 22.0

    public let places: any PlaceLocating
    public let outlines: RegionOutlines
    /// Each unit's region, the gazetteer's own under its English name (nil: the unit stands for
    /// several).
    private let regionOfUnit: [Region?]
    /// The gazetteer's regions whose English name differs (Regions.bin's names): "Yunnan Sheng"
    /// is "Yunnan", "Madrid, Comunidad de" "Madrid". Asked only where the place's region stands.
    private let renamed: [Region: Region]
    private let onLand: (@Sendable (Coordinate, String) -> Bool)?

    /// `onLand`: whether a point is inside its country's outline (at sea otherwise). Throws
    /// when a unit names a region the gazetteer does not have (the two files do not match).
    public init(places: any PlaceLocating, outlines: RegionOutlines,
                onLand: (@Sendable (Coordinate, String) -> Bool)? = nil) throws {
        self.places = places
        self.outlines = outlines
        self.onLand = onLand
        var renamed: [Region: Region] = [:]
        let countries = Set(outlines.countryCodes).union(outlines.regionNames.keys.map { String($0.prefix(2)) })
        // One pass over the gazetteer's regions where it is the file's (a scan per country cost
        // `pins locate --json` a third of its start).
        let all = (places as? PlaceResolver)?.allRegions ?? countries.sorted().flatMap { places.regions(of: $0) }
        var byCode = [String: Region](minimumCapacity: all.count)
        // The countries as a table by their two letters: a lookup per region, no string hashed.
        var covered = [Bool](repeating: false, count: 26 * 26)
        for code in countries { if let slot = Self.letterSlot(code) { covered[slot] = true } }
        for region in all where Self.letterSlot(region.countryCode).map({ covered[$0] }) ?? countries.contains(region.countryCode) {
            let key = Self.key(region)
            var english = region
            if let name = outlines.regionNames[key] {
                english.name = name
                renamed[region] = english
            }
            byCode[key] = english
        }
        self.renamed = renamed
        var regions: [Region?] = []
        regions.reserveCapacity(outlines.unitCount)
        for unit in 0..<outlines.unitCount {
            var count = 0, only: Region?
            try outlines.forEachRegionCode(ofUnit: unit) { code in
                guard let region = byCode[code] else {
                    throw RegionDataError.malformed(offset: 0, what: "unit \(outlines.dcwCode(ofUnit: unit)) names \(code), a region Places.bin does not have; rebuild it with scripts/build-regions")
                }
                count += 1
                only = region
            }
            regions.append(count == 1 ? only : nil)
        }
        regionOfUnit = regions
    }

    /// The slot of a two-letter code (A–Z) in a 26 × 26 table, nil for anything else.
    private static func letterSlot(_ code: String) -> Int? {
        var it = code.utf8.makeIterator()
        guard let a = it.next(), let b = it.next(), it.next() == nil, a &- 0x41 < 26, b &- 0x41 < 26 else { return nil }
        return Int(a &- 0x41) * 26 + Int(b &- 0x41)
    }

    /// How Regions.bin names a gazetteer region: its ISO 3166-2 code, else "CC:Name" with spaces
    /// as "_" (Norway's counties of 2024 have no code in the gazetteer's ISO table).
    static func key(_ region: Region) -> String {
        if let code = region.code { return code }
        return region.countryCode + ":" + String(decoding: region.name.utf8.map { $0 == 0x20 ? 0x5F : $0 }, as: UTF8.self)
    }

    public func match(at point: Coordinate, countryCode: String?) -> PlaceMatch {
        match(at: point, countryCode: countryCode, inOutline: nil)
    }

    public func match(at point: Coordinate, countryCode: String?, inOutline: Bool?) -> PlaceMatch {
        var match = places.match(at: point, countryCode: countryCode, inOutline: inOutline)
        if let countryCode, let region = outlineRegion(at: point, countryCode: countryCode, inOutline: inOutline) {
            match.region = region
        } else if let region = match.region, let english = renamed[region] {
            match.region = english
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

    public func regions(of countryCode: String) -> [Region] { places.regions(of: countryCode).map { renamed[$0] ?? $0 } }

    public func prepare() throws { try places.prepare() }

    public func largestPlaces(of countryCode: String, limit: Int) -> [Place] {
        places.largestPlaces(of: countryCode, limit: limit)
    }

    /// The outline of a region as the page fills it: the rings of every unit that stands for it
    /// alone (a region by its ISO 3166-2 code, else by its name as pins shows it); empty where no
    /// unit does (a unit that stands for two regions is no one's).
    public func regionRings(countryCode: String, code: String?, name: String) -> [[Coordinate]] {
        var rings: [[Coordinate]] = []
        for unit in 0..<regionOfUnit.count {
            guard let region = regionOfUnit[unit], region.countryCode == countryCode else { continue }
            if let code, region.code == code { rings += outlines.rings(ofUnit: unit) }
            else if code == nil, region.code == nil, region.name == name { rings += outlines.rings(ofUnit: unit) }
        }
        return rings
    }

    /// The borders between the admin-1 units of a country, for the map page.
    public func borderLines(of countryCode: String) -> [[Coordinate]] { outlines.borderLines(of: countryCode) }
}
