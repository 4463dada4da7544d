import Foundation
import PinCore
import PinReport
import PinStore

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
    let whole = try exportInput(pins, withOutlines: options.countries, deps: deps)
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

/// The pins with what an export shows beside them: country names, the map colour, each pin's
/// trip, and (`withOutlines`) the outlines of the countries they are in.
private func exportInput(_ pins: [Location], withOutlines: Bool, deps: AppDependencies) throws -> ExportInput {
    let catalog = try deps.catalog()
    var names: [String: String] = [:]
    for code in Set(pins.compactMap(\.countryID)) { names[code] = catalog[code]?.name ?? code }
    let settings = try deps.existingDatabaseForReading()?.read { try $0.settings.load() } ?? Settings()
    var trips: [UUID: (id: String, title: String)] = [:]
    for trip in try deps.app.storedTrips() {
        for id in trip.pinIDs { trips[id] = (trip.id, trip.title) }
    }
    var countries: [ExportCountry] = []
    if withOutlines {
        var counts: [String: Int] = [:]
        for code in pins.compactMap(\.countryID) { counts[code, default: 0] += 1 }
        countries = try countryOutlines(counts, names: names)
    }
    return ExportInput(pins: pins, countryNames: names, countries: countries, fillColor: settings.mapFillColor, trips: trips)
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

/// The outlines of the given countries from Countries.geojson, read by the resolver's own
/// parser: each visited country's geometry as the file spells it (compact, as
/// scripts/build-countries writes it), so the export is the same bytes at every run.
private func countryOutlines(_ counts: [String: Int], names: [String: String]) throws -> [ExportCountry] {
    guard !counts.isEmpty else { return [] }
    let geometries: [(code: String, geometry: ArraySlice<UInt8>)]
    do {
        geometries = try CountryGeoJSONParser.geometries(try AppDependencies.data().read("Countries.geojson"), of: Set(counts.keys))
    } catch let error as GeoJSONError {
        throw CommandFailure("\(error); reinstall pins or rebuild it with scripts/build-countries")
    }
    let found = geometries.map { code, geometry in
        ExportCountry(code: code, name: names[code] ?? code, pinCount: counts[code] ?? 0,
                      geometryJSON: String(decoding: geometry, as: UTF8.self))
    }
    return found.sorted { $0.code < $1.code }
}
