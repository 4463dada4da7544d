import Foundation
import PinGrammar

/// OwnTracks Recorder `.rec` files: one line per message the recorder stored, written with its
/// `RECFORMAT` `"%s\t%-18s\t%s\n"` (owntracks/recorder, storage.c): the time it was stored (ISO
/// 8601, UTC), the topic suffix (`*` for the device's own topic, padded with spaces to 18), and
/// the message's JSON payload. A `"_type": "location"` payload carries `lat`, `lon` (degrees)
/// and `tst` (Unix seconds of the fix; booklet, "JSON", `_type=location`): the fix is at `tst`,
/// not at the line's storage time. Other `_type`s (`lwt`, `transition`, `waypoint`, `cmd`, ...)
/// are not fixes and are skipped. A line that is not such a record is named (line and byte) in
/// the notes and the lines after it are read.
enum OwnTracksTrack {
    static func read<Sink: TrackSink>(_ input: ByteInput, into sink: inout Sink, notes: inout TrackNotes) throws {
        let lines = LineReader(input: input)
        var number = 0
        while try lines.next({ raw in
            number += 1
            let at = lines.offset
            func bad(_ why: String) { notes.add("line \(number) (byte \(at)): \(why)") }
            var end = raw.count
            while end > 0, raw[end - 1] == 0x20 || raw[end - 1] == 0x09 { end -= 1 }
            guard end > 0 else { return }  // a blank line
            guard let brace = raw[..<end].firstIndex(of: 0x7B) else { return bad("no JSON payload") }
            // The payload must follow a tab (the record's third field).
            guard brace > 0, raw[..<brace].contains(0x09) else { return bad("not 'time<TAB>topic<TAB>{json}'") }
            let json = Array(raw[brace..<end])
            let r = JSONReader(input: MemoryInput(json), bufferSize: max(64, json.count + 1))
            var type: String?, lat: Double?, lon: Double?, tst: Double?
            do {
                guard try r.next() == .objectStart else { return bad("the payload is not a JSON object") }
                try GoogleTimeline.members(r) {
                    if r.matches("_type") { _ = try r.next(); type = r.token == .string ? r.string : nil }
                    else if r.matches("lat") { _ = try r.next(); lat = r.token == .number ? r.double : nil }
                    else if r.matches("lon") { _ = try r.next(); lon = r.token == .number ? r.double : nil }
                    else if r.matches("tst") { _ = try r.next(); tst = r.token == .number ? r.double : nil }
                    else { try r.skipValue() }
                }
                while try r.next() != nil {}
            } catch let e as FormatError {
                return bad("malformed JSON at byte \(at + Int64(brace) + (e.offset ?? 0)): \(e.reason)")
            }
            guard type == "location" else { return }
            guard let tst else { return bad("a location without a number 'tst'") }
            guard let lat, let lon else { return bad("a location without number 'lat' and 'lon'") }
            let p = TrackPoint(time: tst, latitude: lat, longitude: lon)
            if let problem = p.problem { return bad(problem) }
            sink.point(p)
        }) {}
    }

    /// Whether `head` starts like a `.rec` file: a line "ISO-time<TAB>topic<TAB>{".
    static func looksLike(_ head: [UInt8]) -> Bool {
        var line = head.prefix { $0 != 0x0A && $0 != 0x0D }[...]
        guard line.count >= 12 else { return false }
        let s = String(decoding: line.prefix(10), as: UTF8.self)
        guard s.count == 10, s.enumerated().allSatisfy({ i, c in (i == 4 || i == 7) ? c == "-" : c.isASCII && c.isNumber }) else { return false }
        guard let tab = line.firstIndex(of: 0x09) else { return false }
        line = line[(tab + 1)...]
        guard let tab2 = line.firstIndex(of: 0x09) else { return false }
        return line[(tab2 + 1)...].first == 0x7B
    }
}
