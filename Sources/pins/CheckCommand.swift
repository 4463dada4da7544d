import Foundation
import PinStore

let checkSpec = CommandSpec(
    name: "check", summary: "Check the database file for damage and wrong counts; --repair saves what can be read.",
    usage: "check [--repair] [--db FILE]",
    options: [
        OptionSpec(name: "--repair", value: nil, help: "Copy every row that can still be read into a new file, recount, and put it in place; the damaged file is kept beside it."),
        dbOption,
    ],
    details: """
    Without --repair nothing is written. The check is SQLite's integrity_check, then a recount
    of every country, city and mountain from the pins. The repair reads each table row by row
    (rows on damaged pages are lost), rebuilds the indexes, makes the counts true again and
    keeps the damaged file as FILE.damaged-DATE.

    Exit codes: 0 the file is sound (or was repaired); 1 it is damaged or its counts disagree
    (or the repair failed); 75 an import is using the database.
    """)

func runCheck(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "check") }
    let deps = try AppDependencies(databaseOption: args.value("--db"))
    let path = deps.databasePath
    guard FileManager.default.fileExists(atPath: path) else {
        throw CommandFailure("there is no database at \(path): check --db or PINS_DB")
    }
    if !args.has("--repair") {
        let problems: [String]
        do {
            problems = try DatabaseCheck.problems(path: path)
        } catch let error as StorageError {
            throw CommandFailure(error.description)
        }
        guard !problems.isEmpty else {
            Out.print("\(path): ok")
            return
        }
        Out.print("\(path): \(problems.count) problem\(problems.count == 1 ? "" : "s")")
        for problem in problems { Out.print("  " + problem) }
        throw CommandFailure("'pins check --repair --db \(path)' saves what can be read into a new file and keeps this one")
    }
    // No import may write while the file is copied and swapped.
    let lock: RunLock
    do {
        lock = try RunLock(databasePath: path)
    } catch let failure as RunLock.Failure {
        if case .busy = failure { throw CommandFailure(failure.description, code: ExitCode.busy) }
        throw CommandFailure(failure.description)
    }
    let repair: DatabaseCheck.Repair
    do {
        repair = try withExtendedLifetime(lock) { try DatabaseCheck.repair(path: path) }
    } catch let error as StorageError {
        throw CommandFailure("the repair failed, nothing was changed: \(error)")
    }
    Out.print("Repaired \(path); the damaged file is kept as \(repair.damagedKeptAt)")
    for table in repair.tables {
        Out.print("  \(table.table): \(table.rows) row\(table.rows == 1 ? "" : "s")\(table.complete ? "" : " (a damaged part could not be read: rows on it are lost)")")
    }
    if !repair.remaining.isEmpty {
        Out.print("Still disagreeing:")
        for problem in repair.remaining { Out.print("  " + problem) }
    }
}
