import Foundation

/// What identifies a file's state without opening it: size, modification time and inode.
public struct PhotoFingerprint: Sendable, Hashable {
    public var size: Int64
    public var modificationNanoseconds: Int64
    public var inode: UInt64

    public init(size: Int64, modificationNanoseconds: Int64, inode: UInt64) {
        self.size = size
        self.modificationNanoseconds = modificationNanoseconds
        self.inode = inode
    }
}

extension PhotoRepository {
    public func knownFiles(under root: RawPath) throws -> KnownFileCursor { try knownFiles(under: root, unplaced: false) }
}

/// The import's decision on one file.
public enum PhotoDecision: String, Sendable, Codable, CaseIterable {
    case accepted, noLocation, interval, distance, unreadable
    /// Not a photo or video by its first bytes: counted as a file, never as a photo.
    case notMedia

    /// The decision in words, as every text output shows it (the summary's "no location",
    /// headings, `--verbose` lines, `pins runs show`); JSON and the database keep `rawValue`.
    public var words: String {
        switch self {
        case .noLocation: "no location"
        case .notMedia: "not media"
        case .accepted, .interval, .distance, .unreadable: rawValue
        }
    }
}

/// The record of one considered file: what it was, what was decided and the pin it made.
public struct PhotoRecord: Sendable {
    /// Absolute path bytes.
    public var path: RawPath
    public var fingerprint: PhotoFingerprint
    public var digest: String?
    public var format: FileKind?
    public var takenAt: Date?
    public var timeSource: TimeSource?
    public var utcOffsetSeconds: Int?
    public var coordinate: Coordinate?
    public var decision: PhotoDecision
    public var detail: String?
    public var locationID: UUID?
    /// The pin the photo belongs to, when the writer knows it (`photos.pin`; the store's
    /// linking pass corrects it): writing it with the record spares that pass a second write.
    public var pinID: UUID? = nil
    /// Where `coordinate` came from (`photos.position_source`): the photo's own, a track's or an
    /// estimate's. Only photos with their own are neighbours for later estimates.
    public var positionSource: PositionSource? = nil
    /// The camera clock offset of the run that read the photo (`photos.clock_offset`, seconds):
    /// the one `takenAt` carries when the photo has no position of its own and a camera clock
    /// (`MetadataMerge.settleTime`). Nil in a record made before schema 23 (not known).
    public var clockOffset: Double? = nil

    public init(path: RawPath, fingerprint: PhotoFingerprint, digest: String? = nil, format: FileKind? = nil,
                takenAt: Date? = nil, timeSource: TimeSource? = nil, utcOffsetSeconds: Int? = nil,
                coordinate: Coordinate? = nil, decision: PhotoDecision, detail: String? = nil, locationID: UUID? = nil,
                positionSource: PositionSource? = nil) {
        self.positionSource = positionSource
        self.path = path
        self.fingerprint = fingerprint
        self.digest = digest
        self.format = format
        self.takenAt = takenAt
        self.timeSource = timeSource
        self.utcOffsetSeconds = utcOffsetSeconds
        self.coordinate = coordinate
        self.decision = decision
        self.detail = detail
        self.locationID = locationID
    }
}

/// An accepted photo from an earlier run: the interval rule measures from these.
public struct AcceptedPhoto: Sendable {
    var instant: Double
    public var path: RawPath

    public init(instant: Double, path: RawPath) {
        self.instant = instant
        self.path = path
    }
}

/// What the database knows of a file below the import root.
public struct KnownPhoto: Sendable, Hashable {
    public var fingerprint: PhotoFingerprint
    /// Kept as a value, not a string: a nightly run reads one per known file.
    var storedDigest: StoredDigest?
    /// The file was not there on a later run (its record and pin are kept).
    public var missing: Bool
    /// For a photo skipped for "no location": what a new or changed track needs to tell
    /// whether it covers the photo (issue 29, nightly).
    public var unplaced: UnplacedPhoto?
    /// Set by the import's walk: the photo is read and decided again although unchanged (a new
    /// or changed track covers it).
    public var redecide = false

    public var digest: String? {
        get { storedDigest?.text }
        set { storedDigest = newValue.map(StoredDigest.init) }
    }

    public init(fingerprint: PhotoFingerprint, digest: String?, missing: Bool) {
        self.init(fingerprint: fingerprint, storedDigest: digest.map(StoredDigest.init), missing: missing)
    }

    public init(fingerprint: PhotoFingerprint, storedDigest: StoredDigest?, missing: Bool) {
        self.fingerprint = fingerprint
        self.storedDigest = storedDigest
        self.missing = missing
    }
}

