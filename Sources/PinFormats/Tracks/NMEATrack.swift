#if canImport(Glibc)
import Glibc
import PinGrammar
#endif

/// NMEA 0183 logs, as GPS loggers and phones write them: `$xxRMC` (time, status, position,
/// date) and `$xxGGA` (time, position, fix quality) sentences, any talker (GP, GN, GL, ...).
/// A GGA takes the date of the last RMC before it; a void RMC (status V) or a GGA of quality 0
/// is no fix. A sentence whose `*hh` checksum does not match is skipped with a note.
/// (Sentence layouts: NMEA 0183 v4.11, as summarised at gpsd.gitlab.io/gpsd/NMEA.html.)
enum NMEATrack {
    static func read<Sink: TrackSink>(_ input: ByteInput, into sink: inout Sink, notes: inout TrackNotes) throws {
        let lines = LineReader(input: input)
        var log = NMEALog()
        var number = 0
        while try lines.next({ raw in
            number += 1
            let at = NMEALog.Line(number: number, byte: lines.offset)
            guard let fields = sentence(raw, at: at, notes: &notes) else { return }
            log.take(fields, at: at, into: &sink, notes: &notes)
        }) {}
        if log.undated > 0 { notes.add("\(log.undated) GGA sentence\(log.undated == 1 ? "" : "s") before any RMC date ignored") }
    }

    /// The fields of the sentence on a line (from its `$`, trailing blanks and the `*hh`
    /// checksum off), or nil: no sentence, or a checksum that does not match (with a note).
    static func sentence(_ raw: UnsafeBufferPointer<UInt8>, at: NMEALog.Line, notes: inout TrackNotes) -> [String]? {
        guard let dollar = raw.firstIndex(of: 0x24) else { return nil }
        var end = raw.count
        while end > dollar, raw[end - 1] == 0x20 || raw[end - 1] == 0x09 { end -= 1 }
        let body = UnsafeBufferPointer(rebasing: raw[(dollar + 1)..<end])
        var content = body[...]
        if let star = body.lastIndex(of: 0x2A) {
            let hex = body[(star + 1)...]
            var sum: UInt8 = 0
            for b in body[..<star] { sum ^= b }
            guard hex.count == 2, let given = UInt8(String(decoding: hex, as: UTF8.self), radix: 16), given == sum else {
                notes.add("\(at): checksum '\(String(decoding: hex.prefix(8), as: UTF8.self))' does not match the sentence (\(String(format: "%02X", sum))): skipped")
                return nil
            }
            content = body[..<star]
        }
        let fields = content.split(separator: 0x2C, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard let kind = fields.first, kind.utf8.count == 5 || kind.utf8.count == 6 else { return nil }
        return fields
    }
}

/// What an NMEA log has said so far: the date of the last RMC (for the GGAs after it), and the
/// GGAs that came before any date.
struct NMEALog {
    /// Where a sentence is, as the notes name it.
    struct Line: CustomStringConvertible {
        let number: Int
        let byte: Int64
        var description: String { "line \(number) (byte \(byte))" }
    }

    /// Days since 1970 of the last RMC's date.
    var day: Int?
    /// Seconds in the day of the last RMC, for a GGA after midnight.
    var lastTime: Double?
    var undated = 0

    mutating func take<Sink: TrackSink>(_ fields: [String], at: Line, into sink: inout Sink, notes: inout TrackNotes) {
        let type = fields[0].suffix(3)
        if type == "RMC", fields.count >= 10 {
            rmc(fields, at: at, into: &sink, notes: &notes)
        } else if type == "GGA", fields.count >= 7 {
            gga(fields, at: at, into: &sink, notes: &notes)
        }
    }

    /// `$xxRMC,time,status,lat,N/S,lon,E/W,speed,course,date,...`: a fix when the status is A.
    private mutating func rmc<Sink: TrackSink>(_ fields: [String], at: Line, into sink: inout Sink, notes: inout TrackNotes) {
        guard fields[2] == "A", let t = Self.timeOfDay(fields[1]) else { return }
        let d = fields[9]
        guard d.utf8.count == 6, let dd = Int(d.prefix(2)), let mm = Int(d.dropFirst(2).prefix(2)),
              let yy = Int(d.suffix(2)), (1...12).contains(mm), (1...31).contains(dd) else { return }
        let days = CivilDate.days(year: yy + (yy >= 70 ? 1900 : 2000), month: mm, day: dd)
        day = days
        lastTime = t
        guard let lat = Self.coordinate(fields[3], fields[4], degreeDigits: 2),
              let lon = Self.coordinate(fields[5], fields[6], degreeDigits: 3) else {
            return notes.add("\(at): RMC without a readable position")
        }
        let p = TrackPoint(time: Double(days * 86_400) + t, latitude: lat, longitude: lon)
        if let problem = p.problem { notes.add("\(at): RMC \(problem)") } else { sink.point(p) }
    }

    /// `$xxGGA,time,lat,N/S,lon,E/W,quality,...`: a fix when the quality is not 0, on the date
    /// of the last RMC (the next day when its time is more than 12 h before that RMC's).
    private mutating func gga<Sink: TrackSink>(_ fields: [String], at: Line, into sink: inout Sink, notes: inout TrackNotes) {
        guard let q = Int(fields[6]), q > 0, let t = Self.timeOfDay(fields[1]) else { return }
        guard var days = day else { undated += 1; return }
        if let last = lastTime, t + 43_200 < last { days += 1 }  // past midnight since that RMC
        guard let lat = Self.coordinate(fields[2], fields[3], degreeDigits: 2),
              let lon = Self.coordinate(fields[4], fields[5], degreeDigits: 3) else {
            return notes.add("\(at): GGA without a readable position")
        }
        let p = TrackPoint(time: Double(days * 86_400) + t, latitude: lat, longitude: lon)
        if let problem = p.problem { notes.add("\(at): GGA \(problem)") } else { sink.point(p) }
    }

    /// `ddmm.mmmm` (or `dddmm.mmmm`) and its hemisphere, in signed degrees.
    static func coordinate(_ value: String, _ hemisphere: String, degreeDigits: Int) -> Double? {
        guard value.utf8.count > degreeDigits, let deg = Double(value.prefix(degreeDigits)),
              let min = Double(value.dropFirst(degreeDigits)), min < 60 else { return nil }
        let v = deg + min / 60
        switch hemisphere {
        case "N", "E": return v
        case "S", "W": return -v
        default: return nil
        }
    }

    /// `hhmmss[.sss]` in seconds of the day.
    static func timeOfDay(_ t: String) -> Double? {
        guard t.utf8.count >= 6, let h = Int(t.prefix(2)), let m = Int(t.dropFirst(2).prefix(2)),
              let s = Double(t.dropFirst(4)), h < 24, m < 60, s < 61 else { return nil }
        return Double(h * 3600 + m * 60) + s
    }
}
