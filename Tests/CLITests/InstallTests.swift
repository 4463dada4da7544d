import Foundation
import XCTest

final class InstallTests: XCTestCase {
    /// scripts/install puts the binary and its data where the binary finds them from anywhere.
    func testInstalledBinaryRunsFromAnotherDirectory() throws {
        let prefix = try CLI.temporaryDirectory(self).appendingPathComponent("prefix")
        let install = Process()
        install.executableURL = URL(fileURLWithPath: "/bin/bash")
        install.arguments = [CLI.repo.appendingPathComponent("scripts/install").path, prefix.path, "--binary", CLI.binary]
        install.standardOutput = FileHandle.nullDevice
        try install.run()
        install.waitUntilExit()
        XCTAssertEqual(install.terminationStatus, 0)
        let run = try CLI.run(["locate"], stdin: "48.8566,2.3522\n", environment: ["PINS_DATA_DIR": ""],
                              executable: prefix.appendingPathComponent("bin/pins").path, cwd: "/")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "FR\n")
    }
}

/// scripts/install (issue 12 item 4): --help, a prefix relative to the caller, printing units
/// never builds, and units that systemd itself accepts.
final class InstallScriptTests: XCTestCase {
    /// PATH without the Swift toolchain: a step that tried to build would fail.
    static let pathWithoutSwift = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    func install(_ arguments: [String], cwd: URL) throws -> Run {
        try CLI.run([CLI.repo.appendingPathComponent("scripts/install").path] + arguments,
                    environment: ["PATH": Self.pathWithoutSwift], executable: "/bin/bash", cwd: cwd.path)
    }

    func testHelpIsHelpNotAPrefix() throws {
        let dir = try CLI.temporaryDirectory(self)
        let run = try install(["--help"], cwd: dir)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("--from TARBALL"), run.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }

