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
public final class OutlinedRegionPlaces: PlaceLocating, Sendable {
    // Immutable after init.
    /// Inside the country's outline but in none of its units: the nearest unit within 10 km.
    static let landKm = 10.0
    /// At sea (outside the outline, the country from the 22 km coastal rule).
    static let seaKm = 22.0

    public let places: PlaceResolver
    public let outlines: RegionOutlines
    /// The gazetteer's regions, in its order, under their English names (Regions.bin's) in the
    /// countries the outlines cover: "Yunnan Sheng" is "Yunnan", "Madrid, Comunidad de"
    /// "Madrid". A hit's region is an index into it.
    private let regionValues: [Region]
    /// Each unit's region, an index into `regionValues` (-1: the unit stands for several).
    private let regionOfUnit: [Int32]

    /// Whether a point is inside its country's outline (at sea otherwise) is the gazetteer's
    /// `onLand`. Throws when a unit names a region the gazetteer does not have (the two files
    /// do not match).
    public init(places: PlaceResolver, outlines: RegionOutlines) throws {
        self.places = places
        self.outlines = outlines
        let countries = Set(outlines.countryCodes).union(outlines.regionNames.keys.map { String($0.prefix(2)) })
        // One pass over the gazetteer's regions (a scan per country cost `pins locate --json` a
        // third of its start).
        var english = places.allRegions
        var byCode = [String: Int32](minimumCapacity: english.count)
        // The countries as a table by their two letters: a lookup per region, no string hashed.
        var covered = [Bool](repeating: false, count: 26 * 26)
        for code in countries { if let slot = Self.letterSlot(code) { covered[slot] = true } }
        for r in english.indices
        where Self.letterSlot(english[r].countryCode).map({ covered[$0] }) ?? countries.contains(english[r].countryCode) {
            let key = Self.key(english[r])
            if let name = outlines.regionNames[key] { english[r].name = name }
            byCode[key] = Int32(r)
        }
        regionValues = english
        var regions: [Int32] = []
        regions.reserveCapacity(outlines.unitCount)
        for unit in 0..<outlines.unitCount {
            var count = 0, only: Int32 = -1
            try outlines.forEachRegionCode(ofUnit: unit) { code in
                guard let region = byCode[code] else {
                    throw RegionDataError.malformed(offset: 0, what: "unit \(outlines.dcwCode(ofUnit: unit)) names \(code), a region Places.bin does not have; rebuild it with scripts/build-regions")
                }
                count += 1
                only = region
            }
            regions.append(count == 1 ? only : -1)
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
        match(hit(at: point, countryCode: countryCode, inOutline: inOutline), at: point)
    }

    /// `match`'s answer as indices, no String made (`match(_:at:)` names them): the outlines'
    /// region first, then the gazetteer's place, its region looked for only where the outlines
    /// decide none. The point's side of the outline (`inOutline`, where the caller knows it) is
    /// asked once, where first needed.
    public func hit(at point: Coordinate, countryCode: String?, inOutline: Bool?) -> PlaceHit {
        guard let countryCode else { return .none }
        places.prefetchCell(of: point)  // its misses pass while the outlines are asked
        var side = inOutline
        let outlined = outlineRegionIndex(at: point, countryCode: countryCode, inOutline: &side)
        // The region's value, which naming the hit copies, asked for now: its cache miss passes
        // while the gazetteer looks for the place.
        PlaceResolver.prefetch(outlined ?? -1, of: regionValues)
        guard point.isValid, let country = places.countryID(countryCode) else { return PlaceHit(place: -1, region: outlined ?? -1) }
        let land = side ?? places.onLand.map { $0(point, countryCode) } ?? true
        var hit = places.hit(at: point, country: country, inOutline: land, region: outlined == nil)
        if let outlined { hit.region = outlined } else { PlaceResolver.prefetch(hit.region, of: regionValues) }
        return hit
    }

    /// The answer a hit names at `point`: the place (its name made now), its distance, the region.
    public func match(_ hit: PlaceHit, at point: Coordinate) -> PlaceMatch {
        places.match(hit, at: point, regions: regionValues)
    }

    /// The region the outlines decide at the point, nil where they do not. `inOutline`: whether
    /// the country's outline holds the point, where the caller knows (nil: asked when needed).
    public func outlineRegion(at point: Coordinate, countryCode: String, inOutline: Bool? = nil) -> Region? {
        var side = inOutline
        return outlineRegionIndex(at: point, countryCode: countryCode, inOutline: &side).map { regionValues[Int($0)] }
    }

    /// `outlineRegion`'s region as an index into `regionValues`; `side` is set where the point's
    /// side of the outline had to be asked.
    private func outlineRegionIndex(at point: Coordinate, countryCode: String, inOutline side: inout Bool?) -> Int32? {
        guard outlines.covers(countryCode) else { return nil }
        if let unit = outlines.unit(at: point, countryCode: countryCode) { return decided(unit) }
        // Within 10 km the answer is the same on land and at sea; only farther is the (costly)
        // land-or-sea question asked.
        if let unit = outlines.nearestUnit(to: point, countryCode: countryCode, withinKm: Self.landKm) { return decided(unit) }
        if side == nil { side = places.onLand.map { $0(point, countryCode) } ?? true }
        guard side == false else { return nil }
        return outlines.nearestUnit(to: point, countryCode: countryCode, withinKm: Self.seaKm).flatMap(decided)
    }

    /// A unit's region, nil where it stands for several.
    @inline(__always)
    private func decided(_ unit: Int) -> Int32? {
        let region = regionOfUnit[unit]
        return region >= 0 ? region : nil
    }

    public func regions(of countryCode: String) -> [Region] { places.regionIndices(of: countryCode).map { regionValues[$0] } }

    public func prepare() throws { try places.prepare() }

    public func largestPlaces(of countryCode: String, limit: Int) -> [Place] {
        places.largestPlaces(of: countryCode, limit: limit)
    }

    /// The outline of a region as the page fills it: every unit that stands for it alone (a
    /// region by its ISO 3166-2 code, else by its name as pins shows it), each as its rings
    /// (taken by parity); empty where no unit does (a unit that stands for two regions is no
    /// one's). Units apart: two units' rings, each simplified on its own, overlap along their
    /// border, and taken together by parity the overlaps were holes.
    public func regionUnits(countryCode: String, code: String?, name: String) -> [[[Coordinate]]] {
        var units: [[[Coordinate]]] = []
        for unit in 0..<regionOfUnit.count where regionOfUnit[unit] >= 0 {
            let region = regionValues[Int(regionOfUnit[unit])]
            guard region.countryCode == countryCode else { continue }
            if let code, region.code == code { units.append(outlines.rings(ofUnit: unit)) }
            else if code == nil, region.code == nil, region.name == name { units.append(outlines.rings(ofUnit: unit)) }
        }
        return units
    }

    /// The borders between the admin-1 units of a country, for the map page.
    public func borderLines(of countryCode: String) -> [[Coordinate]] { outlines.borderLines(of: countryCode) }
}
