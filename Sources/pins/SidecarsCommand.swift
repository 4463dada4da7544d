import Foundation
import PinCore
import PinFormats
import PinApp
import PinMetadata

let sidecarsSpec = CommandSpec(
    name: "sidecars", summary: "Write the positions pins found into XMP sidecars, for the other photo apps.",
    usage: "sidecars [--dry-run] [--all] [--json]",
    options: [
        OptionSpec(name: "--dry-run", value: nil, help: "Say what would be written; write nothing."),
        OptionSpec(name: "--all", value: nil, help: "Every photo with a position, not only those pins placed (tracks, estimates)."),
        jsonOption,
        dbOption,
    ],
    details: """
        For each photo whose position pins found (from a --track, or --estimate-positions), and
        with --all for each photo with a position, writes an XMP sidecar beside it with the
        position (exif:GPSLatitude, exif:GPSLongitude) and the place there (photoshop:City,
        photoshop:State, photoshop:Country, Iptc4xmpCore:CountryCode), as Immich, PhotoPrism,
        digiKam, Lightroom and exiftool read them. The sidecar is IMG_0001.JPG.xmp, or the
        IMG_0001.xmp that is there already. The photo files are never written.

        A sidecar that is there is never replaced: pins adds only the properties it lacks, and
        keeps every other byte; a value it holds that differs from pins' stays, and is listed.
        A sidecar that is a symbolic link, or whose folder has become one, is left alone.
        Each file is replaced atomically (a temporary file beside it, then renamed over it);
        a temporary .pins-*.tmp over an hour old, left by a killed run, is removed.
        The run is listed by 'pins runs'; 'pins runs undo N' removes the sidecars it created
        and gives back those it added to, byte for byte, unless they were changed since.
        A folder where a sidecar cannot be written (read-only) is named per file on stderr;
        the others are written, and the exit code is 73.

        Examples:
          pins sidecars --dry-run
          pins sidecars --all
          pins runs undo 12
        """)

func runSidecars(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "sidecars") }
    let deps = try AppDependencies(databaseOption: args.value("--db"))
    let run = try deps.app.writeSidecars(SidecarOptions(dryRun: args.has("--dry-run"), all: args.has("--all")))
    if args.has("--json") {
        Out.print(Out.json(sidecarsJSON(run)))
    } else {
        Out.print(sidecarsText(run, all: args.has("--all")))
    }
    let failed = run.outcomes.filter { $0.action == .failed }
    for outcome in failed {
        Out.error("pins sidecars: cannot write \(TerminalText.quoted(outcome.sidecar ?? outcome.photo)): \(TerminalText.escaped(outcome.problem ?? ""))")
    }
    if !failed.isEmpty {
        throw CommandFailure("\(failed.count) sidecar\(failed.count == 1 ? "" : "s") could not be written (above); "
                             + "the others were", code: ExitCode.cantCreate)
    }
}

/// A property's short name in the text report ("City" for photoshop:City).
private func shortName(_ property: String) -> String {
    switch property {
    case "exif:GPSLatitude": "position"
    case "exif:GPSLongitude": ""
    default: String(property.split(separator: ":").last ?? "")
    }
}

private func sidecarsText(_ run: SidecarRun, all: Bool) -> String {
    let written = run.outcomes.filter { $0.action == .create || $0.action == .add || ($0.action == .failed && $0.sidecar != nil) }
    func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
    let which = all ? "photos with a position" : "photos pins placed"
    guard !run.outcomes.isEmpty else {
        return "No \(which)" + (all ? "." : " (by a --track or --estimate-positions): nothing to write ('--all' writes every photo with a position).")
    }
    let verb = run.dryRun ? "Would write" : "Wrote"
    var text = "\(verb) \(count(run.count(.create) + run.count(.add), "sidecar")) (\(run.count(.create)) new, \(run.count(.add)) added to) "
        + "of \(count(run.outcomes.count, "photo")) \(all ? "with a position" : "pins placed"); \(run.count(.none)) had every property already"
    if run.leftoversRemoved > 0 {
        text += "; removed \(count(run.leftoversRemoved, "temporary file")) an interrupted run of pins left (.pins-*.tmp, over an hour old)"
    }
    if let id = run.runID { text += "\nThis is run \(id): 'pins runs undo \(id)' takes it back." }
    if !written.isEmpty {
        text += "\n" + Out.table(["SIDECAR", "", "PROPERTIES"], written.map { outcome in
            [TerminalText.quoted(outcome.sidecar!), outcome.action == .create ? "new" : outcome.action == .add ? "added" : "failed",
             outcome.added.map(shortName).filter { !$0.isEmpty }.joined(separator: ", ")]
        }).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
    }
    let conflicts = run.outcomes.flatMap { outcome in outcome.conflicts.map { (outcome.sidecar!, $0) } }
    if !conflicts.isEmpty {
        text += "\nKept \(count(conflicts.count, "value")) a sidecar holds already, where pins found another:"
        for (sidecar, conflict) in conflicts {
            text += "\n  \(TerminalText.quoted(sidecar))  \(conflict.name) '\(TerminalText.escaped(conflict.theirs))' (pins: '\(TerminalText.escaped(conflict.ours))')"
        }
    }
    let refused = run.outcomes.filter { $0.action == .refused }
    if !refused.isEmpty {
        text += "\nLeft alone \(count(refused.count, "photo")):"
        for outcome in refused {
            text += "\n  \(TerminalText.quoted(outcome.sidecar ?? outcome.photo))  \(TerminalText.escaped(outcome.problem ?? ""))"
        }
    }
    return text
}

private func sidecarsJSON(_ run: SidecarRun) -> [String: Any] {
    [
        "dryRun": run.dryRun, "run": orNull(run.runID),
        "counts": ["photos": run.outcomes.count, "created": run.count(.create), "added": run.count(.add),
                   "unchanged": run.count(.none), "refused": run.count(.refused), "failed": run.count(.failed),
                   "conflicts": run.conflicts, "leftoverTemporariesRemoved": run.leftoversRemoved],
        "sidecars": run.outcomes.map { outcome -> [String: Any] in
            ["photo": outcome.photo.description, "sidecar": orNull(outcome.sidecar?.description), "action": outcome.action.rawValue,
             "added": outcome.added, "problem": orNull(outcome.problem),
             "conflicts": outcome.conflicts.map { ["property": $0.name, "sidecar": $0.theirs, "pins": $0.ours] }]
        },
    ]
}
