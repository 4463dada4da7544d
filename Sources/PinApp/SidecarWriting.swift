import Foundation
import PinCore
import PinImport
import PinMetadata
import PinStore

/// What `pins sidecars` is asked.
public struct SidecarOptions: Sendable {
    /// Say what would be written; write nothing, record nothing.
    public var dryRun: Bool
    /// Every photo with a position, not only those pins placed (a track's, an estimate's).
    public var all: Bool

    public init(dryRun: Bool, all: Bool) {
        self.dryRun = dryRun
        self.all = all
    }
}

/// What `pins sidecars` did, or would do, for one photo.
public struct SidecarOutcome: Sendable {
    public enum Action: String, Sendable {
        /// A new sidecar.
        case create
        /// Properties added to the sidecar that was there.
        case add
        /// The sidecar has them all already (or holds other values: `conflicts`).
        case none
        /// The sidecar (or its folder) is left alone: `problem` says why.
        case refused
        /// The write failed (a read-only folder): `problem` says why.
        case failed
    }

    public var photo: RawPath
    public var sidecar: RawPath?
    public var action: Action
    /// The properties written ("exif:GPSLatitude", "photoshop:City", ...).
    public var added: [String] = []
    /// Values the sidecar holds that differ from pins': the sidecar's are kept.
    public var conflicts: [XMPSidecarEdit.Conflict] = []
    public var problem: String?
}

/// `pins sidecars`' result: the run recorded (nil for a dry run or when nothing was written)
/// and each photo's outcome, by path.
public struct SidecarRun: Sendable {
    public var runID: Int64?
    public var dryRun: Bool
    public var outcomes: [SidecarOutcome] = []
    /// pins' own temporaries that killed runs left in the folders written, removed
    /// (`SidecarFolder.removeLeftoverTemporaries`).
    public var leftoversRemoved = 0

    public func count(_ action: SidecarOutcome.Action) -> Int { outcomes.lazy.filter { $0.action == action }.count }
    public var conflicts: Int { outcomes.lazy.filter { !$0.conflicts.isEmpty }.count }
}

extension PinApp {
    /// Writes an XMP sidecar with its position and place beside each photo pins placed (or,
    /// `all`, each with a position), adding to an existing sidecar only what it lacks. Each
    /// file is recorded (bytes before and after) before it is written, as run N of `pins runs`,
    /// so that `runs undo N` takes it back. Holds the run lock: no import meanwhile. In the
    /// folder of each photo (not in a dry run), first removes the temporaries a killed run of
    /// pins left there.
    public func writeSidecars(_ options: SidecarOptions) throws -> SidecarRun {
        var run = SidecarRun(runID: nil, dryRun: options.dryRun)
        let lock = options.dryRun ? nil : try RunLock(databasePath: databasePath)
        defer { withExtendedLifetime(lock) {} }
        let db = options.dryRun ? try openForReading() : try openForWriting()
        let photos = try db.positionedPhotos(all: options.all)
        guard !photos.isEmpty else { return run }
        let locator = try Self.positionLocator(withPlaces: true)
        let catalog = try catalog()
        func place(_ c: Coordinate) -> SidecarPlace {
            let (code, match) = locator.locate(c)
            return SidecarPlace(coordinate: c, city: match.place?.name, state: match.region?.name,
                                country: code.flatMap { catalog[$0]?.name }, countryCode: code)
        }
        var start = 0
        while start < photos.count {
            let folder = photos[start].path.folder
            var end = start + 1
            while end < photos.count, photos[end].path.folder == folder { end += 1 }
            let batch = photos[start..<end]
            start = end
            switch SidecarFolder.open(holding: batch.first!.path) {
            case .failure(let failure):
                run.outcomes += batch.map { SidecarOutcome(photo: $0.path, action: .refused, problem: failure.description) }
            case .success(let opened):
                defer { opened.close() }
                let siblings = ImportPipeline.sidecarNames(inOpenFolder: opened.fd)
                var planned = batch.map { Self.plan($0, in: opened, siblings: siblings, place: place($0.coordinate)) }
                if !options.dryRun {
                    run.leftoversRemoved += opened.removeLeftoverTemporaries()
                    try write(&planned, in: opened, db, run: &run.runID, all: options.all)
                }
                run.outcomes += planned.map(\.outcome)
            }
        }
        if let id = run.runID {
            try db.finishRun(id, files: run.count(.create) + run.count(.add), photos: photos.count,
                             exitCode: run.count(.failed) > 0 ? Int(ExitCode.cantCreate) : 0)
        }
        return run
    }

    /// A photo's sidecar as it is to be: the outcome, and the bytes before and after.
    struct PlannedSidecar {
        var outcome: SidecarOutcome
        var name: [UInt8] = []
        var before: (bytes: [UInt8], status: stat)?
        var after: [UInt8]?
    }

