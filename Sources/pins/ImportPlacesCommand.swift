import Foundation
import PinCore
import PinApp
import PinData
import PinPlaces
import PinReport

let importPlacesSpec = CommandSpec(
    name: "import-places", summary: "Import places kept in other apps, Google's saved places and timeline visits.",
    usage: "import-places FILE... [--dry-run] [--wanted] [--json] [--report FILE] [--html FILE] [--db FILE] [--min-distance-km KM]",
    options: [
        OptionSpec(name: "--dry-run", value: nil, help: "Show what would be created and why every other record is skipped; write nothing."),
        OptionSpec(name: "--wanted", value: nil, help: "The places are ones you want to go, not visits (as Saved Places always are)."),
        jsonOption,
        OptionSpec(name: "--report", value: "FILE", help: "Also write the full JSON report to FILE (- is stdout, then without the summary)."),
        OptionSpec(name: "--html", value: "FILE", help: "Also write the map page with this import drawn over it (see 'pins report'; - is stdout)."),
        dbOption,
        OptionSpec(name: "--min-distance-km", value: "KM", help: "Skip a place closer than this to any pin; timeline visits: default the app's 5 km, place lists: default none."),
        OptionSpec(name: "--quiet", value: nil, help: "No summary: only errors (for cron)."),
        OptionSpec(name: "--verbose", value: nil, help: "Also list the records that were imported before and are unchanged."),
    ],
    details: """
    Files are recognised by their content: GeoJSON points (pins' own export read back exactly),
    KML and KMZ placemarks with points, GPX waypoints, CSV with latitude and longitude columns
    (pins' own export read back exactly), Google Maps 'Saved Places.json', Google Takeout
    Semantic Location History (placeVisit) and the phone's Timeline export (visits).
    Every record becomes a pin as one made by hand, titled from the file where it has a name.
    Saved Places (and every place with --wanted) are places you want to go: their pins are
    'wanted', drawn apart and left out of countries, statistics and trips until a photo or a
    timeline visit within 5 km of one, or 'pins edit ID --visited', makes it a visit.
    Timeline visits follow the app's rule: one closer than 5 km to a pin is skipped (distance).
    Places from lists are all kept unless --min-distance-km is given.
    Importing a file again adds nothing; a record that changed in the file updates its pin,
    unless the pin was edited since. Each import is a run: 'pins runs undo N' removes it.
    A record that cannot be read is listed with its place in the file and skipped.

    Exit codes: 0 done (skipped records are listed); 1 stopped; 64 usage or a file pins does
    not read (nothing imported); 65 a file ended early or was damaged (what came before it is
    imported); 66 a file is missing (nothing imported); 75 another import is using the database.
    """)

func runImportPlaces(_ args: ParsedArguments) throws {
    guard !args.positionals.isEmpty else { throw UsageError("missing FILE: a place file to import", command: "import-places") }
    if args.has("--quiet") && args.has("--verbose") { throw UsageError("--quiet and --verbose exclude each other", command: "import-places") }
    var options = PlacesImportOptions(files: args.positionals)
    options.dryRun = args.has("--dry-run")
    options.wanted = args.has("--wanted")
    if let km = try args.double("--min-distance-km", range: 0.001...10_000) {
        options.listThreshold = AngularDistance.angle(forKilometres: km)
        options.visitThreshold = AngularDistance.angle(forKilometres: km)
    }
    options.timeZones = LazyTimeZones()
    let outputs = try ReportOutputs(args, command: "import-places")
    let deps = try AppDependencies(databaseOption: args.value("--db"))
    let report = try deps.app.importPlaces(options, warning: { Out.error("pins import-places: \($0)") })
    try outputs.write(json: { PlacesReportJSON.write(report, to: $0) },
                      text: { PlacesReportText.write(report, verbose: args.has("--verbose"), to: $0) },
                      page: { try writePlacesPage(report, to: $0, deps: deps) })
    try report.checkReadBack()
    for file in report.files {
        if let error = file.error { Out.error("pins import-places: \(file.file): \(error); the records before it were imported") }
    }
    if report.exitCode != 0 {
        throw CommandFailure("some files could not be read to their end (above)", code: report.exitCode)
    }
}

/// The map page with the places import drawn over it.
func writePlacesPage(_ report: PlacesImportReport, to path: RawPath, deps: AppDependencies) throws {
    let input = try deps.app.pageInput(placesImport: report)
    try writeOutput(to: path) { $0.write(PageRenderer.render(input)) }
}
