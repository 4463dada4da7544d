import PinGrammar

/// KML's `<coordinates>` (OGC 07-147r2, `kml:coordinates`): tuples `longitude,latitude[,altitude]`
/// in decimal degrees, separated by white space. The one reader of it, for a Placemark's point in
/// a track (KMLTrack) and in a place file (PlacesXML): the first tuple's longitude and latitude.
/// The spec puts no space inside a tuple; white space next to a comma (`2.35, 48.85`, as people
/// type it) is read as part of the comma, since it cannot start another tuple there.
public enum KMLCoordinates {
    /// The first tuple's longitude and latitude, each nil when missing or not a finite decimal
    /// number (ByteNumber's grammar, as the other track values).
    public static func first(_ text: String) -> (longitude: Double?, latitude: Double?) {
        var text = text
        return text.withUTF8(first)
    }

    static func first(_ b: UnsafeBufferPointer<UInt8>) -> (longitude: Double?, latitude: Double?) {
        var i = 0
        while i < b.count, isSpace(b[i]) { i += 1 }
        var parts: (Range<Int>?, Range<Int>?) = (nil, nil)
        var index = 0, start = i
        func close(_ end: Int) {
            if index == 0 { parts.0 = start..<end } else if index == 1 { parts.1 = start..<end }
            index += 1
        }
        while i < b.count {
            if b[i] == 0x2C {
                close(i)
                i += 1
                while i < b.count, isSpace(b[i]) { i += 1 }
                start = i
                continue
            }
            if isSpace(b[i]) {
                var j = i
                while j < b.count, isSpace(b[j]) { j += 1 }
                guard j < b.count, b[j] == 0x2C else { break }
                close(i)
                i = j + 1
                while i < b.count, isSpace(b[i]) { i += 1 }
                start = i
                continue
            }
            i += 1
        }
        if start < b.count || index > 0 { close(i) }
        func value(_ r: Range<Int>?) -> Double? { r.flatMap { ByteNumber.decimal(UnsafeBufferPointer(rebasing: b[$0])) } }
        return (value(parts.0), value(parts.1))
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
}
