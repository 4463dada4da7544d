import Foundation
import Synchronization

public enum RegionDataError: Error, CustomStringConvertible {
    case malformed(offset: Int, what: String)

    public var description: String {
        switch self {
        case let .malformed(offset, what): return "Regions.bin: \(what) at byte \(offset)"
        }
    }
}

/// The admin-1 outlines of every country: the 8 DCW-GMT divides (AR AU BR CA CN IN RU US: 272
/// state and province units; DCW-GMT 2.1.1, LGPL-3+) and Natural Earth's 1:10m admin-1 (public
/// domain) for the others, from Resources/Regions.bin (scripts/build-regions
/// writes it and describes its layout; Resources/PLACES.md "Regions" says why and how).
///
/// A lookup reads one grid cell of 0.25°: the unit holding the cell's centre is in the file, and
/// the point's own unit follows from the parity of the crossings of the path from the point to
/// the centre (along the point's latitude, then the centre's longitude) with each unit's edges
/// in the cell. A country's longitudes lie in its grid's west ..< west + 360° (0..360 for Russia,
/// the Aleutians, Fiji, which cross 180°; -180..180 for most).
public final class RegionOutlines: @unchecked Sendable {
    // Immutable after init, but for `tables`, written under its lock; the buffers point into
    // `memory`, which lives as long as the outlines.
    static let magic = Array("PINSRG1\n".utf8)
    /// Coordinates in the file are in 1e-5 degree.
    private static let scale = 1e5
    private static let kmPerUnit = AngularDistance.earthRadiusKm * .pi / 180 / scale

    struct Grid {
        var code: String
        var west: Double, south: Double, cell: Double
        var columns: Int, rows: Int
        var firstUnit: Int, unitCount: Int, firstCell: Int
    }

    private let grids: [Grid]
    /// What a lookup reads of a grid: its numbers, no string (nothing to retain).
    private struct Frame {
        var index: Int
        var west: Double, south: Double, cell: Double
        var columns: Int, rows: Int
    }
    private let frames: [Frame]
    /// A country's grid by its two letters, (first − "A") × 26 + (second − "A"); -1: none.
    private let gridByLetters: [Int16]
    private let unitCountry: [UInt16]
    /// Per unit: its source code and region codes, as (offset << 8 | length) into `strings`.
    private let unitCodeRef: [Int]
    private let unitRegionRef: [Int]
    private let strings: UnsafeRawBufferPointer
    private let unitFirstRing: [Int]
    private let unitRingCount: [Int]
    /// The file's bytes (a private copy in memory: `MappedFile`, `AlignedBytes`), kept while the
    /// outlines live: the tables below point into them, and each country's cells and points are
    /// decoded from them when first needed.
    private let memory: AnyObject
    private let bytes: UnsafeRawBufferPointer
    /// In the file: per ring (first vertex, vertex count); per run (first vertex, edges | unit << 16).
    private let ringTable: UnsafeBufferPointer<UInt32>
    private let runTable: UnsafeBufferPointer<UInt32>
    private let pageUnit: UnsafeBufferPointer<UInt32>
    private let pageStart: UnsafeBufferPointer<UInt32>
    private let pageXY: [Int32]
    private let ringMarks: [VertexMark]
    private let cellMarks: [CellMark]
    /// Each country's decoded cells and points, once a lookup has needed them.
    private let tables: Mutex<[CountryTables?]>
    /// Region key → the English name where it differs from the gazetteer's ("CN-YN": "Yunnan").
    let regionNames: [String: String]

    /// The units, in the file's order (index = unit id).
    var unitCount: Int { unitCodeRef.count }
    /// The country codes the outlines cover.
    public var countryCodes: [String] { grids.map { $0.code } }  // a closure: a key path costs a runtime lookup at its first use

    /// Reads Regions.bin's bytes (copied once, into memory the outlines keep), checking every
    /// count, offset and index (damaged bytes are an error, never a crash or a wrong unit's index).
    public convenience init(data: [UInt8]) throws {
        let copy = AlignedBytes(data)
        try self.init(mapped: copy.bytes, owner: copy)
    }

