import Foundation
import PinCore
import PinFormats
import PinMetadata

/// One file `pins inspect` reads: where it is, how to show it, and its sidecars.
public struct InspectTarget: Sendable {
    public let path: RawPath
    /// The path as the person gave it (a file) or below the folder they gave.
    public let shown: String
    let modified: Date
    public let sidecars: [RawPath]
    /// A sidecar file (XMP, Takeout JSON) that no photo beside it claims: shown on its own line
    /// as such. A sidecar that a photo claims is shown only in that photo's `sidecars`.
    var isUnclaimedSidecar = false
}

/// What `pins inspect` reads for each argument, found the way the import finds it: every file
/// below a folder (the import's walk, each with its sidecars among its folder's names), or the
/// one file named (followed if it is a link) with the sidecars beside it.
public enum Inspection {
    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(path): \(reason)" }
    }

    public static func targets(for argument: String, includeHidden: Bool) throws -> [InspectTarget] {
        var st = stat()
        guard stat(argument, &st) == 0 else { throw Failure(path: argument, reason: String(cString: strerror(errno))) }
        if st.st_mode & S_IFMT == S_IFDIR {
            let scan = try Scanner.scan(root: argument, options: ScanOptions(includeHidden: includeHidden))
            let root = RawPath(argument)
            let sidecars = SidecarLookup.paths(for: scan.files, root: root, all: scan.files)
            let claimed = Set(sidecars.joined())
            return zip(scan.files, sidecars).compactMap { entry, found in
                let path = root.appending(entry.relativePath.bytes)
                let isSidecar = Sidecars.isSidecarName(entry.relativePath.lastComponent)
                if isSidecar && claimed.contains(path) { return nil }
                var target = InspectTarget(path: path, shown: path.description, modified: entry.modificationDate, sidecars: found)
                target.isUnclaimedSidecar = isSidecar
                return target
            }
        }
        let folder = PathParts.folder(of: argument)
        let name = PathParts.name(Array(argument.utf8))
        let siblings = sidecarNames(in: folder)
        let found = siblings.isEmpty ? [] : Sidecars.match(mediaName: name, siblings: siblings).map { RawPath(folder).appending($0) }
        let modified = Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
        return [InspectTarget(path: RawPath(argument), shown: argument, modified: modified, sidecars: found)]
    }

    /// Names of the XMP and Takeout sidecars in one folder (not below it).
    static func sidecarNames(in folder: String) -> [[UInt8]] {
        ImportPipeline.sidecarNames(in: RawPath(folder))
    }

    /// `--estimate-positions` (issue 36 item 4): every target read first, then each photo
    /// without a position of its own or from the tracks given one from the photos of the same
    /// arguments that carry their own (with a capture time, not the file's), or the reason it
    /// gets none (`estimateIssue`). The objects, in the targets' order.
    public static func objects(of targets: [InspectTarget], options: MetadataOptions, tracks: TrackSet?,
                               estimate limits: EstimateLimits) -> [[String: Any]] {
        var read: [(object: [String: Any], metadata: PhotoMetadata?)] = []
        var fixes: [NeighbourPhoto] = []
        for target in targets {
            var metadata: PhotoMetadata?
            let object = Self.object(of: target, options: options, tracks: tracks, metadata: &metadata)
            if let m = metadata, let c = m.coordinate, m.positionSource != .track, let t = TrackSet.instant(of: m) {
                fixes.append(NeighbourPhoto(instant: t, coordinate: c, name: PathParts.name(of: target.shown)))
            }
            read.append((object, metadata))
        }
        let estimator = PositionEstimator(fixes, limits: limits)
        return read.map { entry in
            var object = entry.object
            guard let m = entry.metadata, m.coordinate == nil else { return object }
            guard let t = TrackSet.instant(of: m) else {
                object["estimateIssue"] = "no capture time to match the photos around it with"
                return object
            }
            switch estimator.estimate(at: t) {
            case let .success(found):
                object["latitude"] = found.coordinate.latitude
                object["longitude"] = found.coordinate.longitude
                object["positionSource"] = PositionSource.estimate.rawValue
                object["estimate"] = found.detail
            case let .failure(why):
                object["estimateIssue"] = why.description
            }
            return object
        }
    }

    /// The JSON line of one file `pins inspect` reads, as an object for JSONSerialization.
    public static func object(of target: InspectTarget, options: MetadataOptions, tracks: TrackSet?) -> [String: Any] {
        var metadata: PhotoMetadata?
        return object(of: target, options: options, tracks: tracks, metadata: &metadata)
    }

    /// The same, and the metadata read (with the tracks' position), nil when none was.
    static func object(of target: InspectTarget, options: MetadataOptions, tracks: TrackSet?,
                       metadata: inout PhotoMetadata?) -> [String: Any] {
        var object: [String: Any] = ["path": target.shown]
        if !target.sidecars.isEmpty { object["sidecars"] = target.sidecars.map { $0.description } }
        if target.isUnclaimedSidecar {
            object["format"] = NSNull()
            object["error"] = "a sidecar without its photo: read only with the photo it describes"
            return object
        }
        do {
            if var m = try MetadataReader.read(path: target.path, modificationTime: target.modified, options: options, sidecars: target.sidecars) {
                // A position the photo or its sidecar carries always wins over a track.
                if let tracks, m.coordinate == nil { placeFromTracks(&m, from: tracks, noting: &object) }
                describe(m, in: &object)
                metadata = m
            } else {
                object["format"] = NSNull()
                object["error"] = "not a photo or video (unrecognised content)"
            }
        } catch {
            object["format"] = NSNull()
            object["error"] = "\(error)"
        }
        return object
    }

    /// A photo without a position of its own gets the tracks' (with the track file and the
    /// distance to its nearest fix in `object`), or `object` says why it gets none.
    private static func placeFromTracks(_ m: inout PhotoMetadata, from tracks: TrackSet, noting object: inout [String: Any]) {
        let placed = tracks.place(m)
        if let c = placed.coordinate {
            m.coordinate = c
            m.positionSource = .track
            object["trackFile"] = placed.file
            object["secondsToTrackFix"] = placed.secondsToNearestFix
        } else {
            object["trackIssue"] = orNull(placed.reason)
        }
    }

    /// What `pins inspect` shows of a file's metadata.
    private static func describe(_ m: PhotoMetadata, in object: inout [String: Any]) {
        object["format"] = m.format.rawValue
        object["latitude"] = orNull(m.coordinate?.latitude)
        object["longitude"] = orNull(m.coordinate?.longitude)
        object["altitude"] = orNull(m.altitude)
        object["positionSource"] = orNull(m.positionSource?.rawValue)
        object["locationIssue"] = orNull(m.locationIssue)
        object["takenAt"] = orNull(m.takenAt.map { ISO8601.format($0, offsetSeconds: m.utcOffsetSeconds) })
        object["timeSource"] = m.timeSource.rawValue
        object["timeTag"] = orNull(m.timeTag)
        object["warnings"] = m.warnings
        object["error"] = NSNull()
    }
}
