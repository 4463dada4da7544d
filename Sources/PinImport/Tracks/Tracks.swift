import Foundation
import PinCore
import PinFormats
import PinMetadata
import PinGrammar

/// What `--track`, `--camera-timezone`, `--camera-clock-offset`, `--track-max-gap` and
/// `--track-max-extrapolation` ask for.
public struct TrackOptions: Sendable {
    /// Track files, or folders read recursively for track files.
    public var paths: [String] = []
    /// The zone of a camera's wall clock when the photo carries no offset; nil: the run's
    /// `--timezone`. The read uses it (`ImportOptions.metadataOptions`); here it only serves to
    /// read again the instants an earlier run recorded (`TrackRun.instant`).
    public var cameraTimeZone: TimeZone?
    /// Seconds added to the instant of every photo without a position of its own (exiftool's
    /// Geosync: "-12" when the camera clock is 12 s fast); added by the read
    /// (`MetadataOptions.cameraClockOffset`).
    public var clockOffset: Double = 0
    public var limits = TrackLimits()

    public init() {}
}

/// The formats read (PinFormats' `TrackFileFormat`), and which names a folder's walk looks at.
public typealias TrackFormat = TrackFileFormat

extension TrackFileFormat {
    /// Names a folder's walk reads the first bytes of (then a file is taken by its content, or
    /// by a name that says a track: `.gpx`, `.kml`, `.kmz`, `.tcx`, `.nmea`, `.rec`, `.geojson`).
    /// `.csv`, `.json`, `.txt`, `.log` and names without an extension are taken only when their
    /// content is a track (a folder's other CSV and JSON files are not).
    static func mayBeTrack(_ path: String) -> Bool {
        let ext = (path as NSString).pathExtension.lowercased()
        return TrackFiles.format(name: path) != nil || ["json", "txt", "log", "dat", ""].contains(ext)
    }

    /// A name that says a track whatever its content (so a damaged one is named, not passed over).
    static func namedTrack(_ path: String) -> Bool {
        guard let f = TrackFiles.format(name: path) else { return false }
        return f != .csv
    }
}

/// One track file as read: its points, or why it could not be read (a run goes on without it).
public struct TrackFileReport: Sendable, Hashable {
    public var path: String
    public var format: TrackFormat?
    public var points: Int
    /// What was ignored or unreadable inside the file (one line), if anything.
    public var notes: String?
    /// Why the file could not be read (whole or from some byte on); its points read before that
    /// are used.
    public var error: String?
    /// The instants covered (seconds since 1970), when it has points.
    public var first: Double?
    public var last: Double?
    /// Whether this run read it, and why (an import remembers the tracks it read: `TrackRun`).
    public var state: ReadState = .new
    /// The file could not be opened or read as a file (`FileUnavailable`: no permission, an I/O
    /// error, not a regular file): its content was not judged, so the run names it as a
    /// problem and records nothing of it; the next run tries it again.
    var unavailable = false

    public enum ReadState: String, Sendable, Hashable {
        /// Not recorded for this import root (or no database): read.
        case new
        /// Recorded with another size, modification time or inode: read again.
        case changed
        /// Recorded with the same fingerprint: not read; `format`, `points`, `first` and `last`
        /// are the recorded ones.
        case unchanged
        /// Unchanged, but read because a photo of this run without a position falls in its time.
        case reread

        /// Whether the run opened the file.
        public var wasRead: Bool { self != .unchanged }
    }
}

/// A photo's position from the tracks, or why it has none.
public struct TrackPlacement: Sendable, Hashable {
    public var coordinate: Coordinate?
    /// The track file of the nearest fix.
    public var file: String?
    /// Seconds from the photo's instant to the nearest fix used.
    public var secondsToNearestFix: Double?
    /// Why there is no position ("nearest track fix 2 h 10 min away (after the track)").
    public var reason: String?
}

