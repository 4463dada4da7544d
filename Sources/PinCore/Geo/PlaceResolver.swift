import CSupport
import Foundation
import Synchronization

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
    // Immutable after init, but for the facts of the places, each block made once under
    // `factsMaking` and published by `factsMade` (below).
    /// The constants the file's grid was built for; a file built for others is refused.
    static let radiusPerSqrtPopulation: Float = 0.01
    static let minimumRadiusKm: Float = 1.0
    static let capBeyondRadiusKm: Float = 15.0
    /// At sea: the coastal rule's distance (CountryResolver.defaultCoastalKilometres).
    static let seaKm = 22.0
    /// Without a place, the region of the nearest place within this distance.
    static let regionKm = 150.0

    static let magic = Array("PINSPL1\n".utf8)
    /// A grid entry: the place's index in its low 18 bits; above them, g (a lower bound of d − r
    /// over the cell's points, km) coded as (g + 128) × 64, rounded down.
    private static let indexBits: UInt32 = 18
    fileprivate static let indexMask = (1 << 18) - 1
    fileprivate static let kmPerDegree = AngularDistance.earthRadiusKm * .pi / 180

    private let codes: [String]
    private let countryOutline: [UInt16]
    /// Country id by its two letters, (first − "A") × 26 + (second − "A"); 0xFFFF: none.
    private let countryByLetters: [UInt16]
    /// Every region, its strings made once at load (4,073: a lookup makes none).
    private let regionValues: [Region]
    private let regionCountry: [UInt16]
    /// What a lookup reads of each candidate, one record per place, made at load.
    private let places: UnsafeBufferPointer<PlaceRecord>
    /// What naming a chosen place reads of it, one record per place, made at load beside
    /// `places` (the file's columns would cost a cache miss each).
    private let facts: UnsafeBufferPointer<PlaceFacts>
    /// The facts are made a block of places at a time, at the first naming of one of them (a
    /// start that names one point, `pins locate`, makes one block, not 137,764 facts): bit b of
    /// `factsMade` set once places b × `factsBlock` ..< (b + 1) × `factsBlock` have theirs.
    private let factsBlock: Int
    private let factsMade = Atomic<UInt64>(0)
    private let factsMaking = Mutex<Void>(())
    /// What `places` and `facts` point into (`TableMemory`).
    private let recordMemory: AnyObject?
    /// What the views below point into: a read-only private copy of Places.bin's bytes.
    private let memory: AnyObject
    /// The file's own arrays, read where they lie: what ties and the chosen place need, and
    /// the grid.
    private let population: UnsafeBufferPointer<UInt32>
    private let geonamesID: UnsafeBufferPointer<UInt32>
    private let nameString: UnsafeBufferPointer<UInt32>
    private let ownCountry: UnsafeBufferPointer<UInt16>
    private let stringOffsets: UnsafeBufferPointer<UInt32>
    private let stringBytes: UnsafeBufferPointer<UInt8>
    private let columns: Int
    private let rows: Int
    private let cellStart: UnsafeBufferPointer<UInt32>
    private let entries: UnsafeBufferPointer<UInt32>
    /// Whether the point lies inside the outline of the given country (not only within its
    /// coastal 22 km); nil: never at sea.
    let onLand: (@Sendable (Coordinate, String) -> Bool)?

    public var placeCount: Int { places.count }

    /// Reads Places.bin's bytes (copied once, into memory the resolver keeps).
    public convenience init(data: [UInt8], onLand: (@Sendable (Coordinate, String) -> Bool)? = nil) throws {
        let copy = AlignedBytes(data)
        try self.init(mapped: copy.bytes, owner: copy, onLand: onLand)
    }

    /// Reads Places.bin where it lies (`bytes`, 4-byte aligned, valid while `owner` lives, which
    /// the resolver keeps), checking every count and index first (damaged bytes are an error,
    /// never a crash). `onLand`: whether a point is inside its country's outline (at sea
    /// otherwise), from the country resolver.
    public init(mapped data: UnsafeRawBufferPointer, owner: AnyObject,
                onLand: (@Sendable (Coordinate, String) -> Bool)? = nil) throws {
        let file = try PlacesFile(data)
        self.onLand = onLand
        self.memory = owner
        self.places = file.records
        self.facts = file.facts
        self.factsBlock = max(1, (file.placeCount + 63) / 64)
        self.recordMemory = file.recordMemory
        self.codes = file.codes
        self.countryOutline = file.outlines
        self.countryByLetters = file.byLetters
        self.regionCountry = file.regionCountry
        self.regionValues = file.regions
        self.population = file.population
        self.geonamesID = file.ids
        self.nameString = file.names
        self.ownCountry = file.own
        self.stringOffsets = file.offsets
        self.stringBytes = file.bytes
        self.columns = file.columns
        self.rows = file.rows
        self.cellStart = file.start
        self.entries = file.entries
    }

    // MARK: lookups

    /// The country id of a code, without making anything (two letters A–Z, else nil).
    @inline(__always)
    func countryID(_ code: String) -> Int? {
        var letters = code.utf8.makeIterator()
        guard let a = letters.next(), let b = letters.next(), letters.next() == nil,
              a &- 0x41 < 26, b &- 0x41 < 26 else { return nil }
        let id = countryByLetters[Int(a &- 0x41) * 26 + Int(b &- 0x41)]
        return id == 0xFFFF ? nil : Int(id)
    }

    private func makeRegion(_ r: UInt16) -> Region? {
        r == 0xFFFF ? nil : regionValues[Int(r)]
    }

    /// Place p as the gazetteer has it: its name made now, from the bytes its facts hold where
    /// they fit (one cache line read), else from the file's string table.
    private func place(_ p: Int) -> Place {
        if factsMade.load(ordering: .acquiring) & (1 << UInt64(p / factsBlock)) == 0 { makeFacts(block: p / factsBlock) }
        let record = places[p], fact = facts[p]
        let name: String
        if fact.nameLength != PlaceFacts.longName {
            let bytes = UnsafeRawPointer(facts.baseAddress! + p) + PlaceFacts.nameOffset
            name = String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(fact.nameLength)), as: UTF8.self)
        } else {
            let s = Int(nameString[p])
            name = String(decoding: UnsafeBufferPointer(rebasing: stringBytes[Int(stringOffsets[s])..<Int(stringOffsets[s + 1])]), as: UTF8.self)
        }
        return Place(id: Int(fact.id), name: name, countryCode: codes[Int(fact.own)],
                     coordinate: Coordinate(latitude: record.latitudeDegrees, longitude: record.longitudeDegrees),
                     population: Int(fact.population))
    }

    /// Makes the facts of block b's places, unless another thread just did (one at a time).
    private func makeFacts(block b: Int) {
        factsMaking.withLock { _ in
            let bit: UInt64 = 1 << UInt64(b)
            guard factsMade.load(ordering: .relaxed) & bit == 0 else { return }
            let table = UnsafeMutablePointer(mutating: facts.baseAddress!)
            for p in (b * factsBlock)..<min(facts.count, (b + 1) * factsBlock) { makeFacts(p, at: table + p) }
            factsMade.bitwiseOr(bit, ordering: .releasing)
        }
    }

    /// Place p's facts, made at `slot`: its name's bytes copied in where they fit.
    private func makeFacts(_ p: Int, at slot: UnsafeMutablePointer<PlaceFacts>) {
        let name = Int(nameString[p]), start = Int(stringOffsets[name]), length = Int(stringOffsets[name + 1]) - start
        let fits = length <= PlaceFacts.nameCapacity
        slot.initialize(to: PlaceFacts(id: geonamesID[p], population: population[p], own: ownCountry[p],
                                       nameLength: fits ? UInt8(length) : PlaceFacts.longName, name: PlaceFacts.noName))
        guard fits else { return }
        let to = UnsafeMutableRawPointer(slot) + PlaceFacts.nameOffset, from = UnsafeRawPointer(stringBytes.baseAddress! + start)
        // All 21 bytes where the table has them (a copy of a constant size: a few moves, no
        // call); past the name they are the next names' bytes, never read.
        if stringBytes.count - start >= PlaceFacts.nameCapacity { to.copyMemory(from: from, byteCount: PlaceFacts.nameCapacity) }
        else { to.copyMemory(from: from, byteCount: length) }
    }

    private func cell(latitude: Double, longitude: Double) -> (row: Int, column: Int) {
        let step = 360.0 / Double(columns)
        let r = min(rows - 1, max(0, Int(((latitude + 90) / step).rounded(.down))))
        let c = min(columns - 1, max(0, Int(((longitude + 180) / step).rounded(.down))))
        return (r, c)
    }

    /// A point and the places' records, read without bounds checks: every index in `entries`
    /// was checked against the place count at load.
    private struct Scan {
        let places: UnsafeBufferPointer<PlaceRecord>
        let population: UnsafeBufferPointer<UInt32>
        let id: UnsafeBufferPointer<UInt32>
        let entries: UnsafeBufferPointer<UInt32>
        /// What naming the chosen place will read: each best so far is asked for as it is found,
        /// so the cache miss passes while the scan goes on.
        let facts: UnsafePointer<PlaceFacts>
        /// The point in the records' units (1e-5 degree), and km per unit east and north there.
        let latitude: Double, longitude: Double, kmEast: Double, kmNorth: Double

        init(places: UnsafeBufferPointer<PlaceRecord>, population: UnsafeBufferPointer<UInt32>, id: UnsafeBufferPointer<UInt32>,
             entries: UnsafeBufferPointer<UInt32>, facts: UnsafePointer<PlaceFacts>, point: Coordinate) {
            (self.places, self.population, self.id, self.entries, self.facts) = (places, population, id, entries, facts)
            latitude = point.latitude * 1e5
            longitude = point.longitude * 1e5
            kmNorth = PlaceResolver.kmPerDegree / 1e5
            kmEast = kmNorth * cos(point.latitude * .pi / 180)
        }

        /// The square of the kilometres from the point to `place` in the point's own
        /// equirectangular projection (to rank candidates; the distance reported is the
        /// haversine one): no square root, no division, for the candidates that cannot win.
        @inline(__always)
        func planarSquaredKm(_ place: PlaceRecord) -> Double {
            var dx = Double(place.longitude) - longitude
            if dx > 18_000_000 { dx -= 36_000_000 } else if dx < -18_000_000 { dx += 36_000_000 }
            let x = dx * kmEast, y = (Double(place.latitude) - latitude) * kmNorth
            return x * x + y * y
        }

        /// Kilometres from the point to `place` in the point's projection.
        @inline(__always)
        func planarKm(_ place: PlaceRecord) -> Double { planarSquaredKm(place).squareRoot() }

        /// Ties (the same score): the larger place, then the smaller GeoNames id, so the answer
        /// never depends on the order of the file.
        @inline(__always)
        func better(_ p: Int, than q: Int) -> Bool {
            guard q >= 0 else { return true }
            return PlaceResolver.ranks(p, before: q, population: population, id: id)
        }
    }

    /// Whether a squared distance may lie within `km` (a hair of slack: what passes is then
    /// measured exactly, so the answer is the one every place measured gives).
    @inline(__always)
    fileprivate static func mayLie(_ squaredKm: Double, within km: Double) -> Bool {
        squaredKm <= km * km * (1 + 1e-9)
    }

    /// Calls `body` with the point's scan (its cos φ computed once).
    @inline(__always)
    private func scanning<T>(_ point: Coordinate, _ body: (Scan) -> T) -> T {
        body(Scan(places: places, population: population, id: geonamesID, entries: entries, facts: facts.baseAddress!, point: point))
    }

    /// Ties: the larger place first, then the smaller GeoNames id.
    @inline(__always)
    fileprivate static func ranks(_ p: Int, before q: Int, population: UnsafeBufferPointer<UInt32>, id: UnsafeBufferPointer<UInt32>) -> Bool {
        population[p] != population[q] ? population[p] > population[q] : id[p] < id[q]
    }

    public func match(at point: Coordinate, countryCode: String?) -> PlaceMatch {
        match(at: point, countryCode: countryCode, inOutline: nil)
    }

    public func match(at point: Coordinate, countryCode: String?, inOutline: Bool?) -> PlaceMatch {
        match(hit(at: point, countryCode: countryCode, inOutline: inOutline), at: point)
    }

    /// `match`'s answer as the gazetteer's indices, no String made (`match(_:at:)` names them).
    public func hit(at point: Coordinate, countryCode: String?, inOutline: Bool?) -> PlaceHit {
        guard point.isValid, let countryCode, let country = countryID(countryCode) else { return .none }
        let found = hit(at: point, country: country, inOutline: inOutline ?? onLand.map { $0(point, countryCode) } ?? true, region: true)
        Self.prefetch(found.region, of: regionValues)
        return found
    }

    /// The lookup in a known country (`countryID`), the point's side of the outline known:
    /// rules 1–4, and with `region` rule 5 (the region of the place, or without one, of the
    /// nearest place within 150 km, only then looked for); without it, no region (the caller
    /// has one).
    func hit(at point: Coordinate, country: Int, inOutline: Bool, region: Bool) -> PlaceHit {
        let outlineCountry = UInt16(countryOutline[country])
        var chosen: Int?
        if !inOutline {
            chosen = nearest(to: point, outlineCountry: outlineCountry, withinKm: Self.seaKm)
        } else {
            let (r, c) = cell(latitude: point.latitude, longitude: point.longitude)
            let k = r * columns + c
            chosen = scanning(point) { scan in
                Self.onLandChoice(scan, entries: Int(cellStart[k])..<Int(cellStart[k + 1]), outlineCountry: outlineCountry)
            }
        }
        if let p = chosen {
            pins_prefetch(facts.baseAddress! + p)  // what naming it reads, asked for now
            return PlaceHit(place: Int32(p), region: region ? regionIndex(places[p].region) : -1)
        }
        guard region, let p = nearest(to: point, outlineCountry: outlineCountry, withinKm: Self.regionKm) else { return .none }
        return PlaceHit(place: -1, region: regionIndex(places[p].region))
    }

    /// Asks for region `r`'s value in `regions` (its 48 bytes may straddle two cache lines), which
    /// naming the hit copies: the miss then overlaps the lookup's others instead of following them.
    @inline(__always)
    static func prefetch(_ r: Int32, of regions: [Region]) {
        guard r >= 0 else { return }
        regions.withUnsafeBufferPointer { values in
            let value = UnsafeRawPointer(values.baseAddress! + Int(r))
            pins_prefetch(value)
            pins_prefetch(value + MemoryLayout<Region>.size - 1)
        }
    }

    /// Asks for what the lookup at `point` will read first on land: its grid cell's bounds and
    /// first entries (for a caller with other work to do before it: the outlines' region).
    @inline(__always)
    func prefetchCell(of point: Coordinate) {
        guard point.isValid else { return }
        let (r, c) = cell(latitude: point.latitude, longitude: point.longitude)
        let k = r * columns + c
        pins_prefetch(cellStart.baseAddress! + k)
        pins_prefetch(entries.baseAddress! + Int(cellStart[k]))
    }

    /// A place record's region as a hit's (0xFFFF, none: -1).
    @inline(__always)
    private func regionIndex(_ r: UInt16) -> Int32 { r == 0xFFFF ? -1 : Int32(r) }

    /// The answer a hit names at `point`: the place (its name made now) and its distance, the
    /// region.
    public func match(_ hit: PlaceHit, at point: Coordinate) -> PlaceMatch {
        match(hit, at: point, regions: regionValues)
    }

    /// The same with the regions of `regions` (the gazetteer's, in its order, perhaps renamed).
    func match(_ hit: PlaceHit, at point: Coordinate, regions: [Region]) -> PlaceMatch {
        let region = hit.region >= 0 ? regions[Int(hit.region)] : nil
        guard hit.place >= 0 else { return PlaceMatch(region: region) }
        let chosen = place(Int(hit.place))
        return PlaceMatch(place: chosen, placeDistanceKm: AngularDistance.kilometres(point, chosen.coordinate), region: region)
    }

    /// `matchByScanning`'s answer for the chosen place; without one, the region of
    /// `regionPlace` (rule 5), only then looked for.
    private func makeMatch(_ point: Coordinate, chosen: Int?, regionPlace: @autoclosure () -> Int?) -> PlaceMatch {
        guard let p = chosen else { return PlaceMatch(region: regionPlace().flatMap { makeRegion(places[$0].region) }) }
        let chosenPlace = place(p)
        return PlaceMatch(place: chosenPlace, placeDistanceKm: AngularDistance.kilometres(point, chosenPlace.coordinate),
                          region: makeRegion(places[p].region))
    }

    /// Rules 2–3 over one cell's places: the place that holds the point most centrally (the
    /// smallest d / r), else the one whose edge is nearest within the cap (the smallest d − r).
    @inline(__always)
    private static func onLandChoice(_ scan: Scan, entries range: Range<Int>, outlineCountry: UInt16) -> Int? {
        var bestInside = -1, bestInsideScore = Double.infinity
        var bestOutside = -1, bestOutsideScore = Double(capBeyondRadiusKm)
        // The entries come in increasing g: past g > 0 no place can hold the point (once one
        // does, nothing else matters); past g > the best d − r, none can beat or tie it. The
        // bound as an entry's coded g, so the test is one integer comparison.
        var stop = gapCode(above: bestOutsideScore)
        for s in range {
            let entry = scan.entries[s]
            if entry >> indexBits > stop { break }
            // The record two entries on, asked for now: the records lie all over the table, and
            // a record's miss would otherwise wait for this one's.
            if s + 2 < range.upperBound { pins_prefetch(scan.places.baseAddress! + (Int(scan.entries[s + 2]) & indexMask)) }
            let p = Int(entry) & indexMask
            let place = scan.places[p]
            guard place.outline == outlineCountry else { continue }
            let radius = Double(place.radius)
            // Only a place that may hold the point, or (while none does) come nearer than the
            // best edge so far, is measured.
            let squared = scan.planarSquaredKm(place)
            guard mayLie(squared, within: bestInside >= 0 ? radius : radius + bestOutsideScore) else { continue }
            let d = squared.squareRoot()
            if d <= radius {
                let score = d / radius
                if score < bestInsideScore || (score == bestInsideScore && scan.better(p, than: bestInside)) {
                    bestInside = p
                    pins_prefetch(scan.facts + p)
                    bestInsideScore = score
                    stop = gapCode(above: 0)
                }
            } else if bestInside < 0 {
                let score = d - radius
                if score < bestOutsideScore || (score == bestOutsideScore && scan.better(p, than: bestOutside)) {
                    bestOutside = p
                    pins_prefetch(scan.facts + p)
                    bestOutsideScore = score
                    stop = gapCode(above: score)
                }
            }
        }
        return bestInside >= 0 ? bestInside : (bestOutside >= 0 ? bestOutside : nil)
    }

    /// The largest coded g (an entry's bits above the index: (g + 128) × 64) that is not above
    /// `km`: an entry coded higher has g > km. A hair of slack keeps a tie in.
    @inline(__always)
    private static func gapCode(above km: Double) -> UInt32 {
        UInt32(((km + 128) * 64 + 1e-6).rounded(.down))
    }

    /// The nearest place centre of the outline country within `km`: the cells the circle can
    /// reach, nearest first, each only while it may hold a nearer centre (every place is listed
    /// in its own cell at least).
    private func nearest(to point: Coordinate, outlineCountry: UInt16, withinKm km: Double) -> Int? {
        let cells = reachableCells(from: point, withinKm: km)
        return scanning(point) { scan in
            var best = -1, bestKm = km
            for (bound, k) in cells {
                if bound > bestKm { break }
                for s in Int(cellStart[k])..<Int(cellStart[k + 1]) {
                    let p = Int(scan.entries[s]) & Self.indexMask
                    let place = scan.places[p]
                    guard place.outline == outlineCountry else { continue }
                    let squared = scan.planarSquaredKm(place)
                    guard Self.mayLie(squared, within: bestKm) else { continue }
                    let d = squared.squareRoot()
                    if d < bestKm || (d == bestKm && best >= 0 && scan.better(p, than: best)) {
                        best = p
                        bestKm = d
                    }
                }
            }
            return best >= 0 ? best : nil
        }
    }

    /// The cells a circle of `km` around the point can reach, each with a lower bound of the
    /// distance (in the point's projection) from the point to any place centre in it, nearest
    /// first.
    private func reachableCells(from point: Coordinate, withinKm km: Double) -> [(km: Double, cell: Int)] {
        let latitude = point.latitude, longitude = point.longitude
        let step = 360.0 / Double(columns)
        let dLat = km / Self.kmPerDegree
        let top = min(90, abs(latitude) + dLat)
        let dLon = top >= 89.999 ? 180 : min(180, dLat / cos(top * .pi / 180))
        let (r0, _) = cell(latitude: max(-90, latitude - dLat), longitude: 0)
        let (r1, _) = cell(latitude: min(90, latitude + dLat), longitude: 0)
        let c0 = Int(((longitude - dLon + 180) / step).rounded(.down))
        let c1 = Int(((longitude + dLon + 180) / step).rounded(.down))
        let columnRange = c1 - c0 + 1 >= columns ? 0...(columns - 1) : c0...c1
        let cosPhi = cos(latitude * .pi / 180)
        /// Degrees from the point's longitude to the nearest of [lo, hi], the short way round.
        func lonGap(_ lo: Double, _ hi: Double) -> Double {
            if longitude >= lo && longitude <= hi { return 0 }
            func around(_ a: Double) -> Double { let m = abs(a).truncatingRemainder(dividingBy: 360); return min(m, 360 - m) }
            return min(around(lo - longitude), around(longitude - hi))
        }
        var cells: [(km: Double, cell: Int)] = []
        cells.reserveCapacity((r1 - r0 + 1) * columnRange.count)
        for r in r0...r1 {
            let south = -90 + Double(r) * step
            let dy = max(0, south - latitude, latitude - (south + step))
            for raw in columnRange {
                let c = ((raw % columns) + columns) % columns
                let west = -180 + Double(c) * step
                let dx = lonGap(west, west + step) * cosPhi
                // A hair less than the bound: rounding never leaves out a cell that holds a tie.
                cells.append(((dx * dx + dy * dy).squareRoot() * Self.kmPerDegree * (1 - 1e-9) - 1e-6, r * columns + c))
            }
        }
        cells.sort { $0.km < $1.km }
        return cells
    }

    /// Every region of the gazetteer, in the file's order (the outlines match theirs in one pass).
    var allRegions: [Region] { regionValues }

    public func regions(of countryCode: String) -> [Region] {
        regionIndices(of: countryCode).map { regionValues[$0] }
    }

    /// The indices of a country's regions (its own, and those of the countries its outline
    /// holds), in the file's order.
    func regionIndices(of countryCode: String) -> [Int] {
        guard let country = countryID(countryCode) else { return [] }
        var out: [Int] = []
        for r in 0..<regionCountry.count {
            let c = Int(regionCountry[r])
            if c == country || (Int(countryOutline[c]) == country && c != country) { out.append(r) }
        }
        return out
    }

    /// The `limit` most populous places of the country's outline (the map page's labels), most
    /// populous first, ties by GeoNames id: one pass over the places.
    public func largestPlaces(of countryCode: String, limit: Int) -> [Place] {
        guard limit > 0, let country = countryID(countryCode) else { return [] }
        let outlineCountry = Int(countryOutline[country])
        var chosen: [Int] = []
        for p in places.indices where Int(places[p].outline) == outlineCountry { chosen.append(p) }
        chosen.sort { Self.ranks($0, before: $1, population: population, id: geonamesID) }
        return chosen.prefix(limit).map(place)
    }
}