    /// The same from bytes in place (`bytes`, 4-byte aligned, valid while `owner` lives, which the
    /// outlines keep: a data file's private copy in memory, never a mapping of the file, which a
    /// rewrite in place could take away). Every byte is checked now; a country's cells and points
    /// are decoded at its first lookup.
    public init(mapped bytes: UnsafeRawBufferPointer, owner: AnyObject) throws {
        var reader = RegionDataReader(data: bytes)
        let file = try reader.readFile()
        grids = file.grids
        var byLetters = [Int16](repeating: -1, count: 26 * 26)
        for (k, g) in file.grids.enumerated() {
            if let slot = Self.letterSlot(g.code) { byLetters[slot] = Int16(k) }
        }
        gridByLetters = byLetters
        frames = file.grids.enumerated().map { k, g in
            Frame(index: k, west: g.west, south: g.south, cell: g.cell, columns: g.columns, rows: g.rows)
        }
        unitCountry = file.unitCountry
        unitCodeRef = file.unitCodeRef
        unitRegionRef = file.unitRegionRef
        strings = file.strings
        unitFirstRing = file.unitFirstRing
        unitRingCount = file.unitRingCount
        memory = owner
        self.bytes = bytes
        ringTable = file.rings
        runTable = file.runs
        pageUnit = file.pageUnit
        pageStart = file.pageStart
        pageXY = file.pageXY
        ringMarks = file.ringMarks
        cellMarks = file.cellMarks
        tables = Mutex([CountryTables?](repeating: nil, count: file.grids.count))
        regionNames = file.regionNames
    }

    /// The cells and points of grid `g`, decoded at the first call (under the lock: other threads
    /// asking for it meanwhile wait, once).
    private func tables(_ g: Int) -> CountryTables {
        tables.withLock { made in
            if let t = made[g] { return t }
            let grid = grids[g]
            let units = grid.firstUnit..<(grid.firstUnit + grid.unitCount)
            let firstRing = units.map { unitFirstRing[$0] }.min()!
            let endRing = units.map { unitFirstRing[$0] + unitRingCount[$0] }.max()!
            let firstVertex = Int(ringTable[2 * firstRing])
            let endVertex = Int(ringTable[2 * (endRing - 1)]) + Int(ringTable[2 * (endRing - 1) + 1])
            let t = CountryTables(bytes: bytes, cells: cellMarks[g], cellCount: grid.columns * grid.rows,
                                  vertices: ringMarks[firstRing], firstVertex: firstVertex, vertexCount: endVertex - firstVertex)
            made[g] = t
            return t
        }
    }

    /// A run's first vertex, edge count and unit.
    @inline(__always)
    private func runFirst(_ s: Int) -> Int { Int(runTable[2 * s]) }
    @inline(__always)
    private func runEdges(_ s: Int) -> Int { Int(runTable[2 * s + 1] & 0xFFFF) }
    @inline(__always)
    private func runUnit(_ s: Int) -> Int { Int(runTable[2 * s + 1] >> 16) }

