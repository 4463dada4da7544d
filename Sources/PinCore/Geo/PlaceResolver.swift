import Foundation

public enum PlaceDataError: Error, CustomStringConvertible {
    case malformed(offset: Int, what: String)

    public var description: String {
        switch self {
        case let .malformed(offset, what): return "Places.bin: \(what) at byte \(offset)"
        }
    }
}

/// Names the populated place and the admin-1 region at a point, offline, from Resources/Places.bin
/// (GeoNames, CC BY 4.0; scripts/build-places writes it, Resources/PLACES.md says why and how).
///
/// The rule (PLACES.md "The rule" has the reasons), among the places of the point's country only:
/// 1. Each place has a radius r = max(1 km, 0.01 km × √population): about the size of a town of
///    that many people (Montréal 13 km, Longueuil 4.8 km, a village 1 km).
/// 2. If the point lies within the radius of one or more places, the place whose radius holds it
///    most centrally wins: the smallest d / r. A point well inside a big city is the city, even
///    where a small place's centre is nearer; a point near a suburb's own centre is the suburb.
/// 3. Otherwise the place whose edge is nearest (smallest d − r) wins, if d − r ≤ 15 km: no place
///    rather than a far one, with a reach that grows with the place.
/// 4. At sea (the country came from the 22 km coastal rule, not its outline) the nearest place
///    centre of that country within 22 km.
/// 5. The region is the chosen place's admin-1 unit; without a place, that of the country's
///    nearest place within 150 km (no offline admin-1 outline exists to decide it better).
public final class PlaceResolver: PlaceLocating, @unchecked Sendable {
    // Immutable after init.
    /// The constants the file's grid was built for; a file built for others is refused.
    public static let radiusPerSqrtPopulation: Float = 0.01
    public static let minimumRadiusKm: Float = 1.0
    public static let capBeyondRadiusKm: Float = 15.0
    /// At sea: the coastal rule's distance (CountryResolver.defaultCoastalKilometres).
    public static let seaKm = 22.0
    /// Without a place, the region of the nearest place within this distance.
    public static let regionKm = 150.0

    static let magic = Array("PINSPL1\n".utf8)
    private static let kmPerDegree = AngularDistance.earthRadiusKm * .pi / 180

    private let codes: [String]
    private let countryOutline: [UInt16]
    /// Two ASCII letters packed as (first << 8 | second) -> country id.
    private let countryByCode: [UInt16: UInt16]
    private let regionCountry: [UInt16]
    private let regionName: [UInt32]
    private let regionISO: [UInt32]
    private let stringOffsets: [UInt32]
    private let stringBytes: [UInt8]
    private let lat: [Int32]
    private let lon: [Int32]
    private let population: [UInt32]
    private let geonamesID: [UInt32]
    private let nameString: [UInt32]
    private let region: [UInt16]
    private let outline: [UInt16]
    private let ownCountry: [UInt16]
    private let radius: [Float]
    private let columns: Int
    private let rows: Int
    private let cellStart: [UInt32]
    private let entries: [UInt32]
    /// Whether the point lies inside the outline of the given country (not only within its
    /// coastal 22 km); nil: never at sea.
    private let onLand: (@Sendable (Coordinate, String) -> Bool)?

    public var placeCount: Int { lat.count }

