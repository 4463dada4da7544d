import Foundation
import PinCore
import PinMetadata
import Synchronization

public struct ImportOptions: Sendable {
    public var root: String
    public var dryRun = false
    /// Reads in flight (`--jobs`): threads of the I/O pool, apart from the cores that decode.
    public var jobs = ImportOptions.defaultReadsInFlight
    /// Enough to keep a spinning disk's queue or a network share busy (on this project's 2-core
    /// machine a cold 100,000-file header read was fastest at 32 to 64 threads), few enough
    /// that a warm cache does not pay for them.
    public static let defaultReadsInFlight = 32
    public var minInterval: Double = CaptureInterval.appMinimum
    public var threshold: Double = AngularDistance.appThreshold
    public var timeZone: TimeZone = .current
    /// Zones by position for wall-clock times without an offset (`MetadataOptions.timeZones`).
    public var timeZones: (any TimeZoneLocating)?
    public var scan = ScanOptions()
    /// Transactions hold this many decisions: a crash loses at most one batch of work, which
    /// the next run redoes.
    var batchSize = 500
    /// Go on although the root lost most of the files it had (a share that is not mounted
    /// looks like that): `--allow-shrink`.
    public var allowShrink = false
    /// Videos take part in the rules, as in the phone's library; `--no-videos` leaves them out.
    public var includeVideos = true
    /// Set by a signal handler (SIGINT, SIGTERM): the run stops at the next file or batch.
    public var stop = StopRequest()
    /// Tests: called on the reading thread before each file is read (to take the folder away
    /// at a known point).
    var beforeRead: (@Sendable (FileEntry) -> Void)?
    /// The person's tracks (`--track`): photos without a position get one from them (issue 29).
    /// Read as the run needs them (`TrackRun`): new and changed files at the start, unchanged
    /// ones only for a photo of the run that falls in their time.
    public var tracks: TrackOptions?
    /// `--estimate-positions` (issue 36 item 4): photos without a position get one from the
    /// photos of the run around them that carry their own, within `estimateLimits`; false: off
    /// (a dry run still counts how many it would place, within the same limits).
    public var estimates = false
    /// The estimates' limits: the settings', else the defaults.
    public var estimateLimits = EstimateLimits()
    /// `--camera-timezone` and `--camera-clock-offset`, given with `--track` or the estimates:
    /// the zone of a wall clock without an offset (nil: `timeZone`), and the seconds added to
    /// the instant of every photo without a position of its own. With tracks, `tracks` carries
    /// the same (it reads recorded instants again with them); a caller that sets only those
    /// (`tracks`) gets them.
    public var cameraTimeZone: TimeZone?
    public var cameraClockOffset: Double = 0

    public init(root: String) { self.root = root }

    /// How the run reads a photo's time: a wall clock without an offset in the camera's zone
    /// (`--camera-timezone`, else `--timezone`), the camera's clock offset added once to the
    /// photos without a position (issue 36 item 1).
    var metadataOptions: MetadataOptions {
        MetadataOptions(defaultTimeZone: cameraTimeZone ?? tracks?.cameraTimeZone ?? timeZone, timeZones: timeZones,
                        cameraClockOffset: cameraClockOffset != 0 ? cameraClockOffset : tracks?.clockOffset ?? 0)
    }
}

/// A request to stop the run, from a signal handler on any thread: reads end at once, the batch
/// being saved is finished, nothing more is written.
public final class StopRequest: Sendable {
    /// The signal that asked to stop (a signal number, or 0 for a stop of the run's own), or
    /// `none`. Read by every reader before each file: an atomic, no lock.
    private let received = Atomic<Int64>(StopRequest.none)
    private static let none = Int64(Int32.max) + 1

    public init() {}

    /// Asks the run to stop; false when a stop was already asked (a second Ctrl-C).
    @discardableResult
    public func stop(signal: Int32) -> Bool {
        received.compareExchange(expected: Self.none, desired: Int64(signal), ordering: .sequentiallyConsistent).exchanged
    }

    /// The signal that asked to stop, if any.
    public var signal: Int32? {
        let signal = received.load(ordering: .sequentiallyConsistent)
        return signal == Self.none ? nil : Int32(signal)
    }

    /// Throws `.interrupted` when a stop was asked.
    func check() throws {
        if let signal { throw ImportError.interrupted(signal: signal) }
    }
}
