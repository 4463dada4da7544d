import Foundation
import PinCore
import PinStore

let runsSpec = CommandSpec(
    name: "runs", summary: "List recent imports: when, which folder, what they did, how they ended.",
    usage: "runs [--limit N] [--json]",
    options: [OptionSpec(name: "--limit", value: "N", help: "How many runs, newest first (default: 20)."), dbOption, jsonOption],
    details: "A run shown as 'interrupted' was killed or lost power; the next import completes its work.")

func runRuns(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "runs") }
    let limit = try args.int("--limit", range: 1...100_000) ?? 20
    let deps = try AppDependencies(databaseOption: args.value("--db"))
    let runs = try deps.databaseForReading().read { try $0.runs.recent(limit: limit) }
    let lockHeld = RunLock.isHeld(databasePath: deps.databasePath)
    func status(_ run: ImportRunRecord) -> String {
        // 'running' in the table but nobody holds the lock: the process is gone.
        run.status == "running" && !lockHeld ? "interrupted" : run.status
    }
    if args.has("--json") {
        Out.print(Out.json(runs.map { run -> [String: Any] in
            ["id": run.id, "root": run.root, "startedAt": ISO8601.format(run.startedAt),
             "finishedAt": orNull(run.finishedAt.map { ISO8601.format($0) }), "status": status(run),
             "exitCode": orNull(run.exitCode), "files": run.files, "photos": run.photos, "created": run.created,
             "skipped": run.skipped]
        }))
        return
    }
    if runs.isEmpty {
        Out.print("No imports yet.")
        return
    }
    let rows = runs.map { run -> [String] in
        let duration = run.finishedAt.map { ProgressPrinter.duration($0.timeIntervalSince(run.startedAt)) } ?? "-"
        let skipped = run.skipped.values.reduce(0, +)
        return [String(run.id), String(ISO8601.format(run.startedAt).prefix(19)), duration, status(run),
                run.exitCode.map(String.init) ?? "-", String(run.files), String(run.created), String(skipped), run.root]
    }
    Out.print(Out.table(["RUN", "STARTED (UTC)", "TOOK", "STATUS", "EXIT", "FILES", "PINS", "SKIPPED", "FOLDER"], rows))
}