    /// Reads Places.bin's bytes, checking every count and index (damaged bytes are an error,
    /// never a crash). `onLand`: whether a point is inside its country's outline (at sea
    /// otherwise), from the country resolver.
    public init(data: [UInt8], onLand: (@Sendable (Coordinate, String) -> Bool)? = nil) throws {
        self.onLand = onLand
        var i = 0
        func fail(_ what: String) -> PlaceDataError { .malformed(offset: i, what: what) }
        func need(_ bytes: Int) throws {
            guard bytes >= 0, data.count - i >= bytes else { throw fail("unexpected end") }
        }
        func u32() throws -> Int {
            try need(4)
            defer { i += 4 }
            return Int(data[i]) | Int(data[i + 1]) << 8 | Int(data[i + 2]) << 16 | Int(data[i + 3]) << 24
        }
        func f32() throws -> Float { Float(bitPattern: UInt32(try u32())) }
        func align() { i = (i + 3) & ~3 }
        func array<T: FixedWidthInteger>(_ count: Int, _: T.Type) throws -> [T] {
            try need(count * MemoryLayout<T>.size)
            let start = i
            i += count * MemoryLayout<T>.size
            return [T](unsafeUninitializedCapacity: count) { buffer, n in
                data.withUnsafeBytes { raw in
                    let bytes = UnsafeRawBufferPointer(rebasing: raw[start..<(start + count * MemoryLayout<T>.size)])
                    for k in 0..<count { buffer[k] = T(littleEndian: bytes.loadUnaligned(fromByteOffset: k * MemoryLayout<T>.size, as: T.self)) }
                }
                n = count
            }
        }
        guard data.starts(with: Self.magic) else { throw fail("not a pins places file (magic)") }
        i = Self.magic.count
        guard try u32() == 1 else { throw fail("unknown version") }
        let countryCount = try u32(), regionCount = try u32(), placeCount = try u32()
        let stringCount = try u32(), stringByteCount = try u32()
        let columns = try u32(), rows = try u32(), entryCount = try u32()
        let k = try f32(), minimum = try f32(), cap = try f32()
        guard k == Self.radiusPerSqrtPopulation, minimum == Self.minimumRadiusKm, cap == Self.capBeyondRadiusKm else {
            throw fail("built for other constants (radius \(k) km per √population, at least \(minimum) km, cap \(cap) km); rebuild it with scripts/build-places")
        }
        guard countryCount > 0, countryCount < 0xFFFF, regionCount < 0xFFFF, placeCount > 0,
              stringCount < 0xFFFF_FFFF, columns > 0, rows > 0, columns == 2 * rows, columns <= 36000,
              entryCount <= data.count / 4 else {
            throw fail("bad counts")
        }
        var codes: [String] = []
        var outlines: [UInt16] = []
        var byCode: [UInt16: UInt16] = [:]
        for c in 0..<countryCount {
            try need(4)
            let a = data[i], b = data[i + 1]
            guard (0x41...0x5A).contains(a), (0x41...0x5A).contains(b) else { throw fail("bad country code") }
            codes.append(String(decoding: [a, b], as: UTF8.self))
            byCode[UInt16(a) << 8 | UInt16(b)] = UInt16(c)
            let o = UInt16(data[i + 2]) | UInt16(data[i + 3]) << 8
            guard Int(o) < countryCount else { throw fail("bad outline country") }
            outlines.append(o)
            i += 4
        }
        var regionCountry: [UInt16] = [], regionName: [UInt32] = [], regionISO: [UInt32] = []
        for _ in 0..<regionCount {
            let country = try u32() & 0xFFFF
            let name = try u32(), iso = try u32()
            guard country < countryCount, name < stringCount, iso < stringCount || iso == 0xFFFF_FFFF else {
                throw fail("bad region")
            }
            regionCountry.append(UInt16(country))
            regionName.append(UInt32(name))
            regionISO.append(UInt32(iso))
        }
        let offsets = try array(stringCount + 1, UInt32.self)
        guard offsets.first == 0, offsets.last.map({ Int($0) }) == stringByteCount else { throw fail("bad string table") }
        for s in 0..<stringCount where offsets[s] > offsets[s + 1] { throw fail("bad string offsets") }
        try need(stringByteCount)
        let bytes = Array(data[i..<(i + stringByteCount)])
        i += stringByteCount
        align()
        let lat = try array(placeCount, Int32.self)
        let lon = try array(placeCount, Int32.self)
        let population = try array(placeCount, UInt32.self)
        let ids = try array(placeCount, UInt32.self)
        let names = try array(placeCount, UInt32.self)
        let region = try array(placeCount, UInt16.self)
        align()
        let outline = try array(placeCount, UInt16.self)
        align()
        let own = try array(placeCount, UInt16.self)
        align()
        try need(placeCount)
        i += placeCount // feature codes: the build's filter; not needed to resolve
        align()
        for p in 0..<placeCount {
            guard abs(lat[p]) <= 9_000_000, abs(lon[p]) <= 18_000_000, Int(names[p]) < stringCount,
                  region[p] == 0xFFFF || Int(region[p]) < regionCount,
                  Int(outline[p]) < countryCount, Int(own[p]) < countryCount else {
                throw fail("bad place \(p)")
            }
        }
        let start = try array(columns * rows + 1, UInt32.self)
        guard start.first == 0, start.last.map({ Int($0) }) == entryCount else { throw fail("bad grid") }
        for c in 0..<(columns * rows) where start[c] > start[c + 1] { throw fail("bad grid") }
        let entries = try array(entryCount, UInt32.self)
        for e in entries where Int(e) >= placeCount { throw fail("bad grid entry") }
        guard i == data.count else { throw fail("trailing bytes") }

        self.codes = codes
        self.countryOutline = outlines
        self.countryByCode = byCode
        self.regionCountry = regionCountry
        self.regionName = regionName
        self.regionISO = regionISO
        self.stringOffsets = offsets
        self.stringBytes = bytes
        self.lat = lat
        self.lon = lon
        self.population = population
        self.geonamesID = ids
        self.nameString = names
        self.region = region
        self.outline = outline
        self.ownCountry = own
        self.radius = population.map { max(Self.minimumRadiusKm, Self.radiusPerSqrtPopulation * Float($0).squareRoot()) }
        self.columns = columns
        self.rows = rows
        self.cellStart = start
        self.entries = entries
    }

