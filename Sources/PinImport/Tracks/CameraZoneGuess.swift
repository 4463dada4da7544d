import Foundation
import PinCore

/// Issue 36 item 5: the camera's zone, guessed. On a machine in UTC (a NAS, a container) a
/// camera that writes no offset is read as UTC, and every one of its photos misses the track,
/// or the phone's photos taken beside it, by the zone's hours ("nearest track fix 2 h 5 min
/// away"), with no hint why. The import notes each photo read in an assumed zone
/// (`assumedZone`: no offset of its own, none inferred, no position) that the tracks or the
/// photos around it (`--estimate-positions`) were asked to place; when most of them got
/// nothing and most of those would be placed if their instant moved by one whole number of
/// half hours, it says so once, naming the `--camera-timezone` (the zone at the position found
/// that has that offset then) and the `--camera-clock-offset` that would do it.
struct CameraZoneGuess: Sendable {
    /// Photos kept to try the shifts on: enough to tell "most", bounded whatever the library.
    static let sampleLimit = 400
    /// Zones run in half hours but for a few (+05:45, +12:45): the steps tried, up to ±14 h.
    static let step = 1_800.0
    static let maxSteps = 28
    /// At least this many photos missed before anything is said (one or two stray photos are
    /// no camera).
    static let minimumMissed = 3

    /// Photos of a camera without offsets the tracks (or the photos around) were asked to
    /// place, and those they left without a position.
    private(set) var tried = 0
    private(set) var missed = 0
    /// The first `sampleLimit` missed ones: their instant and the offset they were read with.
    private var samples: [(instant: Double, offset: Int)] = []

    init() {}

    /// The widest shift tried, either way.
    static var maxShift: Double { Double(maxSteps) * step }

    /// The instants of the missed photos kept, when there are enough to say something (the
    /// photos with a position around them, from the database, are read for these only).
    var sampleSpan: ClosedRange<Double>? {
        guard missed >= Self.minimumMissed, missed * 2 > tried, let first = samples.first else { return nil }
        return samples.reduce(first.instant...first.instant) { min($0.lowerBound, $1.instant)...max($0.upperBound, $1.instant) }
    }

    /// One photo the tracks were asked to place; only those read in an assumed zone count.
    mutating func note(_ metadata: PhotoMetadata?, placed: Bool) {
        guard let m = metadata else { return }
        note(source: m.timeSource, instant: m.takenAt?.timeIntervalSince1970, offset: m.utcOffsetSeconds, placed: placed)
    }

    /// One photo, by its time's source, instant and offset (the estimates ask of an item's).
    mutating func note(source: TimeSource?, instant: Double?, offset: Int?, placed: Bool) {
        guard source == .assumedZone, let t = instant, let offset else { return }
        tried += 1
        guard !placed else { return }
        missed += 1
        if samples.count < Self.sampleLimit { samples.append((t, offset)) }
    }

    /// The sentence to say, or nil: most of the photos missed, and one shift puts most of the
    /// missed ones kept where `placer` places them.
    func hint(_ placer: some ZonePlacer, zones: (any TimeZoneLocating)?) -> String? {
        guard missed >= Self.minimumMissed, missed * 2 > tried, !samples.isEmpty else { return nil }
        // The best shift places the most photos; among equals, the one that puts most between
        // two fixes (not beside them, where the extrapolation limit also reaches), then the one
        // nearest its fixes.
        var best: (shift: Double, score: (Int, Int, Double), at: Coordinate?) = (0, (0, 0, 0), nil)
        for k in -Self.maxSteps...Self.maxSteps where k != 0 {
            let shift = Double(k) * Self.step
            var placed = 0, inside = 0, seconds = 0.0
            var at: Coordinate?
            for s in samples {
                guard let p = placer.placement(at: s.instant + shift) else { continue }
                placed += 1
                if p.interpolated { inside += 1 }
                seconds += p.seconds
                if at == nil { at = p.coordinate }
            }
            let score = (placed, inside, -seconds)
            if placed > 0 && score > best.score { best = (shift, score, at) }
        }
        let placed = best.score.0
        guard placed * 2 > samples.count else { return nil }
        return sentence(shift: best.shift, placed: placed, at: best.at, placer: placer, zones: zones)
    }

    private func sentence(shift: Double, placed: Int, at: Coordinate?, placer: some ZonePlacer, zones: (any TimeZoneLocating)?) -> String {
        let hours = TrackMatch.duration(abs(shift))
        let sample = samples.count == missed ? "\(placed) of them" : "\(placed) of \(samples.count) of them tried"
        let words = placer.words
        var text = "\(missed) of the \(tried) photos without a time zone of their own are too far from \(words.missed), "
            + "and \(sample) fall \(words.placed) \(hours) \(shift > 0 ? "later" : "earlier"): "
            + "the camera's clock was likely set to another zone than the one they were read in"
        // The offset the camera's clock had: the one it was read with, less the shift.
        let first = samples[0]
        let wanted = first.offset - Int(shift)
        var options: [String] = []
        if let at, let zone = try? zones?.timeZone(at: at),
           zone.secondsFromGMT(for: Date(timeIntervalSince1970: first.instant + shift)) == wanted {
            options.append("--camera-timezone \(zone.identifier)")
        }
        // The run's own clock offset is in the instants already: the one to give is the sum.
        options.append("--camera-clock-offset \(Self.clockText(placer.clockOffset + shift))")
        text += ". Try " + options.joined(separator: ", or ")
        return text
    }

    /// `+2:00:00`, `-5:30:00`: a shift as `--camera-clock-offset` reads it.
    static func clockText(_ shift: Double) -> String {
        let s = Int(abs(shift))
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return (shift < 0 ? "-" : "+") + "\(s / 3600):\(two(s % 3600 / 60)):\(two(s % 60))"
    }
}

/// Where a photo would be placed at an instant, for the guess: a track's match or an estimate.
struct ZonePlacement {
    var coordinate: Coordinate
    /// Between two fixes (or photos), not the nearest alone.
    var interpolated: Bool
    /// Seconds to the nearest fix (or photo).
    var seconds: Double
}

/// What the guess tries shifts on: the tracks, or the photos with a position around.
protocol ZonePlacer {
    func placement(at t: Double) -> ZonePlacement?
    /// The run's `--camera-clock-offset`, in the instants already.
    var clockOffset: Double { get }
    /// What the photos missed, and where a shift puts them, in the sentence.
    var words: (missed: String, placed: String) { get }
}

extension TrackSet: ZonePlacer {
    func placement(at t: Double) -> ZonePlacement? {
        guard case let .position(c, d, _, interpolated) = timeline.match(t, limits: options.limits) else { return nil }
        return ZonePlacement(coordinate: c, interpolated: interpolated, seconds: d)
    }

    var clockOffset: Double { options.clockOffset }
    var words: (missed: String, placed: String) { ("every track fix", "on the track") }
}

/// The photos with a position around (`--estimate-positions`), as the estimates place by them.
struct NeighbourPlacer: ZonePlacer {
    let estimator: PositionEstimator
    let clockOffset: Double

    func placement(at t: Double) -> ZonePlacement? {
        guard case let .success(found) = estimator.estimate(at: t) else { return nil }
        return ZonePlacement(coordinate: found.coordinate, interpolated: found.interpolated, seconds: found.seconds)
    }

    var words: (missed: String, placed: String) { ("every neighbouring photo with a position", "among the neighbouring photos") }
}
