import Foundation
import PinCore

/// Issue 36 item 4: positions from the photos around it. The photos that carry their own
/// position are a track for those that carry none (a camera beside a phone), by exiftool's
/// rule for photos used as a track, tightened, because a wrong pin is worse than a missing one:
///
/// - between the photo before and the photo after, linearly in time, only when they are at most
///   `maxGap` apart and the speed their positions imply is at most `maxSpeed` (not across a
///   flight, a night, a day at home);
/// - else the nearer of the two when it is at most `maxNearest` away in time;
/// - never from a photo dated by its file's time, never from another estimate (the caller gives
///   only photos with a position of their own and a capture time).
public struct EstimateLimits: Sendable, Hashable {
    /// 30 min: exiftool's GeoMaxIntSecs, the widest gap between two fixes it interpolates
    /// across; two photos are sparser fixes than a logger's, so no wider.
    public var maxGap: Double = 1_800
    /// 250 km/h: a car on a motorway or a fast train, not a plane: two photos further apart than
    /// that in their time are not one journey on the ground, and the line between them is not
    /// where the photo between was taken.
    public var maxSpeedKmh: Double = 250
    /// 10 min: the nearest photo alone, a third of exiftool's GeoMaxExtSecs (30 min), since one
    /// photo says nothing of where its taker went next.
    public var maxNearest: Double = 600

    public init() {}

    /// How far in time a neighbour can give a position: the widest the rule reaches.
    public var reach: Double { max(maxGap, maxNearest) }
}

/// A photo with a position of its own, as a fix for the others.
struct NeighbourPhoto: Sendable, Hashable {
    var instant: Double
    var coordinate: Coordinate
    /// How the estimate names it (its file name).
    var name: String

    init(instant: Double, coordinate: Coordinate, name: String) {
        self.instant = instant
        self.coordinate = coordinate
        self.name = name
    }
}

/// An estimated position and what it came from, in words.
struct NeighbourEstimate: Sendable, Hashable {
    var coordinate: Coordinate
    /// "from IMG_0412 (4 min before) and IMG_0415 (3 min after), 1.2 km apart", or "from
    /// IMG_0412 (4 min before)".
    var detail: String
    /// Between two photos (not the nearest alone), and the seconds to the nearer: what the
    /// camera zone's guess weighs shifts by (`CameraZoneGuess`), as a track's match.
    var interpolated = false
    var seconds = 0.0
}

/// The photos with positions, by instant, and the rule above.
struct PositionEstimator: Sendable {
    let limits: EstimateLimits
    private let photos: [NeighbourPhoto]

    init(_ photos: [NeighbourPhoto], limits: EstimateLimits = EstimateLimits()) {
        // The same photo twice (this run's reading and an earlier run's record of it, or a
        // copy) is one neighbour: the first given is kept.
        var seen = Set<Moment>()
        self.photos = photos.filter { $0.coordinate.isValid && $0.instant.isFinite && seen.insert(Moment($0)).inserted }
            .sorted { ($0.instant, $0.name) < ($1.instant, $1.name) }
        self.limits = limits
    }

    var isEmpty: Bool { photos.isEmpty }

    private struct Moment: Hashable {
        let instant: Double, latitude: Double, longitude: Double
        init(_ p: NeighbourPhoto) { (instant, latitude, longitude) = (p.instant, p.coordinate.latitude, p.coordinate.longitude) }
    }

    /// The estimate at instant `t`, or why there is none.
    func estimate(at t: Double) -> Result<NeighbourEstimate, NoEstimate> {
        guard !photos.isEmpty, t.isFinite else { return .failure(NoEstimate("no photo with a position to estimate from")) }
        // The first photo after t (or at it).
        var lo = 0, hi = photos.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if photos[mid].instant < t { lo = mid + 1 } else { hi = mid }
        }
        let after = lo < photos.count ? photos[lo] : nil
        let before = lo > 0 ? photos[lo - 1] : nil
        if let a = after, a.instant == t {
            return .success(NeighbourEstimate(coordinate: a.coordinate, detail: "from \(a.name) (taken at the same instant)",
                                              interpolated: true))
        }
        var why = ""
        if let b = before, let a = after {
            let gap = a.instant - b.instant
            let km = AngularDistance.kilometres(b.coordinate, a.coordinate)
            let speed = km / (gap / 3_600)
            if gap <= limits.maxGap && speed <= limits.maxSpeedKmh {
                let f = (t - b.instant) / gap
                return .success(NeighbourEstimate(coordinate: Self.between(b.coordinate, a.coordinate, f),
                                                  detail: "from \(b.name) (\(TrackMatch.duration(t - b.instant)) before) and "
                                                      + "\(a.name) (\(TrackMatch.duration(a.instant - t)) after), \(Self.distance(km)) apart",
                                                  interpolated: true, seconds: min(t - b.instant, a.instant - t)))
            }
            why = gap > limits.maxGap
                ? "the photos around it are \(TrackMatch.duration(gap)) apart (more than \(TrackMatch.duration(limits.maxGap)))"
                : "the photos around it are \(Self.distance(km)) apart in \(TrackMatch.duration(gap)), faster than \(Int(limits.maxSpeedKmh)) km/h"
        }
        let nearest = [before.map { ($0, t - $0.instant, "before") }, after.map { ($0, $0.instant - t, "after") }]
            .compactMap { $0 }.min { $0.1 < $1.1 }
        guard let (photo, seconds, side) = nearest else { return .failure(NoEstimate(why)) }
        if seconds <= limits.maxNearest {
            return .success(NeighbourEstimate(coordinate: photo.coordinate,
                                              detail: "from \(photo.name) (\(TrackMatch.duration(seconds)) \(side))",
                                              seconds: seconds))
        }
        let far = "nearest photo with a position \(TrackMatch.duration(seconds)) away"
        return .failure(NoEstimate(before != nil && after != nil ? why + "; " + far : far))
    }

    struct NoEstimate: Error, Sendable, Hashable, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Linear between `a` and `b` at fraction `f`, across ±180° the short way (as the tracks).
    static func between(_ a: Coordinate, _ b: Coordinate, _ f: Double) -> Coordinate {
        var lon0 = a.longitude, lon1 = b.longitude
        if abs(lon1 - lon0) > 180 { if lon0 < lon1 { lon0 += 360 } else { lon1 += 360 } }
        var lon = lon1 * f + lon0 * (1 - f)
        if lon > 180 { lon -= 360 }
        return Coordinate(latitude: b.latitude * f + a.latitude * (1 - f), longitude: lon)
    }

    /// "1.2 km", "850 m".
    static func distance(_ km: Double) -> String {
        km < 1 ? "\(Int((km * 1000).rounded())) m" : String(format: "%.1f km", km)
    }
}
