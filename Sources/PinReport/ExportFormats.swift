import Foundation
import PinCore
import PinFormats
import PinGrammar

/// RFC 7946: a FeatureCollection of Points `[longitude, latitude]`, properties = the fields of
/// `pins list --json`; visited countries, when given, as features with their fill colour
/// (simplestyle-spec's `fill`, which GitHub, geojson.io and QGIS styles read).
enum GeoJSONExport {
    static func write(_ input: ExportInput, to sink: ExportSink) {
        sink.write("{\"type\":\"FeatureCollection\",\"features\":[")
        var first = true
        func separator() {
            sink.write(first ? "\n" : ",\n")
            first = false
        }
        for country in input.countries {
            separator()
            let properties = JSONText.string(["kind": "country", "country": country.code, "name": country.name,
                                              "pinCount": country.pinCount, "fill": input.fillColor, "fill-opacity": 0.5])
            sink.write("{\"type\":\"Feature\",\"geometry\":\(country.geometryJSON),\"properties\":\(properties)}")
        }
        for pin in input.pins {
            separator()
            var properties = pinProperties(pin)
            properties["countryName"] = orNull(pin.countryID.flatMap { input.countryNames[$0] })
            if let trip = input.trips[pin.id] {
                properties["trip"] = trip.id
                properties["tripTitle"] = trip.title
            }
            sink.write("{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[")
            sink.write(exportDegrees(pin.coordinate.longitude) + "," + exportDegrees(pin.coordinate.latitude))
            sink.write("]},\"properties\":" + JSONText.string(properties) + "}")
        }
        sink.write("\n]}\n")
    }
}

/// Text for XML 1.0 character data and attribute values (`XMLReferences.escaped`): the five
/// entities, and the characters XML 1.0 cannot carry at all replaced by U+FFFD, so a hostile
/// title can neither close an element nor make the file unreadable.
func xmlEscaped(_ text: String) -> String {
    XMLReferences.escaped(text, notXML: .replace)
}

/// Text as HTML that displays it as it is (`PageText.html`: `&`, `<`, `>`, `"`, `'` as
/// entities), each line feed as `<br>`, carriage returns left out (for a KML description, which
/// viewers render as HTML).
func htmlText(_ text: String) -> String {
    let lines = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\r" }))
    return PageText.html(lines).split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "<br>")
}

/// How KML's description and GPX's desc say a pin is a place to go (`Location.wanted`).
let wantedText = "Wanted, not visited yet"

/// KML 2.2 (OGC 07-147r2): a Folder per country (pins at sea last), a Placemark per pin with
/// its children in the schema's order (name, description, TimeStamp, styleUrl, ExtendedData,
/// Point), one shared Style per pin colour.
enum KMLExport {
    /// Google My Maps imports at most this many placemarks from one file.
    static let myMapsLimit = 2_000

