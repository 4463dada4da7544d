import Foundation
import PinCore
import PinFormats

/// The JSON report, written piece by piece: one pin or skipped photo per line inside its
/// array, so a report of 200,000 photos never exists whole in memory. Top-level keys in
/// sorted order, as everywhere else.
public enum ImportReportJSON {
    public static func write(_ report: ImportReport, to sink: TextSink) {
        sink.write("{\"counts\":" + JSONText.string(counts(report)) + ",\"dryRun\":" + (report.dryRun ? "true" : "false") + ",\"movedPins\":[")
        writeMovedPins(report, to: sink)
        sink.write("],\"others\":[")
        writeOthers(report, to: sink)
        sink.write("],\"pins\":[")
        writePins(report, to: sink)
        sink.write("],\"problems\":" + JSONText.string(report.problems.map { ["path": $0.path.description, "reason": $0.reason] })
                   + ",\"redecided\":[")
        writeRedecided(report, to: sink)
        sink.write("],\"root\":" + JSONText.string(report.root) + ",\"skipped\":[")
        writeSkipped(report, to: sink)
        sink.write("],\"tracks\":" + JSONText.string(report.tracks.map(trackObject)) + "}\n")
    }

    static func counts(_ report: ImportReport) -> [String: Any] {
        [
            "files": report.files, "photos": report.photos, "created": report.created, "unchanged": report.unchanged,
            "read": report.read, "moved": report.moved, "copied": report.copied, "touched": report.touched, "missing": report.missing,
            "videosLeftOut": report.videosLeftOut, "withLocation": report.withLocation, "skipped": report.skippedCounts,
            "others": report.others.count, "pinsMoved": report.pinsMoved, "pinsKept": report.pinsKept,
            // Photos without a position of their own that the tracks placed (0 without --track).
            "placedFromTracks": report.placedFromTracks,
            // Photos skipped earlier for no location decided again for new or changed tracks.
            "redecidedForTracks": report.items.tally.retriedForTracks,
            // Photos with a position dated only by their file's time: left out of the interval rule.
            "datedByFile": report.items.tally.datedByFile,
            // Photos placed from the photos around them (--estimate-positions), and in a dry
            // run without it, how many it would place.
            "placedFromEstimates": report.estimated, "estimatesPossible": report.estimatesPossible,
        ]
    }

    /// Pins that followed their photo's corrected metadata: `to` is null for a pin kept where
    /// it was (the photo has no position any more).
    static func writeMovedPins(_ report: ImportReport, to sink: TextSink) {
        var first = true
        for c in report.corrected {
            func point(_ p: Coordinate?) -> Any { p.map { ["latitude": $0.latitude, "longitude": $0.longitude] as [String: Any] } ?? NSNull() }
            let object: [String: Any] = [
                "photo": c.photo.description, "id": c.pinID.lowercasedText, "title": c.title,
                "newTitle": orNull(c.plan?.title), "country": c.kind == .moved ? orNull(c.plan?.country) : NSNull(),
                "from": point(c.from), "to": point(c.to), "kept": c.kind == .kept,
            ]
            sink.write((first ? "\n" : ",\n") + JSONText.string(object))
            first = false
        }
    }

    /// Every file of the run is in one list: pins, skipped (unreadable included), others.
    static func writeOthers(_ report: ImportReport, to sink: TextSink) {
        var first = true
        for item in report.others {
            sink.write((first ? "\n" : ",\n") + JSONText.string(["file": item.entry.relativePath.description, "reason": orNull(item.otherReason)]))
            first = false
        }
    }

    // The pins and the skipped photos (most of a report) are written key by key, in the
    // sorted order `JSONText.write` gives a dictionary, without building one per line.

