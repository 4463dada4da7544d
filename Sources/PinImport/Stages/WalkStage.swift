import Foundation
import PinCore
import PinMetadata

/// What earlier runs left that the rules measure from, read only when there is something to
/// decide. (The known files are not here: the walk streams them, see `Survey`.)
struct ImportHistory {
    /// Accepted photos of every earlier run, in any folder: the interval rule measures from them.
    var earlierAccepted: [AcceptedPhoto] = []
    /// Every pin, made by import or by hand: the distance rule measures from them.
    var pins: [ImportRules.ExistingPin] = []

    /// Reads the accepted photos and the pins, which the rules measure from. Only a run with
    /// photos to decide needs them: a nightly run with nothing new (on a library of 1,000,000
    /// photos, 100,000 pins and as many accepted photos) neither reads nor holds them.
    mutating func readRules(from database: TransactionRunner?) throws {
        guard let database else { return }
        var history = self
        try readingDatabase { try database.read { try history.readRules(in: $0) } }
        self = history
    }

    /// The same within a read of the database under way (the run's); nothing when `repos` is nil.
    mutating func readRules(in repos: Repositories?) throws {
        guard let repos else { return }
        var history = self
        try readingDatabase {
            history.earlierAccepted = try repos.photos.acceptedPhotos()
            history.pins = try repos.locations.fetchCoordinates().map {
                .init(title: $0.title, coordinate: $0.coordinate, wantedID: $0.wanted ? $0.id : nil)
            }
        }
        self = history
    }
}

/// Runs a database read, reporting any failure as a storage error of the import (an error of
/// the import's own passes through as it is).
func readingDatabase(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as ImportError {
        throw error
    } catch {
        throw ImportError.storage("cannot read the database: \(error)")
    }
}

/// Stage 1: the walk merged with the known files. Which files must be read, which are
/// unchanged, which came back, which are gone; and the guard against an unmounted share.
///
/// Both come in byte order of the path below the root (the walk's order, `WalkVisitor`; the
/// database's, `KnownFileCursor`), so they are merged as they come: a nightly run over
/// 1,000,000 files holds neither list, only the folders being walked and what is to be read.
struct Survey: WalkVisitor {
    /// New files, changed files, and unchanged photos whose sidecar is new or changed, in byte
    /// order of path.
    /// Each with its sidecars among the names of its folder, relative to the root; on disk.
    /// With a `reader`, the first files go to it instead, to be read while the walk goes on.
    var toRead = FilesToRead()
    var reader: ReadStage?
    /// Whether an unchanged photo skipped for "no location" is read and decided again (a new or
    /// changed track covers it: `TrackRun.redecides`); nil without tracks.
    var redecide: ((UnplacedPhoto) -> Bool)?
    /// Unchanged photos read to be decided again for the tracks.
    var redecided = 0
    /// SIGINT/SIGTERM: looked at in every folder and every 4,096 files, so a stop during the walk
    /// of a large (or slow, networked) share ends it at once, not after the whole walk (a
    /// container's stop gives 10 s before SIGKILL).
    var stop: StopRequest?
    /// What the database knew of the files in `toRead` that it knew (changed files); those
    /// handed to the `reader` carry it with them.
    var knownToRead: [RawPath: KnownPhoto] = [:]
    /// Regular files the walk found.
    var files = 0
    /// Known files with the same size, modification time and inode: not opened.
    var unchanged = 0
    /// Unchanged files recorded as missing by an earlier run: only marked present again.
    var reappeared: [(path: RawPath, fingerprint: PhotoFingerprint)] = []
    /// Known files (not already missing) that the walk did not find, as sorted absolute paths.
    var vanished: [RawPath] = []
    /// Known files the walk did not look at (excluded, or in a folder it could not read): out
    /// of sight, not gone; their records keep their state.
    var outOfSight = 0
    /// Entries the walk could not read, with why, in walk order.
    var problems: [(path: RawPath, reason: String)] = []

    private let root: RawPath
    private var known: KnownFileCursor
    /// The next known file, not yet merged.
    private var nextKnown: (path: RawPath, known: KnownPhoto)?
    /// What the walk did not look into (relative paths).
    private var unseen: Set<RawPath> = []
    /// The folders being walked, innermost last: each one's files with what was known of them,
    /// and the names of its known sidecars the walk did not find (deleted).
    private var folders: [(path: [UInt8], files: [(entry: FileEntry, known: KnownPhoto?)], deletedSidecars: [[UInt8]])] = []
    /// Live (not missing) known files, and those of them the walk found.
    private var knownLive = 0, livePresent = 0
    private var gone: [RawPath] = []

