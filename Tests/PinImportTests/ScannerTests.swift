import XCTest
@testable import PinCore
@testable import PinImport

final class ScannerTests: XCTestCase {
    var root: String = ""

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("pins-scan-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let dir = root
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
    }

    func touch(_ relative: String, _ text: String = "x") throws {
        let path = root + "/" + relative
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    func names(_ options: ScanOptions = ScanOptions()) throws -> [String] {
        try Scanner.scan(root: root, options: options).files.map(\.relativePath.description).sorted()
    }

    func testSkipsHiddenAppleDoubleAndSystemFoldersUnlessAsked() throws {
        for f in ["a.jpg", "sub/b.jpg", ".hidden/c.jpg", "sub/._b.jpg", ".DS_Store", "@eaDir/a.jpg/thumb.jpg", "#recycle/d.jpg",
                  "#snapshot/e.jpg", ".@__thumb/f.jpg", ".Trashes/g.jpg", "lost+found/h.jpg"] {
            try touch(f)
        }
        XCTAssertEqual(try names(), ["a.jpg", "sub/b.jpg"])
        XCTAssertEqual(try names(ScanOptions(includeHidden: true)),
                       [".DS_Store", ".hidden/c.jpg", "a.jpg", "sub/._b.jpg", "sub/b.jpg"])
        XCTAssertEqual(try names(ScanOptions(includeSystemFolders: true)),
                       ["#recycle/d.jpg", "#snapshot/e.jpg", "@eaDir/a.jpg/thumb.jpg", "a.jpg", "lost+found/h.jpg", "sub/b.jpg"])
        XCTAssertEqual(try names(ScanOptions(excludes: ["sub"])), ["a.jpg"])
        XCTAssertEqual(try names(ScanOptions(excludes: ["*.jpg"])), [])
        XCTAssertEqual(try names(ScanOptions(excludes: ["sub/*"])), ["a.jpg"])
    }

    func testRegularFilesOnlyAndAFIFOIsNeverOpened() throws {
        try touch("a.jpg")
        XCTAssertEqual(mkfifo(root + "/pipe.jpg", 0o644), 0)
        // Opening the FIFO for reading would block this test forever.
        XCTAssertEqual(try names(), ["a.jpg"])
    }

    func testSymlinksAreFollowedOnlyWhenAskedAndLoopsEnd() throws {
        try touch("real/a.jpg")
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: root + "/real")
        try FileManager.default.createSymbolicLink(atPath: root + "/real/loop", withDestinationPath: root)
        try FileManager.default.createSymbolicLink(atPath: root + "/file-link.jpg", withDestinationPath: root + "/real/a.jpg")
        try FileManager.default.createSymbolicLink(atPath: root + "/broken.jpg", withDestinationPath: root + "/nowhere")
        XCTAssertEqual(try names(), ["real/a.jpg"])
        let followed = try Scanner.scan(root: root, options: ScanOptions(followSymlinks: true))
        // Each folder once (the loop back to the root and the second link to real/ are not walked again).
        XCTAssertEqual(followed.files.map(\.relativePath.description).sorted(), ["file-link.jpg", "link/a.jpg"].sorted())
        XCTAssertTrue(followed.problems.contains { $0.path.description == "broken.jpg" })
    }

