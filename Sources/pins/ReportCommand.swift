import Foundation
import PinCore
import PinImport
import PinReport
import PinApp

// MARK: report

let reportSpec = CommandSpec(
    name: "report", summary: "Write the map page: one offline HTML file of the pins, countries and statistics.",
    usage: "report [--out FILE] [--title T] [--no-thumbnails] [the filters of list]",
    options: [
        OptionSpec(name: "--out", value: "FILE", help: "The page to write (default: pins-map.html; - is stdout); replaced atomically."),
        OptionSpec(name: "--title", value: "T", help: "The page's title (default: pins)."),
        OptionSpec(name: "--no-thumbnails", value: nil, help: "Leave out the photos' EXIF thumbnails (shown for photos still where their pins say)."),
    ] + pinFilterOptions + [dbOption],
    details: """
    The page opens from disk in any current browser, with no network and no server: the map with
    the visited countries filled, the pins (grouped when zoomed out), their details on a click, a
    searchable list with filters, and the statistics. Other tools can read its data: the element
    <script id="pins-data"> holds the objects of 'pins list --json' (with the same filters).
    """)

func runReport(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", command: "report") }
    let filter = try pinFilter(from: args)
    let out = args.path("--out") ?? RawPath("pins-map.html")
    guard !out.bytes.isEmpty else { throw UsageError("--out needs a file name", command: "report") }
    let deps = try AppDependencies(databaseOption: args.value("--db"))
    // The filters as they were typed, for the page's header.
    let described = pinFilterOptions.flatMap { option in
        option.value == nil ? (args.has(option.name) ? [option.name] : []) : args.all(option.name).map { "\(option.name) \($0)" }
    }.joined(separator: " ")
    let input = try deps.app.pageInput(pins: try deps.app.pins(matching: filter), title: args.value("--title") ?? "pins",
                                       filterDescription: described.isEmpty ? nil : described, thumbnails: !args.has("--no-thumbnails"))
    try writeOutput(to: out) { $0.write(PageRenderer.render(input)) }
    // With `--out -` standard output is the page.
    if !out.goesToStandardOutput {
        Out.print("Wrote \(TerminalText.quoted(out)): \(input.pins.count) pin\(input.pins.count == 1 ? "" : "s")")
    }
}

// MARK: import --html

/// `pins import --html FILE`: the page of the database with the run drawn over it.
func writeRunPage(_ report: ImportReport, to path: RawPath, deps: AppDependencies) throws {
    let input = try deps.app.pageInput(photoImport: report)
    try writeOutput(to: path) { $0.write(PageRenderer.render(input)) }
}