/// Every track of a run, read once, by instant.
public struct TrackSet: Sendable {
    public let files: [TrackFileReport]
    public let timeline: TrackTimeline
    public let options: TrackOptions
    /// The instants (first...last fix) of the files of the run not read (`TrackRun`: unchanged,
    /// and no photo falls near their time): their nearest fix to a photo is one of those ends,
    /// which the reason for no position takes into account.
    var unread: [ClosedRange<Double>] = []

    /// Reads every track file under `options.paths`. Never throws: a file that cannot be read is
    /// in `files` with its reason.
    public static func load(_ options: TrackOptions) -> TrackSet {
        var reports: [TrackFileReport] = []
        var timeline = TrackTimeline()
        for path in trackFiles(options.paths, problems: &reports) {
            reports.append(readFile(path, into: &timeline, track: reports.count))
        }
        timeline.seal()
        return TrackSet(files: reports, timeline: timeline, options: options)
    }

    /// One track file read whole: what it held; its fixes, in the file's order, go straight into
    /// `timeline` as file `track` (no array of them). Never throws: why it could not be read
    /// (whole or from some byte on) is in the report, and the fixes before that are added.
    static func readFile(_ path: String, into timeline: inout TrackTimeline, track: Int) -> TrackFileReport {
        var report = TrackFileReport(path: path, format: nil, points: 0)
        var sink = FixCollector(track: track)
        swap(&sink.timeline, &timeline)
        defer { swap(&sink.timeline, &timeline) }
        do {
            let format = try format(of: path)
            report.format = format
            guard let format else {
                throw FormatError(format: "track", reason: "not a track file this version reads (GPX, KML, KMZ, TCX, NMEA, OwnTracks .rec, GeoJSON, CSV, Google location history)")
            }
            var notes = TrackNotes()
            do {
                try read(path, format: format, into: &sink, notes: &notes)
            } catch {
                report.error = "\(error)"
                report.unavailable = error is FileUnavailable
            }
            report.notes = notes.summary
        } catch {
            report.error = "\(error)"
            report.unavailable = error is FileUnavailable
        }
        report.points = sink.count
        report.first = sink.first
        report.last = sink.last
        return report
    }

    struct FixCollector: TimelineSink {
        mutating func visit(_ v: TimelineVisit) {}
        var timeline = TrackTimeline()
        let track: Int
        var count = 0
        var first: Double?, last: Double?
        init(track: Int) { self.track = track }
        mutating func point(_ p: TrackPoint) {
            timeline.append(p, track: track, first: count == 0)
            count += 1
            first = min(first ?? p.time, p.time)
            last = max(last ?? p.time, p.time)
        }
    }

    static func read<Sink: TimelineSink>(_ path: String, format: TrackFormat, into sink: inout Sink, notes: inout TrackNotes) throws {
        try TrackFiles.read(path: path, format: format, into: &sink, notes: &notes)
    }

