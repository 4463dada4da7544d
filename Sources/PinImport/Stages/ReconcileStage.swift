import Foundation
import PinCore
import PinMetadata

/// A photo already decided under another path: its record (and pin) follow it.
struct PhotoMove {
    /// The old path when the old file is gone (a move); nil when it is still there (a copy,
    /// which gets a record of its own with the same decision and pin). Until
    /// `Reconciliation.finish`, the old path either way.
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
    /// Accepted photos whose metadata changed (a sidecar edited, added or deleted in Lightroom,
    /// Google Photos) while the pin they made is still the import's own: the pin follows them
    /// instead of a second pin being made.
    var corrected: [PinCorrection] = []
    /// With `init(items:...)`: indices (ascending) of the items the rules still have to decide.
    var undecided: [Int] = []
    var touched = 0
    /// Known files gone for good: the vanished ones that did not move.
    var missing: [RawPath]

    /// Known files that vanished from where they were recorded.
    private var vanished: Set<RawPath>

    /// Nothing reconciled yet: the survey's reappeared and vanished files.
    init(survey: Survey) {
        refreshed = survey.reappeared
        missing = survey.vanished
        vanished = Set(survey.vanished)
    }

    /// Nothing reconciled and nothing surveyed yet: the run reconciles the files read during
    /// the walk, then gives the survey (`surveyed`).
    init() {
        refreshed = []
        missing = []
        vanished = []
    }

    /// After the walk: its reappeared files (first, as with `init(survey:)`) and vanished ones.
    mutating func surveyed(_ survey: Survey) {
        refreshed = survey.reappeared + refreshed
        missing = survey.vanished
        vanished = Set(survey.vanished)
    }

    /// All of `items` at once (tests): `undecided` holds the indices left to the rules.
    init(items: [ImportItem], root: RawPath, known: [RawPath: KnownPhoto], survey: Survey, includeVideos: Bool,
         database: TransactionRunner?, exists: (RawPath) -> Bool = Reconciliation.exists) throws {
        self.init(survey: survey)
        guard let database else {
            undecided = Array(items.indices)
            finish(exists: exists)
            return
        }
        var reconciled = self
        try readingDatabase {
            try database.read { repos in
                reconciled.undecided = try reconciled.reconcile(items, root: root, known: known, includeVideos: includeVideos, in: repos)
            }
        }
        self = reconciled
        finish(exists: exists)
    }

    /// Whether a recorded file is still there.
    static func exists(_ path: RawPath) -> Bool { path.withCString { access($0, F_OK) } == 0 }

    /// Sets aside the items of `batch` that need no decision (touched, moved, copied, corrected)
    /// and returns the indices of the others, ascending: they are left to the rules. The run
    /// calls it on each batch of files as they are read (during the walk too), then `finish`es.
    /// `repos`: the run's read of the database (the walk's); nil when there is no database.
    mutating func reconcile(_ batch: [ImportItem], root: RawPath, known: [RawPath: KnownPhoto], includeVideos: Bool,
                            in repos: Repositories?) throws -> [Int] {
        guard let repos else { return Array(batch.indices) }
        var undecided: [Int] = []
        var refreshed: [(path: RawPath, fingerprint: PhotoFingerprint)] = []
        var moves: [PhotoMove] = []
        var corrected: [PinCorrection] = []
        try readingDatabase {
            for (i, item) in batch.enumerated() {
                let entry = item.entry
                guard let metadata = item.metadata, let digest = metadata.metadataDigest,
                      includeVideos || !metadata.format.isVideo else {
                    undecided.append(i)
                    continue
                }
                let path = root.appending(entry.relativePath.bytes)
                if let previous = known[entry.relativePath] {
                    if previous.redecide {
                        // Skipped for "no location", and a new or changed track covers it.
                        undecided.append(i)
                    } else if previous.digest == digest {
                        refreshed.append((path, entry.fingerprint))
                    } else if let correction = try PinCorrection(previous, item: item, path: path, in: repos) {
                        corrected.append(correction)
                    } else {
                        undecided.append(i)
                    }
                } else if var record = try repos.photos.find(size: entry.size, digest: digest), record.path != path {
                    // A move or a copy: `finish` tells, once the walk has said what vanished.
                    let old = record.path
                    record.path = path
                    record.fingerprint = entry.fingerprint
                    moves.append(PhotoMove(from: old, to: record))
                } else {
                    undecided.append(i)
                }
            }
        }
        touched += refreshed.count + corrected.count { $0.kind == .same }
        self.refreshed += refreshed
        self.moves += moves
        self.corrected += corrected
        return undecided
    }

