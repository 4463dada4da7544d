import Foundation

/// Garmin TCX activities, over the XML pull parser.
enum TCXTrack {
    /// Garmin Training Center XML (TCX, schema TrainingCenterDatabasev2): `Trackpoint` with
    /// `Time` and `Position` (`LatitudeDegrees`, `LongitudeDegrees`). A trackpoint without a
    /// position (a pause, indoor laps) is skipped silently, as Garmin writes many.
    static func read<Sink: TrackSink>(_ input: ByteInput, into sink: inout Sink, notes: inout TrackNotes) throws {
        let p = XMLPullParser(input: input)
        var pointDepth = 0
        // A coordinate read: nil (no element), .some(nil) (not a number), or its value.
        var lat: Double??, lon: Double??, time: XMLTracks.Time?
        var pointOffset: Int64 = 0
        while let e = try p.next() {
            switch e {
            case .startElement:
                if pointDepth == 0 {
                    if p.localNameIs("Trackpoint") {
                        pointDepth = p.depth
                        lat = nil; lon = nil; time = nil
                        pointOffset = p.offset
                    }
                } else if p.localNameIs("Time") && p.depth == pointDepth + 1 {
                    time = try p.readTextBytes(XMLTracks.Time.init)
                } else if p.localNameIs("LatitudeDegrees") {
                    lat = .some(try p.readTextBytes(ByteNumber.decimal))
                } else if p.localNameIs("LongitudeDegrees") {
                    lon = .some(try p.readTextBytes(ByteNumber.decimal))
                }
            case .endElement:
                guard pointDepth != 0, p.depth < pointDepth else { break }
                pointDepth = 0
                guard let time, lat != nil || lon != nil else { break }
                XMLTracks.emit(lat: lat ?? nil, lon: lon ?? nil, time: time, at: pointOffset, what: "<Trackpoint>", into: &sink, notes: &notes)
            case .text: break
            }
        }
    }
}
