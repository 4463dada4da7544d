import Foundation
import TestSupport
import XCTest

/// The rules of the house that a reading of the sources can check (issue 35 item 6): only the
/// executables' entry points end the process, only PinData opens the data files, and every
/// document a comment cites is in the repository; the photo import and import-places import
/// neither each other nor the page (item 4); the grammars and format readers import nothing
/// above them (item 3). Each rule is also proved able to fail, on a
/// line made for it.
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

    /// The Markdown documents `lines` names (`docs/formats.md`, `THREADS.md`), with their line,
    /// but paths of the installed package (`share/doc/pins/README.md`).
    static func citedDocuments(_ lines: [String]) -> [(line: Int, name: String)] {
        let name = try! NSRegularExpression(pattern: #"[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b"#)
        return lines.indices.flatMap { i in
            name.matches(in: lines[i], range: NSRange(lines[i].startIndex..., in: lines[i])).compactMap { match in
                let cited = String(lines[i][Range(match.range, in: lines[i])!])
                return cited.hasPrefix("share/") ? nil : (i, cited)
            }
        }
    }

    /// Where a cited document may be: a path from the repository's root, or a bare name beside
    /// the citing file, in docs/, in Resources/ or at the root.
    static func resolves(_ cited: String, from folder: URL) -> Bool {
        let root = Repository.url("")
        let places = cited.contains("/") ? [root.appendingPathComponent(cited)]
            : [folder, root.appendingPathComponent("docs"), root.appendingPathComponent("Resources"), root].map { $0.appendingPathComponent(cited) }
        return places.contains { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// A comment that cites a document a reader of the repository cannot open is a comment that
    /// cannot be checked: the code's own reference is docs/ (docs/formats.md for the readers).
    func testEveryDocumentACommentCitesIsInTheRepository() throws {
        var missing: [String] = []
        let root = Repository.url("Sources")
        for (path, lines) in try sources() {
            let folder = root.appendingPathComponent(path).deletingLastPathComponent()
            missing += Self.citedDocuments(lines).filter { !Self.resolves($0.name, from: folder) }.map { "Sources/\(path):\($0.line + 1): \($0.name)" }
        }
        XCTAssertEqual(missing, [], "cite a document of this repository (docs/), or write there what the code relies on")
    }

    /// The types of `lines` marked `@unchecked Sendable` (`final class Name: @unchecked Sendable`,
    /// `struct Name<T>: P, @unchecked Sendable`).
    static func uncheckedSendables(_ lines: [String]) -> [(line: Int, name: String)] {
        let declaration = try! NSRegularExpression(pattern: #"(class|struct|enum)\s+([A-Za-z_][A-Za-z0-9_]*)[^{]*@unchecked\s+Sendable"#)
        return lines.indices.compactMap { i in
            let code = lines[i].components(separatedBy: "//")[0]
            guard let match = declaration.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) else { return nil }
            return (i, String(code[Range(match.range(at: 2), in: code)!]))
        }
    }

    /// A type that vouches for its own thread safety says why, in the table of
    /// Sources/PinApp/THREADS.md (issue 35 item 5): a new one cannot go in unexplained.
    func testEveryUncheckedSendableIsExplainedInTHREADS() throws {
        let threads = try String(contentsOf: Repository.url("Sources/PinApp/THREADS.md"), encoding: .utf8)
        var unexplained: [String] = []
        for (path, lines) in try sources() {
            unexplained += Self.uncheckedSendables(lines).filter { !threads.contains("`\($0.name)`") }.map { "Sources/\(path):\($0.line + 1): \($0.name)" }
        }
        XCTAssertEqual(unexplained, [], "add a row for each to Sources/PinApp/THREADS.md, with its reason, or make it Sendable (a Mutex)")
    }

    /// The modules a file imports (`import X`, `@testable import X`), in order.
    static func importedModules(_ lines: [String]) -> [String] {
        lines.compactMap { line in
            let words = line.split(separator: " ")
            guard let i = words.firstIndex(of: "import"), i + 1 < words.count, words[..<i].allSatisfy({ $0.hasPrefix("@") }) else { return nil }
            return String(words[i + 1])
        }
    }

    /// PinImport imports photos and PinPlaces places (issue 35 item 4): neither needs the other,
    /// and neither draws the page (PinApp, their caller, builds a run's overlay), so no file of
    /// theirs imports the other, PinReport or PinApp. Package.swift declares their dependencies;
    /// this reads the files themselves.
    func testTheImportsImportNeitherEachOtherNorThePage() throws {
        let barred = ["PinImport/": ["PinPlaces", "PinReport", "PinApp"], "PinPlaces/": ["PinImport", "PinReport", "PinApp"]]
        var found: [String] = [], seen: Set<String> = []
        for (path, lines) in try sources() {
            guard let rule = barred.first(where: { path.hasPrefix($0.key) }) else { continue }
            seen.insert(rule.key)
            found += Self.importedModules(lines).filter(rule.value.contains).map { "Sources/\(path): import \($0)" }
        }
        XCTAssertEqual(seen, Set(barred.keys), "both modules are there")
        XCTAssertEqual(found, [], "what both need goes below them (PinCore, PinStore); the page's part goes to PinApp")
    }

    /// The grammars are written once, below every reader of text (issue 35 item 3): PinGrammar
    /// imports no module of pins, PinFormats only PinGrammar, so PinCore and PinMetadata can
    /// use them (Package.swift makes both depend on PinFormats) and nothing of them is copied
    /// back up. This reads the files themselves.
    func testTheGrammarsAndTheFormatReadersSitBelowTheApp() throws {
        let allowed = ["PinGrammar/": ["Foundation", "Glibc", "Darwin"],
                       "PinFormats/": ["Foundation", "Glibc", "Darwin", "PinGrammar", "CZlib"]]
        var found: [String] = [], seen: Set<String> = []
        for (path, lines) in try sources() {
            guard let rule = allowed.first(where: { path.hasPrefix($0.key) }) else { continue }
            seen.insert(rule.key)
            found += Self.importedModules(lines).filter { !rule.value.contains($0) }.map { "Sources/\(path): import \($0)" }
        }
        XCTAssertEqual(seen, Set(allowed.keys), "both modules are there")
        XCTAssertEqual(found, [], "what a grammar needs goes into PinGrammar or PinFormats, not above them")
    }

    /// The command line only parses, calls the application layer and prints (issue 35 item 1):
    /// no file of Sources/pins opens the database or a SQLite file itself (PinStore, CSQLite).
    /// ServeCommand opened the --basemap file with PinStore's MBTiles until PinApp.basemap.
    func testTheCommandLineReachesTheDatabaseOnlyThroughTheApplicationLayer() throws {
        var found: [String] = [], seen = 0
        for (path, lines) in try sources() where path.hasPrefix("pins/") {
            seen += 1
            found += Self.importedModules(lines).filter { ["PinStore", "CSQLite"].contains($0) }.map { "Sources/\(path): import \($0)" }
        }
        XCTAssertGreaterThan(seen, 10, "the command line's files are there")
        XCTAssertEqual(found, [], "call a use case of PinApp; what it returns is printed here")
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
        XCTAssertEqual(Self.importedModules(["import Foundation", "@testable import PinCore", "// import PinReport",
                                             "let important = 1", "@_spi(X) @testable import PinStore"]),
                       ["Foundation", "PinCore", "PinStore"])
        let cited = Self.citedDocuments(["/// (metadata-formats.md section 7)", "// docs/formats.md 9.1 and THREADS.md",
                                         "/// share/doc/pins/README.md", "let x = a.md5"])
        XCTAssertEqual(cited.map { "\($0.line):\($0.name)" }, ["0:metadata-formats.md", "1:docs/formats.md", "1:THREADS.md"])
        XCTAssertEqual(Self.uncheckedSendables(["final class A: @unchecked Sendable {", "private struct B<T>: P, @unchecked Sendable {",
                                                 "final class C: Sendable {", "// class D: @unchecked Sendable"]).map(\.name), ["A", "B"])
        let pinApp = Repository.url("Sources/PinApp")
        XCTAssertFalse(Self.resolves("metadata-formats.md", from: pinApp))
        XCTAssertTrue(Self.resolves("docs/formats.md", from: pinApp))
        XCTAssertTrue(Self.resolves("THREADS.md", from: pinApp))
        XCTAssertFalse(Self.resolves("THREADS.md", from: Repository.url("Sources/PinCore")))
    }
}