    // MARK: lookups

    private func countryID(_ code: String) -> Int? {
        let u = Array(code.utf8)
        guard u.count == 2, let id = countryByCode[UInt16(u[0]) << 8 | UInt16(u[1])] else { return nil }
        return Int(id)
    }

    private func string(_ s: UInt32) -> String {
        let a = Int(stringOffsets[Int(s)]), b = Int(stringOffsets[Int(s) + 1])
        return String(decoding: stringBytes[a..<b], as: UTF8.self)
    }

    private func makeRegion(_ r: UInt16) -> Region? {
        guard r != 0xFFFF else { return nil }
        let iso = regionISO[Int(r)]
        return Region(code: iso == 0xFFFF_FFFF ? nil : string(iso), name: string(regionName[Int(r)]),
                      countryCode: codes[Int(regionCountry[Int(r)])])
    }

    private func coordinate(_ p: Int) -> Coordinate {
        Coordinate(latitude: Double(lat[p]) / 1e5, longitude: Double(lon[p]) / 1e5)
    }

    private func cell(latitude: Double, longitude: Double) -> (row: Int, column: Int) {
        let step = 360.0 / Double(columns)
        let r = min(rows - 1, max(0, Int(((latitude + 90) / step).rounded(.down))))
        let c = min(columns - 1, max(0, Int(((longitude + 180) / step).rounded(.down))))
        return (r, c)
    }

    /// Kilometres from the point to place p in the point's own equirectangular projection (to
    /// rank candidates; the distance reported is the haversine one).
    @inline(__always)
    private func planarKm(_ p: Int, latitude: Double, longitude: Double, cosPhi: Double) -> Double {
        var dx = Double(lon[p]) / 1e5 - longitude
        if dx > 180 { dx -= 360 } else if dx < -180 { dx += 360 }
        let dy = Double(lat[p]) / 1e5 - latitude
        return (dx * dx * cosPhi * cosPhi + dy * dy).squareRoot() * Self.kmPerDegree
    }

    public func match(at point: Coordinate, countryCode: String?) -> PlaceMatch {
        guard point.isValid, let countryCode, let country = countryID(countryCode) else { return .none }
        let outlineCountry = Int(countryOutline[country])
        let latitude = point.latitude, longitude = point.longitude
        let cosPhi = cos(latitude * .pi / 180)
        var chosen: Int?
        if let onLand, !onLand(point, countryCode) {
            chosen = nearest(to: point, outlineCountry: outlineCountry, withinKm: Self.seaKm)
        } else {
            let (r, c) = cell(latitude: latitude, longitude: longitude)
            let k = r * columns + c
            var bestInside = -1, bestInsideScore = Double.infinity
            var bestOutside = -1, bestOutsideScore = Double(Self.capBeyondRadiusKm)
            for s in Int(cellStart[k])..<Int(cellStart[k + 1]) {
                let p = Int(entries[s])
                guard Int(outline[p]) == outlineCountry else { continue }
                let d = planarKm(p, latitude: latitude, longitude: longitude, cosPhi: cosPhi)
                let radius = Double(self.radius[p])
                if d <= radius {
                    let score = d / radius
                    if score < bestInsideScore || (score == bestInsideScore && better(p, than: bestInside)) {
                        bestInside = p
                        bestInsideScore = score
                    }
                } else if bestInside < 0 {
                    let score = d - radius
                    if score < bestOutsideScore || (score == bestOutsideScore && better(p, than: bestOutside)) {
                        bestOutside = p
                        bestOutsideScore = score
                    }
                }
            }
            chosen = bestInside >= 0 ? bestInside : (bestOutside >= 0 ? bestOutside : nil)
        }
        guard let p = chosen else {
            let regionPlace = nearest(to: point, outlineCountry: outlineCountry, withinKm: Self.regionKm)
            return PlaceMatch(region: regionPlace.flatMap { makeRegion(region[$0]) })
        }
        let centre = coordinate(p)
        let place = Place(id: Int(geonamesID[p]), name: string(nameString[p]), countryCode: codes[Int(ownCountry[p])],
                          coordinate: centre, population: Int(population[p]))
        return PlaceMatch(place: place, placeDistanceKm: AngularDistance.kilometres(point, centre), region: makeRegion(region[p]))
    }