// MARK: the rule without the grid

extension PlaceResolver {
    /// The places of a country's outline (`matchByScanning`'s candidates).
    func placeIndices(inOutlineOf countryCode: String) -> [Int] {
        guard let country = countryID(countryCode) else { return [] }
        let outlineCountry = countryOutline[country]
        return places.indices.filter { places[$0].outline == outlineCountry }
    }

    /// `match` by the rule alone, measuring every one of `candidates` (the places of the point's
    /// outline country: `placeIndices`), with no grid and no early exit: what PlaceResolverTests
    /// holds `match` to.
    func matchByScanning(at point: Coordinate, countryCode: String, candidates: [Int]) -> PlaceMatch {
        guard point.isValid, countryID(countryCode) != nil else { return .none }
        let atSea = onLand.map { !$0(point, countryCode) } ?? false
        return scanning(point) { scan in
            var inside = -1, insideScore = Double.infinity, outside = -1, outsideScore = Double(Self.capBeyondRadiusKm)
            var sea = -1, seaKm = Self.seaKm, regionPlace = -1, regionKm = Self.regionKm
            for p in candidates {
                let d = scan.planarKm(scan.places[p]), r = Double(scan.places[p].radius)
                if d <= r, d / r < insideScore || (d / r == insideScore && scan.better(p, than: inside)) {
                    (inside, insideScore) = (p, d / r)
                }
                if d > r, d - r < outsideScore || (d - r == outsideScore && scan.better(p, than: outside)) {
                    (outside, outsideScore) = (p, d - r)
                }
                if d < seaKm || (d == seaKm && sea >= 0 && scan.better(p, than: sea)) { (sea, seaKm) = (p, d) }
                if d < regionKm || (d == regionKm && regionPlace >= 0 && scan.better(p, than: regionPlace)) {
                    (regionPlace, regionKm) = (p, d)
                }
            }
            let chosen = atSea ? sea : (inside >= 0 ? inside : outside)
            return makeMatch(point, chosen: chosen >= 0 ? chosen : nil, regionPlace: regionPlace >= 0 ? regionPlace : nil)
        }
    }
}

