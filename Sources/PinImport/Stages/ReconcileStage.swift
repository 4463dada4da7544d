import Foundation
import PinCore
import PinMetadata

/// A photo already decided under another path: its record (and pin) follow it.
struct PhotoMove {
    /// The old path when the old file is gone (a move); nil when it is still there (a copy,
    /// which gets a record of its own with the same decision and pin).
    var from: RawPath?
    var to: PhotoRecord
}

/// Stage 3: photos read in this run that need no new decision. A file touched but not changed
/// (same metadata digest at the same path) only gets its new fingerprint; the same photo under
/// another path (same size and digest) is a move or a copy. The rest is left to the rules.
struct Reconciliation {
    /// Paths whose fingerprint is written again (touched, or back after being missing).
    var refreshed: [(path: RawPath, fingerprint: PhotoFingerprint)]
    var moves: [PhotoMove] = []
    /// Accepted photos whose position was corrected (a sidecar edited in Lightroom, Google
    /// Photos): their unedited pin moves with them instead of a second pin being made.
    /// Each record as read now (new position, time, fingerprint, digest), and where it was.
    var repositioned: [(record: PhotoRecord, from: Coordinate)] = []
    /// Indices (ascending) of the items the rules still have to decide.
    var undecided: [Int] = []
    var touched = 0
    /// Known files gone for good: the vanished ones that did not move.
    var missing: [RawPath]

    /// `exists` says whether a recorded file is still there (a test passes its own).
    init(items: [ImportItem], root: RawPath, known: [RawPath: KnownPhoto], survey: Survey, includeVideos: Bool,
         database: TransactionRunner?, exists: (RawPath) -> Bool = { path in path.withCString { access($0, F_OK) } == 0 }) throws {
        refreshed = survey.reappeared
        missing = survey.vanished
        guard let database else {
            undecided = Array(items.indices)
            return
        }
        let vanished = Set(survey.vanished)
        var undecided: [Int] = []
        var refreshed: [(path: RawPath, fingerprint: PhotoFingerprint)] = []
        var moves: [PhotoMove] = []
        var repositioned: [(record: PhotoRecord, from: Coordinate)] = []
        try readingDatabase {
            try database.read { repos in
                for (i, item) in items.enumerated() {
                    let entry = item.entry
                    guard let metadata = item.metadata, let digest = metadata.metadataDigest,
                          includeVideos || metadata.format != FileKind.quicktime.rawValue else {
                        undecided.append(i)
                        continue
                    }
                    let path = root.appending(entry.relativePath.bytes)
                    if let previous = known[entry.relativePath] {
                        if previous.digest == digest {
                            refreshed.append((path, entry.fingerprint))
                        } else if var record = try Self.movablePin(previous, path: path, to: metadata.coordinate, in: repos),
                                  let from = record.coordinate {
                            record.fingerprint = entry.fingerprint
                            record.digest = digest
                            record.coordinate = metadata.coordinate
                            record.takenAt = item.takenAt
                            record.utcOffsetSeconds = metadata.utcOffsetSeconds
                            record.timeSource = metadata.timeSource.rawValue
                            record.detail = "position corrected: pin moved from \(from)"
                            repositioned.append((record, from))
                        } else {
                            undecided.append(i)
                        }
                    } else if var record = try repos.photos.find(size: entry.size, digest: digest), record.path != path {
                        let old = record.path
                        record.path = path
                        record.fingerprint = entry.fingerprint
                        let gone = vanished.contains(old) || !exists(old)
                        moves.append(PhotoMove(from: gone ? old : nil, to: record))
                    } else {
                        undecided.append(i)
                    }
                }
            }
        }
        touched = refreshed.count
        self.refreshed += refreshed
        self.moves = moves
        self.repositioned = repositioned
        self.undecided = undecided
        // Files that moved are not missing: their records follow them.
        let movedFrom = Set(moves.compactMap(\.from))
        missing.removeAll { movedFrom.contains($0) }
    }

    /// The record of an accepted photo whose position changed and whose pin it made is still
    /// as the import made it (not edited, still naming this photo); nil otherwise (then the
    /// rules decide the photo again, as any changed photo).
    static func movablePin(_ previous: KnownPhoto, path: RawPath, to coordinate: Coordinate?,
                           in repos: Repositories) throws -> PhotoRecord? {
        guard let coordinate, let digest = previous.digest,
              let record = try repos.photos.find(size: previous.fingerprint.size, digest: digest), record.path == path,
              record.decision == .accepted, let old = record.coordinate, old != coordinate,
              let id = record.locationID, let pin = try repos.locations.fetch(id: id),
              pin.editedAt == nil, pin.photoIDs.contains(path.description) else { return nil }
        return record
    }
}
