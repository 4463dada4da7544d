import Foundation
import TestSupport
import XCTest

/// The rules of the house that a reading of the sources can check (issue 35 item 6): only the
/// executables' entry points end the process, and only PinData opens the data files. Each rule
/// is also proved able to fail, on a line made for it.
final class LayerRulesTests: XCTestCase {
    /// The executables' own files: an entry point exits with the code its errors say.
    static let entryPoints: Set<String> = ["pins/main.swift", "pins-bench/main.swift", "build-country-index/main.swift",
                                           "embed-files/main.swift"]
    /// The data files pins ships (Resources/, share/pins when installed).
    static let dataFileNames = #"(Countries|Places|Regions|TimeZones|WorldMap)\.(bin|json|geojson)"#

    /// Every Swift file below Sources/, as (path relative to Sources/, lines).
    private func sources() throws -> [(path: String, lines: [String])] {
        let root = Repository.url("Sources")
        let paths = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return try paths.filter { $0.hasSuffix(".swift") }.sorted().map { path in
            (path, try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8).components(separatedBy: "\n"))
        }
    }

    /// The lines of `lines` that end the process (`exit(`, `_exit(`) without saying why: a
    /// comment with "exit allowed:" on the line or on one of the three before it.
    static func unexplainedExits(_ lines: [String]) -> [Int] {
        let call = try! NSRegularExpression(pattern: #"(^|[^A-Za-z0-9_])_?exit\("#)
        return lines.indices.filter { i in
            let code = lines[i].components(separatedBy: "//")[0]
            guard call.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil else { return false }
            return !lines[max(0, i - 3)...i].contains { $0.contains("exit allowed:") }
        }
    }

    /// The lines of `lines` that read a data file by name (`.read("Places.bin")`, `.map(...)`,
    /// `.path(...)`, `open("...")`).
    static func dataFileReads(_ lines: [String]) -> [Int] {
        let read = try! NSRegularExpression(pattern: #"(\.read|\.map|\.path|open|contentsOf(File)?:?)\(?\s*"[^"]*"# + dataFileNames + "\"")
        return lines.indices.filter { read.firstMatch(in: lines[$0], range: NSRange(lines[$0].startIndex..., in: lines[$0])) != nil }
    }

    func testOnlyTheEntryPointsEndTheProcess() throws {
        var found: [String] = []
        for (path, lines) in try sources() where !Self.entryPoints.contains(path) {
            found += Self.unexplainedExits(lines).map { "Sources/\(path):\($0 + 1): \(lines[$0].trimmingCharacters(in: .whitespaces))" }
        }
        XCTAssertEqual(found, [], "a library throws an ExitStatusError; main.swift turns it into the exit code")
    }

    func testOnlyPinDataReadsTheDataFiles() throws {
        var found: [String] = []
        // pins-bench measures the load of each file by name, through DataFiles (PinData) still.
        for (path, lines) in try sources() where !path.hasPrefix("PinData/") && !path.hasPrefix("pins-bench/") {
            found += Self.dataFileReads(lines).map { "Sources/\(path):\($0 + 1): \(lines[$0].trimmingCharacters(in: .whitespaces))" }
        }
        XCTAssertEqual(found, [], "a data file is read through a DataFiles loader (Sources/PinData)")
    }

    /// The two checks catch what they are for, and let through what they must.
    func testTheChecksCanFail() {
        XCTAssertEqual(Self.unexplainedExits(["    exit(1)", "if bad { _exit(2) }", "Foundation.exit(3)", "// exit(4) in a comment",
                                             "pins_server_exit(server)", "// exit allowed: a signal handler", "_exit(5)"]),
                       [0, 1, 2])
        XCTAssertEqual(Self.dataFileReads(["let b = try data.read(\"WorldMap.json\")", "try files.map(\"Places.bin\")",
                                           "let t = \"Countries.bin\" // a help text", "try data.worldMapJSON()",
                                           "Data(contentsOf: \"/x/TimeZones.bin\")"]),
                       [0, 1, 4])
    }
}