/// What a lookup reads of a candidate place, in 16 bytes (four in a cache line: the scans of a
/// cell read their candidates' records and nothing else, and memory, not arithmetic, is what a
/// lookup waits for).
private struct PlaceRecord {
    /// 1e-5 degree, as in the file: `degrees` divides them as the build did.
    var latitude: Int32
    var longitude: Int32
    /// The rule's radius in km, max(1, 0.01 × √population), in Float as the build's grid has it.
    var radius: Float
    /// The country whose outline holds it.
    var outline: UInt16
    /// Its admin-1 region, 0xFFFF: none.
    var region: UInt16

    @inline(__always) var latitudeDegrees: Double { Double(latitude) / 1e5 }
    @inline(__always) var longitudeDegrees: Double { Double(longitude) / 1e5 }
}

/// What naming a chosen place reads (`PlaceResolver.place`), in 32 bytes (a cache line holds
/// it whole): its id, population and country, and its name's bytes where they fit, where the
/// file's columns of ids, populations, countries, names, string offsets and bytes are six reads
/// (the name's a second cache miss after the first).
private struct PlaceFacts {
    var id: UInt32
    var population: UInt32
    /// The country whose place it is (its code names it).
    var own: UInt16
    /// How many of `name`'s bytes are the name (`longName`: more than it holds; the name is then
    /// found through the file's columns).
    var nameLength: UInt8
    /// The name in UTF-8, its first `nameLength` bytes.
    var name: InlineArray<21, UInt8>

