import Foundation
import PinApp
import PinCore

let checkSpec = CommandSpec(
    name: "check", summary: "Check the database file for damage and wrong counts; --repair saves what can be read.",
    usage: "check [--repair] [--db FILE]",
    options: [
        OptionSpec(name: "--repair", value: nil, help: "A damaged file: save what can be read into a new one, keep the old beside it. A sound one: fix wrong counts in place."),
        dbOption,
    ],
    details: """
    Without --repair nothing is written. The check is SQLite's integrity_check, then a recount
    of every country, \(LocationTypeSelection.spoken(LocationTypeSelection.sharedTypes, conjunction: "and")) from the pins. The repair of a damaged file reads each
    table row by row (rows on damaged pages are lost), rebuilds the indexes, makes the counts
    true again and keeps the damaged file as FILE.damaged-DATE. On a sound file --repair only
    makes wrong counts true, in one transaction, and keeps no copy; a sound file whose counts
    agree is left as it is: nothing is written.

    Exit codes: 0 the file is sound (or was repaired); 1 it is damaged or its counts disagree
    (or the repair failed); 75 an import is using the database.
    """)

func runCheck(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "check") }
    let app = try AppDependencies(databaseOption: args.value("--db")).app
    let path = app.databasePath
    let repairing = args.has("--repair")
    let found = try app.examineDatabase(forRepair: repairing)
    if !repairing {
        guard !found.problems.isEmpty else {
            Out.print("\(path): ok")
            return
        }
        Out.print("\(path): \(found.problems.count) problem\(found.problems.count == 1 ? "" : "s")")
        for problem in found.problems { Out.print("  " + problem) }
        throw CommandFailure(found.needsOnlyRecount ? "'pins check --repair --db \(path)' makes the counts true again (the file itself is sound)"
                             : "'pins check --repair --db \(path)' saves what can be read into a new file and keeps this one")
    }
    // A sound file with true counts: nothing to repair, so nothing is written (not even the
    // lock file).
    if found.isWhole {
        Out.print("\(path): ok, the file is sound and its counts agree: nothing to repair, nothing written")
        return
    }
    switch try app.mendDatabase(found, held: holdForTest) {
    case let .recounted(fixed, remaining):
        Out.print("Recounted \(path) in place (the file is sound: no copy kept)")
        for problem in fixed { Out.print("  recounted: " + problem) }
        printRemaining(remaining)
    case let .repaired(repair):
        printRepair(repair, path: path)
    }
}

/// What a repair kept, made again and forgot.
private func printRepair(_ repair: DatabaseRepair, path: String) {
    Out.print("Repaired \(path); the damaged file is kept as \(repair.damagedKeptAt)")
    for table in repair.tables {
        Out.print("  " + describe(table))
    }
    let rebuilt = repair.rebuilt
    let counts: [(Int, String, String)] = [(rebuilt.countries, "country", "countries")]
        + LocationTypeSelection.sharedTypes.map { (rebuilt.sharedPlaces[$0] ?? 0, $0.rawValue, $0.plural) }
    let made = counts
        .filter { $0.0 > 0 }.map { "\($0.0) \($0.0 == 1 ? $0.1 : $0.2)" }
    if !made.isEmpty {
        Out.print("Made again from the pins: \(made.joined(separator: ", ")) (their rows were lost); every pin count recounted")
    }
    if rebuilt.decisionsForgotten > 0 {
        let n = rebuilt.decisionsForgotten
        Out.print("Forgotten: \(n) photo\(n == 1 ? "" : "s") accepted for a pin that was lost; the next import reads \(n == 1 ? "it" : "them") again and decides again")
    }
    printRemaining(repair.remaining)
}

private func printRemaining(_ remaining: [String]) {
    guard !remaining.isEmpty else { return }
    Out.print("Still disagreeing:")
    for problem in remaining { Out.print("  " + problem) }
}

/// Tests only: with PINS_TEST_HOLD_REPAIR=DIR, the repair stops once it holds the database,
/// says so by creating DIR/held, and goes on when DIR/go exists (at most 60 s), so a test can
/// run another writer at a known point of the repair.
private func holdForTest() {
    guard let dir = ProcessInfo.processInfo.environment["PINS_TEST_HOLD_REPAIR"], !dir.isEmpty else { return }
    _ = FileManager.default.createFile(atPath: dir + "/held", contents: Data())
    let deadline = Date().addingTimeInterval(60)
    while !FileManager.default.fileExists(atPath: dir + "/go"), Date() < deadline { usleep(10_000) }
}

/// One table of a repair: what was kept, what was lost.
private func describe(_ table: RepairedTable) -> String {
    var line = "\(table.table): \(table.rows) row\(table.rows == 1 ? "" : "s") kept"
    if table.complete { return line }
    if table.lostBetween > 0 { line += ", \(table.lostBetween) lost on damaged pages" }
    if table.lostAtEnd {
        line += table.rows == 0 && table.lostBetween == 0
            ? "; the table could not be read (damaged pages): its rows are lost, how many is unknown"
            : "; the rest could not be read (damaged pages or a file cut short): how many rows were there is unknown"
    } else if table.lostBetween == 0 {
        line += " (a damaged part could not be read)"
    }
    return line
}
