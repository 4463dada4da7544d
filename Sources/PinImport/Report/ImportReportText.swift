import Foundation
import PinCore

/// The text report, written as it is made: the tables of a 200,000-photo dry run are never
/// held whole (widths come from a first pass over the rows, the text from a second). File names
/// are quoted as git quotes them and every other text is escaped (`TerminalText`): a name with a
/// newline or an escape sequence keeps one line per file and cannot drive the terminal.
public enum ImportReportText {
    /// Lists longer than this are cut in the text summary (the JSON report has everything).
    static let listLimit = 20
    /// Skipped photos shown per reason in a dry run's summary (`--verbose` shows all).
    static let examplesPerReason = 3
    /// Where the countries line wraps: a terminal's 80 columns.
    public static let width = 80

    /// The summary; with `verbose`, every list whole, then one line per file of the run.
    public static func write(_ report: ImportReport, catalog: CountryCatalog, verbose: Bool, to sink: TextSink) {
        writeSummary(report, catalog: catalog, to: sink)
        writeCorrected(report, limit: verbose ? Int.max : listLimit, to: sink)
        writeRedecided(report, limit: verbose ? Int.max : listLimit, to: sink)
        writeFromEstimates(report, limit: verbose ? Int.max : listLimit, to: sink)
        if report.dryRun {
            writePins(report, to: sink)
            writeFromTracks(report, limit: verbose ? Int.max : listLimit, to: sink)
            writeSkipped(report, examples: verbose ? Int.max : examplesPerReason, to: sink)
        }
        writeUnreadable(report, limit: verbose ? Int.max : listLimit, to: sink)
        if verbose {
            for item in report.items {
                let detail = item.detail ?? item.otherReason
                sink.write("\(item.decision.words)\t\(TerminalText.quoted(item.entry.relativePath))"
                           + (detail.map { "\t" + TerminalText.escaped($0) } ?? "") + "\n")
            }
        }
    }