    static let longName = UInt8.max
    static let nameCapacity = 21
    static let noName = InlineArray<21, UInt8>(repeating: 0)
    static let nameOffset = MemoryLayout<PlaceFacts>.offset(of: \PlaceFacts.name)!
}

/// Reads Places.bin's bytes in order, each read checked against the end: damaged bytes are an
/// error naming their offset, never a crash.
private struct PlacesFileCursor {
    let data: UnsafeRawBufferPointer
    var i = 0

    func fail(_ what: String) -> PlaceDataError { .malformed(offset: i, what: what) }

    func need(_ bytes: Int) throws {
        guard bytes >= 0, data.count - i >= bytes else { throw fail("unexpected end") }
    }

    mutating func u32() throws -> Int {
        try need(4)
        defer { i += 4 }
        return Int(UInt32(littleEndian: data.loadUnaligned(fromByteOffset: i, as: UInt32.self)))
    }

    mutating func f32() throws -> Float { Float(bitPattern: UInt32(try u32())) }

    /// The next `count` values of T where they lie (the file is little-endian, as this
    /// machine), then on to the next 4-byte boundary.
    mutating func array<T>(_ count: Int, _: T.Type) throws -> UnsafeBufferPointer<T> {
        try need(count * MemoryLayout<T>.stride)
        defer { i = (i + count * MemoryLayout<T>.stride + 3) & ~3 }
        return UnsafeBufferPointer(start: (data.baseAddress! + i).assumingMemoryBound(to: T.self), count: count)
    }
}