    static func write(_ input: ExportInput, to sink: ExportSink) {
        sink.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<kml xmlns=\"http://www.opengis.net/kml/2.2\">\n<Document>\n<name>pins</name>\n")
        let colors = Array(Set(input.pins.map(\.color))).sorted()
        for color in colors {
            sink.write("<Style id=\"\(styleID(color))\"><IconStyle><color>\(kmlColor(color))</color></IconStyle></Style>\n")
        }
        // Folders in country-code order; pins without a country in a last folder.
        var byCountry: [String: [Location]] = [:]
        for pin in input.pins { byCountry[pin.countryID ?? "", default: []].append(pin) }
        for code in byCountry.keys.sorted(by: { ($0.isEmpty ? "\u{10FFFF}" : $0) < ($1.isEmpty ? "\u{10FFFF}" : $1) }) {
            let name = code.isEmpty ? "At sea or unknown" : "\(input.countryNames[code] ?? code) (\(code))"
            sink.write("<Folder><name>\(xmlEscaped(name))</name>\n")
            for pin in byCountry[code]! { placemark(pin, trip: input.trips[pin.id], to: sink) }
            sink.write("</Folder>\n")
        }
        sink.write("</Document>\n</kml>\n")
    }

    static func placemark(_ pin: Location, trip: (id: String, title: String)?, to sink: ExportSink) {
        var text = "<Placemark id=\"p-\(pin.id.lowercasedText)\"><name>\(xmlEscaped(pin.title))</name>"
        var description: [String] = []
        if let town = whereText(pin) { description.append(town) }
        if let place = placeName(pin) { description.append(place) }
        if let note = pin.note { description.append(note) }
        if let tags = pin.tags, !tags.isEmpty { description.append("Tags: " + TagList.join(tags)) }
        if pin.wanted { description.append(wantedText) }
        // Viewers (Google Earth, My Maps) render a description as HTML: it is written as HTML
        // that shows the text as text (a note's "<b>" as "<b>", its line breaks as breaks).
        if !description.isEmpty { text += "<description>\(xmlEscaped(htmlText(description.joined(separator: "\n"))))</description>" }
        text += "<TimeStamp><when>\(pinDateText(pin))</when></TimeStamp><styleUrl>#\(styleID(pin.color))</styleUrl><ExtendedData>"
        var data: [(String, String)] = [("id", pin.id.lowercasedText), ("type", pin.type.selection.rawValue),
                                        ("country", pin.countryID ?? ""), ("visitCount", String(pin.visitCount))]
        if pin.photoCount > 0 { data.append(("photoCount", String(pin.photoCount))) }
        if let note = pin.note { data.append(("note", note)) }
        if let tags = pin.tags { data.append(("tags", TagList.join(tags))) }
        // The visit's fields by their flat keys (`name`, `height`), as import-places reads them back.
        let visit = pin.type.visitValues
        for key in visit.type.flatKeys {
            switch visit.flatValue(key) {
            case let .text(text)?: data.append((key, text))
            case let .number(number)?: data.append((key, exportNumber(number)))
            case nil: break
            }
        }
        if let town = pin.place { data.append(("place", town)) }
        if let region = pin.region { data.append(("region", region)) }
        if let code = pin.regionCode { data.append(("regionCode", code)) }
        if let trip {
            data.append(("trip", trip.id))
            data.append(("tripTitle", trip.title))
        }
        // Only on a place to go (a visit's placemark is as before); import-places reads it back.
        if pin.wanted { data.append(("wanted", "true")) }
        for (key, value) in data { text += "<Data name=\"\(key)\"><value>\(xmlEscaped(value))</value></Data>" }
        text += "</ExtendedData><Point><coordinates>\(exportDegrees(pin.coordinate.longitude)),\(exportDegrees(pin.coordinate.latitude))"
        if let height = height(pin) { text += "," + exportNumber(height) }
        text += "</coordinates></Point></Placemark>\n"
        sink.write(text)
    }

    static func styleID(_ color: String) -> String {
        "c" + String(color.unicodeScalars.filter { $0.properties.isASCIIHexDigit }.map(Character.init))
    }

    /// KML colours are aabbggrr.
    static func kmlColor(_ color: String) -> String {
        let hex = Array(color.unicodeScalars.filter { $0.properties.isASCIIHexDigit }.map(Character.init)).map(String.init).joined().lowercased()
        guard hex.count == 6 else { return "ff0000ff" }
        let c = Array(hex)
        return "ff" + String(c[4...5]) + String(c[2...3]) + String(c[0...1])
    }
}

