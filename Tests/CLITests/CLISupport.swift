import Foundation
import TestSupport
import XCTest

/// Runs the built `pins` binary (next to this test bundle) the way a user does.
struct Run {
    let status: Int32
    let stdout: String
    let stderr: String
}

enum CLI {
    /// Thrown after an XCTFail that says what went wrong, to end the test there.
    enum Failure: Error { case setup }

    static let repo = Repository.root

    /// A build folder has no share/pins beside the binary: every pins the tests start, through
    /// `run` or their own Process, reads the checkout's data (unless the caller set one).
    static let dataDirectory: String = {
        let dir = repo.appendingPathComponent("Resources").path
        setenv("PINS_DATA_DIR", dir, 0)
        return ProcessInfo.processInfo.environment["PINS_DATA_DIR"] ?? dir
    }()

    static var binary: String {
        _ = dataDirectory
        if let override = ProcessInfo.processInfo.environment["PINS_BIN"] { return override }
        // swift test puts the test bundle and the executable in the same build folder.
        let bundle = Bundle.main.bundleURL.path.hasSuffix(".xctest") ? Bundle.main.bundleURL : URL(fileURLWithPath: CommandLine.arguments[0])
        var dir = bundle.deletingLastPathComponent()
        for _ in 0..<3 where !FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("pins").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("pins").path
    }

    /// The binary and the data files, linked (or copied) into `folder` (made readable by all):
    /// a test that runs pins as another user (`setpriv` to nobody) must not depend on the
    /// checkout being readable by that user — a clean clone in a 0700 folder (`mktemp -d`) is not.
    static func readableByAll(in folder: URL) throws -> (binary: String, data: String) {
        let fm = FileManager.default
        let bin = folder.appendingPathComponent("pins-bin"), data = folder.appendingPathComponent("pins-data")
        for dir in [bin, data] {
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
            chmod(dir.path, 0o755)
        }
        // A hard link is the source's own inode, mode and all: only a file already open to all is
        // linked (a chmod through the link would change the checkout's file); the others are copied.
        func place(_ source: String, _ target: URL, _ mode: mode_t) throws {
            if fm.fileExists(atPath: target.path) { return }
            var status = stat()
            if stat(source, &status) == 0, status.st_mode & mode == mode, link(source, target.path) == 0 { return }
            try fm.copyItem(atPath: source, toPath: target.path)
            chmod(target.path, mode)
        }
        try place(binary, bin.appendingPathComponent("pins"), 0o755)
        for name in try fm.contentsOfDirectory(atPath: dataDirectory) {
            try place(dataDirectory + "/" + name, data.appendingPathComponent(name), 0o644)
        }
        return (bin.appendingPathComponent("pins").path, data.path)
    }

    @discardableResult
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
                    executable: String? = nil, cwd: String? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? binary)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["PINS_DB"] = nil
        env["PINS_DATA_DIR"] = dataDirectory
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.currentDirectoryURL = URL(fileURLWithPath: cwd ?? repo.path)
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        // Read both pipes fully before waiting, so a large output cannot block the child.
        final class Box: @unchecked Sendable { var data = Data() }
        let errBox = Box()
        let group = DispatchGroup()
        group.enter()
        let errHandle = err.fileHandleForReading
        DispatchQueue.global().async {
            errBox.data = errHandle.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        let errData = errBox.data
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                   stderr: String(decoding: errData, as: UTF8.self))
    }

    /// The JSON island `id` of a page pins wrote (`<script type="application/json" id=...>`).
    static func island(_ html: String, _ id: String) throws -> Any {
        let start = try XCTUnwrap(html.range(of: "<script type=\"application/json\" id=\"\(id)\">"))
        let end = try XCTUnwrap(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        return try json(String(html[start.upperBound..<end.lowerBound]))
    }

    /// A library of `files` small photos made by scripts/gen-library at `path`.
    static func generateLibrary(at path: String, files: Int) throws {
        let generate = Process()
        generate.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        generate.arguments = ["python3", repo.appendingPathComponent("scripts/gen-library").path, path, "--files", String(files), "--small"]
        generate.standardError = FileHandle.nullDevice
        try generate.run()
        generate.waitUntilExit()
    }

    /// `exiftool -q -overwrite_original ARGS` (Debian's libimage-exiftool-perl, which
    /// scripts/setup installs); the test fails when exiftool does.
    static func exiftool(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        p.arguments = ["-q", "-overwrite_original"] + args
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "exiftool \(args)", file: file, line: line)
    }

    /// A photo `name` in `dir` taken at `utc` ("2024:05:01 10:00:00", written by exiftool as
    /// DateTimeOriginal with OffsetTimeOriginal +00:00), at `position` (latitude, longitude;
    /// negative is south or west) when given, else with no position: a fixture JPEG
    /// (ImageMagick's pixels) that has none of its own. The phone and camera photos of the
    /// estimate and sidecar tests.
    static func datedPhoto(_ dir: URL, _ name: String, _ utc: String, _ position: (Double, Double)? = nil,
                           file: StaticString = #filePath, line: UInt = #line) throws {
        let path = dir.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: repo.appendingPathComponent("Fixtures/tracks/local/new-york-between-fixes.jpg").path,
                                         toPath: path)
        var args = ["-DateTimeOriginal=\(utc)", "-OffsetTimeOriginal=+00:00"]
        if let (lat, lon) = position {
            args += ["-GPSLatitude=\(abs(lat))", "-GPSLatitudeRef=\(lat < 0 ? "S" : "N")",
                     "-GPSLongitude=\(abs(lon))", "-GPSLongitudeRef=\(lon < 0 ? "W" : "E")"]
        }
        try exiftool(args + [path], file: file, line: line)
    }

    /// A fresh folder removed after the test.
    static func temporaryDirectory(_ testCase: XCTestCase) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        testCase.addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    /// The id `pins add` printed: the value of its first row ("id  UUID", as `pins show`).
    static func addedID(_ run: Run) -> String {
        let first = run.stdout.split(separator: "\n").first.map(String.init) ?? ""
        return first.hasPrefix("id ") ? first.dropFirst(3).trimmingCharacters(in: .whitespaces) : first
    }

    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }
}

/// Another process (Python's sqlite3) holding the write lock of the database at `path` for up
/// to `seconds`; returns once the lock is held. Terminate it to let go.
func holdDatabase(_ path: String, seconds: Int) throws -> Process {
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    holder.arguments = ["python3", "-c", """
        import sqlite3, sys, time
        c = sqlite3.connect(sys.argv[1], isolation_level=None)
        c.execute('BEGIN EXCLUSIVE')
        print('held', flush=True)
        time.sleep(\(seconds))
        """, path]
    let out = Pipe()
    holder.standardOutput = out
    try holder.run()
    XCTAssertTrue(String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("held"))
    return holder
}
