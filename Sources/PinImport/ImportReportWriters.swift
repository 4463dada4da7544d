import Foundation
import PinCore

/// Where a report writer puts its text, piece by piece (a buffered file descriptor in the
/// command line, a string in tests).
public protocol TextSink: AnyObject {
    func write(_ text: String)
}

/// Collects text in memory (tests, small outputs).
public final class StringSink: TextSink {
    public private(set) var text = ""
    public init() {}
    public func write(_ text: String) { self.text += text }
}

/// The JSON report, written piece by piece: one pin or skipped photo per line inside its
/// array, so a report of 200,000 photos never exists whole in memory. Top-level keys in
/// sorted order, as everywhere else.
public enum ImportReportJSON {
    public static func write(_ report: ImportReport, to sink: TextSink) {
        let counts: [String: Any] = [
            "files": report.files, "photos": report.photos, "created": report.created, "unchanged": report.unchanged,
            "read": report.read, "moved": report.moved, "touched": report.touched, "missing": report.missing,
            "videosLeftOut": report.videosLeftOut, "withLocation": report.withLocation, "skipped": report.skippedCounts,
        ]
        sink.write("{\"counts\":" + JSONText.string(counts) + ",\"dryRun\":" + (report.dryRun ? "true" : "false") + ",\"pins\":[")
        var first = true
        for item in report.accepted {
            let m = item.metadata!
            let pin: [String: Any] = [
                "photo": item.entry.relativePath.description, "latitude": m.coordinate!.latitude, "longitude": m.coordinate!.longitude,
                "takenAt": item.takenAtText, "timeSource": m.timeSource.rawValue, "country": orNull(item.country),
                "format": m.format, "positionSource": orNull(m.positionSource),
                "title": orNull(item.title),
                // A dry run creates no pin, so there is no id to show.
                "id": report.dryRun ? NSNull() : orNull(item.locationID?.uuidString.lowercased()),
            ]
            sink.write((first ? "\n" : ",\n") + JSONText.string(pin))
            first = false
        }
        sink.write("],\"problems\":" + JSONText.string(report.problems.map { ["path": $0.path.description, "reason": $0.reason] })
                   + ",\"root\":" + JSONText.string(report.root) + ",\"skipped\":[")
        first = true
        for item in report.items where item.decision != .accepted && item.decision != .notMedia {
            var object: [String: Any] = ["photo": item.entry.relativePath.description, "reason": item.decision.rawValue,
                                         "detail": orNull(item.detail)]
            if let m = item.metadata {
                object["takenAt"] = item.takenAtText
                object["timeSource"] = m.timeSource.rawValue
                if let c = m.coordinate {
                    object["latitude"] = c.latitude
                    object["longitude"] = c.longitude
                }
            }
            sink.write((first ? "\n" : ",\n") + JSONText.string(object))
            first = false
        }
        sink.write("]}\n")
    }
}

/// The text report, written as it is made: the tables of a 200,000-photo dry run are never
/// held whole (widths come from a first pass over the rows, the text from a second).
public enum ImportReportText {
    /// Lists longer than this are cut in the text summary (the JSON report has everything).
    public static let listLimit = 20

    /// The summary; with `verbose`, then one line per decided file.
    public static func write(_ report: ImportReport, catalog: CountryCatalog, verbose: Bool, to sink: TextSink) {
        writeSummary(report, catalog: catalog, to: sink)
        if verbose {
            for item in report.items where item.decision != .notMedia {
                sink.write("\(item.decision.rawValue)\t\(item.entry.relativePath)" + (item.detail.map { "\t\($0)" } ?? "") + "\n")
            }
        }
    }

    static func writeSummary(_ report: ImportReport, catalog: CountryCatalog, to sink: TextSink) {
        func line(_ text: String) { sink.write(text + "\n") }
        let verb = report.dryRun ? "would be created" : "created"
        line("pins import \(report.root)" + (report.dryRun ? " (dry run: nothing written)" : ""))
        line("  files      \(report.files)" + (report.unchanged > 0 ? " (\(report.unchanged) unchanged since an earlier run, not read)" : ""))
        if report.moved > 0 { line("  moved      \(report.moved) already imported under another name or folder: not decided again") }
        if report.touched > 0 { line("  touched    \(report.touched) with a new date but the same metadata: not decided again") }
        if report.missing > 0 { line("  missing    \(report.missing) gone since an earlier run (their pins are kept)") }
        if report.videosLeftOut > 0 { line("  videos     \(report.videosLeftOut) left out (--no-videos)") }
        line("  photos     \(report.photos), \(report.withLocation) with a position")
        line("  pins       \(report.created) \(verb)")
        line("  skipped    no location \(report.count(.noLocation)), interval \(report.count(.interval)), distance \(report.count(.distance)), unreadable \(report.count(.unreadable))")
        var countries: [String: Int] = [:]
        var atSea = 0
        for item in report.accepted {
            if let c = item.country { countries[c, default: 0] += 1 } else { atSea += 1 }
        }
        if !countries.isEmpty || atSea > 0 {
            let parts = countries.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\(catalog[$0.key]?.name ?? $0.key) \($0.value)" }
            line("  countries  " + (parts + (atSea > 0 ? ["at sea \(atSea)"] : [])).joined(separator: ", "))
        }
        if report.dryRun {
            if !report.accepted.isEmpty {
                line("")
                line("Pins that would be created:")
                writeTable(["TAKEN AT", "CC", "LATITUDE", "LONGITUDE", "PHOTO"], report.accepted.map { item -> [String] in
                    let c = item.metadata!.coordinate!
                    return [item.takenAtText, item.country ?? "-", formatDegrees(c.latitude), formatDegrees(c.longitude),
                            item.entry.relativePath.description]
                }, to: sink)
            }
            // The other half of a dry run's answer: why each photo makes no pin.
            if !report.skipped.isEmpty {
                line("")
                line("Photos that would be skipped:")
                writeTable(["REASON", "PHOTO", "WHY"],
                           report.skipped.map { [$0.decision.rawValue, $0.entry.relativePath.description, $0.detail ?? ""] }, to: sink)
            }
        }
        let unreadable = report.unreadable
        if !unreadable.isEmpty {
            line("")
            line("Unreadable files:")
            for item in unreadable.prefix(listLimit) { line("  \(item.entry.relativePath): \(item.detail ?? "")") }
            if unreadable.count > listLimit { line("  ... and \(unreadable.count - listLimit) more (see --report or --json)") }
        }
    }

    /// An indented text table over rows made on demand (twice: widths, then text).
    static func writeTable<Rows: Sequence>(_ header: [String], _ rows: Rows, to sink: TextSink) where Rows.Element == [String] {
        var widths = header.map(\.count)
        for row in rows { for (c, cell) in row.enumerated() { widths[c] = max(widths[c], cell.count) } }
        func write(_ row: [String]) {
            var text = " "
            for (c, cell) in row.enumerated() {
                text += " " + cell
                if c < row.count - 1 { text += String(repeating: " ", count: widths[c] - cell.count + 1) }
            }
            sink.write(text + "\n")
        }
        write(header)
        for row in rows { write(row) }
    }
}
