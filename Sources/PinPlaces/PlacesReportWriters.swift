import Foundation
import PinCore
import PinFormats

/// `import-places --json` and `--report FILE`: one JSON document, written object by object.
///
/// `{"dryRun", "run", "files": [{"file", "kind", "records", "error"?}], "counts": {"records",
/// "created", "wanted" (of the created), "updated", "unchanged", "skipped": {reason: n}}, "pins":
/// [...], "updated": [...], "skipped": [...]}`; a line of `pins` or `updated` has `file`,
/// `position`, `kind`, `title`, `latitude`, `longitude`, `date`, `country`, `id` (and `wanted`:
/// true for a place to go); a line of `skipped` has `file`, `position`,
/// `kind`, `reason`, `detail`, and what the record said (`title`, `latitude`, `longitude`).
public enum PlacesReportJSON {
    public static func write(_ report: PlacesImportReport, to sink: TextSink) {
        var counts: [String: Any] = ["records": report.items.count]
        for decision in [PlaceDecision.created, .updated, .unchanged] { counts[decision.rawValue] = report.count(decision) }
        counts["wanted"] = report.wantedCreated
        counts["skipped"] = Dictionary(uniqueKeysWithValues: PlaceDecision.skipReasons.map { ($0.rawValue, report.count($0)) })
        sink.write("{\"dryRun\":\(report.dryRun),\"run\":\(report.runID.map(String.init) ?? "null"),\"counts\":\(JSONText.string(counts)),\n\"files\":[")
        for (n, file) in report.files.enumerated() {
            var object: [String: Any] = ["file": file.file, "kind": file.kind.rawValue, "records": file.records]
            if let error = file.error { object["error"] = error }
            sink.write((n == 0 ? "\n" : ",\n") + JSONText.string(object))
        }
        for (name, wanted) in [("pins", [PlaceDecision.created]), ("updated", [.updated]), ("skipped", PlaceDecision.skipReasons)] {
            sink.write("],\n\"\(name)\":[")
            var first = true
            for item in report.items.only(wanted) {
                sink.write((first ? "\n" : ",\n") + JSONText.string(object(item, skipped: name == "skipped")))
                first = false
            }
        }
        sink.write("]}\n")
    }

    static func object(_ item: PlaceItem, skipped: Bool) -> [String: Any] {
        var object: [String: Any] = ["file": item.file, "position": item.position, "kind": item.kind.rawValue]
        object["title"] = item.title
        if let c = item.coordinate {
            object["latitude"] = c.latitude
            object["longitude"] = c.longitude
        }
        object["date"] = item.date
        if skipped {
            object["reason"] = item.decision.rawValue
            object["detail"] = item.detail
        } else {
            object["country"] = orNull(item.country)
            object["id"] = orNull(item.pinID?.lowercasedText)
            if item.wanted { object["wanted"] = true }
            object["detail"] = item.detail  // what was cut from its text, when something was
        }
        return object
    }
}

/// The text summary: per file what was read, then the counts, the pins made and every skip.
public enum PlacesReportText {
    public static func write(_ report: PlacesImportReport, verbose: Bool, to sink: TextSink) {
        let verb = report.dryRun ? "Would create" : "Created"
        for file in report.files {
            var line = "\(TerminalText.escaped(file.file)): \(file.kind.rawValue), \(file.records) record\(file.records == 1 ? "" : "s")"
            if let error = file.error { line += "; stopped: \(TerminalText.escaped(error))" }
            sink.write(line + "\n")
        }
        var line = "\(verb) \(report.count(.created)) pin\(report.count(.created) == 1 ? "" : "s")"
        if report.wantedCreated > 0 { line += " (\(report.wantedCreated) wanted: places to go, not visits)" }
        if report.count(.updated) > 0 { line += ", \(report.dryRun ? "would update" : "updated") \(report.count(.updated))" }
        if report.count(.unchanged) > 0 { line += ", \(report.count(.unchanged)) unchanged" }
        let skips = PlaceDecision.skipReasons.map { ($0, report.count($0)) }.filter { $0.1 > 0 }
        if !skips.isEmpty {
            line += "; skipped \(skips.reduce(0) { $0 + $1.1 }) (" + skips.map { "\($0.1) \(words($0.0))" }.joined(separator: ", ") + ")"
        }
        sink.write(line + (report.dryRun ? " (dry run: nothing was written)" : "") + "\n")
        let shown = report.items.only([.created, .updated] + (verbose ? [.unchanged] : []))
        if !shown.isEmpty {
            sink.write("\n")
            table(["", "DATE", "CC", "TITLE"], shown.lazy.map { item in
                [item.decision == .created ? "+" : item.decision == .updated ? "~" : "=", String((item.date ?? "").prefix(10)),
                 item.country ?? "-", TerminalText.escaped(item.title ?? "")]
            }, to: sink)
        }
        let skipped = report.items.only(PlaceDecision.skipReasons)
        if !skipped.isEmpty {
            sink.write("\nSkipped:\n")
            table(["REASON", "WHERE", "DETAIL"], skipped.lazy.map { item in
                [words(item.decision), TerminalText.escaped("\(item.file) \(item.position)"), TerminalText.escaped(item.detail ?? "")]
            }, to: sink)
        }
    }

    static func words(_ decision: PlaceDecision) -> String {
        switch decision {
        case .noLocation: return "no location"
        default: return decision.rawValue
        }
    }

    /// The rows under the header, each column as wide as its widest cell but the last; `rows` is
    /// read twice (the widths, then the lines), never held.
    static func table<Rows: Sequence>(_ header: [String], _ rows: Rows, to sink: TextSink) where Rows.Element == [String] {
        var widths = header.map(\.count)
        for row in rows {
            for c in widths.indices { widths[c] = max(widths[c], row[c].count) }
        }
        func line(_ row: [String]) {
            sink.write(row.enumerated().map { c, cell in c == row.count - 1 ? cell : cell.padding(toLength: widths[c], withPad: " ", startingAt: 0) }
                .joined(separator: "  ") + "\n")
        }
        line(header)
        for row in rows { line(row) }
    }
}