    /// Ties (the same score): the larger place, then the smaller GeoNames id, so the answer
    /// never depends on the order of the file.
    @inline(__always)
    private func better(_ p: Int, than q: Int) -> Bool {
        guard q >= 0 else { return true }
        if population[p] != population[q] { return population[p] > population[q] }
        return geonamesID[p] < geonamesID[q]
    }

    /// The nearest place centre of the outline country within `km` (every cell that the circle
    /// can reach; each place is listed in its own cell at least).
    private func nearest(to point: Coordinate, outlineCountry: Int, withinKm km: Double) -> Int? {
        let latitude = point.latitude, longitude = point.longitude
        let cosPhi = cos(latitude * .pi / 180)
        let step = 360.0 / Double(columns)
        let dLat = km / Self.kmPerDegree
        let top = min(90, abs(latitude) + dLat)
        let dLon = top >= 89.999 ? 180 : min(180, dLat / cos(top * .pi / 180))
        let (r0, _) = cell(latitude: max(-90, latitude - dLat), longitude: 0)
        let (r1, _) = cell(latitude: min(90, latitude + dLat), longitude: 0)
        let c0 = Int(((longitude - dLon + 180) / step).rounded(.down))
        let c1 = Int(((longitude + dLon + 180) / step).rounded(.down))
        let columnRange = c1 - c0 + 1 >= columns ? 0...(columns - 1) : c0...c1
        var best = -1, bestKm = km
        for r in r0...r1 {
            for raw in columnRange {
                let k = r * columns + ((raw % columns) + columns) % columns
                for s in Int(cellStart[k])..<Int(cellStart[k + 1]) {
                    let p = Int(entries[s])
                    guard Int(outline[p]) == outlineCountry else { continue }
                    let d = planarKm(p, latitude: latitude, longitude: longitude, cosPhi: cosPhi)
                    if d < bestKm || (d == bestKm && best >= 0 && better(p, than: best)) {
                        best = p
                        bestKm = d
                    }
                }
            }
        }
        return best >= 0 ? best : nil
    }

    public func regions(of countryCode: String) -> [Region] {
        guard let country = countryID(countryCode) else { return [] }
        var out: [Region] = []
        for r in 0..<regionCountry.count {
            let c = Int(regionCountry[r])
            if c == country || (Int(countryOutline[c]) == country && c != country) {
                if let region = makeRegion(UInt16(r)) { out.append(region) }
            }
        }
        return out
    }

    /// The `limit` most populous places of the country's outline (the map page's labels), most
    /// populous first, ties by GeoNames id: one pass over the places.
    public func largestPlaces(of countryCode: String, limit: Int) -> [Place] {
        guard limit > 0, let country = countryID(countryCode) else { return [] }
        let outlineCountry = Int(countryOutline[country])
        var chosen: [Int] = []
        for p in 0..<lat.count where Int(outline[p]) == outlineCountry { chosen.append(p) }
        chosen.sort { better($0, than: $1) }
        return chosen.prefix(limit).map { p in
            Place(id: Int(geonamesID[p]), name: string(nameString[p]), countryCode: codes[Int(ownCountry[p])],
                  coordinate: coordinate(p), population: Int(population[p]))
        }
    }
}
