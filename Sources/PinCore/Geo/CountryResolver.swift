import Foundation

/// Which country a point lies in, offline, in microseconds.
///
/// The index is a fixed grid of `cellDegrees` cells. Each cell keeps the polygon edges whose
/// bounding box touches it (grouped by country) and the country its centre lies in, found once
/// at build time by a west-to-east sweep of each row's centre line. A query inside a cell
/// without edges is one array read. Otherwise the segment from the cell's centre to the point
/// lies inside the cell, so only that cell's edges can cross it: for each country, an odd number
/// of crossings means the point is on the other side of that country's boundary from the
/// centre (the even-odd rule, which also makes holes such as Lesotho in South Africa work).
///
/// A point outside every polygon but within `coastalKilometres` of one (beaches, harbours,
/// boats) gets the nearest country; farther out, none.
public final class CountryResolver: @unchecked Sendable {
    // Immutable after init; the buffers point into `memory`, which lives as long as the resolver.
    /// 12 nautical miles, the territorial sea, rounded as the issue says.
    public static let defaultCoastalKilometres = 22.0

    public let codes: [String]
    let names: [String]
    let coastalKilometres: Double
    let cellDegrees: Double
    let columns: Int
    let rows: Int
    /// What the buffers below point into: memory of this resolver's own (built from outlines),
    /// or a read-only private copy of Countries.bin (`CountryIndexFile`).
    private let memory: AnyObject
    /// CSR layout: edges of cell k are cellEdge[cellStart[k] ..< cellStart[k + 1]].
    let cellStart: UnsafeBufferPointer<UInt32>
    /// Country index of each cell's centre, or -1.
    let centreCountry: UnsafeBufferPointer<Int16>
    /// Edge endpoints (x1, y1, x2, y2) in cell order, relative to the centre of the cell that
    /// lists them, as Float: half the memory of Double, and still millimetres near the cell
    /// (Float has 24 bits; a 0.25° offset keeps 1.5e-8° of precision, a 10° one 6e-7°).
    let edgeCoords: UnsafeBufferPointer<Float>
    let edgeCountry: UnsafeBufferPointer<UInt16>
    /// 1 for cells with an edge within `coastalKilometres` of some point of theirs: only there
    /// can the coastal rule answer, so open-ocean queries stop after one array read.
    let nearCoast: UnsafeBufferPointer<UInt8>

    public convenience init(polygons: CountryPolygons, cellDegrees: Double = 0.25,
                            coastalKilometres: Double = CountryResolver.defaultCoastalKilometres) {
        precondition(cellDegrees > 0 && (360 / cellDegrees).rounded() == 360 / cellDegrees, "cells must tile the globe")
        precondition(polygons.codes.count < Int(Int16.max), "too many countries")
        var grid = CountryGrid(cellDegrees: cellDegrees)
        let vertexCountry = CountryGrid.vertexCountries(polygons)
        grid.listEdges(polygons, vertexCountry: vertexCountry)
        let xs = polygons.xs, ys = polygons.ys, slots = grid.slots
        let (coords, owners) = grid.edgeEndpoints(slot: { Int(slots[$0]) }, vertex: { (xs[$0], ys[$0]) }, vertexCountry: vertexCountry)
        self.init(grid: grid, codes: polygons.codes, names: polygons.names, coastalKilometres: coastalKilometres,
                  coords: coords, owners: owners)
    }

    /// The index of a grid's cells and edges (`CountryGrid`), its centre countries and the cells
    /// near a coast computed, copied into memory of its own.
    convenience init(grid: CountryGrid, codes: [String], names: [String], coastalKilometres: Double, coords: [Float],
                     owners: [UInt16]) {
        let memory = IndexMemory()
        let centre = grid.centreCountries(coords: coords, countries: owners, countryCount: codes.count)
        let near = grid.nearCoast(coastalKilometres: coastalKilometres).map { UInt8($0 ? 1 : 0) }
        self.init(codes: codes, names: names, coastalKilometres: coastalKilometres, cellDegrees: grid.cellDegrees,
                  memory: memory, cellStart: memory.copy(grid.cellStart), centreCountry: memory.copy(centre),
                  edgeCoords: memory.copy(coords), edgeCountry: memory.copy(owners), nearCoast: memory.copy(near))
    }