/// Places.bin as read and checked (version 2, scripts/build-places): the counts, the countries,
/// the regions, the strings, the places' columns and the grid, in the file's order.
private struct PlacesFile {
    var countryCount = 0, regionCount = 0, placeCount = 0, stringCount = 0, stringByteCount = 0
    var columns = 0, rows = 0, entryCount = 0
    var codes: [String] = [], outlines: [UInt16] = []
    var byLetters = [UInt16](repeating: 0xFFFF, count: 26 * 26)
    var regionCountry: [UInt16] = [], regions: [Region] = []
    var offsets = UnsafeBufferPointer<UInt32>(start: nil, count: 0), bytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    var lat = UnsafeBufferPointer<Int32>(start: nil, count: 0), lon = UnsafeBufferPointer<Int32>(start: nil, count: 0)
    var population = UnsafeBufferPointer<UInt32>(start: nil, count: 0), ids = UnsafeBufferPointer<UInt32>(start: nil, count: 0)
    var names = UnsafeBufferPointer<UInt32>(start: nil, count: 0)
    var region = UnsafeBufferPointer<UInt16>(start: nil, count: 0), outline = UnsafeBufferPointer<UInt16>(start: nil, count: 0)
    var own = UnsafeBufferPointer<UInt16>(start: nil, count: 0)
    var start = UnsafeBufferPointer<UInt32>(start: nil, count: 0), entries = UnsafeBufferPointer<UInt32>(start: nil, count: 0)
    var records = UnsafeBufferPointer<PlaceRecord>(start: nil, count: 0)
    var facts = UnsafeBufferPointer<PlaceFacts>(start: nil, count: 0)
    var recordMemory: TableMemory?

