import Foundation
import XCTest

/// Issue 22 item 5: on a full ext4 with 1 KiB blocks every command died of SIGBUS (SQLite's WAL
/// index, the -shm file, was grown one byte per 4 KiB page and so kept holes that the kernel
/// could not fill at the page fault). Now no command crashes: a clear message, exit 1, the
/// database as it was. On a real loop-mounted ext4 (`mkfs.ext4 -b 1024`), filled up; needs root.
final class FullDiskTests: XCTestCase {
    struct Mounted {
        let image: String
        let mountPoint: String
    }

    @discardableResult
    func sh(_ command: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A fresh ext4 of `megabytes` with 1 KiB blocks and no reserved blocks, loop-mounted.
    func smallBlockFileSystem(megabytes: Int) throws -> Mounted {
        guard getuid() == 0 else { throw XCTSkip("needs root to mount a loop device (CI runs as root)") }
        let dir = try CLI.temporaryDirectory(self).path
        let image = dir + "/ext4.img", mountPoint = dir + "/mnt"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let made = try sh("truncate -s \(megabytes)M \(image) && mkfs.ext4 -q -F -b 1024 -m 0 \(image)")
        // As root (CI) these must work: a failure is a failure, not a skipped test that cannot fail.
        guard made.status == 0 else {
            XCTFail("mkfs.ext4 failed (scripts/setup installs e2fsprogs): \(made.output)")
            throw CLI.Failure.setup
        }
        let mount = try sh("mount -o loop \(image) \(mountPoint)")
        guard mount.status == 0 else {
            XCTFail("cannot mount a loop device: \(mount.output)")
            throw CLI.Failure.setup
        }
        addTeardownBlock { [self] in _ = try? self.sh("umount \(mountPoint) || umount -l \(mountPoint)") }
        return Mounted(image: image, mountPoint: mountPoint)
    }

    func pinIDs(_ db: String) throws -> [String] {
        let list = try CLI.run(["list", "--json", "--db", db])
        XCTAssertEqual(list.status, 0, list.stderr)
        let pins = try XCTUnwrap(CLI.json(list.stdout) as? [[String: Any]], list.stderr)
        return pins.compactMap { $0["id"] as? String }.sorted()
    }

    func testNoCommandCrashesOnAFullSmallBlockDisk() throws {
        let fs = try smallBlockFileSystem(megabytes: 12)
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("photos").path
        try CLI.generateLibrary(at: library, files: 40)
        let more = dir.appendingPathComponent("more").path
        try CLI.generateLibrary(at: more, files: 3)
        let db = fs.mountPoint + "/pins.sqlite"
        let first = try CLI.run(["import", library, "--db", db, "--quiet"])
        XCTAssertEqual(first.status, 0, first.stderr)
        var expected = try pinIDs(db)
        XCTAssertGreaterThan(expected.count, 3)

        // Full: one large file, then 1 KiB files (one block each) until no block is left.
        try sh("free=$(df --output=avail -k \(fs.mountPoint) | tail -1); "
            + "dd if=/dev/zero of=\(fs.mountPoint)/fill bs=1k count=$((free - 150)) 2>/dev/null; i=0; "
            + "while head -c 1024 /dev/zero > \(fs.mountPoint)/f$i 2>/dev/null; do i=$((i+1)); done; rm -f \(fs.mountPoint)/f$i")
        let fillers = try FileManager.default.contentsOfDirectory(atPath: fs.mountPoint).filter { $0.hasPrefix("f") && $0 != "fill" }
            .sorted { Int($0.dropFirst())! < Int($1.dropFirst())! }
        XCTAssertGreaterThan(fillers.count, 60)
        // Then a few blocks freed at a time: 0 to 60 free, every amount that matters below the
        // 32 KiB (32 blocks) of the WAL index and its first 4 KiB pages.
        var freed = 0
        var crashes: [String] = []
        var wrote = false
        for step in [0, 1, 1, 2, 2, 2, 3, 4, 6, 8, 10] {
            for name in fillers[freed..<(freed + step)] { unlink(fs.mountPoint + "/" + name) }
            freed += step
            for command in [["add", "--lat", "10.5", "--lon", String(10.5 + Double(freed)), "--db", db],
                            ["import", more, "--db", db, "--quiet"],
                            ["list", "--json", "--db", db]] {
                let run = try CLI.run(command)
                let what = "\(command[0]) with \(freed) blocks freed"
                if run.status > 128 || run.stderr.contains("crashed") {
                    crashes.append("\(what): exit \(run.status) \(run.stderr.prefix(120))")
                    continue
                }
                XCTAssertTrue(run.status == 0 || run.status == 1, "\(what): exit \(run.status) \(run.stderr)")
                if run.status == 1 {
                    XCTAssertTrue(run.stderr.contains("the disk is full"), "\(what): \(run.stderr)")
                } else if command[0] != "list" {
                    wrote = true
                } else {
                    // What is stored: as it was after every failed write, grown by a write that
                    // said it was done.
                    let now = try XCTUnwrap(CLI.json(run.stdout) as? [[String: Any]]).compactMap { $0["id"] as? String }.sorted()
                    if wrote {
                        XCTAssertTrue(Set(expected).isSubset(of: Set(now)), what)
                        expected = now
                        wrote = false
                    } else {
                        XCTAssertEqual(now, expected, "\(what): a failed write leaves the pins as they were")
                    }
                }
            }
        }
        XCTAssertEqual(crashes, [], "no command may crash on a full disk")
        // Room again: the file is sound and holds what was stored.
        unlink(fs.mountPoint + "/fill")
        let check = try CLI.run(["check", "--db", db])
        XCTAssertEqual(check.stdout, "\(db): ok\n", check.stderr)
        XCTAssertEqual(try pinIDs(db), expected)
    }
}