    /// An index whose buffers point into `memory` (checked by the caller: every cell start,
    /// country and flag in range).
    init(codes: [String], names: [String], coastalKilometres: Double, cellDegrees: Double, memory: AnyObject,
         cellStart: UnsafeBufferPointer<UInt32>, centreCountry: UnsafeBufferPointer<Int16>, edgeCoords: UnsafeBufferPointer<Float>,
         edgeCountry: UnsafeBufferPointer<UInt16>, nearCoast: UnsafeBufferPointer<UInt8>) {
        self.codes = codes
        self.names = names
        self.coastalKilometres = coastalKilometres
        self.cellDegrees = cellDegrees
        self.columns = Int((360 / cellDegrees).rounded())
        self.rows = Int((180 / cellDegrees).rounded())
        self.memory = memory
        self.cellStart = cellStart
        self.centreCountry = centreCountry
        self.edgeCoords = edgeCoords
        self.edgeCountry = edgeCountry
        self.nearCoast = nearCoast
    }

    /// ISO alpha-2 code of the country at the point, or nil (open sea, invalid input).
    public func countryCode(at point: Coordinate) -> String? {
        countryIndex(at: point).map { codes[$0] }
    }

    /// Index into `codes`, or nil.
    public func countryIndex(at point: Coordinate) -> Int? {
        countryIndexAndOutline(at: point)?.index
    }

    /// Index into `codes`, and whether the country's outline holds the point (false: it is
    /// the nearest within the coastal distance), or nil.
    public func countryIndexAndOutline(at point: Coordinate) -> (index: Int, inOutline: Bool)? {
        guard point.isValid else { return nil }
        if let inside = containingCountry(point) { return (inside, true) }
        let (r, c) = cellIndex(x: point.longitude, y: point.latitude)
        guard nearCoast[r * columns + c] != 0 else { return nil }
        return nearestCountry(point, withinKilometres: coastalKilometres).map { ($0, false) }
    }

    private func cellIndex(x: Double, y: Double) -> (row: Int, column: Int) {
        let c = min(columns - 1, max(0, Int(((x + 180) / cellDegrees).rounded(.down))))
        let r = min(rows - 1, max(0, Int(((y + 90) / cellDegrees).rounded(.down))))
        return (r, c)
    }

    /// Point-in-polygon through the grid, no fallback.
    public func containingCountry(_ point: Coordinate) -> Int? {
        // The poles lie on Antarctica's outline (its ring runs along −90°); step a hair inside.
        let qy = min(90 - 1e-9, max(-90 + 1e-9, point.latitude))
        let qx = point.longitude
        let (r, c) = cellIndex(x: qx, y: qy)
        let k = r * columns + c
        let base = Int(centreCountry[k])
        let lo = Int(cellStart[k]), hi = Int(cellStart[k + 1])
        if lo == hi { return base >= 0 ? base : nil }
        // Coordinates relative to the cell centre R, which is the origin here.
        let rx = -180 + (Double(c) + 0.5) * cellDegrees
        let ry = -90 + (Double(r) + 0.5) * cellDegrees
        let dx = qx - rx, dy = qy - ry
        var leftBase = false
        var entered = -1
        let e = edgeCoords, owner = edgeCountry
        var s = lo
        while s < hi {
            let country = owner[s]
            var odd = false
            while s < hi, owner[s] == country {
                let ax = Double(e[4 * s]), ay = Double(e[4 * s + 1])
                let bx = Double(e[4 * s + 2]), by = Double(e[4 * s + 3])
                // A and B on opposite sides of the line R→Q (a vertex on the line counts
                // as the positive side, on both edges that share it, so parity holds)...
                let sa = dx * ay - dy * ax > 0
                let sb = dx * by - dy * bx > 0
                if sa != sb {
                    // ...and R and Q on opposite sides of the line A→B.
                    let ex = bx - ax, ey = by - ay
                    let sr = ex * (0 - ay) - ey * (0 - ax) > 0
                    let sq = ex * (dy - ay) - ey * (dx - ax) > 0
                    if sr != sq { odd.toggle() }
                }
                s += 1
            }
            if odd {
                if Int(country) == base { leftBase = true } else { entered = Int(country) }
            }
        }
        if entered >= 0 { return entered }
        if base >= 0 && !leftBase { return base }
        return nil
    }