    init(_ data: UnsafeRawBufferPointer) throws {
        var cursor = PlacesFileCursor(data: data)
        guard data.starts(with: PlaceResolver.magic), Int(bitPattern: data.baseAddress) % 4 == 0 else {
            throw cursor.fail("not a pins places file (magic)")
        }
        cursor.i = PlaceResolver.magic.count
        try readHeader(&cursor)
        try readCountries(&cursor)
        let regionStrings = try readRegions(&cursor)
        try readStrings(&cursor)
        regions = regionStrings.map { r in
            Region(code: r.iso == 0xFFFF_FFFF ? nil : text(r.iso), name: text(r.name), countryCode: codes[Int(r.country)])
        }
        try readPlaces(&cursor)
        try readGrid(&cursor)
        guard cursor.i == data.count else { throw cursor.fail("trailing bytes") }
        try makeRecords(cursor)
    }

    /// The version, the counts and the rule's constants the grid was built for.
    private mutating func readHeader(_ cursor: inout PlacesFileCursor) throws {
        guard try cursor.u32() == 2 else { throw cursor.fail("unknown version (rebuild it with scripts/build-places)") }
        countryCount = try cursor.u32(); regionCount = try cursor.u32(); placeCount = try cursor.u32()
        stringCount = try cursor.u32(); stringByteCount = try cursor.u32()
        columns = try cursor.u32(); rows = try cursor.u32(); entryCount = try cursor.u32()
        let k = try cursor.f32(), minimum = try cursor.f32(), cap = try cursor.f32()
        guard k == PlaceResolver.radiusPerSqrtPopulation, minimum == PlaceResolver.minimumRadiusKm, cap == PlaceResolver.capBeyondRadiusKm else {
            throw cursor.fail("built for other constants (radius \(k) km per √population, at least \(minimum) km, cap \(cap) km); rebuild it with scripts/build-places")
        }
        guard countryCount > 0, countryCount < 0xFFFF, regionCount < 0xFFFF, placeCount > 0, placeCount <= PlaceResolver.indexMask + 1,
              stringCount < 0xFFFF_FFFF, columns > 0, rows > 0, columns == 2 * rows, columns <= 36000,
              entryCount <= cursor.data.count / 4 else {
            throw cursor.fail("bad counts")
        }
    }