    /// The sidecar `IMG.JPG.xmp`, or the `IMG.xmp` that is there (the names the import reads,
    /// `Sidecars.match`), and what it is to hold. The photo is looked at, never opened.
    static func plan(_ photo: PositionedPhoto, in folder: SidecarFolder, siblings: [[UInt8]], place: SidecarPlace) -> PlannedSidecar {
        let name = photo.path.lastComponent
        var planned = PlannedSidecar(outcome: SidecarOutcome(photo: photo.path, action: .none))
        guard let st = folder.status(name), st.st_mode & S_IFMT == S_IFREG else {
            planned.outcome.action = .refused
            planned.outcome.problem = "the photo is not there any more"
            return planned
        }
        let existing = Sidecars.match(mediaName: name, siblings: siblings)
            .first { $0.count > 4 && $0.suffix(4).map { $0 | 0x20 } == Array(".xmp".utf8) }
        planned.name = existing ?? name + Array(".xmp".utf8)
        planned.outcome.sidecar = folder.path.appending(planned.name)
        guard existing != nil else {
            let edit = XMPSidecarEdit.create(place)
            (planned.outcome.action, planned.outcome.added, planned.after) = (.create, edit.added, edit.bytes)
            return planned
        }
        do {
            let read = try folder.read(planned.name)
            let edit = try XMPSidecarEdit.edit(read.bytes, place)
            planned.before = read
            planned.after = edit.bytes
            planned.outcome.added = edit.added
            planned.outcome.conflicts = edit.conflicts
            planned.outcome.action = edit.bytes == nil ? .none : .add
        } catch let failure as SidecarFolder.Failure {
            (planned.outcome.action, planned.outcome.problem) = (.refused, failure.description)
        } catch {
            (planned.outcome.action, planned.outcome.problem) = (.refused, "\(error): left alone")
        }
        return planned
    }

    /// Records the folder's sidecars to write (starting the run at the first), writes them,
    /// then notes the written ones for the import and forgets those that failed (one
    /// transaction each for the folder: a crash before the note costs only a read of those
    /// photos by the next import, as a sidecar changed by another app does).
    private func write(_ planned: inout [PlannedSidecar], in folder: SidecarFolder, _ db: PinDatabase, run id: inout Int64?, all: Bool) throws {
        let writes = planned.compactMap { p in
            p.after.map { RunFileWrite(path: folder.path.appending(p.name), before: p.before?.bytes, after: $0) }
        }
        guard !writes.isEmpty else { return }
        let runID = try id ?? db.startRun(root: "sidecars: " + (all ? "every photo with a position" : "the photos pins placed"))
        id = runID
        try db.recordFileWrites(run: runID, writes)
        var failed: [RawPath] = [], written: [(path: RawPath, before: PhotoFingerprint?, after: PhotoFingerprint)] = []
        for k in planned.indices {
            guard let after = planned[k].after, let path = planned[k].outcome.sidecar else { continue }
            do {
                let status = try folder.replace(planned[k].name, with: after, mode: planned[k].before?.status.st_mode)
                written.append((path, planned[k].before.map { PhotoFingerprint(FileStatus($0.status)) }, PhotoFingerprint(status)))
            } catch {  // a SidecarFolder.Failure: `replace` throws nothing else
                (planned[k].outcome.action, planned[k].outcome.problem) = (.failed, error.description)
                failed.append(path)
            }
        }
        try db.noteWrittenSidecars(written)
        if !failed.isEmpty { try db.forgetFileWrites(run: runID, failed) }
    }
}

extension PinApp {
    /// Takes back the files run `run` wrote: a file still as the run left it is removed (the
    /// run created it) or given back byte for byte; one changed since is left as it is. Each
    /// file done is forgotten by the run; one that could not be done stays recorded. In each
    /// folder (not in a dry run), first removes the temporaries a killed run of pins left there
    /// (`SidecarFolder.removeLeftoverTemporaries`): how many, with the files.
    static func undoFiles(_ writes: [RunFileWrite], run: Int64, dryRun: Bool, _ db: PinDatabase) throws
        -> (files: [UndoneFile], leftoversRemoved: Int) {
        var result: [UndoneFile] = [], removed: [RawPath] = []
        var swept: Set<RawPath> = [], leftovers = 0
        for write in writes {
            let folder: SidecarFolder
            switch SidecarFolder.open(holding: write.path) {
            case .failure(let failure):
                result.append(UndoneFile(path: write.path, action: .failed, problem: failure.description))
                continue
            case .success(let opened): folder = opened
            }
            defer { folder.close() }
            if !dryRun, swept.insert(folder.path).inserted { leftovers += folder.removeLeftoverTemporaries() }
            result.append(undoFile(write, in: folder, dryRun: dryRun))
            if result.last!.action == .removed { removed.append(write.path) }
        }
        if !dryRun {
            try db.forgetRemovedSidecars(removed)
            try db.forgetFileWrites(run: run, result.filter { $0.action != .failed }.map(\.path))
        }
        return (result, leftovers)
    }

    private static func undoFile(_ write: RunFileWrite, in folder: SidecarFolder, dryRun: Bool) -> UndoneFile {
        let name = write.path.lastComponent
        let action: UndoneFile.Action = write.before == nil ? .removed : .restored
        do {
            let current = folder.status(name) == nil ? nil : try folder.read(name)
            if current?.bytes == write.before { return UndoneFile(path: write.path, action: action) }  // as before already
            guard current?.bytes == write.after else { return UndoneFile(path: write.path, action: .changedSince) }
            if !dryRun {
                if let before = write.before {
                    _ = try folder.replace(name, with: before, mode: current?.status.st_mode)
                } else {
                    try folder.remove(name)
                }
            }
            return UndoneFile(path: write.path, action: action)
        } catch {
            return UndoneFile(path: write.path, action: .failed, problem: error.description)
        }
    }
}
