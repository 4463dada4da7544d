import Foundation
import PinGrammar

/// What the track readers over the XML pull parser share (GPXTrack, TCXTrack, KMLTrack): a
/// point's time and the note of why a point is not a fix. Element names are matched on their
/// local name, as exiftool does, so a namespace prefix (`gpx:trkpt`, `gx:Track`) does not matter.
enum XMLTracks {
    static func number<S: StringProtocol>(_ s: S) -> Double? { ByteNumber.decimal(s) }

    /// A point's time as read from its bytes: the instant, or (when it is not ISO 8601) the
    /// text, for the note.
    enum Time {
        case instant(Double)
        case unreadable(String)

        init(_ b: UnsafeBufferPointer<UInt8>) {
            if let t = TrackTime.parse(bytes: b) { self = .instant(t) } else { self = .unreadable(String(decoding: b, as: UTF8.self)) }
        }

        init(_ text: String) {
            if let t = TrackTime.parse(text) { self = .instant(t) } else { self = .unreadable(text) }
        }
    }

    static func emit<Sink: TrackSink>(lat: String?, lon: String?, time: String, at offset: Int64, what: String,
                                      span: Int32 = 0, into sink: inout Sink, notes: inout TrackNotes) {
        emit(lat: lat.flatMap(number), lon: lon.flatMap(number), time: Time(time), at: offset, what: what, span: span,
             into: &sink, notes: &notes)
    }

    /// A point, or the note of why it is not one (its time first, then its position).
    static func emit<Sink: TrackSink>(lat: Double?, lon: Double?, time: Time, at offset: Int64, what: @autoclosure () -> String,
                                      span: Int32 = 0, into sink: inout Sink, notes: inout TrackNotes) {
        guard case let .instant(t) = time else {
            if case let .unreadable(text) = time { notes.add("\(what()) at byte \(offset): time '\(text.prefix(40))' is not ISO 8601") }
            return
        }
        guard let la = lat, let lo = lon else {
            return notes.add("\(what()) at byte \(offset): no latitude and longitude in degrees")
        }
        let point = TrackPoint(time: t, latitude: la, longitude: lo, span: span)
        if let problem = point.problem { return notes.add("\(what()) at byte \(offset): \(problem)") }
        sink.point(point)
    }
}
