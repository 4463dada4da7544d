import Foundation
import PinCore

/// What happened to one file of the run.
public struct ImportItem: Sendable {
    public let entry: FileEntry
    public var metadata: PhotoMetadata?
    /// Set for unreadable files: the one-line reason.
    public var error: String?
    public var decision: PhotoDecision
    public var verdict: ImportFilters.Verdict?
    /// For an accepted photo: the pin it makes (or would make, in a dry run), resolved once by
    /// CreationService.
    public var pin: PinPlan?

    public var country: String? { pin?.country }
    public var title: String? { pin?.title }
    public var locationID: UUID? { pin?.id }

    /// The capture instant the rules used: the photo's time, else the file's modification time.
    public var takenAt: Date { metadata?.takenAt ?? entry.modificationDate }

    /// `takenAt` as ISO 8601 with the photo's own offset (UTC when it has none).
    public var takenAtText: String { ISO8601.format(takenAt, offsetSeconds: metadata?.utcOffsetSeconds) }

    /// Why the photo was skipped (or could not be read), in one line; nil for an accepted one.
    public var detail: String? {
        if let error { return error }
        switch verdict {
        case .none, .accepted?: return nil
        case let .noLocation(reason)?: return reason
        case let .interval(seconds, previous)?:
            // Whole seconds as "48 s", fractions to the millisecond as "59.5 s".
            let ms = Int((seconds * 1000).rounded())
            let text = ms % 1000 == 0 ? String(ms / 1000) : String(Double(ms) / 1000)
            return "\(text) s after \(previous) (accepted)"
        case let .distance(km, _, pin)?:
            let meters = Int((km * 1000).rounded())
            return "\(meters / 1000).\(String(meters % 1000 / 10).leftPadded(to: 2)) km from pin '\(pin)'"
        }
    }

    public init(entry: FileEntry, metadata: PhotoMetadata? = nil, error: String? = nil, decision: PhotoDecision,
                verdict: ImportFilters.Verdict? = nil, pin: PinPlan? = nil) {
        self.entry = entry
        self.metadata = metadata
        self.error = error
        self.decision = decision
        self.verdict = verdict
        self.pin = pin
    }
}

/// The report of one import session: counts, every decided file, what the walk could not read.
/// Writers (text, JSON, the map page) read it through the accessors below; it never holds a
/// second copy of the items.
public struct ImportReport: Sendable {
    public var root: String
    public var dryRun: Bool
    /// The run record this session wrote (nil for a dry run, or when it could not be recorded).
    public var runID: Int64?
    /// Regular files seen under the root (hidden, system and excluded entries left out).
    public var files = 0
    /// Files already decided in an earlier run and unchanged since: not opened.
    public var unchanged = 0
    /// Files whose content was read in this run.
    public var read = 0
    /// Files recognised as a photo already decided under another path (moved, renamed, copied).
    public var moved = 0
    /// Files touched (new modification time) whose metadata did not change: not decided again.
    public var touched = 0
    /// Files known from earlier runs that are gone: recorded as missing, their pins kept.
    public var missing = 0
    /// Videos left out by `--no-videos`.
    public var videosLeftOut = 0
    /// Every file decided in this run, in the order the rules saw them, unreadable files last.
    public var items: [ImportItem] = []
    /// Folders or files the walk could not read.
    public var problems: [(path: RawPath, reason: String)] = []
    public var startedAt = Date()
    public var finishedAt = Date()

    public init(root: String, dryRun: Bool) {
        self.root = root
        self.dryRun = dryRun
    }

    /// The reasons a photo makes no pin, in the order reports list them.
    public static let skipReasons: [PhotoDecision] = [.noLocation, .interval, .distance, .unreadable]

    // Counted without filter(): a filtered copy of 200,000 items was the run's peak memory.
    public var photos: Int { items.reduce(0) { $0 + ($1.decision != .notMedia ? 1 : 0) } }
    public var created: Int { count(.accepted) }
    public func count(_ decision: PhotoDecision) -> Int { items.reduce(0) { $0 + ($1.decision == decision ? 1 : 0) } }
    public var withLocation: Int { items.reduce(0) { $0 + ($1.metadata?.coordinate != nil ? 1 : 0) } }

    /// How many photos each skip reason (unreadable included) took, keyed by the reason's name.
    public var skippedCounts: [String: Int] {
        var counts: [String: Int] = [:]
        for item in items { counts[item.decision.rawValue, default: 0] += 1 }
        return Dictionary(uniqueKeysWithValues: Self.skipReasons.map { ($0.rawValue, counts[$0.rawValue] ?? 0) })
    }

    /// The photos that make (or would make) a pin, in capture order.
    public var accepted: LazyFilterSequence<[ImportItem]> { items.lazy.filter { $0.decision == .accepted } }
    /// The photos the rules skipped (no location, interval, distance), in capture order.
    public var skipped: LazyFilterSequence<[ImportItem]> {
        items.lazy.filter { $0.decision == .noLocation || $0.decision == .interval || $0.decision == .distance }
    }
    /// The files that could not be decoded, by path.
    public var unreadable: LazyFilterSequence<[ImportItem]> { items.lazy.filter { $0.decision == .unreadable } }
}
