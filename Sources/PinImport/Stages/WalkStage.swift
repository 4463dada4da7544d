import Foundation
import PinCore
import PinMetadata

/// What earlier runs left: the known files first, what the rules measure from only when
/// there is something to decide.
struct ImportHistory {
    /// Files recorded below the root, keyed by their path relative to it.
    var known: [RawPath: KnownPhoto] = [:]
    /// Accepted photos of every earlier run, in any folder: the interval rule measures from them.
    var earlierAccepted: [AcceptedPhoto] = []
    /// Every pin, made by import or by hand: the distance rule measures from them.
    var pins: [ImportFilters.ExistingPin] = []

    /// Reads the known files of `root`; none without a database (a dry run on a fresh machine).
    static func read(from database: TransactionRunner?, root: RawPath) throws -> ImportHistory {
        var history = ImportHistory()
        guard let database else { return history }
        try readingDatabase {
            try database.read { repos in
                history.known = try repos.photos.known(under: root)
            }
        }
        return history
    }

    /// Reads the accepted photos and the pins, which the rules measure from. Only a run with
    /// photos to decide needs them: a nightly run with nothing new (on a library of 1,000,000
    /// photos, 100,000 pins and as many accepted photos) neither reads nor holds them.
    mutating func readRules(from database: TransactionRunner?) throws {
        guard let database else { return }
        var history = self
        try readingDatabase {
            try database.read { repos in
                history.earlierAccepted = try repos.photos.acceptedPhotos()
                history.pins = try repos.locations.fetchCoordinates().map { .init(title: $0.title, coordinate: $0.coordinate) }
            }
        }
        self = history
    }
}

/// Runs a database read, reporting any failure as a storage error of the import.
func readingDatabase(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch {
        throw ImportError.storage("cannot read the database: \(error)")
    }
}

/// Stage 1: the walk held against the known files. Which files must be read, which are
/// unchanged, which came back, which are gone; and the guard against an unmounted share.
struct Survey {
    /// Indices (ascending) into the walk's files of those to read: new files, changed files,
    /// and unchanged photos whose sidecar is new or changed.
    var toRead: [Int] = []
    /// Known files with the same size, modification time and inode: not opened.
    var unchanged = 0
    /// Unchanged files recorded as missing by an earlier run: only marked present again.
    var reappeared: [(path: RawPath, fingerprint: PhotoFingerprint)] = []
    /// Known files (not already missing) that the walk did not find, as sorted absolute paths.
    var vanished: [RawPath] = []
    /// Known files the walk did not look at (excluded, or in a folder it could not read): out
    /// of sight, not gone; their records keep their state.
    var outOfSight = 0

    /// Compares the walk with the history. Throws `.empty` for a folder without a file, and
    /// `.shrunk` when it lost most of its live known files, unless `allowShrink`: nothing is
    /// marked missing then. `unseen` says which paths the walk did not look at.
    init(files: [FileEntry], known: [RawPath: KnownPhoto], root: RawPath, allowShrink: Bool,
         walkIncomplete: Bool = false, unseen: (RawPath) -> Bool = { _ in false }) throws {
        // Known files are keyed by their path below the root, so the nightly case builds no
        // absolute path for a file it does not read.
        var livePresent = 0
        for (i, entry) in files.enumerated() {
            guard let record = known[entry.relativePath] else {
                toRead.append(i)
                continue
            }
            if !record.missing { livePresent += 1 }
            if record.fingerprint == entry.fingerprint {
                unchanged += 1
                if record.missing { reappeared.append((root.appending(entry.relativePath.bytes), entry.fingerprint)) }
            } else {
                toRead.append(i)
            }
        }
        var knownLive = known.reduce(0) { $0 + ($1.value.missing ? 0 : 1) }
        var gone: [RawPath] = []
        if livePresent < knownLive {
            let present = Set(files.map(\.relativePath))
            for (path, record) in known where !record.missing && !present.contains(path) {
                if unseen(path) { outOfSight += 1 } else { gone.append(path) }
            }
            knownLive -= outOfSight
        }
        addPhotos(ofSidecars: Set(toRead.lazy.map { files[$0].relativePath }.filter { Sidecars.isSidecarName($0.lastComponent) }),
                  deleted: gone.filter { Sidecars.isSidecarName($0.lastComponent) }, files: files, known: known)
        if !allowShrink {
            if knownLive > 0, files.isEmpty || livePresent * 2 < knownLive {
                throw ImportError.shrunk(root: root.description, known: knownLive, present: livePresent)
            }
            // A folder whose walk could not read everything is not "empty": the run goes on and
            // names what it could not read.
            if files.isEmpty && outOfSight == 0 && !walkIncomplete { throw ImportError.empty(root: root.description) }
        }
        vanished = gone.sorted().map { root.appending($0.bytes) }
    }

    /// A sidecar that is new, changed or deleted makes its photo count as changed: the person
    /// edited where or when it was taken (the digest, which covers sidecars, then decides).
    /// `changed` are walked sidecars to read, `deleted` known sidecars the walk did not find.
    private mutating func addPhotos(ofSidecars changed: Set<RawPath>, deleted: [RawPath], files: [FileEntry],
                                    known: [RawPath: KnownPhoto]) {
        guard !changed.isEmpty || !deleted.isEmpty else { return }
        let unchangedPhotos = files.indices.filter { i in
            !Sidecars.isSidecarName(files[i].relativePath.lastComponent) && known[files[i].relativePath]?.fingerprint == files[i].fingerprint
        }
        // A deleted sidecar is matched among the names its folder had: the walked ones and it.
        let sidecars = Array(files.lazy.map(\.relativePath).filter { Sidecars.isSidecarName($0.lastComponent) }) + deleted
        let touched = changed.union(deleted)
        let matched = SidecarLookup.names(for: unchangedPhotos.map { files[$0].relativePath }, sidecars: sidecars)
        for (k, i) in unchangedPhotos.enumerated() where matched[k].contains(where: touched.contains) {
            toRead.append(i)
            unchanged -= 1
        }
        toRead.sort()
    }
}
