import Foundation
@testable import PinCore
import TestSupport
import XCTest

/// Pin types are one concept (issue 35 item 2): `LocationTypeSelection` in
/// Sources/PinCore/Domain/LocationType.swift declares them, and every list of them a person
/// sees is made from it. A list typed by hand elsewhere is the place a new type would be
/// forgotten (docs/adding-a-pin-type.md).
final class PinTypeRegistryTests: XCTestCase {
    /// The registry itself, and the schema's history: a migration is the schema of its version
    /// as it was written (a new type writes a new migration, it does not edit an old one).
    static let allowed: Set<String> = ["PinCore/Domain/LocationType.swift", "PinStore/Migrations.swift"]

    /// The lines of `lines` whose code (comments aside) names every type of `types`, each by
    /// its name or its plural as a whole word, in any case: a list of the types typed by hand.
    static func handTypedLists(_ lines: [String], types: [(name: String, plural: String)]) -> [Int] {
        let words = types.map { try! NSRegularExpression(pattern: "\\b(\($0.name)|\($0.plural))\\b", options: .caseInsensitive) }
        return lines.indices.filter { i in
            let trimmed = lines[i].trimmingCharacters(in: .whitespaces)
            guard !trimmed.hasPrefix("*"), !trimmed.hasPrefix("/*") else { return false }
            let code = lines[i].components(separatedBy: "//")[0]
            return words.allSatisfy { $0.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil }
        }
    }

    static let registry = LocationTypeSelection.allCases.map { ($0.rawValue, $0.plural) }

    /// The code files of Sources (Swift, and the pages' JavaScript and HTML), by path under
    /// Sources, with their lines.
    static func sourceFiles() throws -> [(path: String, lines: [String])] {
        let root = Repository.url("Sources")
        let paths = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return try paths.sorted().filter { path in [".swift", ".js", ".html"].contains(where: path.hasSuffix) }.map { path in
            (path, try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8).components(separatedBy: "\n"))
        }
    }

    func testNoSourceOutsideTheRegistryTypesTheListOfPinTypes() throws {
        var found: [String] = []
        for (path, lines) in try Self.sourceFiles() where !Self.allowed.contains(path) {
            found += Self.handTypedLists(lines, types: Self.registry).map { "Sources/\(path):\($0 + 1): \(lines[$0].trimmingCharacters(in: .whitespaces))" }
        }
        XCTAssertEqual(found, [], "make the list from LocationTypeSelection.allCases (spoken(), usage, label, plural)")
    }

    /// The check finds the lists pins had before the registry, and lets through a line that
    /// names one type, a comment, and code that derives the list.
    func testTheCheckCanFail() {
        let lines = [#"throw UsageError("--type must be point, city or mountain, got '\(text)'")"#,
                     #"usage: "add [--type point|city|mountain]","#,
                     #"const TYPES = [["point", "Point"], ["city", "City"], ["mountain", "Mountain"]];"#,
                     #"var text = "Pins: (points \(a), cities \(b), mountains \(c)""#,
                     #"case let .mountain(visit): return visit.mountainName"#,
                     #"/// the shared cities and mountains the pins point at"#,
                     #"  * a point, a city or a mountain"#,
                     #"throw UsageError("--type must be \(LocationTypeSelection.spoken()), got '\(text)'")"#]
        XCTAssertEqual(Self.handTypedLists(lines, types: Self.registry), [0, 1, 2, 3])
        // A fourth type in the registry makes the old three-type lists pass (they no longer
        // name every type) but finds the lists that name all four.
        let withLake = Self.registry + [("lake", "lakes")]
        XCTAssertEqual(Self.handTypedLists(lines + ["point, city, mountain or lake"], types: withLake), [8])
    }

    /// The files of Sources whose code (comment lines aside) names the mountain, the guide's
    /// model type: where a new type must be named too, as docs/adding-a-pin-type.md says.
    static func filesNamingTheMountain() throws -> Set<String> {
        Set(try sourceFiles().filter { _, lines in
            lines.contains { line in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                return !["//", "*", "/*"].contains(where: trimmed.hasPrefix) && line.range(of: "mountain", options: .caseInsensitive) != nil
            }
        }.map { "Sources/" + $0.path })
    }

    /// The guide is true: its list of the files a new type is named in is every file that
    /// names the mountain, and no other. A mountain branch written in a new file fails here
    /// until the guide lists it; a file freed of its mountain (made to follow the registry)
    /// fails until the guide drops it, and the count it states follows.
    func testTheGuideListsEveryFileANewTypeIsNamedIn() throws {
        let guide = try String(contentsOf: Repository.url("docs/adding-a-pin-type.md"), encoding: .utf8)
        let parts = guide.components(separatedBy: "\n## Every file a new type is named in\n")
        XCTAssertEqual(parts.count, 2, "the guide's section of files")
        let section = parts.last!.components(separatedBy: "\n## ")[0]
        let listed = Set(section.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("- `Sources/") else { return nil }
            return String(line.dropFirst(3).prefix { $0 != "`" })
        })
        let naming = try Self.filesNamingTheMountain()
        XCTAssertEqual(naming.subtracting(listed).sorted(), [], "files that name the mountain and the guide does not list")
        XCTAssertEqual(listed.subtracting(naming).sorted(), [], "files the guide lists that no longer name the mountain")
        XCTAssertTrue(section.contains("these \(naming.count) files"), "the count the guide states")
    }

    /// The lists a person reads, made from the registry, are what pins said before it.
    func testTheListsMadeFromTheRegistry() {
        XCTAssertEqual(LocationTypeSelection.spoken(), "point, city or mountain")
        XCTAssertEqual(LocationTypeSelection.spoken(LocationTypeSelection.sharedTypes), "city or mountain")
        XCTAssertEqual(LocationTypeSelection.spoken([.city]), "city")
        XCTAssertEqual(LocationTypeSelection.spoken(LocationTypeSelection.sharedTypes, plural: true, conjunction: "and"), "cities and mountains")
        XCTAssertEqual(LocationTypeSelection.usage, "point|city|mountain")
        XCTAssertEqual(LocationTypeSelection.allCases.map(\.label), ["Point", "City", "Mountain"])
        XCTAssertEqual(LocationTypeSelection.allCases.map(\.plural), ["points", "cities", "mountains"])
        XCTAssertEqual(LocationTypeSelection.sharedTypes.compactMap(\.shared?.table), ["cities", "mountains"])
    }
}
