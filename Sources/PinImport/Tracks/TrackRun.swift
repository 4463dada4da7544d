import Foundation
import PinCore
import PinMetadata

/// The tracks of one import run, read only as far as the run needs them (issue 29, item 4:
/// tracks arrive after the photos). The database remembers each track file of the root (its
/// fingerprint, what it covers, the last run that had it: `TrackRecord`):
///
/// - a file that is new or changed is read at the start; the photos of the root skipped
///   earlier for "no location" whose instant it covers are decided again (`redecides`);
/// - an unchanged file is not opened, unless a photo of this run without a position falls in
///   the time it covers (`tracks(for:)` then reads it, once);
/// - a file recorded and not given any more changes nothing: no photo is decided again, no pin
///   goes.
///
/// "Covers" is the time of its fixes widened by the rule's reach (`margin`): outside it, the
/// file's fixes can give no photo a position (they are farther than both limits).
struct TrackRun {
    let options: TrackOptions
    let root: RawPath
    /// Every track file of the run (and every path that names none), in `TrackSet.trackFiles`'
    /// order; the index of a file is its track number in the timeline.
    private(set) var files: [TrackFileReport] = []
    /// Per file: its fingerprint and canonical path (nil for a path that names no file).
    private var keys: [(path: RawPath, fingerprint: PhotoFingerprint)?] = []
    /// Per file: its record, when the database has one for this root.
    private var stored: [TrackRecord?] = []
    private var loaded: [Bool] = []
    private var timeline = TrackTimeline()
    /// What `tracks(for:)` gives: the files read so far.
    private(set) var set: TrackSet
    /// The instants, widened by `margin`, of the new and changed files: sorted, disjoint.
    private var triggers: [ClosedRange<Double>] = []
    /// Loads of unchanged files during the run; after `maxLazyLoads`, the rest is read at once.
    private var lazyLoads = 0
    static let maxLazyLoads = 4

    /// How far from its fixes a file can give a position: the widest the rule reaches.
    var margin: Double { max(options.limits.maxGap, options.limits.maxExtrapolation) }

    /// Lists the files, compares each one's fingerprint (a stat) with its record among `records`
    /// (this root's), and reads the new and changed ones.
    init(options: TrackOptions, root: RawPath, records: [TrackRecord]) {
        self.options = options
        self.root = root
        set = TrackSet(files: [], timeline: TrackTimeline(), options: options)
        let byPath = Dictionary(records.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        var problems: [TrackFileReport] = []
        let paths = TrackSet.trackFiles(options.paths, problems: &problems, known: { path in
            guard let key = Self.key(path) else { return false }
            return byPath[key.path]?.fingerprint == key.fingerprint
        })
        for path in paths {
            let key = Self.key(path)
            let record = key.flatMap { byPath[$0.path] }
            var report = TrackFileReport(path: path, format: nil, points: 0)
            if let record, let key, record.fingerprint == key.fingerprint {
                report.state = .unchanged
                report.format = record.format.flatMap(TrackFormat.init(rawValue:))
                report.points = record.points
                report.first = record.first
                report.last = record.last
            } else {
                report.state = record == nil ? .new : .changed
            }
            files.append(report)
            keys.append(key)
            stored.append(record)
            loaded.append(false)
        }
        for problem in problems {
            files.append(problem)
            keys.append(nil)
            stored.append(nil)
            loaded.append(true)
        }
        load(files.indices.filter { files[$0].state != .unchanged && !loaded[$0] }, always: true)
        triggers = Self.merged(files.indices.filter { files[$0].state == .new || files[$0].state == .changed }
            .compactMap { range(of: $0) })
    }

    /// A file's canonical path and fingerprint (stat(2), following links), nil when it has none.
    static func key(_ path: String) -> (path: RawPath, fingerprint: PhotoFingerprint)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        let status = FileStatus(st)
        let canonical = realpath(path, nil).map { p in defer { free(p) }; return String(cString: p) } ?? path
        return (RawPath(canonical), PhotoFingerprint(size: status.size, modificationNanoseconds: status.modificationNanoseconds,
                                                     inode: status.inode))
    }

    /// The instants file `i` can give a position at, nil without a point.
    private func range(of i: Int) -> ClosedRange<Double>? {
        guard let first = files[i].first, let last = files[i].last else { return nil }
        return (first - margin)...(last + margin)
    }

    /// Overlapping ranges joined, sorted.
    static func merged(_ ranges: [ClosedRange<Double>]) -> [ClosedRange<Double>] {
        var out: [ClosedRange<Double>] = []
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = out.last, r.lowerBound <= last.upperBound {
                out[out.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
            } else {
                out.append(r)
            }
        }
        return out
    }

    /// Reads files `indices` into the timeline.
    private mutating func load(_ indices: [Int], always: Bool = false) {
        guard always || !indices.isEmpty else { return }
        for i in indices {
            var read = TrackSet.readFile(files[i].path, into: &timeline, track: i)
            read.state = files[i].state == .unchanged ? .reread : files[i].state
            files[i] = read
            loaded[i] = true
        }
        timeline.seal()
        set = TrackSet(files: files, timeline: timeline, options: options)
        set.unread = files.indices.compactMap { i in
            guard !loaded[i], let first = files[i].first, let last = files[i].last else { return nil }
            return first...last
        }
    }

