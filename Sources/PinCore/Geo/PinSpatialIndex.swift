import Foundation

/// A grid over latitude/longitude that answers "is any pin closer than θ to this point?"
/// without looking at every pin: a query looks only at the cells a θ-box around the point
/// touches (metadata-formats.md section 8: longitude half-width asin(sin θ / cos φ), all
/// longitudes near the poles, boxes split at ±180°).
public struct PinSpatialIndex: Sendable {
    public struct Entry: Sendable {
        public let coordinate: Coordinate
        /// The caller's handle for the pin (index into its own table).
        public let tag: Int
    }

    public struct Match: Sendable {
        public let entry: Entry
        public let radians: Double
    }

    public let threshold: Double
    private let cellDegrees: Double
    private let lonCells: Int
    private var cells: [Int: [Int32]] = [:]
    public private(set) var entries: [Entry] = []
    /// cos φ and sin φ of each entry's latitude, computed once at insertion: the terms of
    /// `AngularDistance.cosine` that do not depend on the query.
    private var entryCos: [Double] = []
    private var entrySin: [Double] = []

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
    }

    public var count: Int { entries.count }

    private func row(_ latitude: Double) -> Int {
        Int(((latitude + 90) / cellDegrees).rounded(.down))
    }

    private func column(_ longitude: Double) -> Int {
        var c = Int(((longitude + 180) / cellDegrees).rounded(.down)) % lonCells
        if c < 0 { c += lonCells }
        return c
    }

    private func key(_ row: Int, _ column: Int) -> Int { row * (lonCells + 1) + column }

    public mutating func insert(_ coordinate: Coordinate, tag: Int) {
        precondition(coordinate.isValid, "invalid coordinate \(coordinate)")
        let index = Int32(entries.count)
        entries.append(Entry(coordinate: coordinate, tag: tag))
        let phi = coordinate.latitude * .pi / 180
        entryCos.append(cos(phi))
        entrySin.append(sin(phi))
        cells[key(row(coordinate.latitude), column(coordinate.longitude)), default: []].append(index)
    }

    /// The nearest pin whose angle to `point` is below the threshold (θ < threshold: a pin at
    /// exactly the threshold does not block), or nil.
    public func nearest(to point: Coordinate) -> Match? {
        let thresholdDegrees = threshold * 180 / .pi
        let lowRow = row(max(-90, point.latitude - thresholdDegrees))
        let highRow = row(min(90, point.latitude + thresholdDegrees))
        let phi = point.latitude * .pi / 180
        // The columns to look at, west to east (no array made: this runs once per photo).
        var first = 0, last = lonCells - 1
        if abs(point.latitude) + thresholdDegrees < 90 {
            let halfWidth = asin(min(1, sin(threshold) / cos(phi))) * 180 / .pi
            let west = Int(((point.longitude - halfWidth + 180) / cellDegrees).rounded(.down))
            let east = Int(((point.longitude + halfWidth + 180) / cellDegrees).rounded(.down))
            if east - west + 1 < lonCells { (first, last) = (west, east) }
        }
        // `AngularDistance.radians(point, entry)` term by term, with the query's and the
        // entries' latitude terms computed once: the same operations on the same values.
        let cosPhi = cos(phi), sinPhi = sin(phi)
        var best: Match?
        for r in lowRow...highRow {
            for raw in first...last {
                let c = ((raw % lonCells) + lonCells) % lonCells
                guard let bucket = cells[key(r, c)] else { continue }
                for i in bucket {
                    let entry = entries[Int(i)]
                    let dLambda = (point.longitude - entry.coordinate.longitude) * .pi / 180
                    let sum = cosPhi * entryCos[Int(i)] * cos(dLambda) + sinPhi * entrySin[Int(i)]
                    let angle = acos(min(1, max(-1, sum)))
                    if angle < threshold, angle < (best?.radians ?? .infinity) {
                        best = Match(entry: entry, radians: angle)
                    }
                }
            }
        }
        return best
    }
}
