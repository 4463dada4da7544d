import Foundation

/// How `CountryResolver(polygons:)` builds its grid, in steps that Countries.bin
/// (`CountryIndexFile`) stores the results of: which edges each cell lists, and the two
/// per-cell answers (the country of the cell's centre, whether a coast is near). The edges'
/// cell-relative endpoints are made from the cell lists and the vertices by `edgeEndpoints`, both
/// from the outlines and from the file, so the two indexes hold the same Floats.
struct CountryGrid {
    let cellDegrees: Double
    let columns: Int
    let rows: Int
    /// CSR: the edges of cell k are slots[cellStart[k] ..< cellStart[k + 1]], grouped by country.
    var cellStart: [UInt32]
    /// An edge is named by its first vertex v: it runs from v to v + 1 within its ring.
    var slots: [UInt32]

    init(cellDegrees: Double) {
        self.cellDegrees = cellDegrees
        columns = Int((360 / cellDegrees).rounded())
        rows = Int((180 / cellDegrees).rounded())
        cellStart = []
        slots = []
    }

    var cellCount: Int { columns * rows }

    func column(_ x: Double) -> Int { min(columns - 1, max(0, Int(((x + 180) / cellDegrees).rounded(.down)))) }
    func row(_ y: Double) -> Int { min(rows - 1, max(0, Int(((y + 90) / cellDegrees).rounded(.down)))) }

    /// The country of each edge's first vertex (a ring's closing vertex starts no edge: 0xFFFF).
    static func vertexCountries(_ polygons: CountryPolygons) -> [UInt16] {
        var countries = [UInt16](repeating: 0xFFFF, count: polygons.xs.count)
        for ring in polygons.rings {
            for v in ring.start..<(ring.start + ring.count - 1) { countries[v] = UInt16(ring.country) }
        }
        return countries
    }

    /// Lists every edge in each cell its bounding box touches (a superset, which is all the
    /// crossing test needs), each cell's edges grouped by country.
    mutating func listEdges(_ polygons: CountryPolygons, vertexCountry: [UInt16]) {
        let xs = polygons.xs, ys = polygons.ys
        // Each vertex's cell, computed once for both passes (column and row are monotonic, so
        // the cell of the smaller coordinate is the smaller cell).
        let vertexColumn = xs.map { Int32(column($0)) }
        let vertexRow = ys.map { Int32(row($0)) }
        let columns = self.columns
        func cover(_ v: Int, _ visit: (Int) -> Void) {
            let c0 = Int(min(vertexColumn[v], vertexColumn[v + 1])), c1 = Int(max(vertexColumn[v], vertexColumn[v + 1]))
            let r0 = Int(min(vertexRow[v], vertexRow[v + 1])), r1 = Int(max(vertexRow[v], vertexRow[v + 1]))
            for r in r0...r1 { for c in c0...c1 { visit(r * columns + c) } }
        }
        // Pass 1: count edges per cell; pass 2: fill each cell's slots.
        var counts = [UInt32](repeating: 0, count: cellCount)
        for ring in polygons.rings {
            for v in ring.start..<(ring.start + ring.count - 1) { cover(v) { counts[$0] += 1 } }
        }
        var start = [UInt32](repeating: 0, count: cellCount + 1)
        for k in 0..<cellCount { start[k + 1] = start[k] + counts[k] }
        var fill = Array(start[0..<cellCount])
        var slot = [UInt32](repeating: 0, count: Int(start[cellCount]))
        for ring in polygons.rings {
            for v in ring.start..<(ring.start + ring.count - 1) {
                cover(v) { k in
                    slot[Int(fill[k])] = UInt32(v)
                    fill[k] += 1
                }
            }
        }
        // Sort each cell's slots by country (a country with several rings does not arrive
        // contiguously). Rings come country by country, so most cells are in order already.
        for k in 0..<cellCount where start[k + 1] > start[k] {
            let lo = Int(start[k]), hi = Int(start[k + 1])
            var ordered = true
            for s in lo..<(hi - 1) where vertexCountry[Int(slot[s])] > vertexCountry[Int(slot[s + 1])] {
                ordered = false
                break
            }
            if !ordered { slot[lo..<hi].sort { vertexCountry[Int($0)] < vertexCountry[Int($1)] } }
        }
        cellStart = start
        slots = slot
    }

    /// Each listed edge's endpoints as Float offsets from the centre of the cell that lists it
    /// (x1, y1, x2, y2), and its country: the only copy of the geometry the index keeps.
    /// `slot(s)`: entry s's first vertex; `vertex(v)`: its (longitude, latitude), the outlines'
    /// own Doubles (Countries.bin's 1e-6 degree integers divided by 1e6 are the same numbers).
    @inline(__always)
    func edgeEndpoints(slot: (Int) -> Int, vertex: (Int) -> (Double, Double),
                       vertexCountry: [UInt16]) -> (coords: [Float], countries: [UInt16]) {
        let entries = Int(cellStart[cellCount])
        var owner = [UInt16](repeating: 0, count: entries)
        let relative = [Float](unsafeUninitializedCapacity: entries * 4) { out, initialized in
            owner.withUnsafeMutableBufferPointer { owner in
                for k in 0..<cellCount where cellStart[k + 1] > cellStart[k] {
                    let cx = -180 + (Double(k % columns) + 0.5) * cellDegrees
                    let cy = -90 + (Double(k / columns) + 0.5) * cellDegrees
                    for s in Int(cellStart[k])..<Int(cellStart[k + 1]) {
                        let v = slot(s)
                        let (x1, y1) = vertex(v), (x2, y2) = vertex(v + 1)
                        out[4 * s] = Float(x1 - cx)
                        out[4 * s + 1] = Float(y1 - cy)
                        out[4 * s + 2] = Float(x2 - cx)
                        out[4 * s + 3] = Float(y2 - cy)
                        owner[s] = vertexCountry[v]
                    }
                }
            }
            initialized = entries * 4
        }
        return (relative, owner)
    }

    /// The country of every cell's centre: sweep each row's centre line from −180° eastwards,
    /// toggling a country's parity at each crossing of one of its edges (half-open rule on y, so
    /// a vertex on the line is counted once); -1 for none.
    func centreCountries(coords relative: [Float], countries owner: [UInt16], countryCount: Int) -> [Int16] {
        var centre = [Int16](repeating: -1, count: cellCount)
        var parity = [Bool](repeating: false, count: countryCount)
        var crossings: [(Double, Int)] = []
        for r in 0..<rows {
            crossings.removeAll(keepingCapacity: true)
            for c in 0..<columns {
                let k = r * columns + c
                let cx = -180 + (Double(c) + 0.5) * cellDegrees
                for s in Int(cellStart[k])..<Int(cellStart[k + 1]) {
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
        return centre
    }

    /// Every cell within `coastalKilometres` of a cell holding edges: only there can the coastal
    /// rule answer.
    func nearCoast(coastalKilometres: Double) -> [Bool] {
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
            for c in 0..<columns where cellStart[r * columns + c + 1] > cellStart[r * columns + c] {
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
        return near
    }
}