    /// The old script built and installed to PREFIX when --print-units came without --library.
    func testPrintingUnitsNeverBuildsOrWrites() throws {
        let dir = try CLI.temporaryDirectory(self)
        let missing = try install(["prefix", "--print-units"], cwd: dir)
        XCTAssertEqual(missing.status, 64)
        XCTAssertTrue(missing.stderr.contains("--library"), missing.stderr)
        let printed = try install(["prefix", "--library", "photos", "--print-units"], cwd: dir)
        XCTAssertEqual(printed.status, 0, printed.stderr)
        // Relative paths are the caller's.
        XCTAssertTrue(printed.stdout.contains("\nPINS_LIBRARY=\(dir.path)/photos\n"), printed.stdout)
        XCTAssertTrue(printed.stdout.contains("\nExecStart=\"\(dir.path)/prefix/bin/pins\" import --quiet\n"), printed.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }

    func testRelativePrefixIsRelativeToTheCaller() throws {
        let dir = try CLI.temporaryDirectory(self)
        let run = try install(["here/pins", "--binary", CLI.binary], cwd: dir)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("here/pins/bin/pins").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("here/pins/share/man/man1/pins.1").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: CLI.repo.appendingPathComponent("here").path))
    }

    /// The units as installed (issue 24 item 3): `systemd-analyze verify` with its man page check
    /// (`Documentation=` names the installed page: `man:pins(1)` failed where the prefix's man
    /// folder is not on the man path), and `systemd-analyze security` at 1.5 or less (2.6 before).
    func testInstalledUnitsPassVerifyAndSecurity() throws {
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("my photos")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let run = try install(["prefix", "--binary", CLI.binary, "--library", library.path, "--db", "data/pins.sqlite",
                               "--page", "web/pins.html", "--unit-dir", "units", "--at", "02:30"], cwd: dir)
        XCTAssertEqual(run.status, 0, run.stderr)
        let units = dir.appendingPathComponent("units")
        let service = try String(contentsOf: units.appendingPathComponent("pins-import.service"), encoding: .utf8)
        for line in ["ExecStart=\"\(dir.path)/prefix/bin/pins\" import --quiet", "EnvironmentFile=\(dir.path)/prefix/etc/pins.conf",
                     "Documentation=man:\(dir.path)/prefix/share/man/man1/pins.1",
                     "DynamicUser=yes", "ProtectSystem=strict", "ReadOnlyPaths=\"\(library.path)\"",
                     "ReadWritePaths=\"\(dir.path)/data\"", "ReadWritePaths=\"\(dir.path)/web\"", "UMask=0022",
                     "NoNewPrivileges=yes", "PrivateNetwork=yes", "SuccessExitStatus=75", "SystemCallFilter=@system-service",
                     "SystemCallFilter=~@privileged @resources", "SystemCallFilter=setpriority ioprio_set", "SystemCallErrorNumber=EPERM", "ProtectProc=invisible",
                     "ProcSubset=pid", "RestrictAddressFamilies=none", "IPAddressDeny=any"] {
            XCTAssertTrue(service.split(separator: "\n").contains(Substring(line)), "missing: \(line)\n\(service)")
        }
        XCTAssertFalse(service.contains("StateDirectory"), "--db names the database: no StateDirectory\n\(service)")
        let timer = try String(contentsOf: units.appendingPathComponent("pins-import.timer"), encoding: .utf8)
        XCTAssertTrue(timer.contains("OnCalendar=*-*-* 02:30:00"), timer)
        let verify = try CLI.run(["verify", "./pins-import.service", "./pins-import.timer", "./pins-serve.service"],
                                 executable: "/usr/bin/systemd-analyze", cwd: units.path)
        XCTAssertEqual(verify.status, 0, verify.stderr)
        XCTAssertEqual(verify.stderr + verify.stdout, "", "systemd-analyze verify warns")
        // Without the man page the same check fails: it is a check.
        try FileManager.default.removeItem(at: dir.appendingPathComponent("prefix/share/man/man1/pins.1"))
        let withoutPage = try CLI.run(["verify", "./pins-import.service"], executable: "/usr/bin/systemd-analyze", cwd: units.path)
        XCTAssertNotEqual(withoutPage.status, 0, withoutPage.stderr)
        XCTAssertTrue(withoutPage.stderr.contains("pins.1"), withoutPage.stderr)

        for arguments in [["--db", "data/pins.sqlite", "--page", "web/pins.html"], [], ["--user", "photos", "--group", "users"]] {
            let printed = try install(["/opt/pins", "--library", library.path, "--print-units"] + arguments, cwd: dir)
            XCTAssertEqual(printed.status, 0, printed.stderr)
            let file = dir.appendingPathComponent("printed.service")
            try Self.section("pins-import.service", of: printed.stdout).write(to: file, atomically: true, encoding: .utf8)
            let score = try Self.exposure(file)
            XCTAssertLessThanOrEqual(score, 1.5, "systemd-analyze security --offline=yes, \(arguments)")
        }
        try checkServeUnit(library: library, dir: dir)
    }

    /// pins-serve.service (issue 37 step 6; verified as installed above): `systemd-analyze security` at 2.0 or
    /// less with the network only to listen: on loopback, and on 0.0.0.0 (the local network's
    /// ranges allowed, the password through LoadCredential=); 1.3 and 1.4 when written.
    func checkServeUnit(library: URL, dir: URL) throws {
        for arguments in [[], ["--listen", "0.0.0.0:8765"], ["--listen", "[::]:9000", "--user", "photos", "--group", "users"]] {
            let printed = try install(["/opt/pins", "--library", library.path, "--print-units"] + arguments, cwd: dir)
            XCTAssertEqual(printed.status, 0, printed.stderr)
            let unit = Self.section("pins-serve.service", of: printed.stdout)
            let file = dir.appendingPathComponent("pins-serve.service")
            try unit.write(to: file, atomically: true, encoding: .utf8)
            XCTAssertLessThanOrEqual(try Self.exposure(file), 2.0, "systemd-analyze security --offline=yes pins-serve.service, \(arguments)")
            let lines = Set(unit.split(separator: "\n").map(String.init))
            let port = arguments.count > 1 ? String(arguments[1].split(separator: ":").last!) : "8765"
            for line in ["ExecStart=\"/opt/pins/bin/pins\" serve --library \"\(library.path)\"", "IPAddressDeny=any",
                         "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX", "SocketBindAllow=tcp:\(port)", "SocketBindDeny=any",
                         "SystemCallFilter=~connect", "NoNewPrivileges=yes", "ProtectSystem=strict", "CapabilityBoundingSet="] {
                XCTAssertTrue(lines.contains(line), "missing: \(line)\n\(unit)")
            }
            XCTAssertFalse(lines.contains("PrivateNetwork=yes"), unit)
            XCTAssertEqual(lines.contains("IPAddressAllow=localhost"), arguments.isEmpty, unit)
            XCTAssertEqual(lines.contains("LoadCredential=pins_password:/opt/pins/etc/pins-password"), !arguments.isEmpty, unit)
        }
        let refused = try install(["/opt/pins", "--library", library.path, "--print-units", "--listen", "nas.local:8765"], cwd: dir)
        XCTAssertEqual(refused.status, 64, refused.stderr)
    }

    /// The text between `# --- name ---` and the next such line of --print-units.
    static func section(_ name: String, of text: String) -> String {
        var lines: [Substring] = [], inside = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# --- ") && line.hasSuffix(" ---") { inside = line == "# --- \(name) ---"; continue }
            if inside { lines.append(line) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// "Overall exposure level for X: 0.4 SAFE" of `systemd-analyze security --offline=yes`.
    static func exposure(_ unit: URL) throws -> Double {
        let run = try CLI.run(["security", "--offline=yes", "--no-pager", unit.lastPathComponent],
                              executable: "/usr/bin/systemd-analyze", cwd: unit.deletingLastPathComponent().path)
        guard let line = run.stdout.split(separator: "\n").first(where: { $0.contains("Overall exposure level for") }),
              let value = line.split(separator: ":").last?.split(separator: " ").first, let score = Double(value) else {
            XCTFail("no exposure level in: \(run.stdout)\(run.stderr)")
            return .infinity
        }
        return score
    }

    /// The nightly import under the service's sandbox (issue 24 items 2, 3): no systemd runs here
    /// (`systemctl is-system-running` says offline), so scripts/run-unit applies the unit's
    /// system call filter (libseccomp, the sets systemd-analyze lists), ProtectProc/ProcSubset,
    /// PrivateNetwork, ProtectSystem=strict with its ReadWritePaths, an unprivileged user and
    /// the EnvironmentFile. It imports the same pins as an unconfined run and writes the page.
    func testNightlyImportRunsInTheServiceSandbox() throws {
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("photos")
        try CLI.generateLibrary(at: library.path, files: 60)
        for folder in ["data", "web"] {
            try FileManager.default.createDirectory(at: dir.appendingPathComponent(folder), withIntermediateDirectories: true)
            // What systemd's DynamicUser would be: a user that owns nothing else.
            XCTAssertEqual(chown(dir.appendingPathComponent(folder).path, 65534, 65534), 0)
        }
        let run = try install(["prefix", "--binary", CLI.binary, "--library", library.path, "--db", "data/pins.sqlite",
                               "--page", "web/pins.html", "--unit-dir", "units"], cwd: dir)
        XCTAssertEqual(run.status, 0, run.stderr)
        let service = dir.appendingPathComponent("units/pins-import.service")
        let sandboxed = try CLI.run([service.path], executable: CLI.repo.appendingPathComponent("scripts/run-unit").path, cwd: dir.path)
        XCTAssertEqual(sandboxed.status, 0, sandboxed.stderr)
        XCTAssertEqual(sandboxed.stderr, "")
        // The page, readable by a web server (0644), owned by the service's user.
        var page = stat()
        XCTAssertEqual(stat(dir.appendingPathComponent("web/pins.html").path, &page), 0, "no page written")
        XCTAssertEqual(page.st_mode & 0o777, 0o644)
        XCTAssertEqual(page.st_uid, 65534)
        // The same pins as a run without the sandbox, into another database.
        let pins = dir.appendingPathComponent("prefix/bin/pins").path
        let listed = try CLI.run(["list"], environment: ["HOME": dir.path], executable: pins, cwd: "/")
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let plain = try CLI.run(["import", library.path, "--quiet", "--db", dir.appendingPathComponent("plain.sqlite").path],
                                environment: ["HOME": dir.path], executable: pins, cwd: "/")
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let plainList = try CLI.run(["list", "--db", dir.appendingPathComponent("plain.sqlite").path],
                                    executable: pins, cwd: "/")
        // Every column but the id, which each database draws for itself.
        func rows(_ list: String) -> [String] { list.split(separator: "\n").map { $0.split(separator: " ").dropFirst().joined(separator: " ") }.sorted() }
        XCTAssertGreaterThan(rows(plainList.stdout).count, 3, plainList.stdout)
        XCTAssertEqual(rows(listed.stdout), rows(plainList.stdout))
        // The filter is in force: --nice (setpriority) is allowed, and refused with EPERM once the
        // unit takes setpriority out.
        let nice = dir.appendingPathComponent("units/nice.service")
        let niceText = try String(contentsOf: service, encoding: .utf8).replacingOccurrences(of: "import --quiet\n", with: "import --quiet --nice\n")
        try niceText.write(to: nice, atomically: true, encoding: .utf8)
        let allowed = try CLI.run([nice.path], executable: CLI.repo.appendingPathComponent("scripts/run-unit").path, cwd: dir.path)
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertEqual(allowed.stderr, "")
        // Started nicer than 10 already (a unit without Nice= under a NAS scheduler's own nice 15):
        // left so, no warning. Before, --nice set 10, a rise the sandbox (no CAP_SYS_NICE)
        // refused with "cannot lower the CPU priority: Permission denied".
        let nicer = dir.appendingPathComponent("units/nicer.service")
        try niceText.replacingOccurrences(of: "Nice=10\n", with: "").write(to: nicer, atomically: true, encoding: .utf8)
        let started = try CLI.run(["-n", "15", CLI.repo.appendingPathComponent("scripts/run-unit").path, nicer.path],
                                  executable: "/usr/bin/nice", cwd: dir.path)
        XCTAssertEqual(started.status, 0, started.stderr)
        XCTAssertEqual(started.stderr, "")
        // (Without Nice=10, so --nice has a priority to lower: one at 10 already is left as it is.)
        try niceText.replacingOccurrences(of: "SystemCallErrorNumber=EPERM\n", with: "SystemCallFilter=~setpriority\nSystemCallErrorNumber=EPERM\n")
            .replacingOccurrences(of: "Nice=10\n", with: "").write(to: nice, atomically: true, encoding: .utf8)
        let refused = try CLI.run([nice.path], executable: CLI.repo.appendingPathComponent("scripts/run-unit").path, cwd: dir.path)
        XCTAssertEqual(refused.status, 0, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--nice: cannot lower the CPU priority: Operation not permitted"), refused.stderr)
    }

    /// One database everywhere (issue 24 item 1): after an install with --library, the service
    /// (EnvironmentFile), the crontab line and `pins list` typed by hand all use PINS_DB of
    /// PREFIX/etc/pins.conf; --db and $PINS_DB still win, in that order.
    func testServiceCronAndPinsShareOneDatabase() throws {
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("photos")
        try CLI.generateLibrary(at: library.path, files: 30)
        let run = try install(["prefix", "--binary", CLI.binary, "--library", library.path, "--db", "nas/pins.sqlite",
                               "--unit-dir", "units", "--at", "04:15"], cwd: dir)
        XCTAssertEqual(run.status, 0, run.stderr)
        let conf = try String(contentsOf: dir.appendingPathComponent("prefix/etc/pins.conf"), encoding: .utf8)
        let settings = conf.split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertEqual(settings, ["PINS_DB=\(dir.path)/nas/pins.sqlite", "PINS_LIBRARY=\(library.path)", "PINS_PAGE="])
        let service = try String(contentsOf: dir.appendingPathComponent("units/pins-import.service"), encoding: .utf8)
        XCTAssertTrue(service.contains("\nEnvironmentFile=\(dir.path)/prefix/etc/pins.conf\n"), service)
        XCTAssertFalse(service.contains("--db"), service)
        // The crontab line, run as cron runs it (sh, a bare environment, the owner's HOME).
        let cron = try String(contentsOf: dir.appendingPathComponent("prefix/share/pins/pins.cron"), encoding: .utf8)
        XCTAssertEqual(cron, "15 04 * * * '\(dir.path)/prefix/bin/pins' import --quiet --nice\n")
        let command = cron.split(separator: " ", maxSplits: 5).last.map(String.init) ?? ""
        let home = dir.appendingPathComponent("home")
        let cronRun = try CLI.run(["-c", command], environment: ["HOME": home.path, "PINS_DATA_DIR": "", "XDG_DATA_HOME": ""],
                                  executable: "/bin/sh", cwd: home.deletingLastPathComponent().path)
        XCTAssertEqual(cronRun.status, 0, cronRun.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("nas/pins.sqlite").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: home.path), "the crontab's owner's own database was made")
        // `pins list` by hand: the same database, whatever HOME is.
        let pins = dir.appendingPathComponent("prefix/bin/pins").path
        let byHand = try CLI.run(["stats", "--json"], environment: ["HOME": home.path], executable: pins, cwd: "/")
        XCTAssertEqual(byHand.status, 0, byHand.stderr)
        let stats = try XCTUnwrap(try CLI.json(byHand.stdout) as? [String: Any])
        let totals = try XCTUnwrap(stats["totals"] as? [String: Any], byHand.stdout)
        XCTAssertGreaterThan(try XCTUnwrap(totals["pins"] as? Int), 0, byHand.stdout)
        // $PINS_DB beats the file, --db beats both.
        let other = dir.appendingPathComponent("other.sqlite").path
        for (arguments, environment) in [(["stats"], ["PINS_DB": other]), (["stats", "--db", other], ["PINS_DB": dir.appendingPathComponent("nas/pins.sqlite").path])] {
            let missing = try CLI.run(arguments, environment: environment, executable: pins, cwd: "/")
            XCTAssertEqual(missing.status, 1)
            XCTAssertTrue(missing.stderr.contains("there is no database at \(other)"), missing.stderr)
        }
        // A dry run of the nightly form reads the settings too.
        XCTAssertEqual(try CLI.run(["import", "--dry-run", "--quiet"], executable: pins, cwd: "/").status, 0)

        // As root without --db: the system service's StateDirectory, written out for cron and pins.
        let printed = try install(["/opt/pins", "--library", library.path, "--print-units"], cwd: dir)
        XCTAssertTrue(printed.stdout.contains("# --- /opt/pins/etc/pins.conf ---\n"), printed.stdout)
        XCTAssertTrue(printed.stdout.contains("\nPINS_DB=/var/lib/pins/pins.sqlite\n"), printed.stdout)
        XCTAssertTrue(printed.stdout.contains("\nStateDirectory=pins\n"), printed.stdout)
        let usr = try install(["/usr", "--library", library.path, "--print-units"], cwd: dir)
        XCTAssertTrue(usr.stdout.contains("\nEnvironmentFile=/etc/pins.conf\n"), usr.stdout)
        // A named user instead of a DynamicUser; a group to read a shared library.
        let named = try install(["/opt/pins", "--library", library.path, "--user", "photos", "--group", "users", "--print-units"], cwd: dir)
        XCTAssertTrue(named.stdout.contains("\nUser=photos\n") && named.stdout.contains("\nSupplementaryGroups=users\n"), named.stdout)
        XCTAssertFalse(named.stdout.contains("DynamicUser"), named.stdout)
    }
}

/// pins.conf as pins reads it (issue 24 item 1): parsed, never run; a line it cannot read is an
/// error naming the file and the line.
final class SettingsFileTests: XCTestCase {
    func settings(_ text: String, in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("pins.conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testGoodFileGivesTheDatabaseAndTheLibrary() throws {
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("my photos")
        try CLI.generateLibrary(at: library.path, files: 20)
        let db = dir.appendingPathComponent("db dir/pins.sqlite")
        try FileManager.default.createDirectory(at: db.deletingLastPathComponent(), withIntermediateDirectories: true)
        let page = dir.appendingPathComponent("pins.html")
        let conf = try settings("# pins\n\n   # indented comment\nPINS_DB=\(db.path)\nPINS_LIBRARY=\(library.path)\nPINS_PAGE=\(page.path)", in: dir)
        // A dry run writes no page.
        let dry = try CLI.run(["import", "--dry-run", "--json"], environment: ["PINS_CONFIG": conf, "PINS_DB": ""])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: page.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: db.path))
        // A folder given by hand: no page either.
        let byHand = try CLI.run(["import", library.path, "--quiet"], environment: ["PINS_CONFIG": conf, "PINS_DB": ""])
        XCTAssertEqual(byHand.status, 0, byHand.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: db.path), "PINS_DB of the file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: page.path))
        // The nightly form: the library and the page of the file.
        let nightly = try CLI.run(["import", "--quiet"], environment: ["PINS_CONFIG": conf, "PINS_DB": ""])
        XCTAssertEqual(nightly.status, 0, nightly.stderr)
        let html = try String(contentsOf: page, encoding: .utf8)
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>") || html.hasPrefix("<!doctype html>"), String(html.prefix(80)))
        XCTAssertEqual(nightly.stdout, "", "--quiet: nothing but errors (cron mails any output)")
        // Issue 40, item 16: without --quiet, the run says in one line where the page went.
        let told = try CLI.run(["import"], environment: ["PINS_CONFIG": conf, "PINS_DB": ""])
        XCTAssertEqual(told.status, 0, told.stderr)
        XCTAssertTrue(told.stdout.hasSuffix("\nWrote the map page \(page.path) (PINS_PAGE)\n"), told.stdout)
        // Neither a folder nor PINS_LIBRARY: a usage error that says where to set it.
        let none = try settings("PINS_DB=\(db.path)\n", in: dir)
        let missing = try CLI.run(["import"], environment: ["PINS_CONFIG": none, "PINS_DB": ""])
        XCTAssertEqual(missing.status, 64)
        XCTAssertTrue(missing.stderr.contains("PINS_LIBRARY"), missing.stderr)
    }

    func testBadLinesAreErrorsNamingFileAndLine() throws {
        let dir = try CLI.temporaryDirectory(self)
        let marker = dir.appendingPathComponent("ran").path
        let cases: [(String, String)] = [
            ("PINS_DB=$(touch \(marker))", "line 2: '$' in the value of PINS_DB"),
            ("PINS_DB=`touch \(marker)`", "line 2: '`' in the value of PINS_DB"),
            ("PINS_DB=\"/srv/pins.sqlite\"", "line 2: '\"' in the value of PINS_DB"),
            ("export PINS_DB=/srv/pins.sqlite", "line 2: no 'export'"),
            ("PINS_DB = /srv/pins.sqlite", "line 2: no space around '=': write PINS_DB=/srv/pins.sqlite"),
            ("PINS_BD=/srv/pins.sqlite", "line 2: unknown setting 'PINS_BD'; did you mean PINS_DB?"),
            ("PINS_DB=pins.sqlite", "line 2: PINS_DB must be an absolute path"),
            ("PINS_DB=/a\nPINS_DB=/b", "line 3: PINS_DB is set already on line 2"),
            ("PINS_DB=/srv/pins.sqlite\r", "line 2: a carriage return"),
            ("touch \(marker)", "line 2: expected KEY=VALUE"),
            ("  PINS_DB=/srv/pins.sqlite", "line 2: a setting starts at the start of its line"),
            ("PINS_DB=/srv/pins.sqlite ", "line 2: spaces after the value of PINS_DB"),
        ]
        for (line, message) in cases {
            let conf = try settings("# pins\n" + line + "\n", in: dir)
            let run = try CLI.run(["list"], environment: ["PINS_CONFIG": conf, "PINS_DB": ""])
            XCTAssertEqual(run.status, 1, line)
            XCTAssertTrue(run.stderr.hasPrefix("pins list: \(conf), \(message)"), "\(line)\n\(run.stderr)")
            // Even when the environment names the database, and for a dry run.
            let dry = try CLI.run(["import", dir.path, "--dry-run"], environment: ["PINS_CONFIG": conf, "PINS_DB": "/srv/x.sqlite"])
            XCTAssertEqual(dry.status, 1, line)
            XCTAssertTrue(dry.stderr.contains("\(conf), line "), dry.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "a line of the settings file was run")
        let notUTF8 = dir.appendingPathComponent("latin1.conf")
        try Data("PINS_DB=/caf\u{E9}".data(using: .isoLatin1)!).write(to: notUTF8)
        let latin = try CLI.run(["list"], environment: ["PINS_CONFIG": notUTF8.path])
        XCTAssertEqual(latin.stderr, "pins list: \(notUTF8.path), line 1: not UTF-8 text\n")
        let absent = try CLI.run(["list"], environment: ["PINS_CONFIG": dir.appendingPathComponent("none.conf").path])
        XCTAssertEqual(absent.status, 1)
        XCTAssertTrue(absent.stderr.contains("none.conf (PINS_CONFIG): No such file or directory"), absent.stderr)
    }
}
