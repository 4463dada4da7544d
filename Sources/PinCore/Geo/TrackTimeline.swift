import Foundation
import PinGrammar

/// The limits of the rule (`--track-max-gap`, `--track-max-extrapolation`): exiftool's
/// GeoMaxIntSecs and GeoMaxExtSecs, both 1800 s by default.
public struct TrackLimits: Sendable, Hashable {
    /// Widest gap between two fixes across which the position is interpolated.
    public var maxGap: Double
    /// Furthest a photo may be from the nearest fix, before the first, after the last, or
    /// inside a wider gap, and still take that fix's position.
    public var maxExtrapolation: Double

    public init(maxGap: Double = 1800, maxExtrapolation: Double = 1800) {
        self.maxGap = maxGap
        self.maxExtrapolation = maxExtrapolation
    }
}

/// A position from the tracks, or why there is none.
public enum TrackMatch: Sendable, Hashable {
    /// `secondsToNearestFix` is the time to the closer of the fixes used (0 on a fix); `track`
    /// is the index of the track file (in `TrackTimeline.add` order) of that fix.
    case position(Coordinate, secondsToNearestFix: Double, track: Int, interpolated: Bool)
    /// No position: `secondsToNearestFix` is how far the nearest fix is (nil: no fix at all).
    case tooFar(secondsToNearestFix: Double?, where: Where)

    public enum Where: String, Sendable, Hashable {
        /// Before the first fix of every track.
        case beforeTrack = "before the track"
        /// After the last fix.
        case afterTrack = "after the track"
        /// Inside a gap wider than `maxGap`.
        case inGap = "in a gap of the track"
        /// No track has a fix.
        case noFix = "no track fix"
    }

    /// "nearest fix 2 h 10 min away" and the like, for a report's skip reason.
    public var reason: String? {
        guard case let .tooFar(seconds, place) = self else { return nil }
        guard let seconds else { return "no track has a fix" }
        return "nearest track fix \(TrackMatch.duration(seconds)) away (\(place.rawValue))"
    }

    /// Seconds as "45 s", "12 min 5 s", "2 h 10 min", "3 d 4 h".
    /// Total on any Double (a NaN reads "0 s"; beyond Int's range the days saturate).
    public static func duration(_ seconds: Double) -> String {
        let s = Int(saturating: seconds.rounded())
        if s < 60 { return "\(s) s" }
        if s < 3600 { return s % 60 == 0 ? "\(s / 60) min" : "\(s / 60) min \(s % 60) s" }
        if s < 86_400 { return (s / 60) % 60 == 0 ? "\(s / 3600) h" : "\(s / 3600) h \((s / 60) % 60) min" }
        let h = (s / 3600) % 24
        return h == 0 ? "\(s / 86_400) d" : "\(s / 86_400) d \(h) h"
    }
}

/// All fixes of the tracks given to one run, by instant, and the rule that turns an instant into
/// a position: exiftool's (Image::ExifTool::Geotag, SetGeoValues in 12.57), so that a photo
/// gets the position `exiftool -geotag` would write:
///
/// - the fixes of every file are merged; two fixes at the same instant: the one added last is
///   kept (exiftool keys its fixes by time);
/// - between the two fixes around the instant, when they are at most `maxGap` apart (or share a
///   KML TimeSpan), linear interpolation in time; the longitude across ±180° goes the short way;
///   a gap whose later fix is the first fix of a track file uses `maxExtrapolation` as its limit
///   instead (exiftool marks each file's first fix);
/// - otherwise (before the first fix, after the last, inside a wider gap), the nearest fix when
///   it is at most `maxExtrapolation` away (a tie takes the later fix); else no position.
///
/// Memory: 24 bytes per fix in flat arrays (a million-point track is 24 MB; a 1 GB Records.json
/// of 2.8 million fixes 67 MB), 2 more when the fixes come from several files and 4 more when
/// some share a span; while `seal` sorts fixes added out of order, 8 bytes a fix and one column
/// more.
public struct TrackTimeline: Sendable {
    private(set) var times: [Double] = []
    private(set) var latitudes: [Double] = []
    private(set) var longitudes: [Double] = []
    private var spans = UniformColumn<Int32>()
    private var tracks = UniformColumn<UInt16>()
    /// The indices of the fixes that are the first of their track file, ascending.
    private var firsts: [Int] = []
    /// Fixes before this index are sealed (sorted, one per instant); the rest were added since.
    private var sealedCount = 0
    /// The fixes added since the last seal are in time order after the sealed ones.
    private var inOrder = true

