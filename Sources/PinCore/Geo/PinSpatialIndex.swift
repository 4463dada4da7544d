import Foundation

/// A grid over latitude/longitude that answers "is any pin closer than θ to this point?"
/// without looking at every pin: a query looks only at the cells a θ-box around the point
/// touches (docs/formats.md section 8: longitude half-width asin(sin θ / cos φ), all
/// longitudes near the poles, boxes split at ±180°).
///
/// Compact, because a run can make tens of thousands of pins and a nightly run starts with all
/// of them: each pin is a few numbers in flat arrays (position, its latitude's cos and sin, the
/// caller's tag, the next pin of its cell), and the cells are an open-addressing table of
/// (cell, first pin, last pin) without an array per cell (about 60 bytes per pin in all,
/// against about 150 with a dictionary of arrays). A cell's pins are chained in insertion
/// order, so that among pins at exactly the same angle the first inserted is the one reported.
public struct PinSpatialIndex: Sendable {
    public struct Entry: Sendable {
        let coordinate: Coordinate
        /// The caller's handle for the pin (index into its own table).
        public let tag: Int
    }

    public struct Match: Sendable {
        public let entry: Entry
        public let radians: Double
    }

    let threshold: Double
    private let cellDegrees: Double
    private let lonCells: Int
    /// Per pin, by insertion index.
    private var latitudes: [Double] = []
    private var longitudes: [Double] = []
    /// cos φ and sin φ of each pin's latitude, computed once at insertion: the terms of
    /// `AngularDistance.cosine` that do not depend on the query.
    private var entryCos: [Double] = []
    private var entrySin: [Double] = []
    private var tags: [Int] = []
    /// The next pin of the same cell, -1 at the end.
    private var nextInCell: [Int32] = []
    /// The cells: open addressing with linear probing, a power of two long, at most half full.
    /// `cellKeys[s]` is a cell's key (-1: free slot); `cellFirst`/`cellLast` its chain's ends.
    private var cellKeys: [Int] = []
    private var cellFirst: [Int32] = []
    private var cellLast: [Int32] = []
    private var cellCount = 0
    /// A pin whose latitude differs from the query's by more than this (degrees) is farther
    /// than the threshold (the great-circle angle is at least the latitude difference), and one
    /// whose cosine sum is below `cosineBound` is too: both skipped without `acos`. The margin of
    /// 0.1 % (0.8 m at 5 km) is about 10⁵ times the rounding error of the law of cosines there,
    /// so no pin the full computation would find below the threshold is skipped.
    private let latitudeReach: Double
    private let cosineBound: Double
    /// sin θ, for the longitude half-width of a query's box.
    private let sinThreshold: Double
    /// 1.001: how much wider than the exact longitude half-width a pin may be and still be
    /// looked at (the margin of `latitudeReach`, for the same reason).
    private static let margin = 1.001

    /// `threshold` in radians (the app's 0.0007848 by default). Cells are one threshold wide,
    /// so a query looks at about 3 × 3 cells away from the poles.
    public init(threshold: Double = AngularDistance.appThreshold) {
        precondition(threshold > 0 && threshold < .pi / 2, "threshold must be in (0, π/2)")
        self.threshold = threshold
        let degrees = threshold * 180 / .pi
        // Whole number of cells around the globe, so the longitude wrap is exact.
        let cellsAround = max(1, Int((360 / degrees).rounded(.down)))
        self.lonCells = cellsAround
        self.cellDegrees = 360 / Double(cellsAround)
        self.latitudeReach = threshold * Self.margin * 180 / .pi
        self.cosineBound = cos(min(.pi, threshold * Self.margin))
        self.sinThreshold = sin(threshold)
    }

    var count: Int { tags.count }

    /// The pin inserted `index`-th.
    func entry(_ index: Int) -> Entry {
        Entry(coordinate: Coordinate(latitude: latitudes[index], longitude: longitudes[index]), tag: tags[index])
    }

    private func row(_ latitude: Double) -> Int {
        Int(saturating: ((latitude + 90) / cellDegrees).rounded(.down))
    }

    private func column(_ longitude: Double) -> Int {
        var c = Int(saturating: ((longitude + 180) / cellDegrees).rounded(.down)) % lonCells
        if c < 0 { c += lonCells }
        return c
    }

    private func key(_ row: Int, _ column: Int) -> Int { row * (lonCells + 1) + column }