    /// A string of the file by its reference (checked at load).
    private func text(_ ref: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: strings[(ref >> 8)..<((ref >> 8) + (ref & 0xFF))])
    }

    /// DCW's code of a unit ("US.TX").
    func dcwCode(ofUnit unit: Int) -> String { String(decoding: text(unitCodeRef[unit]), as: UTF8.self) }
    /// The gazetteer's ISO 3166-2 codes a unit stands for: one (it decides the region), or
    /// several where DCW predates a split (IN.AP is Andhra Pradesh and Telangana).
    func regionCodes(ofUnit unit: Int) -> [String] {
        var codes: [String] = []
        forEachRegionCode(ofUnit: unit) { codes.append($0) }
        return codes
    }

    /// `body` with each of the unit's region codes (the space-separated words of its string: at
    /// least one, checked at load), with no array made.
    func forEachRegionCode(ofUnit unit: Int, _ body: (String) throws -> Void) rethrows {
        let bytes = text(unitRegionRef[unit])
        var start = 0
        for k in 0...bytes.count where k == bytes.count || bytes[k] == 0x20 {
            if k > start { try body(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<k]), as: UTF8.self)) }
            start = k + 1
        }
    }
    /// The country code of a unit.
    public func countryCode(ofUnit unit: Int) -> String { grids[Int(unitCountry[unit])].code }

    public func covers(_ countryCode: String) -> Bool { grid(countryCode) != nil }

    /// The slot of a two-letter code (A–Z) in `gridByLetters`, nil for anything else.
    @inline(__always)
    private static func letterSlot(_ code: String) -> Int? {
        var it = code.utf8.makeIterator()
        guard let a = it.next(), let b = it.next(), it.next() == nil, a &- 0x41 < 26, b &- 0x41 < 26 else { return nil }
        return Int(a &- 0x41) * 26 + Int(b &- 0x41)
    }

    @inline(__always)
    private func grid(_ code: String) -> Frame? {
        guard let slot = Self.letterSlot(code) else { return nil }
        let k = gridByLetters[slot]
        return k < 0 ? nil : frames[Int(k)]
    }

    /// The point in the file's units, its longitude in the grid's range (west ..< west + 360°:
    /// -180...180 for most countries, 0...360 for those across 180°).
    @inline(__always)
    private static func units(_ point: Coordinate, _ g: Frame) -> (x: Double, y: Double) {
        let x = point.longitude * scale
        return (x < g.west ? x + 360 * scale : x, point.latitude * scale)
    }

    /// The unit of `countryCode` whose outline holds the point, nil where none does (where
    /// DCW's units overlap, by some metres along a shared border, the lower unit id).
    public func unit(at point: Coordinate, countryCode: String) -> Int? {
        guard point.isValid, let g = grid(countryCode) else { return nil }
        let (px, py) = Self.units(point, g)
        let column = Int(((px - g.west) / g.cell).rounded(.down)), row = Int(((py - g.south) / g.cell).rounded(.down))
        guard column >= 0, column < g.columns, row >= 0, row < g.rows else { return nil }
        let t = tables(g.index), k = row * g.columns + column
        let cx = g.west + (Double(column) + 0.5) * g.cell, cy = g.south + (Double(row) + 0.5) * g.cell
        let centreUnit = t.centre(k), runs = t.runs(k)
        var found = Int.max, centreSeen = false
        var s = runs.lowerBound
        let end = runs.upperBound
        while s < end {
            let u = runUnit(s)
            var odd = false
            while s < end, runUnit(s) == u {
                odd = odd != crossesOddly(run: s, t, px: px, py: py, cx: cx, cy: cy)
                s += 1
            }
            if u == centreUnit {
                centreSeen = true
                if !odd { found = min(found, u) }
            } else if odd {
                found = min(found, u)
            }
        }
        if !centreSeen, centreUnit != 0xFFFF { found = min(found, centreUnit) }
        return found == Int.max ? nil : found
    }

    /// Whether the run's edges cross the path (px, py) → (cx, py) → (cx, cy) an odd number of
    /// times. A vertex on either line counts as above it (or right of it), the rule the build
    /// used for the centres.
    @inline(__always)
    private func crossesOddly(run s: Int, _ t: CountryTables, px: Double, py: Double, cx: Double, cy: Double) -> Bool {
        var odd = false
        let xy = t.xy
        var v = (runFirst(s) - t.firstVertex) * 2
        var ax = Double(xy[v]), ay = Double(xy[v + 1])
        for _ in 0..<runEdges(s) {
            v += 2
            let bx = Double(xy[v]), by = Double(xy[v + 1])
            if (ay > py) != (by > py) {
                let x = ax + (py - ay) * (bx - ax) / (by - ay)
                if (x - px) * (x - cx) < 0 { odd.toggle() }
            }
            if (ax > cx) != (bx > cx) {
                let y = ay + (cx - ax) * (by - ay) / (bx - ax)
                if (y - py) * (y - cy) < 0 { odd.toggle() }
            }
            ax = bx
            ay = by
        }
        return odd
    }

    /// The unit of `countryCode` with an edge nearest the point, if within `km` (equirectangular
    /// at the point's latitude): for a point between DCW's coast or border and Natural Earth's.
    func nearestUnit(to point: Coordinate, countryCode: String, withinKm km: Double) -> Int? {
        guard point.isValid, km > 0, let g = grid(countryCode) else { return nil }
        let (px, py) = Self.units(point, g)
        let ky = Self.kmPerUnit, kx = ky * max(0.01, cos(point.latitude * .pi / 180))
        let dy = km / ky, dx = km / kx
        let c0 = max(0, Int(((px - dx - g.west) / g.cell).rounded(.down)))
        let c1 = min(g.columns - 1, Int(((px + dx - g.west) / g.cell).rounded(.down)))
        let r0 = max(0, Int(((py - dy - g.south) / g.cell).rounded(.down)))
        let r1 = min(g.rows - 1, Int(((py + dy - g.south) / g.cell).rounded(.down)))
        guard c0 <= c1, r0 <= r1 else { return nil }
        var best = -1, bestKm = km
        // The point's own cell first; then a cell only where its box comes within the best
        // distance so far (the nearest edge is most often in the point's own cell).
        let ownColumn = Int(((px - g.west) / g.cell).rounded(.down)), ownRow = Int(((py - g.south) / g.cell).rounded(.down))
        let t = tables(g.index)
        func scan(_ row: Int, _ column: Int) {
            let k = row * g.columns + column
            for s in t.runs(k) {
                let d = nearestKm(run: s, t, px: px, py: py, kx: kx, ky: ky)
                if d < bestKm || (d == bestKm && best >= 0 && runUnit(s) < best) {
                    best = runUnit(s)
                    bestKm = d
                }
            }
        }
        if (r0...r1).contains(ownRow), (c0...c1).contains(ownColumn) { scan(ownRow, ownColumn) }
        for row in r0...r1 {
            for column in c0...c1 where row != ownRow || column != ownColumn {
                let x0 = g.west + Double(column) * g.cell, y0 = g.south + Double(row) * g.cell
                let ex = max(0, x0 - px, px - (x0 + g.cell)) * kx, ey = max(0, y0 - py, py - (y0 + g.cell)) * ky
                if (ex * ex + ey * ey).squareRoot() <= bestKm { scan(row, column) }
            }
        }
        return best >= 0 ? best : nil
    }

    private func nearestKm(run s: Int, _ t: CountryTables, px: Double, py: Double, kx: Double, ky: Double) -> Double {
        var best = Double.infinity
        let xy = t.xy
        var v = (runFirst(s) - t.firstVertex) * 2
        var ax = (Double(xy[v]) - px) * kx, ay = (Double(xy[v + 1]) - py) * ky
        for _ in 0..<runEdges(s) {
            v += 2
            let bx = (Double(xy[v]) - px) * kx, by = (Double(xy[v + 1]) - py) * ky
            let dx = bx - ax, dy = by - ay
            let length = dx * dx + dy * dy
            let t = length == 0 ? 0 : max(0, min(1, -(ax * dx + ay * dy) / length))
            let ex = ax + t * dx, ey = ay + t * dy
            best = min(best, ex * ex + ey * ey)
            ax = bx
            ay = by
        }
        return best.squareRoot()
    }

    /// The lookup rings of a unit (200 m), as (latitude, longitude) in -180...180: taken
    /// together by parity (a hole is a ring inside another).
    public func rings(ofUnit unit: Int) -> [[Coordinate]] {
        guard unit >= 0, unit < unitFirstRing.count else { return [] }
        let t = tables(Int(unitCountry[unit]))
        return (unitFirstRing[unit]..<(unitFirstRing[unit] + unitRingCount[unit])).map { r in
            let first = Int(ringTable[2 * r])
            return (first..<(first + Int(ringTable[2 * r + 1]))).map { vertex in
                let v = vertex - t.firstVertex
                let lon = Double(t.xy[2 * v]) / Self.scale
                return Coordinate(latitude: Double(t.xy[2 * v + 1]) / Self.scale, longitude: lon > 180 ? lon - 360 : lon)
            }
        }
    }

    /// The borders between the units of a country (not its coasts), simplified for the map
    /// page: polylines of (latitude, longitude) in -180..180, each drawn once.
    public func borderLines(of countryCode: String) -> [[Coordinate]] {
        guard let country = grids.firstIndex(where: { $0.code == countryCode }) else { return [] }
        var lines: [[Coordinate]] = []
        for line in 0..<pageUnit.count where Int(unitCountry[Int(pageUnit[line])]) == country {
            var points: [Coordinate] = []
            for v in Int(pageStart[line])..<Int(pageStart[line + 1]) {
                let lon = Double(pageXY[2 * v]) / Self.scale
                points.append(Coordinate(latitude: Double(pageXY[2 * v + 1]) / Self.scale, longitude: lon > 180 ? lon - 360 : lon))
            }
            lines.append(points)
        }
        return lines
    }
}