    func testNamesThatAreNotUTF8SurviveTheWalk() throws {
        // "caf\xE9.jpg" in Latin-1: not valid UTF-8.
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)
        let path = RawPath(root).appending(name)
        let fd = path.withCString { open($0, O_CREAT | O_WRONLY, 0o644) }
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        let files = try Scanner.scan(root: root).files
        XCTAssertEqual(files.map(\.relativePath.bytes), [name])
        XCTAssertEqual(files.first?.relativePath.description, "caf\\xE9.jpg")
    }

    func testAnUnreadableFolderIsAProblemNotAnError() throws {
        try touch("ok.jpg")
        try touch("locked/x.jpg")
        chmod(root + "/locked", 0)
        defer { chmod(root + "/locked", 0o755) }
        let result = try Scanner.scan(root: root)
        XCTAssertTrue(result.files.map(\.relativePath.description).contains("ok.jpg"))
        if getuid() != 0 { // root reads anything
            XCTAssertTrue(result.problems.contains { $0.path.description == "locked" })
        }
    }

    /// The walk comes in the byte order of whole paths, the order SQLite gives the known files
    /// in: '-' (0x2D) < '.' (0x2E) < '/' (0x2F) < '0' (0x30), so a folder's files come between
    /// its neighbours' (folder by folder, "a.jpg" and "a0.jpg" came before "a/x.jpg").
    func testFilesComeInByteOrderOfTheirPaths() throws {
        for f in ["a0.jpg", "a/x.jpg", "a.jpg", "a-b/x.jpg", "a/b/y.jpg", "a/c.jpg"] { try touch(f) }
        XCTAssertEqual(try Scanner.scan(root: root).files.map(\.relativePath.description),
                       ["a-b/x.jpg", "a.jpg", "a/b/y.jpg", "a/c.jpg", "a/x.jpg", "a0.jpg"])
    }

    func testMissingRootThrows() {
        XCTAssertThrowsError(try Scanner.scan(root: root + "/absent"))
    }

    /// Records every event, in order; throws at the `failAt`-th file when set.
    struct Recorder: WalkVisitor {
        var events: [String] = []
        var failAt: Int?
        struct Failed: Error {}
        mutating func enterFolder(_ relative: [UInt8]) { events.append("enter " + String(decoding: relative, as: UTF8.self)) }
        mutating func leaveFolder(_ relative: [UInt8]) { events.append("leave " + String(decoding: relative, as: UTF8.self)) }
        mutating func file(_ entry: FileEntry) throws {
            if let failAt, events.filter({ $0.hasPrefix("file") }).count == failAt { throw Failed() }
            events.append("file \(entry.relativePath) \(entry.size)")
        }
        mutating func unseen(_ relative: [UInt8], problem: String?) {
            events.append("unseen " + String(decoding: relative, as: UTF8.self) + " " + (problem ?? "-"))
        }
    }

    /// The walk on a thread of its own gives the visitor the very events, in the same order, as
    /// the walk on the caller's thread: hundreds of them (more than one batch of events).
    func testTheWalkAsideGivesTheSameEventsInTheSameOrder() throws {
        for folder in 0..<40 {
            for file in 0..<15 { try touch("f\(folder)/\(folder % 3 == 0 ? "sub/" : "")\(file).jpg", String(repeating: "x", count: file)) }
        }
        try touch(".hidden/a.jpg")
        var here = Recorder(), aside = Recorder()
        try Scanner.walk(root: root, visitor: &here)
        try Scanner.walkAside(root: root, visitor: &aside)
        XCTAssertEqual(here.events.filter { $0.hasPrefix("file") }.count, 600)
        XCTAssertTrue(here.events.contains("unseen .hidden -"))
        XCTAssertEqual(aside.events, here.events)
    }

    /// A visitor that gives up stops the walk aside and its error comes back; a root that
    /// cannot be opened throws as the plain walk does.
    func testTheWalkAsideStopsWithTheVisitorAndRethrows() throws {
        for file in 0..<300 { try touch("d\(file % 7)/\(file).jpg") }
        var failing = Recorder(failAt: 10)
        XCTAssertThrowsError(try Scanner.walkAside(root: root, visitor: &failing)) { XCTAssertTrue($0 is Recorder.Failed) }
        XCTAssertEqual(failing.events.filter { $0.hasPrefix("file") }.count, 10)
        var recorder = Recorder()
        XCTAssertThrowsError(try Scanner.walkAside(root: root + "/missing", visitor: &recorder)) {
            guard case ScanError.cannotOpenRoot = $0 else { return XCTFail("\($0)") }
        }
    }

    /// On a cold cache a folder's names are statted side by side (`ColdWalkPool`): the walk finds
    /// the very files, sizes, times and inodes, problems and folders it finds statting them one
    /// by one.
    func testTheColdWalkStatsSideBySideAndFindsTheSame() throws {
        for folder in 0..<6 {
            for file in 0..<40 { try touch("f\(folder)/\(file).jpg", String(repeating: "x", count: file)) }
        }
        try touch("f1/sub/deep.jpg")
        try FileManager.default.createSymbolicLink(atPath: root + "/f2/link.jpg", withDestinationPath: root + "/f2/1.jpg")
        var warm = Recorder()
        try Scanner.walk(root: root, visitor: &warm)
        let warmFiles = try Scanner.scan(root: root).files
        let saved = ColdCache.slowNanoseconds
        ColdCache.slowNanoseconds = -1
        defer { ColdCache.slowNanoseconds = saved }
        var cold = Recorder()
        try Scanner.walk(root: root, visitor: &cold)
        let coldFiles = try Scanner.scan(root: root).files
        XCTAssertEqual(warm.events.filter { $0.hasPrefix("file") }.count, 241)
        XCTAssertEqual(cold.events, warm.events)
        XCTAssertEqual(coldFiles.map(\.fingerprint), warmFiles.map(\.fingerprint))
        XCTAssertEqual(coldFiles.map(\.relativePath), warmFiles.map(\.relativePath))
    }

    /// Without `statFiles` (an import whose database knows no file there) the walk lists the
    /// regular files by getdents' type alone: the same files, folders, problems and exclusions,
    /// in the same order, each file with no size, time or inode (size -1: it was not statted).
    /// A FIFO is still left out, a symlink still followed only when asked.
    func testWithoutStatFilesTheWalkListsTheSameFilesUnstatted() throws {
        for folder in 0..<3 {
            for file in 0..<5 { try touch("f\(folder)/\(file).jpg", String(repeating: "x", count: file + 1)) }
        }
        try touch("f1/sub/deep.jpg")
        try touch("f1.jpg")
        try touch("f1-x/a.jpg")
        try touch(".hidden/a.jpg")
        try touch("@eaDir/t.jpg")
        try touch("skip/me.jpg")
        XCTAssertEqual(mkfifo(root + "/f0/pipe.jpg", 0o644), 0)
        try FileManager.default.createSymbolicLink(atPath: root + "/f2/link.jpg", withDestinationPath: root + "/f2/1.jpg")
        try FileManager.default.createSymbolicLink(atPath: root + "/linked", withDestinationPath: root + "/f1/sub")
        for follow in [false, true] {
            var statted = Recorder(), unstatted = Recorder()
            var options = ScanOptions(followSymlinks: follow, excludes: ["skip"])
            try Scanner.walk(root: root, options: options, visitor: &statted)
            options.statFiles = false
            try Scanner.walk(root: root, options: options, visitor: &unstatted)
            // "file PATH SIZE": the sizes are the files' own (1 to 5 bytes) statted, -1 not.
            XCTAssertTrue(statted.events.contains("file f0/4.jpg 5"))
            XCTAssertTrue(unstatted.events.contains("file f0/4.jpg -1"))
            // Only a symlink followed to a file is statted (getdents gives the link's type).
            XCTAssertEqual(unstatted.events.filter { $0.hasPrefix("file") && !$0.hasSuffix(" -1") },
                           follow ? ["file f2/link.jpg 2"] : [])
            XCTAssertEqual(unstatted.events.map { $0.hasPrefix("file") ? String($0[..<$0.lastIndex(of: " ")!]) : $0 },
                           statted.events.map { $0.hasPrefix("file") ? String($0[..<$0.lastIndex(of: " ")!]) : $0 })
            XCTAssertTrue(statted.events.contains("unseen .hidden -"))
            XCTAssertTrue(statted.events.contains("unseen skip -"))
            XCTAssertFalse(statted.events.contains { $0.hasPrefix("file f0/pipe") })
            XCTAssertEqual(statted.events.contains("file f2/link.jpg 2"), follow)
            XCTAssertEqual(statted.events.contains("file linked/deep.jpg 1"), follow)
            // Subfolders at the place of "name/": "f1-x/a.jpg" < "f1.jpg" < "f1/0.jpg".
            let order = unstatted.events.filter { $0.hasPrefix("file f1") }.prefix(3)
            XCTAssertEqual(Array(order), ["file f1-x/a.jpg -1", "file f1.jpg -1", "file f1/0.jpg -1"])
        }
    }

    /// Not following symlinks, a folder not statted when listed gets its loop guard when it is
    /// opened: a bind mount of an ancestor (root only) is left out, as when statted.
    func testWithoutStatFilesABindMountOfAnAncestorIsNotWalkedAgain() throws {
        try touch("a/b/x.jpg")
        try FileManager.default.createDirectory(atPath: root + "/a/b/again", withIntermediateDirectories: true)
        guard getuid() == 0 else { throw XCTSkip("bind mounts need root (CI runs as root)") }
        guard mount(root + "/a", root + "/a/b/again", nil, UInt(MS_BIND), nil) == 0 else {
            XCTFail("bind mount failed as root: \(String(cString: strerror(errno)))")
            throw SetupFailed()
        }
        defer { umount(root + "/a/b/again") }
        for statFiles in [true, false] {
            var options = ScanOptions()
            options.statFiles = statFiles
            var recorder = Recorder()
            try Scanner.walk(root: root, options: options, visitor: &recorder)
            XCTAssertEqual(recorder.events, ["enter ", "enter a", "enter a/b", "file a/b/x.jpg \(statFiles ? 1 : -1)", "leave a/b", "leave a", "leave "])
        }
    }

    /// On a cold cache the walk reads subfolders ahead on threads of its own: the same events in
    /// the same order, with and without stats, and no descriptor left open once it ends.
    func testOnAColdCacheFoldersAreReadAheadAndTheWalkFindsTheSame() throws {
        for year in 0..<3 {
            for day in 0..<12 { try touch("y\(year)/d\(day)/\(day).jpg", String(repeating: "x", count: day)) }
        }
        try touch("y1/d3/sub/deep.jpg")
        let saved = ColdCache.met.load(ordering: .relaxed)
        defer { ColdCache.met.store(saved, ordering: .relaxed) }
        func openFiles() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count }
        for statFiles in [true, false] {
            var options = ScanOptions()
            options.statFiles = statFiles
            ColdCache.met.store(false, ordering: .relaxed)
            var warm = Recorder()
            try Scanner.walk(root: root, options: options, visitor: &warm)
            ColdCache.met.store(true, ordering: .relaxed)
            let before = try openFiles()
            var cold = Recorder()
            try Scanner.walk(root: root, options: options, visitor: &cold)
            XCTAssertEqual(try openFiles(), before)
            XCTAssertEqual(warm.events.filter { $0.hasPrefix("file") }.count, 37)
            XCTAssertEqual(cold.events, warm.events)
        }
    }
}

/// Ends a test after the XCTFail that says why (a machine that cannot run it is a failure, not a skip).
private struct SetupFailed: Error {}
