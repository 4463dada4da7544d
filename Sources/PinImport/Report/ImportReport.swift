import Foundation
import PinCore
import PinMetadata
import PinStore

/// What happened to one file of the run. A run holds one item per file it read (1,000,000 on
/// a large first import), so an item keeps only what the import uses, compactly: see
/// `metadata`; the pin plan and the error, which few items have, are kept out of line.
public struct ImportItem: Sendable {
    public let entry: FileEntry
    private var kept: KeptMetadata?
    private var extra: Extra?
    public var decision: PhotoDecision
    public var verdict: ImportRules.Verdict?

    /// The file's metadata as the import uses it: format, position and its source or issue,
    /// capture time, offset and source, digest. The altitude, the time's tag and the decoding
    /// warnings are not kept (`pins inspect` shows them).
    public var metadata: PhotoMetadata? {
        get { kept?.metadata }
        set { kept = newValue.map(KeptMetadata.init) }
    }

    /// Set for unreadable files: the one-line reason.
    public var error: String? {
        get { extra?.error }
        set { extra = Extra.make(error: newValue, pin: pin, lost: isLost) }
    }

    /// For an accepted photo: the pin it makes (or would make, in a dry run), resolved once by
    /// CreationService.
    public var pin: PinPlan? {
        get { extra?.pin }
        set { extra = Extra.make(error: error, pin: newValue, lost: isLost) }
    }

    /// A file the walk listed that its reader could not find or reach any more (`FileLost`;
    /// `error` says why): no decision. The import leaves it unread and never records it.
    var isLost: Bool { extra?.lost ?? false }

    /// The item of a lost file (`isLost`).
    static func lost(_ entry: FileEntry, reason: String) -> ImportItem {
        var item = ImportItem(entry: entry, decision: .notMedia)
        item.extra = Extra.make(error: reason, pin: nil, lost: true)
        return item
    }

    public var country: String? { pin?.country }
    public var title: String? { pin?.title }
    public var locationID: UUID? { pin?.id }

    /// The position read from the file, if any (without building the whole `metadata`).
    public var coordinate: Coordinate? { kept?.coordinate }

    /// Where the save stage makes this photo's pin (`SaveStage.makePin`): an accepted photo
    /// with a position and a planned pin.
    var pinCoordinate: Coordinate? { decision == .accepted && pin != nil ? coordinate : nil }

    /// For a position from the tracks: the track file of the nearest fix and the seconds to it.
    public var trackFix: (file: String, seconds: Double)? {
        guard let k = kept, k.positionSource == .track, let file = k.trackFile else { return nil }
        return (file, k.secondsToTrackFix)
    }

    /// Gives a photo without a position the one the tracks give it, or adds their reason to
    /// why it has none. True when it got a position.
    @discardableResult
    public mutating func place(from tracks: TrackSet) -> Bool {
        guard var k = kept, k.flags & KeptMetadata.hasCoordinate == 0, let m = kept?.metadata else { return false }
        let placed = tracks.place(m)
        if let c = placed.coordinate {
            k.latitude = c.latitude
            k.longitude = c.longitude
            k.flags |= KeptMetadata.hasCoordinate
            k.positionSource = .track
            k.trackFile = placed.file
            k.secondsToTrackFix = placed.secondsToNearestFix ?? 0
            k.locationIssue = nil
            kept = k
            return true
        }
        if let reason = placed.reason {
            k.locationIssue = (k.locationIssue ?? "no GPS position") + "; " + reason
            kept = k
        }
        return false
    }

    /// Gives a photo without a position the one the photos around it give (issue 36 item 4);
    /// the words saying from which are kept where a track's file would be.
    mutating func place(estimate: NeighbourEstimate) {
        guard var k = kept, k.flags & KeptMetadata.hasCoordinate == 0 else { return }
        k.latitude = estimate.coordinate.latitude
        k.longitude = estimate.coordinate.longitude
        k.flags |= KeptMetadata.hasCoordinate
        k.positionSource = .estimate
        k.trackFile = estimate.detail
        k.secondsToTrackFix = 0
        k.locationIssue = nil
        kept = k
    }

    /// For a position from the photos around it: from which, in words.
    public var estimateDetail: String? {
        guard let k = kept, k.positionSource == .estimate else { return nil }
        return k.trackFile
    }

    /// Where the position came from, when it has one.
    public var positionSource: PositionSource? { kept?.positionSource }

    /// A photo skipped earlier for "no location", read and decided again in this run because a
    /// new or changed track covers its time (issue 29, nightly).
    public var isRetriedForTracks: Bool { (kept?.flags ?? 0) & KeptMetadata.retriedForTracks != 0 }

    mutating func markRetriedForTracks() { kept?.flags |= KeptMetadata.retriedForTracks }

