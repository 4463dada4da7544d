import Foundation

/// GPX 1.0 and 1.1 tracks, routes and waypoints, over the XML pull parser.
enum GPXTrack {
    /// GPX (topografix.com/GPX/1/1, and 1/0): `trkpt` of every `trkseg` of every `trk`, `rtept`
    /// of every `rte`, and `wpt`, each with `lat`/`lon` attributes and a `time` child. A point
    /// without a time is ignored (counted in the notes).
    static func read<Sink: TrackSink>(_ input: ByteInput, into sink: inout Sink, notes: inout TrackNotes) throws {
        let p = XMLPullParser(input: input)
        var pointDepth = 0
        var lat: Double?, lon: Double?, time: XMLTracks.Time?
        var pointOffset: Int64 = 0
        var untimed = 0
        while let e = try p.next() {
            switch e {
            case .startElement:
                if pointDepth == 0 {
                    if p.localNameIs("trkpt") || p.localNameIs("rtept") || p.localNameIs("wpt") {
                        pointDepth = p.depth
                        lat = p.withAttribute("lat", ByteNumber.decimal) ?? nil
                        lon = p.withAttribute("lon", ByteNumber.decimal) ?? nil
                        time = nil
                        pointOffset = p.offset
                    }
                } else if p.depth == pointDepth + 1 && p.localNameIs("time") {
                    time = try p.readTextBytes(XMLTracks.Time.init)
                }
            case .endElement:
                guard pointDepth != 0, p.depth < pointDepth else { break }
                pointDepth = 0
                guard let time else { untimed += 1; break }
                XMLTracks.emit(lat: lat, lon: lon, time: time, at: pointOffset, what: "<\(p.localName)>", into: &sink, notes: &notes)
            case .text: break
            }
        }
        if untimed > 0 { notes.add("\(untimed) point\(untimed == 1 ? "" : "s") without a time ignored") }
    }
}