    public init() {}

    /// The fixes: after `seal`, one per instant.
    var count: Int { times.count }

    /// Adds one track file's fixes in the order the file holds them; `track` names the file in
    /// `TrackMatch.position`. Call `seal()` before `match`.
    mutating func add(_ fixes: [TrackPoint], track: Int) {
        reserve(fixes.count)
        for (i, f) in fixes.enumerated() { append(f, track: track, first: i == 0) }
    }

    /// Room for `n` more fixes.
    mutating func reserve(_ n: Int) {
        let total = times.count + n
        times.reserveCapacity(total); latitudes.reserveCapacity(total); longitudes.reserveCapacity(total)
    }

    /// Adds one fix of a track file, in the file's order (`first`: the file's first fix).
    public mutating func append(_ f: TrackPoint, track: Int, first: Bool) {
        if let last = times.last, !(f.time >= last) { inOrder = false }
        if first { firsts.append(times.count) }
        spans.append(f.span, at: times.count)
        tracks.append(UInt16(clamping: track), at: times.count)
        times.append(f.time)
        latitudes.append(f.latitude)
        longitudes.append(f.longitude)
    }

    private var sorted: Bool { sealedCount == times.count }

    /// Sorts the fixes by time (stable, in the order added), keeps the last of equal instants.
    public mutating func seal() {
        guard !sorted else { return }
        if !inOrder { sortByTime() }
        dropEqualInstants()
        sealedCount = times.count
        inOrder = true
    }

    /// A permutation sorted by (time, order added), then each column moved once.
    private mutating func sortByTime() {
        var order = [Int32](unsafeUninitializedCapacity: times.count) { b, n in
            for k in 0..<b.count { b[k] = Int32(truncatingIfNeeded: k) }
            n = b.count
        }
        times.withUnsafeBufferPointer { t in
            order.sort { t[Int($0)] != t[Int($1)] ? t[Int($0)] < t[Int($1)] : $0 < $1 }
        }
        TrackTimeline.permute(&times, order); TrackTimeline.permute(&latitudes, order)
        TrackTimeline.permute(&longitudes, order)
        spans.permute(order); tracks.permute(order)
        guard !firsts.isEmpty else { return }
        var position = [Int32](repeating: 0, count: order.count)
        for (p, k) in order.enumerated() { position[Int(k)] = Int32(truncatingIfNeeded: p) }
        firsts = firsts.map { Int(position[$0]) }.sorted()
    }

    /// Of equal instants (sorted), the one added last stays.
    private mutating func dropEqualInstants() {
        var kept = 0, f = 0
        var keptFirsts: [Int] = []
        keptFirsts.reserveCapacity(firsts.count)
        let n = times.count
        for k in 0..<n {
            let isFirst = f < firsts.count && firsts[f] == k
            if isFirst { f += 1 }
            if k + 1 < n, times[k + 1] == times[k] { continue }
            if isFirst { keptFirsts.append(kept) }
            if kept != k {
                times[kept] = times[k]; latitudes[kept] = latitudes[k]; longitudes[kept] = longitudes[k]
                spans.move(k, to: kept); tracks.move(k, to: kept)
            }
            kept += 1
        }
        if kept < n {
            times.removeSubrange(kept...); latitudes.removeSubrange(kept...); longitudes.removeSubrange(kept...)
            spans.truncate(kept); tracks.truncate(kept)
        }
        firsts = keptFirsts
    }

    private static func permute<T>(_ column: inout [T], _ order: [Int32]) {
        column = column.withUnsafeBufferPointer { c in order.map { c[Int($0)] } }
    }