    /// For a photo skipped by the distance rule: the pin it was too close to (title and position).
    var blockingPin: (title: String, coordinate: Coordinate)? {
        switch verdict {
        case let .distance(_, _, title, coordinate)?, let .visits(_, _, title, coordinate, _)?: return (title, coordinate)
        default: return nil
        }
    }

    /// The capture instant the rules used: the photo's time, else the file's modification time.
    public var takenAt: Date { kept?.takenAt ?? entry.modificationDate }

    /// Whether `takenAt` is the file's modification time, no capture time (issue 36 item 2: no
    /// part in the interval rule).
    public var datedByFile: Bool {
        guard let k = kept, k.takenAt != nil else { return true }
        return k.timeSource == .fileModification || k.timeSource == .none
    }

    /// `takenAt` as ISO 8601 with the photo's own offset (UTC when it has none).
    public var takenAtText: String { ISO8601.format(takenAt, offsetSeconds: kept?.utcOffsetSeconds) }

    /// Why the photo was skipped (or could not be read), in one line; nil for an accepted one.
    public var detail: String? {
        if let error { return error }
        switch verdict {
        case .none, .accepted?: return nil
        case let .noLocation(reason)?: return reason
        case let .interval(seconds, previous)?:
            // Whole seconds as "48 s", fractions to the millisecond as "59.5 s".
            let ms = Int(saturating: (seconds * 1000).rounded())
            let text = ms % 1000 == 0 ? String(ms / 1000) : String(Double(ms) / 1000)
            return "\(text) s after \(previous) (accepted)"
        case let .distance(km, _, pin, _)?:
            let meters = Int(saturating: (km * 1000).rounded())
            return "\(meters / 1000).\(String(meters % 1000 / 10).leftPadded(to: 2)) km from pin '\(pin)'"
        case let .visits(km, _, pin, _, _)?:
            let meters = Int((km * 1000).rounded())
            return "\(meters / 1000).\(String(meters % 1000 / 10).leftPadded(to: 2)) km from pin '\(pin)'" + WantedVisitMark.detailSuffix
        }
    }

    /// Why a file counted in `files` makes no decision (`.notMedia`): a sidecar (read with its
    /// photo), a video left out, an empty file, or content that is not a photo or video.
    var otherReason: String? {
        guard decision == .notMedia else { return nil }
        if Sidecars.isSidecarName(entry.relativePath.lastComponent) { return "sidecar (read with its photo)" }
        if metadata != nil { return "video left out (--no-videos)" }
        if entry.size == 0 { return "empty file" }
        return "not a photo or video (unrecognised content)"
    }

    public init(entry: FileEntry, metadata: PhotoMetadata? = nil, error: String? = nil, decision: PhotoDecision,
                verdict: ImportRules.Verdict? = nil, pin: PinPlan? = nil) {
        self.entry = entry
        self.kept = metadata.map(KeptMetadata.init)
        self.extra = Extra.make(error: error, pin: pin, lost: false)
        self.decision = decision
        self.verdict = verdict
    }

    /// From its parts (`ItemCodec`).
    init(entry: FileEntry, kept: KeptMetadata?, error: String?, pin: PinPlan?, decision: PhotoDecision,
         verdict: ImportRules.Verdict?) {
        self.entry = entry
        self.kept = kept
        self.extra = Extra.make(error: error, pin: pin, lost: false)
        self.decision = decision
        self.verdict = verdict
    }

    /// The kept metadata as it is stored (`ItemCodec`).
    var keptMetadata: KeptMetadata? { kept }

    // What the rules and the sorter ask of every item, without copying the kept metadata
    // (a copy retains its strings: these run several times per file).

    /// Whether the file was read as a photo or video.
    var isMedia: Bool { kept != nil }
    /// A video read as such (`--no-videos` leaves it out).
    var isVideo: Bool { kept?.format.isVideo ?? false }
    /// Why the file has no position, when it said something about it.
    var locationIssue: String? { kept?.locationIssue }
    /// The photo's own UTC offset, if it has one.
    var utcOffsetSeconds: Int? { kept?.utcOffsetSeconds }
    /// Where the capture time came from. Not inlined: Swift 6.3.1's release build crashed
    /// ("Found ownership error", CopyPropagation) on it inlined into DecideStage's estimate step.
    var timeSource: TimeSource? {
        @inline(never) get { kept?.timeSource }
    }

    /// What few items have, behind one reference: the error of an unreadable file, the pin of
    /// an accepted photo.
    private final class Extra: Sendable {
        let error: String?
        let pin: PinPlan?
        let lost: Bool

        private init(error: String?, pin: PinPlan?, lost: Bool) {
            self.error = error
            self.pin = pin
            self.lost = lost
        }

