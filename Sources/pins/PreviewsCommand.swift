import Foundation
import PinCore
import PinApp
import PinImport

let previewsSpec = CommandSpec(
    name: "previews", summary: "Make the previews the pins' photos lack, and say per kind which have one and why not.",
    usage: "previews [--cache DIR] [--cache-max MB] [--max N] [--nice] [--quiet | --json]",
    options: [
        OptionSpec(name: "--cache", value: "DIR", help: "The preview folder (default: 'previews' beside the database)."),
        OptionSpec(name: "--cache-max", value: "MB", help: "The folder's size cap; the least recently used go first (default 1024)."),
        OptionSpec(name: "--max", value: "N", help: "Make at most N previews in this run; the next run makes the rest."),
        OptionSpec(name: "--nice", value: nil, help: "Lower CPU and I/O priority, for the decoders too."),
        OptionSpec(name: "--quiet", value: nil, help: "Print nothing but errors (for the nightly run)."),
        jsonOption,
        dbOption,
    ],
    details: """
        A preview is at most 256 px on its long side, made once per photo version and kept in the
        preview folder, never beside the photos: JPEG, PNG, WebP, TIFF and GIF through
        ImageMagick's convert, HEIC/HEIF/AVIF through libheif's heif-convert, videos through
        ffmpeg (a poster frame), raw files through the largest JPEG inside them. A photo without
        one gets a placeholder that says why: no decoder on this machine (named once), the
        decoder could not read it, the file is missing, or a raw file with no JPEG inside that a
        browser shows; a video's placeholder also says how long it is.

        The nightly run of 'pins serve --import-at' runs 'pins previews --max 2000 --nice
        --quiet' after its import, when the import ran: a night with nothing new makes none.

        Example:
          pins previews --json
        """)

func runPreviews(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "previews") }
    let deps = try AppDependencies(databaseOption: args.value("--db"))
    let megabytes = try args.int("--cache-max", range: 1...1_000_000) ?? 1024
    let cache = PreviewCache(folder: args.value("--cache") ?? deps.app.defaultPreviewFolder, capBytes: Int64(megabytes) << 20)
    let limit = try args.int("--max", range: 1...10_000_000)
    if args.has("--quiet") && args.has("--json") { throw UsageError("--quiet and --json exclude each other", command: "previews") }
    if args.has("--nice") { ImportProcess.lowerPriority { Out.error("pins previews: --nice: \($0)") } }
    let summary = try deps.app.makePreviews(cache: cache, limit: limit)
    for tool in summary.missingTools {
        Out.error("pins previews: \(tool) is not on this machine: the photos that need it get a placeholder")
    }
    if args.has("--quiet") { return }
    if args.has("--json") {
        func counts(_ c: PreviewCounts) -> [String: Any] {
            ["photos": c.photos, "previews": c.previews,
             "placeholders": Dictionary(uniqueKeysWithValues: c.placeholders.map { ($0.key.rawValue, $0.value) })]
        }
        var object = counts(summary.total)
        object["kinds"] = Dictionary(uniqueKeysWithValues: summary.kinds.map { ($0.key.rawValue, counts($0.value)) })
        object["made"] = summary.made
        object["left"] = summary.left
        object["cache"] = summary.cacheFolder
        object["cacheBytes"] = summary.cacheBytes
        object["missingDecoders"] = summary.missingTools
        Out.print(Out.json(object))
        return
    }
    let rows = summary.kinds.keys.sorted().map { kind -> [String] in
        let c = summary.kinds[kind]!
        let why = c.placeholders.keys.sorted().map { reason -> String in
            let tool = reason == .noDecoder ? summary.missingTool[kind].map { " (\($0))" } ?? "" : ""
            return "\(c.placeholders[reason]!) \(reason.words)\(tool)"
        }.joined(separator: ", ")
        return [kind.rawValue, String(c.photos), String(c.previews), why.isEmpty ? "-" : why]
    }
    if !rows.isEmpty { Out.print(Out.table(["KIND", "PHOTOS", "PREVIEWS", "PLACEHOLDERS"], rows)) }
    Out.print("\(summary.total.previews) of \(summary.total.photos) photos have a preview; \(summary.made) made now; "
              + "\(summary.cacheFolder) holds \(summary.cacheBytes / 1024) KiB")
    if summary.left > 0 { Out.print("\(summary.left) more photos get theirs at the next run (--max \(limit ?? 0))") }
}