    static func writePins(_ report: ImportReport, to sink: TextSink) {
        var line = JSONText()
        var first = true
        for item in report.accepted {
            let k = item.keptMetadata!
            line.removeAll()
            line.writeRaw(first ? "\n{\"country\":" : ",\n{\"country\":")
            line.writeString(item.country)
            if let estimate = item.estimateDetail {
                line.writeRaw(",\"estimate\":")
                line.writeString(estimate)
            }
            line.writeRaw(",\"format\":")
            line.writeString(k.format.rawValue)
            line.writeRaw(",\"id\":")
            // A dry run creates no pin, so there is no id to show.
            line.writeString(report.dryRun ? nil : item.locationID?.lowercasedText)
            writeCoordinate(item.coordinate!, to: &line)
            line.writeRaw(",\"photo\":")
            line.writeString(item.entry.relativePath.description)
            writePlace(of: item, source: k.positionSource, to: &line)
            let track = item.trackFix
            if let track { line.writeRaw(",\"secondsToTrackFix\":" + JSONText.string(track.seconds)) }
            writeTime(of: item, source: k.timeSource, to: &line)
            if let track {
                line.writeRaw(",\"trackFile\":")
                line.writeString(track.file)
            }
            line.writeRaw(",\"title\":")
            line.writeString(item.title)
            line.writeRaw("}")
            sink.write(line.text)
            first = false
        }
    }

    /// A pin's keys from "place" to "regionCode": its place and region (when it has them) and
    /// where its position came from.
    private static func writePlace(of item: ImportItem, source: PositionSource?, to line: inout JSONText) {
        let place = item.pin?.place ?? .none
        if let name = place.place {
            line.writeRaw(",\"place\":")
            line.writeString(name)
        }
        line.writeRaw(",\"positionSource\":")
        line.writeString(source?.rawValue)
        if let region = place.region {
            line.writeRaw(",\"region\":")
            line.writeString(region)
        }
        if let code = place.regionCode {
            line.writeRaw(",\"regionCode\":")
            line.writeString(code)
        }
    }

    static func writeSkipped(_ report: ImportReport, to sink: TextSink) {
        var line = JSONText()
        var first = true
        for item in report.items.only([.noLocation, .interval, .distance, .unreadable]) {
            line.removeAll()
            line.writeRaw(first ? "\n{\"detail\":" : ",\n{\"detail\":")
            line.writeString(item.detail)
            if let estimate = item.estimateDetail {
                line.writeRaw(",\"estimate\":")
                line.writeString(estimate)
            }
            let kept = item.keptMetadata
            if let c = kept?.coordinate {
                writeCoordinate(c, to: &line)
            }
            line.writeRaw(",\"photo\":")
            line.writeString(item.entry.relativePath.description)
            line.writeRaw(",\"reason\":")
            line.writeString(item.decision.rawValue)
            let track = item.trackFix
            if let track { line.writeRaw(",\"secondsToTrackFix\":" + JSONText.string(track.seconds)) }
            if let kept {
                writeTime(of: item, source: kept.timeSource, to: &line)
            }
            if let track {
                line.writeRaw(",\"trackFile\":")
                line.writeString(track.file)
            }
            line.writeRaw("}")
            sink.write(line.text)
            first = false
        }
    }

    // The keys both lists share, in their sorted places.

    private static func writeCoordinate(_ c: Coordinate, to line: inout JSONText) {
        line.writeRaw(",\"latitude\":")
        line.writeNumber(c.latitude)
        line.writeRaw(",\"longitude\":")
        line.writeNumber(c.longitude)
    }

    private static func writeTime(of item: ImportItem, source: TimeSource, to line: inout JSONText) {
        line.writeRaw(",\"takenAt\":")
        line.writeString(item.takenAtText)
        line.writeRaw(",\"timeSource\":")
        line.writeString(source.rawValue)
    }

    /// The photos decided again for new or changed tracks, one a line: the decision now, why
    /// (when skipped), and the track that placed it.
    static func writeRedecided(_ report: ImportReport, to sink: TextSink) {
        guard report.items.tally.retriedForTracks > 0 else { return }
        var first = true
        for item in report.items where item.isRetriedForTracks {
            let fix = item.trackFix
            var object: [String: Any] = [
                "photo": item.entry.relativePath.description, "decision": item.decision.rawValue, "detail": orNull(item.detail),
                "trackFile": orNull(fix?.file), "secondsToTrackFix": orNull(fix?.seconds),
            ]
            if let estimate = item.estimateDetail { object["estimate"] = estimate }
            sink.write((first ? "\n" : ",\n") + JSONText.string(object))
            first = false
        }
    }

    /// A track file of the run: what it held and whether this run read it (`state`).
    static func trackObject(_ file: TrackFileReport) -> [String: Any] {
        ["file": file.path, "format": orNull(file.format?.rawValue), "points": file.points, "state": file.state.rawValue,
         "first": orNull(file.first), "last": orNull(file.last), "error": orNull(file.error), "notes": orNull(file.notes)]
    }
}