    static func writeSummary(_ report: ImportReport, catalog: CountryCatalog, to sink: TextSink) {
        func line(_ text: String) { sink.write(text + "\n") }
        let verb = report.dryRun ? "would be created" : "created"
        // A nightly run over a library with nothing new: one line, not a page of zeros.
        if report.files > 0, report.unchanged == report.files, report.moved == 0, report.touched == 0,
           report.corrected.isEmpty, report.missing == 0, report.created == 0, report.problems.isEmpty {
            line("pins import \(TerminalText.quoted(RawPath(report.root)))" + (report.dryRun ? " (dry run)" : "")
                 + ": nothing new: \(grouped(report.files)) file\(report.files == 1 ? "" : "s") unchanged"
                 + (report.tracks.isEmpty ? "" : "; " + trackFiles(report)))
            return
        }
        line("pins import \(TerminalText.quoted(RawPath(report.root)))" + (report.dryRun ? " (dry run: nothing written)" : ""))
        line("  files      \(report.files)" + (report.unchanged > 0 ? " (\(report.unchanged) unchanged since an earlier run, not read)" : ""))
        if report.moved > 0 { line("  moved      \(report.moved) already imported under another name or folder: not decided again") }
        if report.copied > 0 {
            line("  copied     \(report.copied) cop\(report.copied == 1 ? "y" : "ies") of photos already imported, the originals still there: no new pin")
        }
        if report.touched > 0 { line("  touched    \(report.touched) with a new date but the same metadata: not decided again") }
        if !report.corrected.isEmpty {
            let moved = report.pinsMoved, kept = report.pinsKept
            line("  corrected  " + [moved > 0 ? "\(moved) pin\(moved == 1 ? "" : "s") \(report.dryRun ? "would be " : "")moved" : nil,
                                   kept > 0 ? "\(kept) kept" : nil].compactMap { $0 }.joined(separator: ", ")
                 + ": the photo's sidecar changed (listed below)")
        }
        if report.missing > 0 { line("  missing    \(report.missing) gone since an earlier run (their pins are kept)") }
        if report.videosLeftOut > 0 { line("  videos     \(report.videosLeftOut) left out (--no-videos)") }
        if report.notMedia > 0 { line("  not media  \(report.notMedia) neither photo nor video (--verbose lists them)") }
        let byFile = report.items.tally.datedByFile
        line("  photos     \(report.photos), \(report.withLocation) with a position"
             + (byFile > 0 ? "; \(byFile) of these dated only by the file's time (no date inside): left out of the interval rule" : ""))
        if !report.tracks.isEmpty {
            // The files this run read; the unchanged ones not read are counted apart.
            let read = report.tracks.filter { $0.state.wasRead }
            let readable = read.filter { $0.points > 0 }.count
            let fixes = read.reduce(0) { $0 + $1.points }
            let bad = read.filter { $0.error != nil }.count
            let unchanged = report.tracks.count { $0.state == .unchanged }
            line("  tracks     \(report.placedFromTracks) photo\(report.placedFromTracks == 1 ? "" : "s") placed from \(fixes) fix\(fixes == 1 ? "" : "es") in \(readable) track file\(readable == 1 ? "" : "s")"
                 + (bad > 0 ? " (\(bad) could not be read, named on stderr)" : "")
                 + (unchanged > 0 ? "; \(unchanged) track file\(unchanged == 1 ? "" : "s") unchanged, not read" : ""))
        }
        let again = report.items.tally.retriedForTracks, againPins = report.items.tally.retriedAccepted
        if again > 0 {
            line("  again      \(again) photo\(again == 1 ? "" : "s") skipped earlier for no location decided again for \(report.redecidedFor): "
                 + "\(againPins) pin\(againPins == 1 ? "" : "s") \(verb) (listed below)")
        }
        if report.estimated > 0 {
            line("  estimates  \(report.estimated) photo\(report.estimated == 1 ? "" : "s") placed from the photos around them (listed below)")
        } else if report.estimatesPossible > 0 {
            line("  estimates  \(report.estimatesPossible) photo\(report.estimatesPossible == 1 ? "" : "s") without a position could be placed from the photos around them (--estimate-positions)")
        }
        line("  pins       \(report.created) \(verb)")
        line("  skipped    " + ImportReport.skipReasons.map { "\($0.words) \(report.count($0))" }.joined(separator: ", "))
        // Counted as the records were written (`DecidedFiles.Tally`).
        let countries = report.items.tally.pinCountries
        let atSea = report.items.tally.pinsAtSea
        if !countries.isEmpty || atSea > 0 {
            let parts = countries.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\(catalog[$0.key]?.name ?? $0.key) \($0.value)" }
            for text in wrapped(parts + (atSea > 0 ? ["at sea \(atSea)"] : []), first: "  countries  ", rest: "             ") {
                line(text)
            }
        }
    }

    /// The run's track files in a few words: "1 track file read, 2 unchanged, not read".
    static func trackFiles(_ report: ImportReport) -> String {
        let read = report.tracks.count { $0.state.wasRead }, unchanged = report.tracks.count - read
        let files = { (n: Int) in "\(n) track file\(n == 1 ? "" : "s")" }
        if read == 0 { return files(unchanged) + " unchanged, not read" }
        return files(read) + " read" + (unchanged > 0 ? ", \(unchanged) unchanged, not read" : "")
    }

    /// The photos skipped earlier for no location that new or changed tracks had decided again:
    /// photo, what they are now, and the track that placed them or why they stay skipped.
    static func writeRedecided(_ report: ImportReport, limit: Int, to sink: TextSink) {
        let count = report.items.tally.retriedForTracks
        guard count > 0 else { return }
        // Without tracks, the photos around them were the reason (issue 36 item 4); with both,
        // either: each row says which placed it.
        sink.write("\nDecided again for \(report.redecidedFor) (skipped earlier for no location):\n")
        var rows: [[String]] = []
        for item in report.items where item.isRetriedForTracks {
            guard rows.count < limit else { break }
            let fix = item.decision == .accepted ? item.trackFix : nil
            let why = fix.map { "\($0.file), nearest fix \(TrackMatch.duration($0.seconds))" } ?? item.estimateDetail ?? item.detail ?? ""
            rows.append([TerminalText.quoted(item.entry.relativePath), item.decision == .accepted ? "pin" : item.decision.words,
                         TerminalText.escaped(why)])
        }
        let column = report.tracks.isEmpty ? "POSITION FROM OR REASON" : report.estimating ? "TRACK, PHOTOS OR REASON" : "TRACK OR REASON"
        writeTable(["PHOTO", "NOW", column], rows, to: sink)
        if count > limit { sink.write("  ... and \(count - limit) more (see --json)\n") }
    }