        static func make(error: String?, pin: PinPlan?, lost: Bool) -> Extra? {
            error == nil && pin == nil && !lost ? nil : Extra(error: error, pin: pin, lost: lost)
        }
    }
}

/// The part of `PhotoMetadata` the import uses, in about 100 bytes instead of about 170 plus
/// two or three heap strings: the digest's 16 hex digits as a number, optional numbers as
/// values and flags.
struct KeptMetadata: Sendable {
    var format: FileKind
    var positionSource: PositionSource?
    var locationIssue: String?
    /// A position from the tracks: the file and the seconds to its nearest fix.
    var trackFile: String?
    var secondsToTrackFix = 0.0
    /// A digest that is not 16 lowercase hex digits, kept as it is (tests, older records).
    var otherDigest: String?
    var latitude = 0.0, longitude = 0.0
    var takenAtSeconds = 0.0
    var offset = 0
    var digest: UInt64 = 0
    var timeSource: TimeSource
    var flags: UInt8 = 0

    static let hasCoordinate: UInt8 = 1, hasTakenAt: UInt8 = 2, hasOffset: UInt8 = 4, hasHexDigest: UInt8 = 8
    /// Not of the metadata: the photo is decided again for the tracks (`ImportItem.isRetriedForTracks`).
    static let retriedForTracks: UInt8 = 16

    /// The rest unset (`ItemCodec` fills it in).
    init(format: FileKind, timeSource: TimeSource) {
        self.format = format
        self.timeSource = timeSource
    }

    init(_ m: PhotoMetadata) {
        format = m.format
        positionSource = m.positionSource
        locationIssue = m.locationIssue
        trackFile = m.trackFile
        secondsToTrackFix = m.secondsToTrackFix ?? 0
        timeSource = m.timeSource
        if let c = m.coordinate {
            latitude = c.latitude
            longitude = c.longitude
            flags |= Self.hasCoordinate
        }
        if let t = m.takenAt {
            // Date keeps seconds since 2001 as a Double: the same Double comes back exactly.
            takenAtSeconds = t.timeIntervalSinceReferenceDate
            flags |= Self.hasTakenAt
        }
        if let o = m.utcOffsetSeconds {
            offset = o
            flags |= Self.hasOffset
        }
        switch m.storedDigest {
        case let .value(value)?:
            digest = value
            flags |= Self.hasHexDigest
        case let .text(text)?:
            otherDigest = text
        case nil:
            break
        }
    }

    var coordinate: Coordinate? {
        flags & Self.hasCoordinate != 0 ? Coordinate(latitude: latitude, longitude: longitude) : nil
    }

    var takenAt: Date? { flags & Self.hasTakenAt != 0 ? Date(timeIntervalSinceReferenceDate: takenAtSeconds) : nil }

    var utcOffsetSeconds: Int? { flags & Self.hasOffset != 0 ? offset : nil }

    var metadataDigest: String? {
        guard flags & Self.hasHexDigest != 0 else { return otherDigest }
        return StoredDigest.hexText(digest)
    }

    var metadata: PhotoMetadata {
        var m = PhotoMetadata(format: format, coordinate: coordinate, locationIssue: locationIssue, positionSource: positionSource,
                              takenAt: takenAt, utcOffsetSeconds: utcOffsetSeconds, timeSource: timeSource, metadataDigest: metadataDigest)
        if let trackFile {
            m.trackFile = trackFile
            m.secondsToTrackFix = secondsToTrackFix
        }
        return m
    }
}

/// The report of one import session: counts, every decided file, what the walk could not read.
/// Writers (text, JSON, the map page) read it through the accessors below. The decided files
/// are on disk (`DecidedFiles`): a report of 1,000,000 files is read back as it is written out.
public struct ImportReport: Sendable {
    public var root: String
    public var dryRun: Bool
    /// The run record this session wrote (nil for a dry run).
    public var runID: Int64?
    /// False when the end of the run could not be recorded (`pins runs` then shows it as
    /// interrupted); the command exits 1.
    public var runEndRecorded = true
    /// Regular files seen under the root (hidden, system and excluded entries left out).
    public var files = 0
    /// Files already decided in an earlier run and unchanged since: not opened.
    public var unchanged = 0
    /// Files whose content was read in this run.
    public var read = 0
    /// Files recognised as a photo already decided under another path whose old file is gone
    /// (moved, renamed): the record and pin follow it.
    public var moved = 0
    /// Files recognised as a photo already decided under another path whose old file is still
    /// there (a copy): a record of its own with the same decision, no new pin.
    public var copied = 0
    /// Files touched (new modification time) whose metadata did not change: not decided again.
    public var touched = 0
    /// Files known from earlier runs that are gone: recorded as missing, their pins kept.
    public var missing = 0
    /// Videos left out by `--no-videos`.
    var videosLeftOut = 0
    /// Known files the walk did not look at (excluded, or in a folder it could not read): kept
    /// as they were, neither read nor missing.
    var outOfSight = 0
    /// Pins that followed their photo because its metadata changed (a sidecar edited, added or
    /// deleted): moved, or kept where they were when the photo lost its position.
    public var corrected: [PinCorrection] = []
    public var pinsMoved: Int { corrected.count { $0.kind == .moved } }
    public var pinsKept: Int { corrected.count { $0.kind == .kept } }
    /// Every file decided in this run, in the order the rules saw them, then unreadable files
    /// and other files by path.
    public var items = DecidedFiles()
    /// Folders or files the walk could not read: the run completed, but not over everything
    /// (`pins import` then exits with its own code).
    public var problems: [(path: RawPath, reason: String)] = []
    public var startedAt = Date()
    public var finishedAt = Date()

