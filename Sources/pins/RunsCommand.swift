import Foundation
import PinCore
import PinFormats
import PinApp
import PinReport

let runsSpec = CommandSpec(
    name: "runs", summary: "List recent imports: when, which folder, what they did, how they ended.",
    usage: "runs [--limit N] [--json] | runs show N [--json] | runs undo N [--dry-run] [--json]",
    options: [
        OptionSpec(name: "--limit", value: "N", help: "How many runs, newest first (default: 20)."),
        OptionSpec(name: "--dry-run", value: nil, help: "undo: say what would be removed, change nothing."),
        dbOption, jsonOption,
    ],
    details: """
        A run shown as 'interrupted' was killed or lost power; the next import completes its work.
        'runs show N' lists the pins run N created and the photos it skipped, with why.
        'runs undo N' removes the pins run N created that you have not edited since, counts their
        countries, \(LocationTypeSelection.spoken(LocationTypeSelection.sharedTypes, plural: true, conjunction: "and")) down, and forgets the run's decisions: the next import decides
        those photos again (the way to retry with another --timezone or threshold). A wanted place
        (a place to go) that a photo of run N marked visited is wanted again, unless edited since.

        Examples:
          pins runs
          pins runs show 3
          pins runs undo 3 --dry-run
        """,
    subcommands: ["show", "undo"])

func runRuns(_ args: ParsedArguments) throws {
    if let action = args.positionals.first {
        guard args.positionals.count == 2, let id = Int64(args.positionals[1]), id > 0 else {
            throw UsageError("'runs \(action)' takes one run number (see 'pins runs')", command: "runs")
        }
        switch action {
        case "show": return try runsShow(id, args)
        case "undo": return try runsUndo(id, args)
        default: throw UsageError("unknown action '\(action)': use 'runs show N' or 'runs undo N'", command: "runs")
        }
    }
    if args.has("--dry-run") { throw UsageError("--dry-run is for 'runs undo N'", command: "runs") }
    let limit = try args.int("--limit", range: 1...100_000) ?? 20
    let runs = try AppDependencies(databaseOption: args.value("--db")).app.runs(limit: limit)
    if args.has("--json") {
        Out.print(Out.json(runs.map { summary -> [String: Any] in
            let run = summary.record
            return ["id": run.id, "root": run.root, "startedAt": ISO8601.format(run.startedAt),
             "finishedAt": orNull(run.finishedAt.map { ISO8601.format($0) }), "status": summary.status.rawValue,
             "exitCode": orNull(run.exitCode), "files": run.files, "photos": run.photos, "created": run.created,
             "skipped": Dictionary(uniqueKeysWithValues: run.skipped.map { ($0.key.rawValue, $0.value) })]
        }))
        return
    }
    if runs.isEmpty {
        Out.print("No imports yet.")
        return
    }
    let rows = runs.map { summary -> [String] in
        let run = summary.record
        let duration = run.finishedAt.map { ProgressPrinter.duration($0.timeIntervalSince(run.startedAt)) } ?? "-"
        let skipped = run.skipped.values.reduce(0, +)
        return [String(run.id), String(ISO8601.format(run.startedAt).prefix(19)), duration, summary.status.rawValue,
                run.exitCode.map(String.init) ?? "-", String(run.files), String(run.created), String(skipped), TerminalText.quoted(RawPath(run.root))]
    }
    Out.print(Out.table(["RUN", "STARTED (UTC)", "TOOK", "STATUS", "EXIT", "FILES", "PINS", "SKIPPED", "FOLDER"], rows))
}

/// `pins runs show N`: the run, the pins it created and the photos it skipped.
private func runsShow(_ id: Int64, _ args: ParsedArguments) throws {
    if args.has("--dry-run") { throw UsageError("--dry-run is for 'runs undo N'", command: "runs") }
    let detail = try AppDependencies(databaseOption: args.value("--db")).app.run(id)
    let (run, pins, skipped) = (detail.record, detail.created, detail.skipped)
    if args.has("--json") {
        Out.print(Out.json([
            "id": run.id, "root": run.root, "status": run.status.rawValue, "startedAt": ISO8601.format(run.startedAt),
            "created": pins.map(locationJSON),
            "skipped": skipped.map { ["photo": $0.path.description, "reason": $0.decision.rawValue, "detail": orNull($0.detail)] as [String: Any] },
        ].merging(detail.files.isEmpty ? [:] : ["files": detail.files.map { ["path": $0.path.description, "created": $0.created] }]) { a, _ in a }))
        return
    }
    var text = "Run \(run.id): \(TerminalText.quoted(RawPath(run.root))), started \(ISO8601.format(run.startedAt)), \(run.status)\n"
    text += "Created \(pins.count) pin\(pins.count == 1 ? "" : "s")"
    if !pins.isEmpty {
        text += ":\n" + Out.table(["ID", "DATE", "CC", "EDITED", "TITLE"], pins.map {
            [String($0.id.lowercasedText.prefix(8)), String(pinDateText($0).prefix(10)), $0.countryID ?? "-",
             $0.editedAt == nil ? "" : "yes", TerminalText.escaped($0.title)]
        }).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
    }
    text += "\nSkipped \(skipped.count) file\(skipped.count == 1 ? "" : "s")"
    if !skipped.isEmpty {
        text += ":\n" + Out.table(["REASON", "FILE", "DETAIL"], skipped.map { [$0.decision.words, TerminalText.quoted($0.path), TerminalText.escaped($0.detail ?? "")] })
            .split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
    }
    // A run of 'pins sidecars': the files it wrote, which 'runs undo' takes back.
    if !detail.files.isEmpty {
        text += "\nWrote \(detail.files.count) file\(detail.files.count == 1 ? "" : "s") beside the photos:"
        for file in detail.files { text += "\n  \(file.created ? "new  " : "added") \(TerminalText.quoted(file.path))" }
    }
    Out.print(text)
}