    /// 100000 as "100,000": a count read at a glance.
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (k, digit) in digits.enumerated() {
            if k > 0, (digits.count - k) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// Comma-separated parts in lines of at most `width` columns (a part longer than that gets
    /// a line of its own).
    static func wrapped(_ parts: [String], first: String, rest: String) -> [String] {
        var lines: [String] = []
        var current = first
        var empty = true
        for (k, part) in parts.enumerated() {
            let piece = part + (k < parts.count - 1 ? "," : "")
            if !empty, current.count + 1 + piece.count > width {
                lines.append(current)
                current = rest
                empty = true
            }
            current += (empty ? "" : " ") + piece
            empty = false
        }
        lines.append(current)
        return lines
    }

    static func writePins(_ report: ImportReport, to sink: TextSink) {
        guard !report.accepted.isEmpty else { return }
        sink.write("\nPins that would be created:\n")
        // The widths of the rows were kept as the records were written (`DecidedFiles.Tally`):
        // one pass over the pins, for the rows.
        writeTable(["TAKEN AT", "CC", "PLACE", "LATITUDE", "LONGITUDE", "PHOTO"], report.accepted.lazy.map { pinCells($0)! },
                   widths: report.items.tally.pinTableWidths, to: sink)
    }

    /// The photos placed from the photos around them (issue 36 item 4): what became of each and
    /// from which photos, how far in time and space.
    static func writeFromEstimates(_ report: ImportReport, limit: Int, to sink: TextSink) {
        guard report.estimated > 0 else { return }
        var rows: [[String]] = []
        for item in report.items where item.estimateDetail != nil {
            guard rows.count < limit else { break }
            rows.append([TerminalText.quoted(item.entry.relativePath), item.decision == .accepted ? "pin" : item.decision.words,
                         TerminalText.escaped(item.estimateDetail!)])
        }
        sink.write("\nPlaced from the photos around them (by capture time):\n")
        writeTable(["PHOTO", "NOW", "POSITION FROM"], rows, to: sink)
        if report.estimated > limit { sink.write("  ... and \(report.estimated - limit) more (see --json)\n") }
    }

    /// The pins whose position came from the tracks: photo, track file, seconds to the nearest fix.
    static func writeFromTracks(_ report: ImportReport, limit: Int, to sink: TextSink) {
        guard report.placedFromTracks > 0 else { return }
        let rows = report.accepted.lazy.compactMap { item -> [String]? in
            guard let fix = item.trackFix else { return nil }
            return [TerminalText.quoted(item.entry.relativePath), TerminalText.escaped(fix.file),
                    TrackMatch.duration(fix.seconds)]
        }
        let all = Array(rows)
        guard !all.isEmpty else { return }
        sink.write("\nPins placed from tracks (position from the track, by capture time):\n")
        writeTable(["PHOTO", "TRACK", "NEAREST FIX"], all.prefix(limit), to: sink)
        if all.count > limit { sink.write("  ... and \(all.count - limit) more\n") }
    }

    /// The cells of an accepted photo's row in the pins table (nil without a position, which an
    /// accepted photo always has).
    static func pinCells(_ item: ImportItem) -> [String]? {
        guard let c = item.coordinate else { return nil }
        let place = item.pin?.place
        return [item.takenAtText, item.country ?? "-", TerminalText.escaped(place?.place ?? place?.region ?? "-"),
                formatDegrees(c.latitude), formatDegrees(c.longitude),
                TerminalText.quoted(item.entry.relativePath)]
    }

    /// The other half of a dry run's answer: why photos make no pin, by reason, with the first
    /// `examples` of each in capture order.
    static func writeSkipped(_ report: ImportReport, examples: Int, to sink: TextSink) {
        guard !report.skipped.isEmpty else { return }
        sink.write("\nPhotos that would be skipped" + (examples == Int.max ? ":\n" : " (a few of each reason; --verbose lists all):\n"))
        for reason in ImportReport.skipReasons where reason != .unreadable {
            let photos = report.items.only([reason])
            let count = photos.count
            guard count > 0 else { continue }
            sink.write("  \(reason.words) (\(count) photo\(count == 1 ? "" : "s"))\n")
            writeTable(nil, photos.prefix(examples).map { [TerminalText.quoted($0.entry.relativePath), TerminalText.escaped($0.detail ?? "")] },
                       indent: "    ", to: sink)
            if count > examples { sink.write("    ... and \(count - examples) more\n") }
        }
    }

    /// Pins that followed their photo's corrected metadata: title, from → to, photo; then the
    /// pins kept where they were because their photo has no position any more.
    static func writeCorrected(_ report: ImportReport, limit: Int, to sink: TextSink) {
        func place(_ c: Coordinate) -> String { "\(formatDegrees(c.latitude)), \(formatDegrees(c.longitude))" }
        let moved = report.corrected.lazy.filter { $0.kind == .moved }
        if !moved.isEmpty {
            sink.write("\nPins \(report.dryRun ? "that would be " : "")moved (their photo's position or time changed):\n")
            writeTable(nil, moved.prefix(limit).map { c -> [String] in
                let to = c.to.map(place) ?? "-"
                let retitled = c.plan.map { $0.title == c.title ? "" : " as " + TerminalText.escaped($0.title) } ?? ""
                return [TerminalText.escaped(c.title), place(c.from) + " → " + to + retitled, TerminalText.quoted(c.photo)]
            }, to: sink)
            if moved.count > limit { sink.write("  ... and \(moved.count - limit) more (see --json)\n") }
        }
        let kept = report.corrected.lazy.filter { $0.kind == .kept }
        if !kept.isEmpty {
            sink.write("\nPins kept where they are (their photo has no position any more; `pins delete ID` removes one):\n")
            writeTable(nil, kept.prefix(limit).map { c -> [String] in
                [TerminalText.escaped(c.title), place(c.from), c.pinID.lowercasedText, TerminalText.quoted(c.photo)]
            }, to: sink)
            if kept.count > limit { sink.write("  ... and \(kept.count - limit) more (see --json)\n") }
        }
    }

    static func writeUnreadable(_ report: ImportReport, limit: Int, to sink: TextSink) {
        let unreadable = report.unreadable
        guard !unreadable.isEmpty else { return }
        sink.write("\nUnreadable files:\n")
        for item in unreadable.prefix(limit) {
            sink.write("  \(TerminalText.quoted(item.entry.relativePath)): \(TerminalText.escaped(item.detail ?? ""))\n")
        }
        if unreadable.count > limit { sink.write("  ... and \(unreadable.count - limit) more (see --report or --json)\n") }
    }

    /// An indented text table over rows made on demand (twice: widths, then text); no header
    /// line when `header` is nil.
    /// `widths`: the widths of the rows' columns (but the last), when they are known already:
    /// then the rows are made once.
    static func writeTable<Rows: Sequence>(_ header: [String]?, _ rows: Rows, widths known: [Int]? = nil, indent: String = "  ",
                                           to sink: TextSink)
    where Rows.Element == [String] {
        var widths = header?.map(columns) ?? []
        if let known {
            if widths.isEmpty { widths = known + [0] }
            for (c, width) in known.enumerated() { widths[c] = max(widths[c], width) }
        } else {
            for row in rows {
                if widths.isEmpty { widths = row.map { _ in 0 } }
                // The last column is not padded: its width is not needed.
                for (c, cell) in row.enumerated() where c < row.count - 1 { widths[c] = max(widths[c], columns(cell)) }
            }
        }
        func write(_ row: [String]) {
            var text = indent
            for (c, cell) in row.enumerated() {
                text += cell
                if c < row.count - 1 { text += String(repeating: " ", count: widths[c] - columns(cell) + 2) }
            }
            sink.write(text + "\n")
        }
        if let header { write(header) }
        for row in rows { write(row) }
    }

    /// The width of `cell` as the tables count it: its Characters. For ASCII without CR LF (a
    /// table's cells nearly always) that is its byte count, found without breaking it into
    /// graphemes.
    static func columns(_ cell: String) -> Int {
        let ascii = cell.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            var previous: UInt8 = 0
            for byte in bytes {
                if byte >= 0x80 || (byte == 0x0A && previous == 0x0D) { return false }
                previous = byte
            }
            return true
        }
        return ascii == true ? cell.utf8.count : cell.count
    }
}