    /// The country whose outline is nearest to the point, if within `kilometres`.
    /// Distances in a local equirectangular projection: at 22 km the error is metres.
    func nearestCountry(_ point: Coordinate, withinKilometres kilometres: Double) -> Int? {
        guard kilometres > 0 else { return nil }
        let kmPerDegree = AngularDistance.earthRadiusKm * .pi / 180
        let latRadius = kilometres / kmPerDegree
        let phi = point.latitude * .pi / 180
        let cosPhi = cos(phi)
        let angle = kilometres / AngularDistance.earthRadiusKm
        let lonRadius: Double
        if abs(point.latitude) + latRadius >= 90 || sin(angle) >= cosPhi {
            lonRadius = 180
        } else {
            lonRadius = asin(sin(angle) / cosPhi) * 180 / .pi
        }
        let (r0, _) = cellIndex(x: 0, y: max(-90, point.latitude - latRadius))
        let (r1, _) = cellIndex(x: 0, y: min(90, point.latitude + latRadius))
        let firstColumn = Int(((point.longitude - lonRadius + 180) / cellDegrees).rounded(.down))
        let lastColumn = Int(((point.longitude + lonRadius + 180) / cellDegrees).rounded(.down))
        let columnRange = lastColumn - firstColumn + 1 >= columns ? 0...(columns - 1) : firstColumn...lastColumn
        var best = kilometres * kilometres
        var bestCountry: Int?
        for r in r0...r1 {
            for rawColumn in columnRange {
                let c = ((rawColumn % columns) + columns) % columns
                let k = r * columns + c
                let lo = Int(cellStart[k]), hi = Int(cellStart[k + 1])
                guard lo < hi else { continue }
                let cx = -180 + (Double(c) + 0.5) * cellDegrees
                let cy = -90 + (Double(r) + 0.5) * cellDegrees
                for s in lo..<hi {
                    let d2 = squaredKilometres(from: point, cosPhi: cosPhi, kmPerDegree: kmPerDegree, edge: s, centre: (cx, cy))
                    if d2 < best {
                        best = d2
                        bestCountry = Int(edgeCountry[s])
                    }
                }
            }
        }
        return bestCountry
    }

    private func squaredKilometres(from point: Coordinate, cosPhi: Double, kmPerDegree: Double, edge s: Int,
                                   centre: (x: Double, y: Double)) -> Double {
        // Project around the point; wrap longitudes so an edge across ±180° is measured the short way.
        func wrap(_ d: Double) -> Double { d > 180 ? d - 360 : (d < -180 ? d + 360 : d) }
        let ox = centre.x - point.longitude, oy = centre.y - point.latitude
        let ax = wrap(ox + Double(edgeCoords[4 * s])) * cosPhi * kmPerDegree
        let ay = (oy + Double(edgeCoords[4 * s + 1])) * kmPerDegree
        let bx = wrap(ox + Double(edgeCoords[4 * s + 2])) * cosPhi * kmPerDegree
        let by = (oy + Double(edgeCoords[4 * s + 3])) * kmPerDegree
        let ex = bx - ax, ey = by - ay
        let length2 = ex * ex + ey * ey
        var t = length2 > 0 ? -(ax * ex + ay * ey) / length2 : 0
        t = min(1, max(0, t))
        let px = ax + t * ex, py = ay + t * ey
        return px * px + py * py
    }
}

/// Memory a built index owns: copies of its arrays, freed with it.
final class IndexMemory {
    private var blocks: [UnsafeMutableRawPointer] = []

    /// A copy of `array` that lives as long as this object (an empty array gets one element's
    /// room, never read).
    func copy<T: BitwiseCopyable>(_ array: [T]) -> UnsafeBufferPointer<T> {
        let block = UnsafeMutableBufferPointer<T>.allocate(capacity: max(1, array.count))
        _ = block.initialize(from: array)
        blocks.append(UnsafeMutableRawPointer(block.baseAddress!))
        return UnsafeBufferPointer(rebasing: block[0..<array.count])
    }

    deinit {
        for block in blocks { block.deallocate() }
    }
}
