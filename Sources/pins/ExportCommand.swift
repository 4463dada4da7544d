import Foundation
import PinCore
import PinApp
import PinReport

let exportSpec = CommandSpec(
    name: "export", summary: "Export the pins as GeoJSON, KML, GPX or CSV, for the apps people use.",
    usage: "export --format geojson|kml|gpx|csv [--out FILE] [--countries] [--split N] [--bom] [the filters of list]",
    options: [
        OptionSpec(name: "--format", value: "FORMAT", help: "geojson (RFC 7946), kml (2.2), gpx (1.1) or csv (RFC 4180).",
                   choices: ["geojson", "kml", "gpx", "csv"]),
        OptionSpec(name: "--out", value: "FILE", help: "Write to FILE (replaced whole, never half-written; a link is written through) instead of stdout (-)."),
        OptionSpec(name: "--countries", value: nil, help: "GeoJSON: add the visited countries as polygons with the fill colour."),
        OptionSpec(name: "--split", value: "N", help: "At most N pins per file: FILE-1.kml, FILE-2.kml... (needs --out)."),
        OptionSpec(name: "--bom", value: nil, help: "CSV: start with a UTF-8 byte order mark, for Excel."),
    ] + pinFilterOptions + [dbOption,
        OptionSpec(name: "--json", value: nil, help: "With --out: print what was written as JSON."),
    ],
    details: """
        Takes the filters of 'pins list'. Google My Maps imports at most 2,000 placemarks from one KML file:
        above that, export warns; --split 2000 writes several files.

        Examples:
          pins export --format geojson --countries --out pins.geojson
          pins export --format kml --country FR --out france.kml
          pins export --format gpx --type mountain > summits.gpx
          pins export --format csv --bom --out pins.csv
        """)

func runExport(_ args: ParsedArguments) throws {
    let options = try ExportOptions(args)
    let deps = try AppDependencies(databaseOption: args.value("--db"))
    let pins = try deps.app.pins(matching: options.filter)
    let whole = try deps.app.exportInput(pins, withOutlines: options.countries)
    if options.format == .kml, pins.count > 2_000, options.split == nil || options.split! > 2_000 {
        Out.error("pins export: \(pins.count) placemarks; Google My Maps imports at most 2,000 per file: use --split 2000")
    }
    guard let out = options.out else {
        let sink = BufferedSink(fd: 1)
        Exporter.write(whole, format: options.format, bom: options.bom, to: sink)
        sink.flush()
        return
    }
    let chunks: [[Location]] = options.split.map { size in
        stride(from: 0, to: max(pins.count, 1), by: size).map { Array(pins[$0..<min(pins.count, $0 + size)]) }
    } ?? [pins]
    var written: [RawPath] = []
    for (index, chunk) in chunks.enumerated() {
        var input = whole
        input.pins = chunk
        if index > 0 { input.countries = [] }
        let path = options.split == nil ? out : numbered(out, index + 1)
        try writeOutput(to: path) { sink in Exporter.write(input, format: options.format, bom: options.bom, to: sink) }
        written.append(path)
    }
    if args.has("--json") {
        Out.print(Out.json(["format": options.format.rawValue, "pins": pins.count, "files": written.map(\.description)]))
    } else {
        Out.print("Wrote \(pins.count) pin\(pins.count == 1 ? "" : "s") to \(written.map(TerminalText.quoted).joined(separator: ", "))")
    }
}

/// What `pins export` was asked for, checked before anything is read.
private struct ExportOptions {
    var format: ExportFormat
    var filter: PinFilter
    /// nil: standard output (no --out, `--out -`, /dev/stdout).
    var out: RawPath?
    var split: Int?
    var countries: Bool
    var bom: Bool

    init(_ args: ParsedArguments) throws {
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "export") }
        guard let formatText = args.value("--format") else {
            throw UsageError("--format is required: geojson, kml, gpx or csv", command: "export")
        }
        guard let format = ExportFormat(rawValue: formatText.lowercased()) else {
            throw UsageError("--format must be geojson, kml, gpx or csv, got '\(formatText)'", command: "export")
        }
        self.format = format
        filter = try pinFilter(from: args)
        out = args.path("--out").flatMap { $0.goesToStandardOutput ? nil : $0 }
        split = try args.int("--split", range: 1...1_000_000)
        countries = args.has("--countries")
        bom = args.has("--bom")
        if split != nil, out == nil { throw UsageError("--split needs --out FILE", command: "export") }
        if countries, format != .geojson { throw UsageError("--countries is for --format geojson", command: "export") }
        if bom, format != .csv { throw UsageError("--bom is for --format csv", command: "export") }
        if args.has("--json"), out == nil { throw UsageError("--json needs --out FILE (without it, stdout is the export)", command: "export") }
    }
}

/// `out.kml` → `out-2.kml`, `out` → `out-2`, `.kml` → `.kml-2`, `a.b/out` → `a.b/out-2`.
func numbered(_ path: RawPath, _ n: Int) -> RawPath {
    let name = path.lastComponent
    let suffix = Array("-\(n)".utf8)
    // The extension: from the name's last dot, when that dot is not its first character.
    guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0 else { return RawPath(bytes: path.bytes + suffix) }
    let cut = path.bytes.count - (name.count - dot)
    return RawPath(bytes: Array(path.bytes[..<cut]) + suffix + Array(path.bytes[cut...]))
}