/// GPX 1.1: one waypoint per pin, children in the schema's order (ele, time, name, cmt, desc,
/// sym, type), times in UTC with `Z` as the schema's xsd:dateTime and most devices expect.
enum GPXExport {
    static func write(_ input: ExportInput, to sink: ExportSink) {
        sink.write("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="pins" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
            <metadata><name>pins</name></metadata>

            """)
        for pin in input.pins {
            // GPX longitudes are [-180, 180): the antimeridian is written as -180.
            let longitude = pin.coordinate.longitude == 180 ? -180 : pin.coordinate.longitude
            var text = "<wpt lat=\"\(exportDegrees(pin.coordinate.latitude))\" lon=\"\(exportDegrees(longitude))\">"
            if let height = height(pin) { text += "<ele>\(exportNumber(height))</ele>" }
            text += "<time>\(ISO8601.format(pin.date))</time><name>\(xmlEscaped(pin.title))</name>"
            if let note = pin.note { text += "<cmt>\(xmlEscaped(note))</cmt>" }
            var description: [String] = []
            let country = pin.countryID.map { input.countryNames[$0] ?? $0 }
            let town = [whereText(pin), country].compactMap { $0 }
            if !town.isEmpty { description.append(town.joined(separator: ", ")) }
            if let place = placeName(pin) { description.append(place) }
            if let tags = pin.tags, !tags.isEmpty { description.append("Tags: " + TagList.join(tags)) }
            if let trip = input.trips[pin.id] { description.append("Trip: " + trip.title) }
            // GPX has no field for it: said to the person, not read back by import-places.
            if pin.wanted { description.append(wantedText) }
            if !description.isEmpty { text += "<desc>\(xmlEscaped(description.joined(separator: "; ")))</desc>" }
            let type = pin.type.selection
            text += "<sym>\(type.gpxSymbol)</sym><type>\(type.rawValue)</type></wpt>\n"
            sink.write(text)
        }
        sink.write("</gpx>\n")
    }
}

/// CSV per RFC 4180: CRLF line ends, a header row, a field quoted when it holds a comma, quote,
/// CR or LF (quotes doubled). `latitude` and `longitude` are the column names QGIS and GDAL
/// recognise. A text cell starting with = + - @ (a formula to a spreadsheet: OWASP's CSV
/// injection) gets a leading apostrophe. `bom` starts the file with U+FEFF so Excel reads UTF-8.
/// `wanted` (last) is `true` for a place to go and `false` for a visit, so the file says which
/// when it is read back (`import-places`), as GeoJSON's `"wanted": true` does.
enum CSVExport {
    static let header = ["id", "title", "latitude", "longitude", "country", "country_name", "type", "date", "color",
                         "visit_count", "note", "tags", "name", "height", "place", "region", "region_code", "trip",
                         "trip_title", "photo_count", "wanted"]

    static func write(_ input: ExportInput, bom: Bool, to sink: ExportSink) {
        if bom { sink.write("\u{FEFF}") }
        sink.write(header.joined(separator: ",") + "\r\n")
        for pin in input.pins {
            let row: [String] = [
                pin.id.lowercasedText, text(pin.title), exportDegrees(pin.coordinate.latitude),
                exportDegrees(pin.coordinate.longitude), pin.countryID ?? "",
                text(pin.countryID.flatMap { input.countryNames[$0] } ?? ""), pin.type.selection.rawValue,
                csvDate(pin), pin.color, String(pin.visitCount), text(pin.note ?? ""),
                text(TagList.join(pin.tags ?? [])), text(placeName(pin) ?? ""), height(pin).map(exportNumber) ?? "",
                text(pin.place ?? ""), text(pin.region ?? ""), pin.regionCode ?? "",
                input.trips[pin.id]?.id ?? "", text(input.trips[pin.id]?.title ?? ""), String(pin.photoCount),
                pin.wanted ? "true" : "false",
            ]
            sink.write(row.map(field).joined(separator: ",") + "\r\n")
        }
    }

    /// Free text: defused for spreadsheets. A text that already starts with an apostrophe
    /// before one of those characters gets one more, so reading the file back (`import-places`
    /// drops one apostrophe there) gives the text as it was.
    static func text(_ value: String) -> String {
        var scalars = value.unicodeScalars.makeIterator()
        guard var first = scalars.next() else { return value }
        while first == "'", let next = scalars.next() { first = next }
        guard "=+-@\t\r".unicodeScalars.contains(first) else { return value }
        return "'" + value
    }

    /// The pin's date; a known offset of 0 as `+00:00`, not `Z` (which says "offset unknown"):
    /// a CSV has no `utcOffset` column to tell them apart, so the date says it.
    static func csvDate(_ pin: Location) -> String {
        let text = pinDateText(pin)
        guard pin.utcOffsetSeconds == 0, text.hasSuffix("Z") else { return text }
        return text.dropLast() + "+00:00"
    }

    static func field(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