    /// The format of a file: by its first bytes, else by its name; nil when neither says one.
    static func format(of path: String) throws -> TrackFormat? {
        let input = try FileInput(path: path)
        var head = [UInt8](repeating: 0, count: TrackFiles.sniffBytes)
        var n = 0
        while n < head.count {
            let got = try head.withUnsafeMutableBytes { try input.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[n...])) }
            if got == 0 { break }
            n += got
        }
        return TrackFiles.sniff(Array(head[0..<n])) ?? TrackFiles.format(name: path)
    }

    /// The files named, and the track files (by name) found in the folders named, sorted; a path
    /// that does not exist is reported. A file of a folder for which `known` is true (recorded,
    /// unchanged) is taken as the track it was without its first bytes being read.
    static func trackFiles(_ paths: [String], problems: inout [TrackFileReport], known: (String) -> Bool = { _ in false }) -> [String] {
        var out: [String] = []
        var seen = Set<String>()
        for path in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                problems.append(TrackFileReport(path: path, points: 0, error: "no such file or folder"))
                continue
            }
            if !isDir.boolValue {
                if seen.insert(path).inserted { out.append(path) }
                continue
            }
            var found: [String] = []
            if let walk = FileManager.default.enumerator(atPath: path) {
                while let rel = walk.nextObject() as? String {
                    guard TrackFormat.mayBeTrack(rel) else { continue }
                    let full = (path as NSString).appendingPathComponent(rel)
                    var sub: ObjCBool = false
                    guard FileManager.default.fileExists(atPath: full, isDirectory: &sub), !sub.boolValue else { continue }
                    // A folder's other JSON and CSV files (sidecars, exports) are not tracks. One
                    // that cannot be opened or is no regular file is named: it may be a track.
                    if !TrackFormat.namedTrack(rel) && !known(full) {
                        do {
                            guard try isTrack(full) else { continue }
                        } catch {
                            problems.append(TrackFileReport(path: full, points: 0, error: "\(error)", unavailable: true))
                            continue
                        }
                    }
                    found.append(full)
                }
            }
            for f in found.sorted() where seen.insert(f).inserted { out.append(f) }
        }
        return out
    }

    /// Whether the first bytes of `path` are a track's; throws `FileUnavailable` when it
    /// cannot be opened or read.
    static func isTrack(_ path: String) throws -> Bool {
        let input = try FileInput(path: path)
        var head = [UInt8](repeating: 0, count: TrackFiles.sniffBytes)
        let n = try head.withUnsafeMutableBytes { try input.read(into: $0) }
        return TrackFiles.sniff(Array(head[0..<n])) != nil
    }

    /// The instant the tracks are searched at for a photo: its capture instant as the read
    /// decided it, the camera's zone and clock offset already in (`MetadataMerge.settleTime`,
    /// issue 36 item 1: one instant for the tracks, the rules and the stored date). Nil without
    /// a capture time (a file's modification time is none).
    public static func instant(of metadata: PhotoMetadata) -> Double? {
        guard let takenAt = metadata.takenAt else { return nil }
        switch metadata.timeSource {
        case .fileModification, .none:
            return nil
        case .exifOffset, .isoWithOffset, .gpsInferredOffset, .containerUTC, .localTimeZoneOfPosition, .assumedZone, .gpsTime, .modifyDate:
            return takenAt.timeIntervalSince1970
        }
    }

    /// The position the tracks give a photo without one, or why they give none.
    public func place(_ metadata: PhotoMetadata) -> TrackPlacement {
        guard let t = TrackSet.instant(of: metadata) else {
            return TrackPlacement(reason: "no capture time to match the tracks with")
        }
        switch timeline.match(t, limits: options.limits) {
        case let .position(c, d, track, _):
            return TrackPlacement(coordinate: c, file: files[track].path, secondsToNearestFix: d)
        case let m:
            let m = Self.counting(unread, in: m, at: t)
            return TrackPlacement(secondsToNearestFix: { if case let .tooFar(d, _) = m { return d }; return nil }(), reason: m.reason)
        }
    }

    /// A match without a position, with the files not read counted in: the nearest fix of one
    /// is an end of its time (none covers `t`), and they may lie before or after all others.
    static func counting(_ unread: [ClosedRange<Double>], in match: TrackMatch, at t: Double) -> TrackMatch {
        guard case let .tooFar(seconds, place) = match, !unread.isEmpty else { return match }
        var nearest = seconds ?? .infinity
        var before = place == .beforeTrack || place == .noFix, after = place == .afterTrack || place == .noFix
        for r in unread {
            nearest = min(nearest, t < r.lowerBound ? r.lowerBound - t : max(0, t - r.upperBound))
            if r.lowerBound <= t { before = false }
            if r.upperBound >= t { after = false }
        }
        return .tooFar(secondsToNearestFix: nearest, where: before ? .beforeTrack : after ? .afterTrack : .inGap)
    }
}
