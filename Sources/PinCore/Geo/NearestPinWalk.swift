import Foundation

/// `PinSpatialIndex.nearest(to:)` for points that come one after the other along a walk (a
/// library's photos in time order: a day's photos a few metres to a few kilometres apart), with
/// the same answers and most lookups skipped.
///
/// It keeps the last point it looked up (the anchor), the nearest pin's angle from it (r₁) and
/// a lower bound on every other pin's (r₂, `PinSpatialIndex.nearestAndRunnerUp`). For a point
/// at most d from the anchor, the nearest pin is at most r₁ + d away and every other pin at
/// least r₂ − d (the angle on the sphere is a distance: the triangle inequality holds). So when
/// r₁ + 2d < r₂ the anchor's nearest pin is this point's too, and below the threshold θ (r₂ is
/// at most θ, so r₁ + d < θ). d is bounded from above without a trigonometric call:
/// a path along the anchor's parallel, then along the meridian, is no shorter than the great
/// circle (d ≤ |Δλ| cos φ_anchor + |Δφ|, at any latitude).
///
/// Each comparison keeps `slack` either side, several times the rounding of an angle the law of
/// cosines gives (worst near 0: acos(1 − ε) ≈ √(2ε), 3·10⁻⁸ rad for a sum a few ulps off): only
/// a point whose answer cannot differ from the lookup's is answered from the anchor; any other
/// is looked up (and becomes the anchor). Pins added to the index after the anchor was set are
/// not in its bounds: `reset()` when the index changes.
public struct NearestPinWalk: Sendable {
    /// 10⁻⁷ rad: 0.64 m on the Earth.
    public static let slack = 1e-7

    private struct Anchor {
        var point: Coordinate
        var cosLatitude: Double
        var entry: PinSpatialIndex.Entry?
        var nearest: Double
        var runnerUp: Double
    }

    private var anchor: Anchor?
    /// Points answered from the anchor, and points looked up (for tests and benchmarks).
    public private(set) var answered = 0
    public private(set) var lookedUp = 0

    public init() {}

    /// Forgets the anchor: the next point is looked up.
    public mutating func reset() { anchor = nil }

    /// `index.nearest(to: point)?.entry`.
    public mutating func nearest(to point: Coordinate, in index: PinSpatialIndex) -> PinSpatialIndex.Entry? {
        if let anchor {
            // The very same position: the very same answer (the index has not changed).
            if anchor.point.latitude == point.latitude, anchor.point.longitude == point.longitude {
                answered += 1
                return anchor.entry
            }
            if let entry = anchor.entry {
                var dLambda = abs(point.longitude - anchor.point.longitude)
                if dLambda > 180 { dLambda = 360 - dLambda }
                let dPhi = abs(point.latitude - anchor.point.latitude)
                let d = (dLambda * anchor.cosLatitude + dPhi) * .pi / 180
                // r₂ is at most the threshold: r₁ + d is below it too.
                if anchor.nearest + 2 * d + 4 * Self.slack < anchor.runnerUp {
                    answered += 1
                    return entry
                }
            }
        }
        lookedUp += 1
        let (match, runnerUp) = index.nearestAndRunnerUp(to: point)
        anchor = Anchor(point: point, cosLatitude: cos(point.latitude * .pi / 180), entry: match?.entry, nearest: match?.radians ?? 0,
                        runnerUp: runnerUp)
        return match?.entry
    }
}
