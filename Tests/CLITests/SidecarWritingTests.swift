import Foundation
import XCTest

/// Issue 36 item 6: `pins sidecars` writes the positions pins found (estimates here) and their
/// places into XMP sidecars, and `runs undo` takes them back. A phone with GPS and a camera
/// without, photos made here by exiftool; positions worked by hand (the camera 4/10 of the way
/// from 48.0 to 48.1 is 48.04), and every sidecar read back by exiftool (`-n -json`).
final class SidecarWritingTests: XCTestCase {
    private func tool(_ path: String, _ args: [String]) throws -> String {
        let p = Process(), out = Pipe()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "\(path) \(args)")
        return String(decoding: data, as: UTF8.self)
    }

    /// exiftool's reading of a sidecar: `-n -json` (decimal degrees).
    private func exiftool(_ path: String) throws -> [String: Any] {
        let text = try tool("/usr/bin/exiftool", ["-n", "-json", path])
        return try XCTUnwrap((CLI.json(text) as? [[String: Any]])?.first)
    }

    /// SHA-256 of each photo, by sha256sum.
    private func checksums(_ dir: URL) throws -> [String: String] {
        var sums: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) where name.hasSuffix(".jpg") {
            sums[name] = String(try tool("/usr/bin/sha256sum", [dir.appendingPathComponent(name).path]).prefix(64))
        }
        XCTAssertFalse(sums.isEmpty)
        return sums
    }

    /// The trip: phone-1 10:00Z at 48.0,2.0 and phone-2 10:10Z at 48.1,2.0 (south of Paris, in
    /// the Loiret); cam-car 10:04Z and cam-own 10:06Z without a position (48.04 and 48.06).
    /// cam-own has an Adobe-style sidecar `cam-own.xmp` with a city of its own and a title.
    private func library(_ dir: URL) throws -> (photos: URL, db: String) {
        let photos = dir.appendingPathComponent("trip")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try CLI.datedPhoto(photos, "phone-1.jpg", "2024:05:01 10:00:00", (48.0, 2.0))
        try CLI.datedPhoto(photos, "phone-2.jpg", "2024:05:01 10:10:00", (48.1, 2.0))
        try CLI.datedPhoto(photos, "cam-car.jpg", "2024:05:01 10:04:00")
        try CLI.datedPhoto(photos, "cam-own.jpg", "2024:05:01 10:06:00")
        try Self.existing.write(to: photos.appendingPathComponent("cam-own.xmp"), atomically: false, encoding: .utf8)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let imported = try CLI.run(["import", photos.path, "--estimate-positions", "--db", db, "-q"], environment: ["TZ": "UTC"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        return (photos, db)
    }

    /// A sidecar another app wrote: a title, and a city that is not pins'.
    static let existing = """
        <?xpacket begin='\u{FEFF}' id='W5M0MpCehiHzreSzNTczkc9d'?>
        <x:xmpmeta xmlns:x='adobe:ns:meta/'>
        <rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>
         <rdf:Description rdf:about='' xmlns:dc='http://purl.org/dc/elements/1.1/'
          xmlns:photoshop='http://ns.adobe.com/photoshop/1.0/' photoshop:City='Orléans &amp; around'>
          <dc:title><rdf:Alt><rdf:li xml:lang='x-default'>Road trip</rdf:li></rdf:Alt></dc:title>
         </rdf:Description>
        </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end='w'?>

        """

    /// The place pins names at a position (`pins locate --json`: the rule pins applies).
    private func located(_ lat: Double, _ lon: Double) throws -> [String: Any] {
        let r = try CLI.run(["locate", "--json"], stdin: "\(lat),\(lon)\n")
        XCTAssertEqual(r.status, 0, r.stderr)
        return try XCTUnwrap(CLI.json(r.stdout) as? [String: Any])
    }

    func testSidecarsAreReadBackByExiftoolAnExistingOneGainsOnlyWhatItLacksAndUndoGivesEverythingBack() throws {
        let dir = try CLI.temporaryDirectory(self)
        let (photos, db) = try library(dir)
        let sums = try checksums(photos)
        let ownBefore = try Data(contentsOf: photos.appendingPathComponent("cam-own.xmp"))

        // A dry run writes nothing.
        let dry = try CLI.run(["sidecars", "--dry-run", "--json", "--db", db])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        let dryJSON = try XCTUnwrap(CLI.json(dry.stdout) as? [String: Any])
        XCTAssertEqual((dryJSON["counts"] as? [String: Any])?["created"] as? Int, 1, dry.stdout)
        XCTAssertEqual((dryJSON["counts"] as? [String: Any])?["added"] as? Int, 1, dry.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: photos.appendingPathComponent("cam-car.jpg.xmp").path))
        XCTAssertEqual(try Data(contentsOf: photos.appendingPathComponent("cam-own.xmp")), ownBefore)

        let r = try CLI.run(["sidecars", "--json", "--db", db])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(CLI.json(r.stdout) as? [String: Any])
        let run = try XCTUnwrap(report["run"] as? Int)
        let entries = try XCTUnwrap(report["sidecars"] as? [[String: Any]])
        // Only the photos pins placed: the phone's own positions are not written without --all.
        XCTAssertEqual(entries.compactMap { ($0["photo"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } },
                       ["cam-car.jpg", "cam-own.jpg"])

        // The new sidecar, as exiftool reads it: 48.04, 2.0 and the place pins names there.
        let place = try located(48.04, 2.0)
        XCTAssertEqual(place["country"] as? String, "FR")
        XCTAssertEqual(place["region"] as? String, "Centre-Val de Loire")
        let car = try exiftool(photos.appendingPathComponent("cam-car.jpg.xmp").path)
        XCTAssertEqual(car["GPSLatitude"] as? Double ?? 0, 48.04, accuracy: 1e-7)
        XCTAssertEqual(car["GPSLongitude"] as? Double ?? 0, 2.0, accuracy: 1e-7)
        XCTAssertEqual(car["City"] as? String, place["place"] as? String)
        XCTAssertNotNil(place["place"])
        XCTAssertEqual(car["State"] as? String, "Centre-Val de Loire")
        XCTAssertEqual(car["Country"] as? String, "France")
        XCTAssertEqual(car["CountryCode"] as? String, "FR")

        // The existing one: its bytes kept, the missing properties added, its city kept and reported.
        let ownAfter = try Data(contentsOf: photos.appendingPathComponent("cam-own.xmp"))
        let before = Array(ownBefore), after = Array(ownAfter)
        // A byte offset: the packet's U+FEFF and the é of Orléans are 3 and 2 bytes of UTF-8 (a
        // UTF-16 offset fell 3 bytes short, and the two checks below then overlapped).
        let end = Array("</rdf:RDF>".utf8)
        let cut = try XCTUnwrap(before.indices.first { Array(before[$0...].prefix(end.count)) == end })
        let tail = before.count - cut
        XCTAssertEqual(Array(after.prefix(cut)), Array(before.prefix(cut)), "the bytes before </rdf:RDF> kept")
        XCTAssertEqual(Array(after.suffix(tail)), Array(before.suffix(tail)), "</rdf:RDF> and what follows kept")
        let own = try exiftool(photos.appendingPathComponent("cam-own.xmp").path)
        XCTAssertEqual(own["GPSLatitude"] as? Double ?? 0, 48.06, accuracy: 1e-7)
        XCTAssertEqual(own["GPSLongitude"] as? Double ?? 0, 2.0, accuracy: 1e-7)
        XCTAssertEqual(own["City"] as? String, "Orléans & around", "the sidecar's own value wins")
        XCTAssertEqual(own["Title"] as? String, "Road trip")
        XCTAssertEqual(own["Country"] as? String, "France")
        let ownEntry = try XCTUnwrap(entries.first { ($0["photo"] as? String)?.hasSuffix("cam-own.jpg") == true })
        XCTAssertEqual(ownEntry["action"] as? String, "add")
        XCTAssertEqual(ownEntry["added"] as? [String], ["exif:GPSLatitude", "exif:GPSLongitude", "photoshop:State",
                                                        "photoshop:Country", "Iptc4xmpCore:CountryCode"])
        let conflicts = try XCTUnwrap(ownEntry["conflicts"] as? [[String: Any]])
        XCTAssertEqual(conflicts.count, 1)
        XCTAssertEqual(conflicts.first?["property"] as? String, "photoshop:City")
        XCTAssertEqual(conflicts.first?["sidecar"] as? String, "Orléans & around")
        // The text report names the value kept.
        let again = try CLI.run(["sidecars", "--db", db])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("Wrote 0 sidecars (0 new, 0 added to) of 2 photos pins placed; 2 had every property already"), again.stdout)
        XCTAssertTrue(again.stdout.contains("cam-own.xmp  photoshop:City 'Orléans & around' (pins: '"), again.stdout)

        // The run says what it wrote.
        let shown = try CLI.run(["runs", "show", String(run), "--db", db])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertTrue(shown.stdout.contains("Wrote 2 files beside the photos:\n  new   \(photos.path)/cam-car.jpg.xmp\n"
                                            + "  added \(photos.path)/cam-own.xmp"), shown.stdout)

        // The next import reads nothing again: pins' own sidecars are not the person's edits.
        let next = try CLI.run(["import", photos.path, "--estimate-positions", "--db", db, "--json"], environment: ["TZ": "UTC"])
        XCTAssertEqual(next.status, 0, next.stderr)
        XCTAssertEqual(((try CLI.json(next.stdout) as? [String: Any])?["counts"] as? [String: Any])?["read"] as? Int, 0, next.stdout)

        // Undo: the created sidecar removed, the edited one back byte for byte, the photos untouched.
        let undo = try CLI.run(["runs", "undo", String(run), "--db", db])
        XCTAssertEqual(undo.status, 0, undo.stderr)
        XCTAssertTrue(undo.stdout.contains("Removed 1 file the run created:"), undo.stdout)
        XCTAssertTrue(undo.stdout.contains("Gave back 1 file the run added to:"), undo.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: photos.appendingPathComponent("cam-car.jpg.xmp").path))
        XCTAssertEqual(try Data(contentsOf: photos.appendingPathComponent("cam-own.xmp")), ownBefore)
        XCTAssertEqual(try checksums(photos), sums, "the photos are never written")
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: photos.path)),
                       ["phone-1.jpg", "phone-2.jpg", "cam-car.jpg", "cam-own.jpg", "cam-own.xmp"], "no temporary file left")
    }

    func testAllWritesEveryPositionAndASidecarChangedSinceIsLeftByTheUndo() throws {
        let dir = try CLI.temporaryDirectory(self)
        let (photos, db) = try library(dir)
        let sums = try checksums(photos)
        let r = try CLI.run(["sidecars", "--all", "--json", "--db", db])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(CLI.json(r.stdout) as? [String: Any])
        XCTAssertEqual((report["counts"] as? [String: Any])?["created"] as? Int, 3, r.stdout)
        let phone = try exiftool(photos.appendingPathComponent("phone-2.jpg.xmp").path)
        XCTAssertEqual(phone["GPSLatitude"] as? Double ?? 0, 48.1, accuracy: 1e-7)
        XCTAssertEqual(phone["GPSLongitude"] as? Double ?? 0, 2.0, accuracy: 1e-7)
        XCTAssertEqual(phone["CountryCode"] as? String, "FR")

        // A person edits one of them after: the undo leaves that one and says so.
        let edited = photos.appendingPathComponent("phone-1.jpg.xmp")
        try CLI.exiftool(["-XMP-photoshop:City=Mine", edited.path])
        let changed = try Data(contentsOf: edited)
        let undo = try CLI.run(["runs", "undo", String(try XCTUnwrap(report["run"] as? Int)), "--json", "--db", db])
        XCTAssertEqual(undo.status, 0, undo.stderr)
        let files = try XCTUnwrap((CLI.json(undo.stdout) as? [String: Any])?["files"] as? [[String: Any]])
        XCTAssertEqual(files.first { ($0["path"] as? String) == edited.path }?["action"] as? String, "changedSince")
        XCTAssertEqual(files.filter { $0["action"] as? String == "removed" }.count, 2)
        XCTAssertEqual(try Data(contentsOf: edited), changed)
        XCTAssertFalse(FileManager.default.fileExists(atPath: photos.appendingPathComponent("phone-2.jpg.xmp").path))
        XCTAssertEqual(try checksums(photos), sums)
    }

    /// One photo placed: the summary counts it in the singular ("of 1 photo", not "of 1 photos").
    func testTheSummaryOfOnePhotoPlacedSaysPhotoInTheSingular() throws {
        let dir = try CLI.temporaryDirectory(self)
        let photos = dir.appendingPathComponent("trip"), db = dir.appendingPathComponent("pins.sqlite").path
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try CLI.datedPhoto(photos, "phone-1.jpg", "2024:05:01 10:00:00", (48.0, 2.0))
        try CLI.datedPhoto(photos, "phone-2.jpg", "2024:05:01 10:10:00", (48.2, 2.0))
        try CLI.datedPhoto(photos, "cam.jpg", "2024:05:01 10:05:00")
        XCTAssertEqual(try CLI.run(["import", photos.path, "--estimate-positions", "--db", db, "-q"]).status, 0)
        let r = try CLI.run(["sidecars", "--dry-run", "--db", db])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("Would write 1 sidecar (1 new, 0 added to) of 1 photo pins placed; 0 had every property already\n"), r.stdout)
    }

    /// A camera photo whose name is 250 bytes: its sidecar's name (254 bytes) is within the
    /// 255-byte limit, and so must be the temporary file written before it. The temporary was
    /// `.NAME.pins-PID` (266 bytes here), refused "File name too long".
    func testAPhotoNameNearTheLimitGetsItsSidecarAndNoTemporaryIsLeft() throws {
        let dir = try CLI.temporaryDirectory(self)
        let photos = dir.appendingPathComponent("trip"), db = dir.appendingPathComponent("pins.sqlite").path
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let long = String(repeating: "c", count: 246) + ".jpg"
        try CLI.datedPhoto(photos, "phone-1.jpg", "2024:05:01 10:00:00", (48.0, 2.0))
        try CLI.datedPhoto(photos, "phone-2.jpg", "2024:05:01 10:10:00", (48.1, 2.0))
        // exiftool's own temporary (`NAME_exiftool_tmp`) has no room at that length: made short, then renamed.
        try CLI.datedPhoto(photos, "cam.jpg", "2024:05:01 10:04:00")
        try FileManager.default.moveItem(at: photos.appendingPathComponent("cam.jpg"), to: photos.appendingPathComponent(long))
        XCTAssertEqual(try CLI.run(["import", photos.path, "--estimate-positions", "--db", db, "-q"], environment: ["TZ": "UTC"]).status, 0)
        let r = try CLI.run(["sidecars", "--db", db])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let car = try exiftool(photos.appendingPathComponent(long + ".xmp").path)
        XCTAssertEqual(car["GPSLatitude"] as? Double ?? 0, 48.04, accuracy: 1e-7)
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: photos.path)),
                       ["phone-1.jpg", "phone-2.jpg", long, long + ".xmp"])
    }

    /// A run killed between writing the temporary file and renaming it leaves the temporary
    /// behind. In a container pins is process 1 on every run, so a temporary named by the
    /// process id (`.cam-car.jpg.xmp.pins-1`) made that sidecar "File exists" on every later
    /// run. Here pins runs as process 1 of a PID namespace of its own (`unshare`, as root) beside
    /// such a leftover: the sidecar is written, and the leftover (not pins' to judge) stays.
    func testALeftoverOfAKilledRunDoesNotBlockTheSidecarOfAProcessWithTheSameId() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            return XCTFail("needs root and unshare to run pins as process 1, as in a container")
        }
        let dir = try CLI.temporaryDirectory(self)
        let (photos, db) = try library(dir)
        let leftover = photos.appendingPathComponent(".cam-car.jpg.xmp.pins-1")
        try Data("half a sidecar".utf8).write(to: leftover)
        let r = try CLI.run(["--pid", "--fork", "--", CLI.binary, "sidecars", "--db", db], executable: "/usr/bin/unshare")
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let car = try exiftool(photos.appendingPathComponent("cam-car.jpg.xmp").path)
        XCTAssertEqual(car["GPSLatitude"] as? Double ?? 0, 48.04, accuracy: 1e-7)
        XCTAssertEqual(try String(contentsOf: leftover, encoding: .utf8), "half a sidecar")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: photos.path).filter { $0.hasPrefix(".pins-") }, [])
    }

    /// A run killed between writing its temporary `.pins-<16 hex>.tmp` and renaming it leaves it
    /// in the photos' folder. The next run that writes there removes it once it is over an hour
    /// old (by mtime), and says so; a younger one (a pins may still be writing it), a look-alike
    /// name, and a folder or a symbolic link of that name stay. A dry run removes nothing.
    func testALeftoverTemporaryOverAnHourOldIsRemovedAndNothingElse() throws {
        let dir = try CLI.temporaryDirectory(self)
        let (photos, db) = try library(dir)
        let outside = dir.appendingPathComponent("outside")
        try Data("not pins'".utf8).write(to: outside)
        let old = Date(timeIntervalSinceNow: -2 * 3600), fm = FileManager.default
        func make(_ name: String, age: Date) throws {
            let url = photos.appendingPathComponent(name)
            try Data("half a sidecar".utf8).write(to: url)
            try fm.setAttributes([.modificationDate: age], ofItemAtPath: url.path)
        }
        try make(".pins-0123456789abcdef.tmp", age: old)
        try make(".pins-fedcba9876543210.tmp", age: Date(timeIntervalSinceNow: -50 * 60))
        try make(".pins-00000000000000ff.tmp", age: Date())
        let lookAlikes = [".pins-0123456789ABCDEF.tmp", ".pins-0123456789abcde.tmp", ".pins-0123456789abcdef0.tmp",
                          "pins-0123456789abcdef.tmp", ".pins-0123456789abcdef.tmp~", ".pins-0123456789abcdeg.tmp",
                          ".pins-0123456789abcdef.TMP", ".cam-car.jpg.xmp.pins-1"]
        for name in lookAlikes { try make(name, age: old) }
        try fm.createDirectory(at: photos.appendingPathComponent(".pins-aaaaaaaaaaaaaaaa.tmp"), withIntermediateDirectories: false)
        try fm.createSymbolicLink(atPath: photos.appendingPathComponent(".pins-bbbbbbbbbbbbbbbb.tmp").path, withDestinationPath: outside.path)
        for name in [".pins-aaaaaaaaaaaaaaaa.tmp", "outside"] {
            let url = name == "outside" ? outside : photos.appendingPathComponent(name)
            try fm.setAttributes([.modificationDate: old], ofItemAtPath: url.path)
        }
        // The link's own times (FileManager would set its target's).
        var times = [timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), timespec(tv_sec: time(nil) - 7200, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, photos.appendingPathComponent(".pins-bbbbbbbbbbbbbbbb.tmp").path, &times, AT_SYMLINK_NOFOLLOW), 0)
        func temporaries() throws -> Set<String> {
            Set(try fm.contentsOfDirectory(atPath: photos.path).filter { $0.contains("pins") })
        }
        let before = try temporaries()
        XCTAssertEqual(before.count, 13)
        let dry = try CLI.run(["sidecars", "--dry-run", "--db", db])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertFalse(dry.stdout.contains("removed"), dry.stdout)
        XCTAssertEqual(try temporaries(), before)
        let r = try CLI.run(["sidecars", "--db", db])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("Wrote 2 sidecars (1 new, 1 added to) of 2 photos pins placed; 0 had every property already; "
            + "removed 1 temporary file an interrupted run of pins left (.pins-*.tmp, over an hour old)\n"), r.stdout)
        XCTAssertEqual(try temporaries(), before.subtracting([".pins-0123456789abcdef.tmp"]))
        XCTAssertEqual(try String(contentsOf: outside, encoding: .utf8), "not pins'")
        let again = try CLI.run(["sidecars", "--json", "--db", db])
        XCTAssertEqual(again.status, 0, again.stderr)
        let report = try XCTUnwrap(CLI.json(again.stdout) as? [String: Any])
        XCTAssertEqual((report["counts"] as? [String: Any])?["leftoverTemporariesRemoved"] as? Int, 0)

        // Its undo writes in the folder too: a leftover made since is removed, the others stay.
        try make(".pins-1111111111111111.tmp", age: old)
        let run = try XCTUnwrap(r.stdout.firstMatch(of: /This is run (\d+)/)?.1)
        let dryUndo = try CLI.run(["runs", "undo", String(run), "--dry-run", "--json", "--db", db])
        XCTAssertEqual(dryUndo.status, 0, dryUndo.stderr)
        XCTAssertEqual((try CLI.json(dryUndo.stdout) as? [String: Any])?["leftoverTemporariesRemoved"] as? Int, 0)
        let undo = try CLI.run(["runs", "undo", String(run), "--db", db])
        XCTAssertEqual(undo.status, 0, undo.stdout + undo.stderr)
        XCTAssertTrue(undo.stdout.hasSuffix("\nRemoved 1 temporary file an interrupted run of pins left (.pins-*.tmp, over an hour old).\n"),
                      undo.stdout)
        XCTAssertEqual(try temporaries(), before.subtracting([".pins-0123456789abcdef.tmp"]))
    }

    func testASymbolicLinkIsNeverFollowedOut() throws {
        let dir = try CLI.temporaryDirectory(self)
        let (photos, db) = try library(dir)
        let outside = dir.appendingPathComponent("outside.xmp")
        try Data(Self.existing.utf8).write(to: outside)
        try FileManager.default.createSymbolicLink(atPath: photos.appendingPathComponent("cam-car.jpg.xmp").path, withDestinationPath: outside.path)
        let r = try CLI.run(["sidecars", "--db", db])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("Left alone 1 photo:"), r.stdout)
        XCTAssertTrue(r.stdout.contains("cam-car.jpg.xmp  it is a symbolic link: left alone"), r.stdout)
        XCTAssertEqual(try String(contentsOf: outside, encoding: .utf8), Self.existing)
    }

    /// As root mode bits do not apply, so pins runs as nobody (`setpriv`): a folder of root's
    /// (0755) is then read-only to it, in the kernel.
    func testAReadOnlyFolderIsNamedPerFileAndExits73WhileTheOthersAreWritten() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            return XCTFail("needs root and setpriv to make a folder read-only to pins")
        }
        let dir = try CLI.temporaryDirectory(self)
        XCTAssertEqual(chmod(dir.path, 0o777), 0)
        let shared = dir.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let photos = dir.appendingPathComponent("trip"), locked = photos.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try CLI.datedPhoto(photos, "phone-1.jpg", "2024:05:01 10:00:00", (48.0, 2.0))
        try CLI.datedPhoto(photos, "phone-2.jpg", "2024:05:01 10:10:00", (48.1, 2.0))
        try CLI.datedPhoto(photos, "cam-car.jpg", "2024:05:01 10:04:00")
        try CLI.datedPhoto(locked, "cam-locked.jpg", "2024:05:01 10:05:00")
        for path in [shared.path, photos.path] { XCTAssertEqual(chmod(path, 0o777), 0) }
        XCTAssertEqual(chmod(locked.path, 0o755), 0)
        let readable = try CLI.readableByAll(in: dir)
        func asNobody(_ args: [String]) throws -> Run {
            try CLI.run(["--reuid=65534", "--regid=65534", "--clear-groups", "--", readable.binary] + args,
                        environment: ["HOME": shared.path, "TMPDIR": shared.path, "TZ": "UTC", "PINS_DATA_DIR": readable.data],
                        executable: "/usr/bin/setpriv")
        }
        let db = shared.path + "/pins.sqlite"
        let imported = try asNobody(["import", photos.path, "--estimate-positions", "--db", db, "-q"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let r = try asNobody(["sidecars", "--db", db])
        XCTAssertEqual(r.status, 73, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("pins sidecars: cannot write \(locked.path)/cam-locked.jpg.xmp: the folder is read-only for this user (Permission denied)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("1 sidecar could not be written (above); the others were"), r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: photos.appendingPathComponent("cam-car.jpg.xmp").path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: locked.path), ["cam-locked.jpg"])
    }
}
