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
public final class CountryResolver: Sendable {
    /// 12 nautical miles, the territorial sea, rounded as the issue says.
    public static let defaultCoastalKilometres = 22.0

    public let codes: [String]
    public let names: [String]
    public let coastalKilometres: Double
    private let cellDegrees: Double
    private let columns: Int
    private let rows: Int
    /// CSR layout: edges of cell k are cellEdge[cellStart[k] ..< cellStart[k + 1]].
    private let cellStart: [UInt32]
    /// Country index of each cell's centre, or -1.
    private let centreCountry: [Int16]
    /// Edge endpoints (x1, y1, x2, y2) in cell order, relative to the centre of the cell that
    /// lists them, as Float: half the memory of Double, and still millimetres near the cell
    /// (Float has 24 bits; a 0.25° offset keeps 1.5e-8° of precision, a 10° one 6e-7°).
    private let edgeCoords: [Float]
    private let edgeCountry: [UInt16]
    /// Cells with an edge within `coastalKilometres` of some point of theirs: only there can the
    /// coastal rule answer, so open-ocean queries stop after one array read.
    private let nearCoast: [Bool]

    public init(polygons: CountryPolygons, cellDegrees: Double = 0.25,
                coastalKilometres: Double = CountryResolver.defaultCoastalKilometres) {
        precondition(cellDegrees > 0 && (360 / cellDegrees).rounded() == 360 / cellDegrees, "cells must tile the globe")
        precondition(polygons.codes.count < Int(Int16.max), "too many countries")
        self.codes = polygons.codes
        self.names = polygons.names
        self.coastalKilometres = coastalKilometres
        self.cellDegrees = cellDegrees
        let columns = Int((360 / cellDegrees).rounded())
        let rows = Int((180 / cellDegrees).rounded())
        self.columns = columns
        self.rows = rows
        let cellCount = columns * rows

        func column(_ x: Double) -> Int { min(columns - 1, max(0, Int(((x + 180) / cellDegrees).rounded(.down)))) }
        func row(_ y: Double) -> Int { min(rows - 1, max(0, Int(((y + 90) / cellDegrees).rounded(.down)))) }

        // An edge is named by its first vertex v (it runs from v to v + 1 within its ring).
        // Pass 1: count edges per cell (bounding-box cover: a superset, which is all the
        // crossing test needs).
        let xs = polygons.xs, ys = polygons.ys
        var vertexCountry = [UInt16](repeating: 0, count: xs.count)
        var counts = [UInt32](repeating: 0, count: cellCount + 1)
        // Each vertex's cell, computed once for both passes (column and row are monotonic, so
        // the cell of the smaller coordinate is the smaller cell).
        var vertexColumn = [Int32](repeating: 0, count: xs.count)
        var vertexRow = [Int32](repeating: 0, count: xs.count)
        for v in 0..<xs.count {
            vertexColumn[v] = Int32(column(xs[v]))
            vertexRow[v] = Int32(row(ys[v]))
        }
        func cover(_ v: Int, _ visit: (Int) -> Void) {
            let c0 = Int(min(vertexColumn[v], vertexColumn[v + 1])), c1 = Int(max(vertexColumn[v], vertexColumn[v + 1]))
            let r0 = Int(min(vertexRow[v], vertexRow[v + 1])), r1 = Int(max(vertexRow[v], vertexRow[v + 1]))
            for r in r0...r1 { for c in c0...c1 { visit(r * columns + c) } }
        }
        for ring in polygons.rings {
            for v in ring.start..<(ring.start + ring.count - 1) {
                vertexCountry[v] = UInt16(ring.country)
                cover(v) { counts[$0] += 1 }
            }
        }
        var start = [UInt32](repeating: 0, count: cellCount + 1)
        var running: UInt32 = 0
        for k in 0..<cellCount {
            start[k] = running
            running += counts[k]
        }
        start[cellCount] = running
        counts = []
        // Pass 2: fill each cell's slots with edge names, then sort each cell's slots by
        // country (a country with several rings does not arrive contiguously).
        var fill = Array(start[0..<cellCount])
        var slot = [UInt32](repeating: 0, count: Int(running))
        for ring in polygons.rings {
            for v in ring.start..<(ring.start + ring.count - 1) {
                cover(v) { k in
                    slot[Int(fill[k])] = UInt32(v)
                    fill[k] += 1
                }
            }
        }
        fill = []
        vertexColumn = []
        vertexRow = []
        // Endpoints as Float offsets from the cell's centre, the only copy of the geometry the
        // index keeps; the build below uses the same rounded values as the queries will.
        var relative = [Float](repeating: 0, count: Int(running) * 4)
        var owner = [UInt16](repeating: 0, count: Int(running))
        for k in 0..<cellCount where start[k + 1] > start[k] {
            let lo = Int(start[k]), hi = Int(start[k + 1])
            // Rings come country by country, so a cell's slots mostly are in order already;
            // the sort (stable) would leave such a cell as it is.
            var ordered = true
            for s in lo..<(hi - 1) where vertexCountry[Int(slot[s])] > vertexCountry[Int(slot[s + 1])] {
                ordered = false
                break
            }
            if !ordered { slot[lo..<hi].sort { vertexCountry[Int($0)] < vertexCountry[Int($1)] } }
            let cx = -180 + (Double(k % columns) + 0.5) * cellDegrees
            let cy = -90 + (Double(k / columns) + 0.5) * cellDegrees
            for s in lo..<hi {
                let v = Int(slot[s])
                relative[4 * s] = Float(xs[v] - cx)
                relative[4 * s + 1] = Float(ys[v] - cy)
                relative[4 * s + 2] = Float(xs[v + 1] - cx)
                relative[4 * s + 3] = Float(ys[v + 1] - cy)
                owner[s] = vertexCountry[v]
            }
        }
        slot = []
        vertexCountry = []

        // Centre of every cell: sweep each row's centre line from −180° eastwards, toggling a
        // country's parity at each crossing of one of its edges (half-open rule on y, so a
        // vertex on the line is counted once).
        var centre = [Int16](repeating: -1, count: cellCount)
        var parity = [Bool](repeating: false, count: polygons.codes.count)
        var crossings: [(Double, Int)] = []
        for r in 0..<rows {
            crossings.removeAll(keepingCapacity: true)
            for c in 0..<columns {
                let k = r * columns + c
                let cx = -180 + (Double(c) + 0.5) * cellDegrees
                for s in Int(start[k])..<Int(start[k + 1]) {
                    // In cell-relative terms the row's centre line is y = 0.
                    let y1 = Double(relative[4 * s + 1]), y2 = Double(relative[4 * s + 3])
                    guard (y1 > 0) != (y2 > 0) else { continue }
                    let x1 = Double(relative[4 * s]), x2 = Double(relative[4 * s + 2])
                    let x = cx + x1 + (0 - y1) * (x2 - x1) / (y2 - y1)
                    // Count the crossing only in the cell that holds it (edges sit in several).
                    guard column(x) == c else { continue }
                    crossings.append((x, Int(owner[s])))
                }
            }
            crossings.sort { $0.0 < $1.0 }
            for i in parity.indices { parity[i] = false }
            var inside: [Int] = []
            var next = 0
            for c in 0..<columns {
                let xc = -180 + (Double(c) + 0.5) * cellDegrees
                while next < crossings.count, crossings[next].0 < xc {
                    let country = crossings[next].1
                    parity[country].toggle()
                    if parity[country] { inside.append(country) } else { inside.removeAll { $0 == country } }
                    next += 1
                }
                if let country = inside.last { centre[r * columns + c] = Int16(country) }
            }
        }
        // Mark every cell within the coastal distance of a cell holding edges.
        var near = [Bool](repeating: false, count: cellCount)
        let kmPerDegree = AngularDistance.earthRadiusKm * .pi / 180
        let rowReach = Int((coastalKilometres / kmPerDegree / cellDegrees).rounded(.up))
        let angle = coastalKilometres / AngularDistance.earthRadiusKm
        for r in 0..<rows {
            // The widest longitude reach over this row's cells (the edge nearest the pole).
            let poleward = max(abs(-90 + Double(r) * cellDegrees), abs(-90 + Double(r + 1) * cellDegrees))
                + Double(rowReach) * cellDegrees
            let cosPhi = cos(min(90, poleward) * .pi / 180)
            let columnReach: Int
            if coastalKilometres <= 0 {
                columnReach = 0
            } else if poleward >= 90 || sin(angle) >= cosPhi {
                columnReach = columns
            } else {
                columnReach = Int((asin(sin(angle) / cosPhi) * 180 / .pi / cellDegrees).rounded(.up))
            }
            for c in 0..<columns where start[r * columns + c + 1] > start[r * columns + c] {
                for nr in max(0, r - rowReach)...min(rows - 1, r + rowReach) {
                    if columnReach >= columns / 2 {
                        for nc in 0..<columns { near[nr * columns + nc] = true }
                    } else {
                        for raw in (c - columnReach)...(c + columnReach) {
                            near[nr * columns + ((raw % columns) + columns) % columns] = true
                        }
                    }
                }
            }
        }
        self.nearCoast = near
        self.cellStart = start
        self.centreCountry = centre
        self.edgeCoords = relative
        self.edgeCountry = owner
    }

    /// ISO alpha-2 code of the country at the point, or nil (open sea, invalid input).
    public func countryCode(at point: Coordinate) -> String? {
        countryIndex(at: point).map { codes[$0] }
    }

    /// Index into `codes`, or nil.
    public func countryIndex(at point: Coordinate) -> Int? {
        guard point.isValid else { return nil }
        if let inside = containingCountry(point) { return inside }
        let (r, c) = cellIndex(x: point.longitude, y: point.latitude)
        guard nearCoast[r * columns + c] else { return nil }
        return nearestCountry(point, withinKilometres: coastalKilometres)
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
        edgeCoords.withUnsafeBufferPointer { e in
            edgeCountry.withUnsafeBufferPointer { owner in
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
            }
        }
        if entered >= 0 { return entered }
        if base >= 0 && !leftBase { return base }
        return nil
    }

    /// The country whose outline is nearest to the point, if within `kilometres`.
    /// Distances in a local equirectangular projection: at 22 km the error is metres.
    public func nearestCountry(_ point: Coordinate, withinKilometres kilometres: Double) -> Int? {
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