/// A photo recorded as skipped for "no location" (or placed by a track or the estimates): its
/// capture time as recorded and the run that decided it.
public struct UnplacedPhoto: Sendable, Hashable {
    /// Seconds since 1970 (`photos.taken_at`); nil without a capture time.
    public var takenAt: Double?
    public var timeSource: TimeSource?
    public var utcOffsetSeconds: Int?
    public var runID: Int64?
    /// The camera clock offset `takenAt` carries (`PhotoRecord.clockOffset`); nil when the
    /// record does not say (made before schema 23).
    public var clockOffset: Double?

    public init(takenAt: Double?, timeSource: TimeSource?, utcOffsetSeconds: Int?, runID: Int64?, clockOffset: Double? = nil) {
        self.takenAt = takenAt
        self.timeSource = timeSource
        self.utcOffsetSeconds = utcOffsetSeconds
        self.runID = runID
        self.clockOffset = clockOffset
    }
}

/// The known files below a root, one at a time in byte order of their paths relative to it:
/// what the import's walk is merged with (a nightly run over 1,000,000 files holds none of
/// them). Valid only inside the read that made it.
public struct KnownFileCursor {
    private let nextFile: () throws -> (path: RawPath, known: KnownPhoto)?

    /// No known file (no database yet).
    public init() { nextFile = { nil } }

    public init(_ next: @escaping () throws -> (path: RawPath, known: KnownPhoto)?) { nextFile = next }

    /// Over files already in memory (stores for tests).
    public init(sorting known: [RawPath: KnownPhoto]) {
        var sorted = known.sorted { $0.key < $1.key }.makeIterator()
        nextFile = { sorted.next().map { ($0.key, $0.value) } }
    }

    /// The next file; nil after the last.
    public func next() throws -> (path: RawPath, known: KnownPhoto)? { try nextFile() }
}

extension PhotoRepository {
    public func saveAll(_ records: [PhotoRecord], runID: Int64?) throws {
        for record in records { try save(record, runID: runID) }
    }
}

public protocol PhotoRepository {
    /// Every known file below `root` (absolute path bytes, no trailing '/'), by its path
    /// relative to `root`, in byte order of that path, one at a time.
    /// With `unplaced`, photos skipped for "no location" carry their capture time
    /// (`KnownPhoto.unplaced`), for a run with tracks; a run without reads no more than it needs.
    func knownFiles(under root: RawPath, unplaced: Bool) throws -> KnownFileCursor
    /// Every accepted photo, in any folder, by capture instant.
    func acceptedPhotos() throws -> [AcceptedPhoto]
    /// A recorded photo with this content identity (size and metadata digest), preferring one
    /// whose file has gone missing (a move) over one still present (a copy).
    func find(size: Int64, digest: String) throws -> PhotoRecord?
    func save(_ record: PhotoRecord, runID: Int64?) throws
    /// Saves `records` in order, as `save` saves each (a store may write them together).
    func saveAll(_ records: [PhotoRecord], runID: Int64?) throws
    /// Renames a record (a moved file keeps its decision and pin).
    func move(from old: RawPath, to new: PhotoRecord, runID: Int64?) throws
    /// Updates only the fingerprint (a file touched but not changed) and clears `missing`.
    func refresh(_ path: RawPath, fingerprint: PhotoFingerprint) throws
    func markMissing(_ paths: [RawPath]) throws
    /// The recorded photos with a position of their own (not a track's, not an estimate's) and
    /// a capture time that is not their file's, in any folder, taken between `from` and `to`
    /// (seconds since 1970): neighbours for the estimates (issue 36 item 4).
    func recordedNeighbours(from: Double, to: Double) throws -> [RecordedNeighbour]
    /// The photos below `root` recorded as skipped for "no location", present, with a capture
    /// time (not their file's) between `from` and `to`: by path relative to `root`, what was
    /// known of the file, and that time (the estimates' nightly re-decision, issue 36 item 4).
    func unplacedPhotos(under root: RawPath, from: Double, to: Double) throws -> [(path: RawPath, known: KnownPhoto, takenAt: Double)]
    /// The photos below `root` recorded as skipped for "no location" that no estimating run has
    /// decided with all the recorded photos with their own position within `reach` of them: a
    /// run that did not estimate decided the photo, or recorded such a neighbour after it (the
    /// nightly run without --estimate-positions, before PINS_ESTIMATE=yes). As `unplacedPhotos`.
    func unplacedPhotosMissedByEstimates(under root: RawPath, reach: Double) throws -> [(path: RawPath, known: KnownPhoto, takenAt: Double)]
    /// The photos below `root` recorded as skipped for "no location", present, whose camera
    /// clock was moved by another offset than `clockOffset` (a corrected `--camera-clock-offset`)
    /// or, with `readAgainInAssumedZone` (a camera zone or clock offset given), whose time was a
    /// wall clock read in an assumed zone (`assumedZone`, issue 36 item 5: read again in the
    /// camera's zone): by path relative to `root`, what was known of the file, and its record.
    func unplacedPhotosForTheCamera(under root: RawPath, clockOffset: Double,
                                    readAgainInAssumedZone: Bool) throws -> [(path: RawPath, known: KnownPhoto, photo: UnplacedPhoto)]
    /// The photos below `root`, present, whose position a track or the estimates gave at the
    /// instant their record holds (a capture time not their file's): by path relative to
    /// `root`, with that record. Whether a corrected camera zone or clock moves them is the
    /// caller's to find (`TrackRun.corrected`).
    func placedByTheCamerasClock(under root: RawPath) throws -> [(path: RawPath, photo: UnplacedPhoto)]
}