    /// Each country: its two letters and the country whose outline holds it.
    private mutating func readCountries(_ cursor: inout PlacesFileCursor) throws {
        let data = cursor.data
        for c in 0..<countryCount {
            try cursor.need(4)
            let a = data[cursor.i], b = data[cursor.i + 1]
            guard (0x41...0x5A).contains(a), (0x41...0x5A).contains(b) else { throw cursor.fail("bad country code") }
            codes.append(String(decoding: [a, b], as: UTF8.self))
            byLetters[Int(a - 0x41) * 26 + Int(b - 0x41)] = UInt16(c)
            let o = UInt16(data[cursor.i + 2]) | UInt16(data[cursor.i + 3]) << 8
            guard Int(o) < countryCount else { throw cursor.fail("bad outline country") }
            outlines.append(o)
            cursor.i += 4
        }
    }

    /// Each region: its country and the strings of its name and ISO code (0xFFFF_FFFF: none).
    private mutating func readRegions(_ cursor: inout PlacesFileCursor) throws -> [(country: UInt16, name: Int, iso: Int)] {
        var found: [(country: UInt16, name: Int, iso: Int)] = []
        for _ in 0..<regionCount {
            let country = try cursor.u32() & 0xFFFF
            let name = try cursor.u32(), iso = try cursor.u32()
            guard country < countryCount, name < stringCount, iso < stringCount || iso == 0xFFFF_FFFF else {
                throw cursor.fail("bad region")
            }
            regionCountry.append(UInt16(country))
            found.append((UInt16(country), name, iso))
        }
        return found
    }

    /// The string table: offsets in order, then the bytes.
    private mutating func readStrings(_ cursor: inout PlacesFileCursor) throws {
        offsets = try cursor.array(stringCount + 1, UInt32.self)
        guard offsets.first == 0, offsets.last.map({ Int($0) }) == stringByteCount else { throw cursor.fail("bad string table") }
        var falling: UInt32 = 0  // a branch-free reduction, vectorised
        for s in 0..<stringCount { falling |= offsets[s] > offsets[s + 1] ? 1 : 0 }
        guard falling == 0 else { throw cursor.fail("bad string offsets") }
        bytes = try cursor.array(stringByteCount, UInt8.self)
    }

