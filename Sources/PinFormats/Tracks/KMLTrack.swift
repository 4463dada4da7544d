import Foundation

/// KML and KMZ tracks and timed placemarks, over the XML pull parser.
enum KMLTrack {
    /// A `gx:coord` (`lon lat [alt]`, separated by white space): its first two numbers.
    static func coordinate(_ b: UnsafeBufferPointer<UInt8>) -> (lon: Double?, lat: Double?) {
        func isSeparator(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        // Bytes beyond ASCII, or a CR (a "\r\n" is one Character, no separator in the String
        // split): as the Strings split them.
        if b.contains(where: { $0 >= 0x80 || $0 == 0x0D }) {
            let parts = String(decoding: b, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            return (parts.first.flatMap(XMLTracks.number), parts.count >= 2 ? XMLTracks.number(parts[1]) : nil)
        }
        var fields: [Range<Int>] = []
        var i = 0
        while i < b.count && fields.count < 2 {
            while i < b.count && isSeparator(b[i]) { i += 1 }
            let start = i
            while i < b.count && !isSeparator(b[i]) { i += 1 }
            if i > start { fields.append(start..<i) }
        }
        func value(_ k: Int) -> Double? {
            k < fields.count ? ByteNumber.decimal(UnsafeBufferPointer(rebasing: b[fields[k]])) : nil
        }
        return (value(0), value(1))
    }

    /// KML 2.2 (OGC 07-147r2) with Google's gx extension: every `gx:Track` (its `when` and
    /// `gx:coord` elements paired in order, section "gx:Track" of the KML reference), and every
    /// `Placemark` whose `Point` has a `TimeStamp` (`when`) or a `TimeSpan` (`begin` and `end`:
    /// two fixes, interpolated between as one span, as exiftool does). A `LineString` has no
    /// time per point: it is ignored, with a note.
    static func read<Sink: TrackSink>(_ input: ByteInput, into sink: inout Sink, notes: inout TrackNotes) throws {
        let reader = KMLReader(XMLPullParser(input: input), sink: sink, notes: notes)
        defer { (sink, notes) = (reader.sink, reader.notes) }
        try reader.readAll()
    }

    /// Reads a KML file's events (`readKML`): the `gx:Track` or the `Placemark` being read, and
    /// what it ignored.
    final class KMLReader<Sink: TrackSink> {
        let p: XMLPullParser
        var sink: Sink
        var notes: TrackNotes
        private var span: Int32 = 0
        private var lineStrings = 0, mismatched = 0

        /// The Placemark being read (depth 0: none).
        private var placemarkDepth = 0
        private var placemarkOffset: Int64 = 0
        private var when: String?, begin: String?, end: String?, coordinates: String?

        /// The gx:Track being read (depth 0: none): times and coordinates waiting for their partner.
        private var trackDepth = 0
        private var trackOffset: Int64 = 0
        private var whens: [XMLTracks.Time] = [], coords: [(lon: Double?, lat: Double?)] = []
        private var whenHead = 0, coordHead = 0

        init(_ parser: XMLPullParser, sink: Sink, notes: TrackNotes) {
            p = parser
            self.sink = sink
            self.notes = notes
        }

        func readAll() throws {
            while let e = try p.next() {
                switch e {
                case .startElement: try started()
                case .endElement: ended()
                case .text: break
                }
            }
            if mismatched > 0 { notes.add("\(mismatched) gx:Track time\(mismatched == 1 ? "" : "s") or coordinate\(mismatched == 1 ? "" : "s") without a partner ignored") }
            if lineStrings > 0 { notes.add("\(lineStrings) LineString\(lineStrings == 1 ? "" : "s") ignored: a LineString has no time per point") }
        }

        private func started() throws {
            if trackDepth != 0 {
                if p.localNameIs("when") { whens.append(try p.readTextBytes(XMLTracks.Time.init)); pairTrack() }
                else if p.localNameIs("coord") { coords.append(try p.readTextBytes(coordinate)); pairTrack() }
                return
            }
            switch p.localName {
            case "Track":
                trackDepth = p.depth
                trackOffset = p.offset
                whens = []; coords = []; whenHead = 0; coordHead = 0
            case "Placemark":
                placemarkDepth = p.depth
                placemarkOffset = p.offset
                when = nil; begin = nil; end = nil; coordinates = nil
            case "when" where placemarkDepth != 0: when = try p.readText()
            case "begin" where placemarkDepth != 0: begin = try p.readText()
            case "end" where placemarkDepth != 0: end = try p.readText()
            case "coordinates" where placemarkDepth != 0:
                let text = try p.readText()
                if coordinates == nil { coordinates = text }
            case "LineString" where placemarkDepth != 0:
                lineStrings += 1
                try p.skipElement()
            default: break
            }
        }

        private func ended() {
            if trackDepth != 0 && p.depth < trackDepth {
                trackDepth = 0
                mismatched += (whens.count - whenHead) + (coords.count - coordHead)
                return
            }
            guard placemarkDepth != 0, p.depth < placemarkDepth else { return }
            placemarkDepth = 0
            finishPlacemark()
        }

        /// The track's times and coordinates paired in order, as they come.
        private func pairTrack() {
            while whenHead < whens.count && coordHead < coords.count {
                XMLTracks.emit(lat: coords[coordHead].lat, lon: coords[coordHead].lon, time: whens[whenHead],
                     at: trackOffset, what: "gx:Track", into: &sink, notes: &notes)
                whenHead += 1
                coordHead += 1
            }
            // Keep the queues short: what was paired goes.
            if whenHead > 1024 { whens.removeFirst(whenHead); whenHead = 0 }
            if coordHead > 1024 { coords.removeFirst(coordHead); coordHead = 0 }
        }

        /// A Placemark's point at its `TimeStamp`, or at both ends of its `TimeSpan` (one span).
        private func finishPlacemark() {
            guard let coordinates else { return }
            let (lon, lat) = KMLCoordinates.first(coordinates)
            func emit(_ time: String, span: Int32 = 0) {
                XMLTracks.emit(lat: lat, lon: lon, time: XMLTracks.Time(time), at: placemarkOffset, what: "<Placemark>", span: span,
                               into: &sink, notes: &notes)
            }
            if let when {
                emit(when)
            } else if let end {
                if let begin, let b = TrackTime.parse(begin), let e = TrackTime.parse(end), b < e {
                    span += 1
                    emit(begin, span: span)
                    emit(end, span: span)
                } else {
                    emit(end)
                }
            }
        }
    }
}