    /// The slot of cell `key`: where it is, or the free slot where it would go.
    @inline(__always)
    private func slot(of key: Int) -> Int {
        let mask = cellKeys.count - 1
        // Fibonacci hashing: neighbouring cells land far apart.
        var s = Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(key)) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
        while true {
            let k = cellKeys[s]
            if k == key || k == -1 { return s }
            s = (s + 1) & mask
        }
    }

    /// Doubles the cell table (rehashing every cell).
    private mutating func growCells() {
        let oldKeys = cellKeys, oldFirst = cellFirst, oldLast = cellLast
        let size = max(64, oldKeys.count * 2)
        cellKeys = [Int](repeating: -1, count: size)
        cellFirst = [Int32](repeating: -1, count: size)
        cellLast = [Int32](repeating: -1, count: size)
        for s in oldKeys.indices where oldKeys[s] != -1 {
            let t = slot(of: oldKeys[s])
            cellKeys[t] = oldKeys[s]
            cellFirst[t] = oldFirst[s]
            cellLast[t] = oldLast[s]
        }
    }

    public mutating func insert(_ coordinate: Coordinate, tag: Int) {
        precondition(coordinate.isValid, "invalid coordinate \(coordinate)")
        precondition(tags.count < Int(Int32.max), "too many pins")
        let index = Int32(tags.count)
        latitudes.append(coordinate.latitude)
        longitudes.append(coordinate.longitude)
        let phi = coordinate.latitude * .pi / 180
        entryCos.append(cos(phi))
        entrySin.append(sin(phi))
        tags.append(tag)
        nextInCell.append(-1)
        if (cellCount + 1) * 2 > cellKeys.count { growCells() }
        let k = key(row(coordinate.latitude), column(coordinate.longitude))
        let s = slot(of: k)
        if cellKeys[s] == -1 {
            cellKeys[s] = k
            cellFirst[s] = index
            cellCount += 1
        } else {
            nextInCell[Int(cellLast[s])] = index
        }
        cellLast[s] = index
    }

    /// The nearest pin whose angle to `point` is below the threshold (θ < threshold: a pin at
    /// exactly the threshold does not block), or nil. Among pins at the same angle, the first
    /// found in cell order (rows south to north, columns west to east), then insertion order.
    public func nearest(to point: Coordinate) -> Match? {
        search(point).map { Match(entry: entry($0.index), radians: $0.radians) }
    }

    /// `nearest(to:)`, and a lower bound on the angle from `point` to every other pin (up to the
    /// rounding of the law of cosines): the second smallest angle found below the threshold
    /// (equal to the nearest's when two pins are at the same angle), else the threshold itself,
    /// for a pin the query looked at and found at the threshold or beyond, or did not look at
    /// because it is beyond (`NearestPinWalk`).
    public func nearestAndRunnerUp(to point: Coordinate) -> (match: Match?, runnerUp: Double) {
        guard let found = search(point) else { return (nil, threshold) }
        return (Match(entry: entry(found.index), radians: found.radians), found.runnerUp)
    }

    /// The search of `nearest(to:)`: the nearest pin's index and angle, and the runner-up's angle
    /// (the threshold when there is none below it).
    @inline(__always)
    private func search(_ point: Coordinate) -> (index: Int, radians: Double, runnerUp: Double)? {
        guard cellCount > 0 else { return nil }
        let thresholdDegrees = threshold * 180 / .pi
        let lowRow = row(max(-90, point.latitude - thresholdDegrees))
        let highRow = row(min(90, point.latitude + thresholdDegrees))
        let phi = point.latitude * .pi / 180
        let cosPhi = cos(phi), sinPhi = sin(phi)
        // The columns to look at, west to east (no array made: this runs once per photo), and
        // how far in longitude a pin may be: the box's half-width (with the margin), or any
        // longitude when the box takes the whole circle.
        var first = 0, last = lonCells - 1
        var lonReach = Double.infinity
        if abs(point.latitude) + thresholdDegrees < 90 {
            let halfWidth = asin(min(1, sinThreshold / cosPhi)) * 180 / .pi
            let west = Int(saturating: ((point.longitude - halfWidth + 180) / cellDegrees).rounded(.down))
            let east = Int(saturating: ((point.longitude + halfWidth + 180) / cellDegrees).rounded(.down))
            if east - west + 1 < lonCells {
                (first, last) = (west, east)
                lonReach = halfWidth * Self.margin
            }
        }
        // `AngularDistance.radians(point, entry)` term by term, with the query's and the
        // entries' latitude terms computed once: the same operations on the same values. Pins
        // outside the reach in latitude or longitude, or whose cosine sum is below the bound,
        // are beyond the threshold and skipped before the cosine or `acos` is computed.
        var best: (index: Int, radians: Double)?
        var runnerUp = threshold
        // The first column wrapped into 0..<lonCells once, then stepped with the wrap (no
        // division per cell).
        let firstColumn = ((first % lonCells) + lonCells) % lonCells
        for r in lowRow...highRow {
            var c = firstColumn
            for _ in first...last {
                defer {
                    c += 1
                    if c == lonCells { c = 0 }
                }
                let s = slot(of: key(r, c))
                guard cellKeys[s] != -1 else { continue }
                var i = Int(cellFirst[s])
                while i >= 0 {
                    defer { i = Int(nextInCell[i]) }
                    if abs(point.latitude - latitudes[i]) > latitudeReach { continue }
                    var lonDifference = abs(point.longitude - longitudes[i])
                    if lonDifference > 180 { lonDifference = 360 - lonDifference }
                    if lonDifference > lonReach { continue }
                    let dLambda = (point.longitude - longitudes[i]) * .pi / 180
                    let sum = cosPhi * entryCos[i] * cos(dLambda) + sinPhi * entrySin[i]
                    if sum < cosineBound { continue }
                    let angle = acos(min(1, max(-1, sum)))
                    guard angle < threshold else { continue }
                    if let found = best, angle >= found.radians {
                        runnerUp = min(runnerUp, angle)
                    } else {
                        if let found = best { runnerUp = found.radians }
                        best = (i, angle)
                    }
                }
            }
        }
        return best.map { ($0.index, $0.radians, runnerUp) }
    }
}