    /// Whether a photo recorded as skipped for "no location" is to be decided again: a new or
    /// changed file covers its instant, or an unchanged one does that a later run (one without
    /// it among its tracks) decided the photo without. A photo with only a file-modification
    /// time has no instant for the tracks: never.
    func redecides(_ photo: UnplacedPhoto) -> Bool {
        guard let takenAt = photo.takenAt, let read = Self.instant(of: photo, options: options) else { return false }
        let instants = Self.corrected(read, of: photo, options: options)
        if instants.contains(where: { redecides(at: $0, runID: photo.runID) }) { return true }
        // Issue 36 item 5, the hint followed after a real import: a wall clock this run reads in
        // another zone than the recorded instant's, or a camera clock this run corrects by
        // another offset, is decided again when a track file, changed or not, covers its new
        // instant. (Once read again, its record has this run's zone and offset: the next run
        // with the same leaves it.)
        return instants.contains { t in t != takenAt && files.indices.contains { range(of: $0)?.contains(t) == true } }
    }

    /// The instants this run gives a recorded photo whose instant for the tracks is `read`
    /// (`instant(of:)`): the record's clock offset taken out and this run's put in. A record
    /// that does not say its offset (made before schema 23) may carry this run's or another:
    /// both its instant as it is and moved by this run's offset count (a photo read again for
    /// nothing costs only its read, which records its offset).
    static func corrected(_ read: Double, of photo: UnplacedPhoto, options: TrackOptions) -> [Double] {
        if let recorded = photo.clockOffset { return [read - recorded + options.clockOffset] }
        return options.clockOffset == 0 ? [read] : [read, read + options.clockOffset]
    }

    private func redecides(at t: Double, runID: Int64?) -> Bool {
        if Self.contains(triggers, t) { return true }
        guard let run = runID else { return false }
        return files.indices.contains { i in
            (files[i].state == .unchanged || files[i].state == .reread)
                && (stored[i]?.seenRunID ?? .max) < run && range(of: i)?.contains(t) == true
        }
    }

    /// Whether one of `sorted` (sorted, disjoint) contains `t`.
    static func contains(_ sorted: [ClosedRange<Double>], _ t: Double) -> Bool {
        let k = partition(sorted) { $0.upperBound < t }
        return k < sorted.count && sorted[k].contains(t)
    }

    /// The first index of `sorted` whose element is not `below` (all before it are).
    static func partition<T>(_ sorted: [T], below: (T) -> Bool) -> Int {
        var lo = 0, hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if below(sorted[mid]) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// A recorded photo's instant for the tracks. A wall clock an earlier run read without an
    /// offset (`assumedZone`) is read again in this run's camera zone: it may have been read
    /// in another (the same zone gives the same instant back). The clock offset is
    /// `redecides`' to try.
    static func instant(of photo: UnplacedPhoto, options: TrackOptions) -> Double? {
        guard let takenAt = photo.takenAt, let source = photo.timeSource else { return nil }
        switch source {
        case .fileModification, .none:
            return nil
        case .assumedZone:
            guard let zone = options.cameraTimeZone, let offset = photo.utcOffsetSeconds else { return takenAt }
            let wallExact = takenAt + Double(offset)
            let whole = wallExact.rounded(.down)
            guard abs(whole) < 1e12 else { return takenAt }
            return CaptureTime.instant(ofWallClock: Int(whole), fraction: wallExact - whole, in: zone).0.timeIntervalSince1970
        case .exifOffset, .isoWithOffset, .gpsInferredOffset, .containerUTC, .localTimeZoneOfPosition, .gpsTime, .modifyDate:
            return takenAt
        }
    }

    /// Whether files with fixes wait to be read (`tracks(for:)` may read some).
    var hasUnread: Bool { !set.unread.isEmpty }

    /// The tracks to place photos at `instants` with: the unchanged files that cover one of
    /// them are read first (all of the rest at once after `maxLazyLoads` loads).
    mutating func tracks(for instants: [Double]) -> TrackSet {
        let waiting = files.indices.filter { !loaded[$0] && range(of: $0) != nil }
        guard !waiting.isEmpty, !instants.isEmpty else { return set }
        let sorted = instants.sorted()
        let needed = lazyLoads >= Self.maxLazyLoads ? waiting : waiting.filter { i in
            let r = range(of: i)!
            let k = Self.partition(sorted) { $0 < r.lowerBound }
            return k < sorted.count && sorted[k] <= r.upperBound
        }
        guard !needed.isEmpty else { return set }
        lazyLoads += 1
        load(needed)
        return set
    }

    /// What the database keeps after the run `runID`: each file found, with the content this
    /// run read or the record it had, seen by this run. Nothing for paths that name no file; a
    /// file that could not be opened or read (`unavailable`) keeps the record it had, if any,
    /// so the next run reads it again.
    func records(runID: Int64?) -> [TrackRecord] {
        files.indices.compactMap { i in
            guard let key = keys[i] else { return nil }
            let f = files[i]
            if f.unavailable { return stored[i] }
            if f.state == .unchanged || f.state == .reread, var record = stored[i] {
                record.seenRunID = runID
                return record
            }
            return TrackRecord(root: root, path: key.path, fingerprint: key.fingerprint, format: f.format?.rawValue,
                               points: f.points, first: f.first, last: f.last, readRunID: runID, seenRunID: runID)
        }
    }
}