    init(root: RawPath, known: KnownFileCursor = KnownFileCursor()) throws {
        self.root = root
        self.known = known
        nextKnown = try known.next()
    }

    /// The database knows no file under the root (a first import, a dry run without a
    /// database): every file the walk finds is read, so it need not stat them
    /// (`ScanOptions.statFiles`); the readers' fstat gives what their records need.
    var knowsNoFile: Bool { nextKnown == nil }

    /// The same on a walk already made and known files in a dictionary (tests): `files` in any
    /// order; `unseen` lists what the walk did not look into.
    init(files: [FileEntry], known: [RawPath: KnownPhoto], root: RawPath, allowShrink: Bool,
         walkIncomplete: Bool = false, unseen: Set<RawPath> = [], redecide: ((UnplacedPhoto) -> Bool)? = nil) throws {
        try self.init(root: root, known: KnownFileCursor(sorting: known))
        self.unseen = unseen
        self.redecide = redecide
        // As the walk would: files in byte order of path, folders entered and left around them.
        var open: [[UInt8]] = []
        func isBelow(_ folder: [UInt8], _ ancestor: [UInt8]) -> Bool {
            ancestor.isEmpty || folder == ancestor || folder.starts(with: ancestor + [UInt8(ascii: "/")])
        }
        try enterFolder([])
        open.append([])
        for entry in files.sorted(by: { $0.relativePath < $1.relativePath }) {
            let bytes = entry.relativePath.bytes
            let folder = Array(bytes[..<(bytes.lastIndex(of: UInt8(ascii: "/")) ?? 0)])
            while !isBelow(folder, open.last!) { try leaveFolder(open.removeLast()) }
            var k = open.last!.isEmpty ? 0 : open.last!.count + 1
            while open.last! != folder {
                k = folder[k...].firstIndex(of: UInt8(ascii: "/")) ?? folder.count
                try enterFolder(Array(folder[..<k]))
                open.append(Array(folder[..<k]))
                k += 1
            }
            try file(entry)
        }
        while let folder = open.popLast() { try leaveFolder(folder) }
        try finish(allowShrink: allowShrink, walkIncomplete: walkIncomplete)
    }

    // MARK: the walk

    mutating func enterFolder(_ relative: [UInt8]) throws {
        try stop?.check()
        folders.append((relative, [], []))
    }

    mutating func file(_ entry: FileEntry) throws {
        files += 1
        if files & 4095 == 0 { try stop?.check() }
        try passKnown(before: entry.relativePath)
        var record: KnownPhoto?
        if let next = nextKnown, next.path == entry.relativePath {
            record = next.known
            nextKnown = try known.next()
        }
        folders[folders.count - 1].files.append((entry, record))
    }

    mutating func unseen(_ relative: [UInt8], problem: String?) throws {
        let path = RawPath(bytes: relative)
        if let problem { problems.append((path, problem)) }
        unseen.insert(path)
    }