    func text(_ s: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[Int(offsets[s])..<Int(offsets[s + 1])]), as: UTF8.self)
    }

    /// The places' columns.
    private mutating func readPlaces(_ cursor: inout PlacesFileCursor) throws {
        lat = try cursor.array(placeCount, Int32.self)
        lon = try cursor.array(placeCount, Int32.self)
        population = try cursor.array(placeCount, UInt32.self)
        ids = try cursor.array(placeCount, UInt32.self)
        names = try cursor.array(placeCount, UInt32.self)
        region = try cursor.array(placeCount, UInt16.self)
        outline = try cursor.array(placeCount, UInt16.self)
        own = try cursor.array(placeCount, UInt16.self)
        _ = try cursor.array(placeCount, UInt8.self)  // feature codes: the build's filter; not needed to resolve
    }

    /// The grid: where each cell's entries start, then the entries.
    private mutating func readGrid(_ cursor: inout PlacesFileCursor) throws {
        start = try cursor.array(columns * rows + 1, UInt32.self)
        guard start.first == 0, start.last.map({ Int($0) }) == entryCount else { throw cursor.fail("bad grid") }
        var falling: UInt32 = 0  // a branch-free reduction, vectorised
        for c in 0..<(columns * rows) { falling |= start[c] > start[c + 1] ? 1 : 0 }
        guard falling == 0 else { throw cursor.fail("bad grid") }
        entries = try cursor.array(entryCount, UInt32.self)
        var highest: UInt32 = 0  // a branch-free reduction, vectorised
        for e in entries { highest = max(highest, e & UInt32(PlaceResolver.indexMask)) }
        guard entries.isEmpty || Int(highest) < placeCount else { throw cursor.fail("bad grid entry") }
    }

    /// What a lookup reads of each place, each value checked first (each check a branch-free
    /// reduction over a column, which the compiler vectorises).
    private mutating func makeRecords(_ cursor: PlacesFileCursor) throws {
        let file = self
        var lowest = (lat: Int32.max, lon: Int32.max), highest = (lat: Int32.min, lon: Int32.min)
        for p in 0..<placeCount {
            lowest = (min(lowest.lat, lat[p]), min(lowest.lon, lon[p]))
            highest = (max(highest.lat, lat[p]), max(highest.lon, lon[p]))
        }
        var highestName: UInt32 = 0, highestRegion: UInt16 = 0, highestCountry: UInt16 = 0
        for p in 0..<placeCount {
            highestName = max(highestName, names[p])
            highestRegion = max(highestRegion, region[p] == 0xFFFF ? 0 : region[p])
            highestCountry = max(highestCountry, max(outline[p], own[p]))
        }
        guard lowest.lat >= -9_000_000, highest.lat <= 9_000_000, lowest.lon >= -18_000_000, highest.lon <= 18_000_000,
              Int(highestName) < stringCount, regionCount > 0 || !region.contains(where: { $0 != 0xFFFF }),
              Int(highestRegion) < max(1, regionCount), Int(highestCountry) < countryCount else {
            throw cursor.fail("bad place \(firstBadPlace())")
        }
        // The records, then room for the facts (made when first named: `PlaceResolver.makeFacts`),
        // in one table (its start, and so the facts', 32-byte aligned).
        let recordBytes = (placeCount * MemoryLayout<PlaceRecord>.stride + 31) & ~31
        let memory = TableMemory(bytes: recordBytes + placeCount * MemoryLayout<PlaceFacts>.stride)
        recordMemory = memory
        let made = memory.base.bindMemory(to: PlaceRecord.self, capacity: placeCount)
        let named = (memory.base + recordBytes).bindMemory(to: PlaceFacts.self, capacity: placeCount)
        for p in 0..<file.placeCount {
            let radius = max(PlaceResolver.minimumRadiusKm, PlaceResolver.radiusPerSqrtPopulation * Float(file.population[p]).squareRoot())
            (made + p).initialize(to: PlaceRecord(latitude: file.lat[p], longitude: file.lon[p], radius: radius,
                                                  outline: file.outline[p], region: file.region[p]))
        }
        records = UnsafeBufferPointer(start: made, count: placeCount)
        facts = UnsafeBufferPointer(start: named, count: placeCount)
    }

    /// The first place with a value out of range (for the error).
    private func firstBadPlace() -> Int {
        for p in 0..<placeCount {
            let latitudeOK = lat[p] >= -9_000_000 && lat[p] <= 9_000_000, longitudeOK = lon[p] >= -18_000_000 && lon[p] <= 18_000_000
            let regionOK = region[p] == 0xFFFF || Int(region[p]) < regionCount
            if !latitudeOK || !longitudeOK || Int(names[p]) >= stringCount || !regionOK || Int(outline[p]) >= countryCount
                || Int(own[p]) >= countryCount {
                return p
            }
        }
        return 0
    }
}
