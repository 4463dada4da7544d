import Foundation
import PinCore

/// Photos an earlier run placed by a track or the photos around, at the instant that run's
/// camera zone and clock offset gave, to which this run's give another instant (a corrected
/// `--camera-clock-offset` or `--camera-timezone`): a photo's instant is decided once, when it
/// is read, so their positions and pins stay as that run made them. Counted per run and said
/// once on stderr, with the way to place them again: undo those runs, then import again.
struct PlacedAtAnotherInstant: Sendable, Equatable {
    /// The run that decided them; nil for records made before runs were kept.
    var run: Int64?
    var photos: Int
}

extension ImportPipeline {
    /// The camera's zone and clock offset this run reads a photo without a position of its own
    /// with (`TrackRun.instant(of:options:)`, `TrackRun.corrected`).
    var cameraClock: TrackOptions {
        var camera = TrackOptions()
        camera.cameraTimeZone = options.cameraTimeZone ?? options.tracks?.cameraTimeZone
        camera.clockOffset = options.metadataOptions.cameraClockOffset
        return camera
    }

    /// The photos of the root a track or the estimates placed that this run's camera zone and
    /// clock would read at another instant (`PlacedAtAnotherInstant`), per run, oldest first.
    /// The files this run read again (`readAgain`) take this run's instant: left out. A record
    /// made before schema 23 does not say its offset: it counts only when no instant it may
    /// carry (`TrackRun.corrected`) is the recorded one.
    func placedAtAnotherInstant(under root: RawPath, readAgain: Set<RawPath>, in repos: Repositories) throws -> [PlacedAtAnotherInstant] {
        let camera = cameraClock
        var counts: [Int64?: Int] = [:]
        for (path, photo) in try repos.photos.placedByTheCamerasClock(under: root) where !readAgain.contains(path) {
            guard let recorded = photo.takenAt, let read = TrackRun.instant(of: photo, options: camera) else { continue }
            let instants = TrackRun.corrected(read, of: photo, options: camera)
            if !instants.contains(where: { abs($0 - recorded) < 0.001 }) { counts[photo.runID, default: 0] += 1 }
        }
        return counts.map { PlacedAtAnotherInstant(run: $0.key, photos: $0.value) }.sorted { ($0.run ?? 0) < ($1.run ?? 0) }
    }
}

extension ImportReport {
    /// What `placedAtAnotherInstant` found, in words (nil when nothing): said once on stderr.
    public var placedAtAnotherInstantHint: String? {
        let total = placedAtAnotherInstant.reduce(0) { $0 + $1.photos }
        guard total > 0 else { return nil }
        let each = placedAtAnotherInstant.map { "\($0.run.map { "run \($0)" } ?? "no run recorded"): \($0.photos)" }
        let runs = placedAtAnotherInstant.compactMap(\.run)
        var text = "\(total) photo\(total == 1 ? "" : "s") placed by a track or the photos around keep\(total == 1 ? "s" : "") "
            + "the position an earlier camera zone or clock offset gave (\(each.joined(separator: ", "))), and their pins stay there: "
            + "this run's zone and offset apply to the photos it reads."
        if !runs.isEmpty {
            text += " To place them again at this run's: " + runs.map { "pins runs undo \($0)" }.joined(separator: ", ")
                + ", then this import again."
        }
        return text
    }
}