    public init(root: String, dryRun: Bool) {
        self.root = root
        self.dryRun = dryRun
    }

    /// EX_IOERR (sysexits.h): the run completed, but the walk could not read some folders or
    /// entries; their files were left as they were. Cron mails someone.
    static let incompleteExitCode = ExitCode.ioError

    /// The exit code of a completed run: 0, or `incompleteExitCode` when the walk could not
    /// read everything.
    public var exitCode: Int32 { problems.isEmpty ? 0 : Self.incompleteExitCode }

    /// The reasons a photo makes no pin, in the order reports list them.
    static let skipReasons: [PhotoDecision] = [.noLocation, .interval, .distance, .unreadable]

    // Counted as the files were written (`DecidedFiles.Tally`): no pass over the files.
    public var photos: Int { items.count - count(.notMedia) }
    public var created: Int { count(.accepted) }
    public func count(_ decision: PhotoDecision) -> Int { items.tally.count(of: decision) }
    var withLocation: Int { items.tally.withLocation }
    /// The track files read for this run (`--track`), each with its points or its problem.
    public var tracks: [TrackFileReport] = []
    /// Photos that got their position from the tracks.
    var placedFromTracks = 0
    /// Most photos of a camera without offsets missed the tracks (or the photos around) by a
    /// whole number of half hours: which `--camera-timezone` or `--camera-clock-offset` would
    /// place them (issue 36 item 5), said once on stderr.
    public var cameraZoneHint: String?
    /// The run gave the camera's zone or clock offset: with tracks, a photo read in another
    /// zone than its record's is decided again although no track changed (`TrackRun.redecides`).
    var cameraClockGiven = false
    /// Photos an earlier run placed at the instant another camera zone or clock gave
    /// (`PlacedAtAnotherInstant`), when this run gives the camera's: said on stderr.
    var placedAtAnotherInstant: [PlacedAtAnotherInstant] = []
    /// Photos placed from the photos around them (`--estimate-positions`), and, in a dry run
    /// without it, how many it would place.
    public var estimated = 0
    var estimatesPossible = 0
    /// The run gave photos positions from the photos around them: what a photo decided again
    /// was decided again for (with the tracks', when the run has tracks).
    public var estimating = false

    /// Why the photos skipped earlier for no location were decided again, in words: "new or
    /// changed tracks", "the photos with a position around them", or both.
    var redecidedFor: String {
        switch (!tracks.isEmpty, estimating) {
        case (true, true): "new or changed tracks or the photos with a position around them"
        case (true, false): cameraClockGiven ? "new or changed tracks or the camera's clock given" : "new or changed tracks"
        default: "the photos with a position around them"
        }
    }

    /// How many photos each skip reason (unreadable included) took, keyed by the reason's name.
    public var skippedCounts: [String: Int] {
        Dictionary(uniqueKeysWithValues: Self.skipReasons.map { ($0.rawValue, count($0)) })
    }

    /// The photos that make (or would make) a pin, in capture order.
    public var accepted: DecidedFiles.Filtered { items.only([.accepted]) }
    /// The photos the rules skipped (no location, interval, distance), in capture order.
    public var skipped: DecidedFiles.Filtered { items.only([.noLocation, .interval, .distance]) }
    /// The files that are neither photos nor unreadable (sidecars, videos left out, empty files,
    /// other content), by path: see `ImportItem.otherReason`.
    public var others: DecidedFiles.Filtered { items.only([.notMedia]) }
    /// Files whose content is not a photo or video at all (empty ones included): not sidecars,
    /// not videos left out.
    public var notMedia: Int { items.tally.notMedia }
    /// The files that could not be decoded, by path.
    public var unreadable: DecidedFiles.Filtered { items.only([.unreadable]) }
}