extension PhotoRepository {
    public func recordedNeighbours(from: Double, to: Double) throws -> [RecordedNeighbour] { [] }
    public func unplacedPhotos(under root: RawPath, from: Double, to: Double) throws -> [(path: RawPath, known: KnownPhoto, takenAt: Double)] { [] }
    public func unplacedPhotosMissedByEstimates(under root: RawPath, reach: Double) throws -> [(path: RawPath, known: KnownPhoto, takenAt: Double)] { [] }
    public func unplacedPhotosForTheCamera(under root: RawPath, clockOffset: Double,
                                           readAgainInAssumedZone: Bool) throws -> [(path: RawPath, known: KnownPhoto, photo: UnplacedPhoto)] { [] }
    public func placedByTheCamerasClock(under root: RawPath) throws -> [(path: RawPath, photo: UnplacedPhoto)] { [] }
}

/// A recorded photo with its own position, as a neighbour for the estimates.
public struct RecordedNeighbour: Sendable, Hashable {
    public var instant: Double
    public var coordinate: Coordinate
    public var path: RawPath

    public init(instant: Double, coordinate: Coordinate, path: RawPath) {
        self.instant = instant
        self.coordinate = coordinate
        self.path = path
    }
}

/// Where an import run stands. The raw values are stored (`runs.status`) and printed by
/// `pins runs`.
public enum RunStatus: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Started and not finished: still going, or killed before it could record its end.
    case running
    case completed
    /// Stopped by SIGINT or SIGTERM.
    case interrupted
    case failed
    /// Its pins removed by `pins runs undo`.
    case undone

    public var description: String { rawValue }
}

/// One `pins import` run, as `pins runs` lists it.
public struct ImportRunRecord: Sendable {
    public var id: Int64
    public var root: String
    public var startedAt: Date
    public var finishedAt: Date?
    public var status: RunStatus
    public var exitCode: Int?
    public var files: Int
    public var photos: Int
    public var created: Int
    /// Photos per skip reason; stored (and printed in JSON) keyed by the reason's raw value.
    public var skipped: [PhotoDecision: Int]

    public init(id: Int64, root: String, startedAt: Date, finishedAt: Date? = nil, status: RunStatus, exitCode: Int? = nil,
                files: Int = 0, photos: Int = 0, created: Int = 0, skipped: [PhotoDecision: Int] = [:]) {
        self.id = id
        self.root = root
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.status = status
        self.exitCode = exitCode
        self.files = files
        self.photos = photos
        self.created = created
        self.skipped = skipped
    }
}

/// How an `import-places` run's root starts in the runs table ("places: /abs/Saved Places.json"):
/// what tells its pins (imported places) from pins made by hand.
public enum PlacesRunRoot {
    public static let prefix = "places: "
}

public protocol RunRepository {
    func start(root: String, at date: Date) throws -> Int64
    func finish(_ run: ImportRunRecord) throws
    func recent(limit: Int) throws -> [ImportRunRecord]
    /// Run `run` changed an existing pin from `before` to `after` (a photo or a timeline visit
    /// made a wanted place visited; a changed record of a place file updated its pin): what
    /// `pins runs undo` gives back. The first `before` of a run is kept, the last `after`.
    func recordChange(run: Int64, before: Location, after: Location) throws
    /// Run `run` gives photos positions from the photos around them (`--estimate-positions`):
    /// the photos runs without estimates skipped are decided again by the next that estimates.
    func markEstimating(run: Int64) throws
}

extension RunRepository {
    /// A store that keeps no history (the tests' in-memory one) records nothing.
    public func recordChange(run: Int64, before: Location, after: Location) throws {}
    public func markEstimating(run: Int64) throws {}
}

/// What `runs undo` did, or would do, with one file the run wrote.
public struct UndoneFile: Sendable {
    public enum Action: String, Sendable {
        /// The run created it: removed.
        case removed
        /// The run added to it: given back byte for byte.
        case restored
        /// Changed since the run wrote it (by a person, another app): left as it is.
        case changedSince
        /// Could not be removed or given back (a read-only folder): `problem` says why; the
        /// run keeps it recorded, so a later `runs undo` tries again.
        case failed
    }

    public var path: RawPath
    public var action: Action
    public var problem: String?

    public init(path: RawPath, action: Action, problem: String? = nil) {
        self.path = path
        self.action = action
        self.problem = problem
    }
}