/// `pins runs undo N [--dry-run]`.
private func runsUndo(_ id: Int64, _ args: ParsedArguments) throws {
    let dryRun = args.has("--dry-run")
    let result = try AppDependencies(databaseOption: args.value("--db")).app.undoRun(id, dryRun: dryRun)
    if args.has("--json") {
        Out.print(Out.json(["run": id, "dryRun": dryRun, "removed": result.removed.map(locationJSON),
                            "kept": result.kept.map(locationJSON), "wantedAgain": result.wantedAgain.map(locationJSON),
                            "restored": result.restored.map(locationJSON), "changedSince": result.changedSince.map(locationJSON),
                            "forgottenPhotos": result.forgottenPhotos].merging(undoneFilesJSON(result.files, leftoversRemoved: result.leftoversRemoved)) { a, _ in a }))
        return
    }
    func pins(_ list: [Location]) -> String {
        list.map { "\n  \($0.id.lowercasedText.prefix(8))  \(TerminalText.escaped($0.title))" }.joined()
    }
    func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
    let verb = dryRun ? "Would remove" : "Removed"
    // A run of 'pins sidecars' made no pin and decided no photo: only its files are said.
    let onlyFiles = !result.files.isEmpty && result.removed.isEmpty && result.kept.isEmpty && result.forgottenPhotos == 0
    var text = onlyFiles ? "Run \(id) wrote files beside the photos." : "\(verb) \(count(result.removed.count, "pin")) of run \(id)" + pins(result.removed)
    if !result.kept.isEmpty { text += "\nKept \(count(result.kept.count, "pin")) edited since:" + pins(result.kept) }
    if !result.wantedAgain.isEmpty {
        text += "\n\(dryRun ? "Would make" : "Made") \(count(result.wantedAgain.count, "place")) the run had marked visited "
            + "wanted again, with the date it had before:" + pins(result.wantedAgain)
    }
    if !result.restored.isEmpty {
        text += "\n\(dryRun ? "Would give" : "Gave") back \(count(result.restored.count, "pin")) the run had changed, as "
            + "\(result.restored.count == 1 ? "it was" : "they were"):" + pins(result.restored)
    }
    if !result.changedSince.isEmpty {
        text += "\nLeft \(count(result.changedSince.count, "pin")) the run had changed as \(result.changedSince.count == 1 ? "it is" : "they are"): "
            + "edited, or changed by a later run, since:" + pins(result.changedSince)
    }
    if !onlyFiles {
        text += "\n\(dryRun ? "Would forget" : "Forgot") \(count(result.forgottenPhotos, "photo decision")): the next import decides those photos again."
    }
    text += undoneFilesText(result.files, dryRun: dryRun)
    if result.leftoversRemoved > 0 {
        text += "\nRemoved \(count(result.leftoversRemoved, "temporary file")) an interrupted run of pins left (.pins-*.tmp, over an hour old)."
    }
    Out.print(text)
    let failed = result.files.filter { $0.action == .failed }
    if !failed.isEmpty {
        throw CommandFailure("\(count(failed.count, "file")) could not be taken back (above); 'pins runs undo \(id)' again tries them again",
                             code: ExitCode.cantCreate)
    }
}

/// The files a run wrote (`pins sidecars`), and the leftover temporaries removed in their
/// folders, for the JSON of its undo: none for an import, so an import's undo prints what it
/// printed before.
private func undoneFilesJSON(_ files: [UndoneFile], leftoversRemoved: Int) -> [String: Any] {
    guard !files.isEmpty else { return [:] }
    return ["files": files.map { ["path": $0.path.description, "action": $0.action.rawValue, "problem": orNull($0.problem)] as [String: Any] },
            "leftoverTemporariesRemoved": leftoversRemoved]
}

private func undoneFilesText(_ files: [UndoneFile], dryRun: Bool) -> String {
    var text = ""
    let groups: [(UndoneFile.Action, String)] = [
        (.removed, dryRun ? "Would remove" : "Removed"), (.restored, dryRun ? "Would give back" : "Gave back"),
        (.changedSince, "Left as they are, changed since the run wrote them,"), (.failed, "Could not take back"),
    ]
    for (action, words) in groups {
        let list = files.filter { $0.action == action }
        guard !list.isEmpty else { continue }
        text += "\n\(words) \(list.count) file\(list.count == 1 ? "" : "s") the run \(action == .removed ? "created" : action == .restored ? "added to" : "wrote"):"
        for file in list {
            text += "\n  \(TerminalText.quoted(file.path))" + (file.problem.map { ": " + TerminalText.escaped($0) } ?? "")
        }
    }
    return text
}