    /// Whether fix `i` is the first of its track file.
    private func isFirst(_ i: Int) -> Bool {
        var lo = 0, hi = firsts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if firsts[mid] < i { lo = mid + 1 } else { hi = mid }
        }
        return lo < firsts.count && firsts[lo] == i
    }

    /// The position at `time` (seconds since 1970 UTC), by the rule above.
    public func match(_ time: Double, limits: TrackLimits = TrackLimits()) -> TrackMatch {
        precondition(sorted, "TrackTimeline.seal() before match")
        guard let first = times.first, let last = times.last else {
            return .tooFar(secondsToNearestFix: nil, where: .noFix)
        }
        if time < first {
            let d = first - time
            return d > limits.maxExtrapolation ? .tooFar(secondsToNearestFix: d, where: .beforeTrack) : fix(0, d)
        }
        if time > last {
            let d = time - last
            return d > limits.maxExtrapolation ? .tooFar(secondsToNearestFix: d, where: .afterTrack)
                : fix(times.count - 1, d)
        }
        // times[i0] <= time <= times[i1], as exiftool's bisection leaves them.
        var i0 = 0, i1 = times.count - 1
        while i1 > i0 + 1 {
            let mid = (i0 + i1) / 2
            if time < times[mid] { i1 = mid } else { i0 = mid }
        }
        let t0 = times[i0], t1 = times[i1]
        let maxSecs = (isFirst(i1) && limits.maxGap != 0) ? limits.maxExtrapolation : limits.maxGap
        let sameSpan = spans[i0] != 0 && spans[i0] == spans[i1]
        if t1 - t0 > maxSecs && !sameSpan {
            let nearest = time - t0 < t1 - time ? i0 : i1
            let d = abs(time - times[nearest])
            return d > limits.maxExtrapolation ? .tooFar(secondsToNearestFix: d, where: .inGap) : fix(nearest, d)
        }
        let f = t1 == t0 ? 0 : (time - t0) / (t1 - t0)
        let lat = latitudes[i1] * f + latitudes[i0] * (1 - f)
        var lon0 = longitudes[i0], lon1 = longitudes[i1]
        var lon: Double
        if abs(lon1 - lon0) > 180 {
            // The short way across the antimeridian (exiftool: add 360 to the smaller).
            if lon0 < lon1 { lon0 += 360 } else { lon1 += 360 }
            lon = lon1 * f + lon0 * (1 - f)
            if lon >= 180 { lon -= 360 }
        } else {
            lon = lon1 * f + lon0 * (1 - f)
        }
        let toNearest = min(time - t0, t1 - time)
        let nearest = time - t0 < t1 - time ? i0 : i1
        return .position(Coordinate(latitude: lat, longitude: lon), secondsToNearestFix: toNearest,
                         track: Int(tracks[nearest]), interpolated: f != 0 && f != 1)
    }

    private func fix(_ i: Int, _ d: Double) -> TrackMatch {
        .position(Coordinate(latitude: latitudes[i], longitude: longitudes[i]), secondsToNearestFix: d,
                  track: Int(tracks[i]), interpolated: false)
    }
}

/// A column of the timeline whose value is, in most runs, the same for every fix (the track
/// number with one file, the span outside KML TimeSpans and Google's visits): no storage until
/// a second value comes.
struct UniformColumn<T: Equatable & Sendable>: Sendable {
    /// Every fix's value; empty while they are all `uniform`.
    private var values: [T] = []
    private var uniform: T?

    subscript(i: Int) -> T { values.isEmpty ? uniform! : values[i] }

    /// The value of fix `index` (the count of fixes before it).
    mutating func append(_ v: T, at index: Int) {
        if !values.isEmpty { return values.append(v) }
        guard let u = uniform, index > 0 else { uniform = v; return }
        if v == u { return }
        values = Array(repeating: u, count: index)
        values.append(v)
    }

    mutating func permute(_ order: [Int32]) {
        guard !values.isEmpty else { return }
        values = values.withUnsafeBufferPointer { c in order.map { c[Int($0)] } }
    }

    mutating func move(_ from: Int, to: Int) {
        if !values.isEmpty { values[to] = values[from] }
    }

    mutating func truncate(_ count: Int) {
        if !values.isEmpty { values.removeSubrange(count...) }
    }
}