    /// After the last batch and the walk: a photo whose old file vanished or is gone moved (its
    /// record follows it, and it is not missing), one whose old file is still there was copied.
    mutating func finish(exists: (RawPath) -> Bool = Reconciliation.exists) {
        for k in moves.indices {
            if let old = moves[k].from, !vanished.contains(old) && exists(old) { moves[k].from = nil }
        }
        let movedFrom = Set(moves.compactMap(\.from))
        missing.removeAll { movedFrom.contains($0) }
    }
}

/// An accepted photo read again (its sidecar was edited, added or deleted) whose pin is still
/// as the import made it (not edited, still naming this photo): the pin follows what the photo
/// says now. A pin the user edited is left alone (the photo is then decided again, as any
/// changed photo).
public struct PinCorrection: Sendable {
    public enum Kind: Sendable, Equatable {
        /// The position or the capture time changed: the pin moves there, takes the new date,
        /// and its title is made again.
        case moved
        /// The photo has no position any more (its only one was in a deleted sidecar): the pin
        /// stays where it is. It is the user's record of the visit; deleting it is theirs to do.
        case kept
        /// Only bytes that are not position or time changed (a rating, a caption): the record
        /// takes the new digest, the pin is untouched.
        case same
    }

    public var kind: Kind
    /// The photo's record as read now (fingerprint, digest, position, time), still accepted,
    /// still naming the pin.
    public var record: PhotoRecord
    /// The photo, below the root.
    public var photo: RawPath
    public var pinID: UUID
    /// The pin as it was: its title and position.
    public var title: String
    public var from: Coordinate
    /// Where the pin goes (nil when it stays: `.kept`).
    public var to: Coordinate? { kind == .moved ? record.coordinate : nil }
    /// The pin's new title and country, planned once the country outlines are loaded.
    public var plan: PinPlan?

    /// Plans the new title and country of each moved pin (the country outlines must be loaded):
    /// the title is made as for a new pin, from the capture time in the photo's offset, else
    /// in `timeZone`.
    static func plan(_ corrections: inout [PinCorrection], timeZone: TimeZone, creation: CreationService) throws {
        for k in corrections.indices where corrections[k].kind == .moved {
            let record = corrections[k].record
            guard let coordinate = record.coordinate, let takenAt = record.takenAt else { continue }
            corrections[k].plan = try creation.planPhotoPin(at: coordinate, takenAt: takenAt,
                                                            utcOffsetSeconds: record.utcOffsetSeconds ?? timeZone.secondsFromGMT(for: takenAt))
        }
    }

    /// nil when the photo's record was not accepted, or its pin was edited, deleted, or no
    /// longer names the photo.
    init?(_ previous: KnownPhoto, item: ImportItem, path: RawPath, in repos: Repositories) throws {
        guard let metadata = item.metadata, let digest = previous.digest,
              var record = try repos.photos.find(size: previous.fingerprint.size, digest: digest), record.path == path,
              record.decision == .accepted, let id = record.locationID, let pin = try repos.locations.fetch(id: id),
              pin.editedAt == nil, pin.photoIDs.contains(path.description) else { return nil }
        photo = item.entry.relativePath
        pinID = id
        title = pin.title
        from = pin.coordinate
        if metadata.coordinate == nil {
            kind = .kept
        } else if metadata.coordinate != pin.coordinate || abs(item.takenAt.timeIntervalSince(pin.date)) > 0.0005 {
            kind = .moved
        } else {
            kind = .same
        }
        record.fingerprint = item.entry.fingerprint
        record.digest = metadata.metadataDigest
        record.coordinate = metadata.coordinate
        record.takenAt = item.takenAt
        record.utcOffsetSeconds = metadata.utcOffsetSeconds
        record.timeSource = metadata.timeSource
        record.positionSource = metadata.positionSource
        switch kind {
        case .moved: record.detail = "metadata corrected: pin moved from \(pin.coordinate)"
        case .kept: record.detail = "no position any more: pin kept at \(pin.coordinate)"
        case .same: break
        }
        self.record = record
    }
}
