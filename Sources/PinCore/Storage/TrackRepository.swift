import Foundation

/// What an import remembers of one track file given with `--track` for one import root
/// (issue 29, the nightly part): the file's fingerprint when it was last read, what it held,
/// and the last run of that root that had it. A later run that finds the same fingerprint does
/// not read the file again unless a photo needs it; a new or changed file has the photos
/// skipped earlier for "no location" that it covers decided again.
public struct TrackRecord: Sendable, Hashable {
    /// The import root (absolute path bytes) whose photos were matched with it.
    public var root: RawPath
    /// The track file (absolute path bytes, as the run found it).
    public var path: RawPath
    public var fingerprint: PhotoFingerprint
    /// The format's raw value (`TrackFileFormat`), nil when none was recognised.
    public var format: String?
    public var points: Int
    /// The instants covered (seconds since 1970), nil without a point.
    public var first: Double?
    public var last: Double?
    /// The run that read this content of the file.
    public var readRunID: Int64?
    /// The last run of `root` that had the file among its tracks: every photo of `root`
    /// decided by that run or before was decided with this content available.
    public var seenRunID: Int64?

    public init(root: RawPath, path: RawPath, fingerprint: PhotoFingerprint, format: String?, points: Int,
                first: Double?, last: Double?, readRunID: Int64?, seenRunID: Int64?) {
        self.root = root
        self.path = path
        self.fingerprint = fingerprint
        self.format = format
        self.points = points
        self.first = first
        self.last = last
        self.readRunID = readRunID
        self.seenRunID = seenRunID
    }
}

/// The `tracks` table.
public protocol TrackRepository {
    /// The track files recorded for `root`, by path.
    func all(root: RawPath) throws -> [TrackRecord]
    /// Inserts or replaces the record of (`root`, `path`).
    func save(_ record: TrackRecord) throws
}