    /// A folder's files are all known here: which to read, with the sidecars among its names.
    /// A sidecar that is new, changed or deleted makes its photo count as changed: the person
    /// edited where or when it was taken (the digest, which covers sidecars, then decides).
    mutating func leaveFolder(_ relative: [UInt8]) throws {
        // The reads found that the root went away: no point listing the rest.
        if let halted = reader?.halted { throw halted }
        // Its whole subtree is walked: the known files below it not found are gone (or out of
        // sight). "D/..." sorts below "D0" ('/' + 1); the root holds them all.
        try passKnown(before: relative.isEmpty ? nil : RawPath(bytes: relative + [UInt8(ascii: "0")]))
        var (_, found, deletedSidecars) = folders.removeLast()
        guard !found.isEmpty else { return }
        // Only names that may be a sidecar's (".xmp", ".json": the last byte is p or n, any
        // case) are taken out of their paths up front; the others when a file is to be read,
        // so a nightly run makes no small array per file here.
        func name(_ i: Int) -> [UInt8] { found[i].entry.relativePath.lastComponent }
        func maybeSidecar(_ i: Int) -> Bool {
            switch found[i].entry.relativePath.bytes.last {
            case UInt8(ascii: "p"), UInt8(ascii: "P"), UInt8(ascii: "n"), UInt8(ascii: "N"): return true
            default: return false
            }
        }
        let sidecarNames = found.indices.filter(maybeSidecar).map(name).filter(Sidecars.isSidecarName)
        var read = [Bool](repeating: false, count: found.count)
        for (i, (entry, record)) in found.enumerated() {
            guard let record else {
                read[i] = true
                continue
            }
            if !record.missing { livePresent += 1 }
            // (The walk stats every file when the database knows some: this one, not statted,
            // cannot be compared; its reader tells.)
            if entry.isStatted && record.fingerprint == entry.fingerprint {
                if let unplaced = record.unplaced, let redecide, redecide(unplaced) {
                    found[i].known?.redecide = true
                    redecided += 1
                    read[i] = true
                    continue
                }
                unchanged += 1
                if record.missing { reappeared.append((root.appending(entry.relativePath.bytes), entry.fingerprint)) }
            } else {
                read[i] = true
            }
        }
        let changedSidecars = Set(found.indices.lazy.filter { read[$0] && maybeSidecar($0) }.map(name).filter(Sidecars.isSidecarName))
            .union(deletedSidecars)
        if !changedSidecars.isEmpty {
            // A deleted sidecar is matched among the names the folder had: the walked ones and it.
            let hadSidecars = sidecarNames + deletedSidecars
            for i in found.indices where !read[i] && !Sidecars.isSidecarName(name(i))
                && Sidecars.match(mediaName: name(i), siblings: hadSidecars).contains(where: changedSidecars.contains) {
                read[i] = true
                unchanged -= 1
            }
        }
        for i in found.indices where read[i] {
            try hand(found[i].entry, known: found[i].known, sidecars: SidecarLookup.matching(name(i), in: relative, among: sidecarNames))
        }
    }

    /// A file to read: to the reader while it takes more during the walk, else to the list
    /// read after it.
    private mutating func hand(_ entry: FileEntry, known: KnownPhoto?, sidecars: [RawPath]) throws {
        if let reader, reader.takesMore {
            reader.submit(entry, sidecars: sidecars, known: known)
        } else {
            try toRead.append(entry, sidecars: sidecars)
            if let known { knownToRead[entry.relativePath] = known }
        }
    }

    /// Known files before `path` that the walk did not find: gone, or out of sight.
    private mutating func passKnown(before path: RawPath?) throws {
        while let next = nextKnown, path.map({ next.path < $0 }) ?? true {
            if !next.known.missing {
                knownLive += 1
                if ScanResult.isBelow(next.path, anyOf: unseen) {
                    outOfSight += 1
                } else {
                    gone.append(next.path)
                    noteIfSidecar(gone: next.path)
                }
            }
            nextKnown = try known.next()
        }
    }

    /// A known sidecar gone from a folder being walked: its photos there are read again.
    private mutating func noteIfSidecar(gone path: RawPath) {
        let name = path.lastComponent
        guard Sidecars.isSidecarName(name) else { return }
        let folder = path.bytes.dropLast(name.count + (name.count < path.bytes.count ? 1 : 0))
        if let k = folders.lastIndex(where: { $0.path.elementsEqual(folder) }) { folders[k].deletedSidecars.append(name) }
    }

    /// After the walk: the known files left are gone or out of sight. Throws `.empty` for a
    /// folder without a file, and `.shrunk` when it lost most of its live known files, unless
    /// `allowShrink`: nothing is marked missing then.
    mutating func finish(allowShrink: Bool, walkIncomplete: Bool) throws {
        try passKnown(before: nil)
        // The cursor lives no longer than the read that made it.
        known = KnownFileCursor()
        // The files to read come in the order the folders end, not sorted: the rules' order is
        // made after reading (`ItemSorter`).
        try toRead.finish()
        let live = knownLive + livePresent - outOfSight
        if !allowShrink {
            if live > 0, files == 0 || livePresent * 2 < live {
                throw ImportError.shrunk(root: root.description, known: live, present: livePresent)
            }
            // A folder whose walk could not read everything is not "empty": the run goes on and
            // names what it could not read.
            if files == 0 && outOfSight == 0 && !walkIncomplete { throw ImportError.empty(root: root.description) }
        }
        vanished = gone.map { root.appending($0.bytes) }
        gone = []
    }
}
