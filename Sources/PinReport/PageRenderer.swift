import Foundation
import PinCore
import PinFormats

/// Writes the map page: one self-contained HTML file (inline CSS, JavaScript and SVG; the data
/// in JSON islands), from the template, style sheet and script in `Page/` (page.html, page.css,
/// page.js), which the EmbedFiles plugin compiles into the binary:
/// - page.html: the page with `{{name}}` holes, filled here (`text(of:_:)`, the countries, the
///   JSON islands, the style sheet and the script).
/// - page.css: the style sheet. `--pin` and `--fill` come from the settings (set in the
///   template); the map style (light, dark, print: `pins settings --map-style`) picks one of its
///   palettes: light is the default; dark for a dark screen; print is black borders on white.
/// - page.js: a small Web Mercator map (the base map is the SVG drawn here; the script moves its
///   viewBox), pins grouped per screen cell so 100,000 stay readable, popups, the list with
///   search and filters, the statistics and the run overlay. Every piece of data is put in the
///   page with textContent or setAttribute, never as markup. It loads nothing: the Content-Security-Policy
///   (`PagePolicy`) forbids every remote load and runs only the page's own script and style sheet, by their
///   hashes; only data: images (thumbnails) are allowed.
public enum PageRenderer {
    /// Per-thumbnail and per-page caps on embedded thumbnails (bytes of JPEG): a page of
    /// 10,000 pins stays a page, not a photo archive.
    public static let thumbnailCap = 24 * 1024
    public static let thumbnailPageCap = 4 * 1024 * 1024
    /// A popup's strip: at most `stripLength` photos; a static page embeds previews (256 px
    /// JPEGs, about 10 KB) of at most `stripPreviewCap` bytes each and `stripPageCap` in all,
    /// the newest pins' first: about 100 previews, 25 pins' strips. The served page embeds none
    /// (the server sends each when the popup opens).
    public static let stripLength = 4
    public static let stripPreviewCap = 16 * 1024
    public static let stripPageCap = 1024 * 1024

    public static func render(_ input: PageInput) -> String {
        let stats = PageStatistics(pins: input.pins, catalog: input.catalog, regionCounts: input.regionCounts, countryList: input.settings.countryList)
        var html = ""
        html.reserveCapacity(input.worldMap.countries.reduce(0) { $0 + $1.d.utf8.count + 40 } + input.pins.count * 320 + input.water.byteCount + 64 * 1024)
        // The water's holes are left empty and marked: the water takes what the rest of the page
        // leaves under the budget (`PageWater.allowance`), known once the rest is written.
        var marks: [String: Int] = [:]
        PageTemplate.page.render(into: &html) { hole, html in
            switch hole {
            case "countries":
                appendCountries(input.worldMap, visited: Set(stats.countries.map(\.code)), withRegions: Set(input.visitedRegions.keys), to: &html)
            case "regions": appendRegionBorders(input, to: &html)
            case "visitedRegions": appendVisitedRegions(input, to: &html)
            case "waterLand", "water": marks[hole] = html.utf8.count
            case "data": appendData(input, stats: stats, to: &html)
            // Exactly the texts whose hashes the policy names (`PagePolicy`).
            case "style": html += PagePolicy.styleText(input.settings)
            case "script": html += PagePolicy.scriptText
            default:
                guard let text = text(of: hole, input) else {
                    preconditionFailure("Page/page.html has a hole {{\(hole)}} that PageRenderer does not fill")
                }
                html += text
            }
        }
        // (128: the path elements around the water's path data.)
        insertWater(input.water.fitting(PageWater.allowance(restOfPage: html.utf8.count + 128)), at: marks, into: &html)
        return html
    }

    /// The water's paths put in at the marks of their holes ("waterLand" before "water").
    static func insertWater(_ water: PageWater, at marks: [String: Int], into html: inout String) {
        var sea = "", land = ""
        if !water.sea.isEmpty { sea += "<path class=\"sea\" d=\"\(water.sea)\"/>" }
        if !water.rivers.isEmpty { sea += "<path class=\"river\" d=\"\(water.rivers)\"/>" }
        if !water.land.isEmpty { land += "<path d=\"\(water.land)\"/>" }
        if !water.visitedLand.isEmpty { land += "<path class=\"v\" d=\"\(water.visitedLand)\"/>" }
        for (hole, text) in [("water", sea), ("waterLand", land)] where !text.isEmpty {
            guard let mark = marks[hole] else { continue }
            html.insert(contentsOf: text, at: html.utf8.index(html.utf8.startIndex, offsetBy: mark))
        }
    }

    /// The holes of the template that take one short text (the others: `countries`, `regions`, `data`,
    /// `style`, `script`); nil for a name that is none of them.
    static func text(of hole: String, _ input: PageInput) -> String? {
        switch hole {
        case "title": PageText.html(input.title)
        case "policy": PagePolicy.contentSecurityPolicy(settings: input.settings, served: input.served)
        // The served page's own script and style sheet (pins serve), before the data: it keeps
        // the page as drawn before page.js fills it, to draw new data on it later.
        case "app": input.served ? "<link rel=\"stylesheet\" href=\"/app/serve.css\"><script src=\"/app/serve.js\"></script><script src=\"/app/imports.js\"></script>\n" : ""
        case "mapStyle": input.settings.mapStyle.rawValue
        case "generated": PageText.html(generatedLine(input))
        case "runTab": input.run == nil ? "" : "<button type=\"button\" data-tab=\"run\">This run</button>"
        case "width": String(input.worldMap.width)
        case "oceanSize": String(3 * input.worldMap.width)
        default: nil
        }
    }

    /// The title page.js gives a pin whose object in pins-data has none (`madeTitle`): the title
    /// pins makes ("Kyoto, Japan", the region without a place, the country alone, "At sea"),
    /// but for a place named as its country, whose title pins-data keeps. `countryName`: the
    /// name page-data's `names` gives the pin's country (nil: at sea).
    public static func madeTitle(place: String?, region: String?, countryName: String?) -> String {
        guard let countryName else { return "At sea" }
        guard let local = place ?? region, !local.isEmpty else { return countryName }
        return local + ", " + countryName
    }

    /// pins-places, each distinct part once: in `r` each distinct region as its name and ISO
    /// code (null where absent), flat; in `t` each distinct place as its name (null: none) and
    /// the index of its region in `r` (-1: none), flat; in `i` per pin of pins-data the index
    /// of its place in `t` (-1: none). A page of 10,000 pins in a few hundred towns would
    /// otherwise say each town's name and region 10,000 times.
    /// Written as its JSON text as it is found (the object `JSONText` writes, keys sorted): made
    /// of `[Any]` arrays, each name and index a 32-byte value, it was 7 MB at once at 100,000
    /// pins in many towns, at each map data of pins serve.
    static func pinPlaces(_ pins: [PagePin]) -> String {
        var regionIndex: [[String?]: Int] = [:], placeIndex: [PinPlace: Int] = [:]
        var regions = JSONText(), places = JSONText(), of = JSONText()
        var regionCount = 0, placeCount = 0
        for (n, pin) in pins.enumerated() {
            if n > 0 { of.writeRaw(",") }
            var key = pin.stored.location.placeFields
            key.placeID = nil
            guard key.place != nil || key.region != nil || key.regionCode != nil else { of.writeRaw("-1"); continue }
            if let known = placeIndex[key] { of.writeRaw(String(known)); continue }
            var region = -1
            if key.region != nil || key.regionCode != nil {
                let pair = [key.region, key.regionCode]
                if let known = regionIndex[pair] {
                    region = known
                } else {
                    region = regionCount
                    regionIndex[pair] = region
                    if regionCount > 0 { regions.writeRaw(",") }
                    regions.writeString(key.region)
                    regions.writeRaw(",")
                    regions.writeString(key.regionCode)
                    regionCount += 1
                }
            }
            placeIndex[key] = placeCount
            of.writeRaw(String(placeCount))
            if placeCount > 0 { places.writeRaw(",") }
            places.writeString(key.place)
            places.writeRaw("," + String(region))
            placeCount += 1
        }
        return "{\"i\":[" + of.text + "],\"r\":[" + regions.text + "],\"t\":[" + places.text + "]}"
    }

    /// The place labels: `[name, longitude, latitude]` per place, most populous first, the
    /// coordinates to 3 decimals (about 100 m: a label is no finer), as compact JSON.
    static func placeLabels(_ places: [Place]) -> String {
        var text = "["
        for (i, place) in places.enumerated() {
            if i > 0 { text += "," }
            text += "[" + JSONText.scriptSafe(JSONText.string(place.name)) + "," + labelDegrees(place.coordinate.longitude) + ","
                + labelDegrees(place.coordinate.latitude) + "]"
        }
        return text + "]"
    }

    static func labelDegrees(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let thousandths = Int(saturating: (value * 1000).rounded())
        let sign = thousandths < 0 ? "-" : ""
        let a = abs(thousandths)
        var fraction = String(a % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return sign + String(a / 1000) + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// How many places of each visited country the page names: enough for a zoomed-in country
    /// to read as places, few enough that a page of 10,000 pins grows by a few per cent.
    public static let labelsPerCountry = 150
    public static let labelsPerPage = 4000

    /// The base map: one path per country, visited ones filled.
    /// `withRegions`: the visited countries whose visited regions are filled at region zoom
    /// (class "r": there the country's own fill gives way to its regions').
    static func appendCountries(_ worldMap: WorldMap, visited: Set<String>, withRegions: Set<String> = [], to html: inout String) {
        for country in worldMap.countries {
            // Ids and path data were checked when WorldMap.json was loaded (letters; path characters).
            let classes = visited.contains(country.id) ? (withRegions.contains(country.id) ? " class=\"v r\"" : " class=\"v\"") : ""
            html += "<path id=\"c-\(country.id)\"\(classes) d=\"\(country.d)\"/>\n"
        }
    }

    /// The JSON islands the script reads: pins-data, pins-extra, countries-data, page-data and,
    /// for an import's page, run-data. Each is appended where it goes: pins-data pin by pin, no
    /// text of it apart (made apart, then joined to its tags, the 23 MB of 100,000 pins were
    /// three texts at once beside the page's own: pins serve's page, 70 MB).
    static func appendData(_ input: PageInput, stats: PageStatistics, to html: inout String) {
        for (id, json) in islandParts(input, stats: stats) {
            html += "<script type=\"application/json\" id=\"\(id)\">"
            if let json { html += json } else { writePinsData(input.pins) { html += String(decoding: $0, as: UTF8.self) } }
            html += "</script>\n"
        }
    }

    /// The islands in page order, each with its text, but pins-data's (nil), which is written
    /// pin by pin (`writePinsData`).
    private static func islandParts(_ input: PageInput, stats: PageStatistics) -> [(String, String?)] {
        var islands: [(String, String?)] = [
            ("pins-data", nil), ("pins-extra", safe(extraJSON(input.pins, folders: input.importedFolders, served: input.served))),
            ("places-data", placeLabels(input.labelPlaces)), ("pins-places", JSONText.scriptSafe(pinPlaces(input.pins))),
            // countries-data: each visited country's code, name, continent and pin count.
            ("countries-data", safe(stats.countries.map {
                ["code": $0.code, "name": $0.name, "continent": $0.continent, "pinCount": $0.pinCount] as [String: Any]
            })),
            ("page-data", safe(pageJSON(input, stats: stats)))]
        if let run = input.run { islands.append(("run-data", safe(runJSON(run)))) }
        return islands
    }

    /// pins-data, `[` each pin's object (`PagePin.dataJSON`, made script-safe) `]`, handed to
    /// `write` in pieces of about 64 KiB: no text of every pin at once.
    private static func writePinsData(_ pins: [PagePin], _ write: (UnsafeBufferPointer<UInt8>) -> Void) {
        var piece: [UInt8] = [UInt8(ascii: "[")]
        piece.reserveCapacity(1 << 16 + 4096)
        var object: [UInt8] = []
        for (index, pin) in pins.enumerated() {
            if index > 0 { piece.append(UInt8(ascii: ",")) }
            object.removeAll(keepingCapacity: true)
            pin.appendDataJSON(to: &object)
            if JSONText.needsScriptEscaping(object) {
                piece.append(contentsOf: JSONText.scriptSafe(String(decoding: object, as: UTF8.self)).utf8)
            } else {
                piece.append(contentsOf: object)
            }
            if piece.count >= 1 << 16 {
                piece.withUnsafeBufferPointer(write)
                piece.removeAll(keepingCapacity: true)
            }
        }
        piece.append(UInt8(ascii: "]"))
        piece.withUnsafeBufferPointer(write)
    }

    /// The islands as one JSON object keyed by their element ids: what `pins serve` sends the
    /// page when the database changed (`/api/page-data`), so the same script draws the new data.
    public static func islandsJSON(_ input: PageInput) -> String {
        var pieces: [UInt8] = []
        writeIslandsJSON(input) { pieces.append(contentsOf: $0) }
        return String(decoding: pieces, as: UTF8.self)
    }

    /// `islandsJSON`'s text handed to `write` in pieces (pins-data's about 64 KiB each), for a
    /// caller that compresses it as it comes (pins serve: no text of 23 MB at 100,000 pins).
    public static func writeIslandsJSON(_ input: PageInput, to write: (UnsafeBufferPointer<UInt8>) -> Void) {
        let stats = PageStatistics(pins: input.pins, catalog: input.catalog, regionCounts: input.regionCounts, countryList: input.settings.countryList)
        for (index, (id, json)) in islandParts(input, stats: stats).enumerated() {
            var head = (index > 0 ? "," : "{") + JSONText.string(id) + ":"
            head.withUTF8(write)
            if var json {
                json.withUTF8(write)
            } else {
                writePinsData(input.pins, write)
            }
        }
        var end = "}"
        end.withUTF8(write)
    }

    private static func safe(_ value: Any) -> String { JSONText.scriptSafe(JSONText.string(value)) }

    /// page-data: the map's width, colours and style, the statistics, country names and continents.
    static func pageJSON(_ input: PageInput, stats: PageStatistics) -> [String: Any] {
        var config: [String: Any] = [
            "width": input.worldMap.width, "pinColor": PageText.color(input.settings.defaultPinColor, fallback: Settings.defaultPinColor),
            "fillColor": PageText.color(input.settings.mapFillColor, fallback: Settings().mapFillColor), "mapStyle": input.settings.mapStyle.rawValue,
            "stats": stats.json, "names": input.catalog.entries.mapValues(\.name), "continents": input.catalog.entries.mapValues(\.continent),
            "folders": input.importedFolders,
        ]
        config["filter"] = input.filterDescription
        config["trips"] = tripsJSON(input)
        return config
    }

    /// page-data's trips: each with its pins as indices into pins-data, in date order (the
    /// route the Trips tab draws); a trip none of whose pins is on the page is left out.
    static func tripsJSON(_ input: PageInput) -> [[String: Any]] {
        guard !input.trips.isEmpty else { return [] }
        // Each pin's place in pins-data by its id (of an id twice, the last).
        let index = IDIndex(ids: input.pins.map(\.stored.location.id), values: input.pins.indices.map(Int32.init))
        // Read once: each comparison of the sort copied two pins.
        let dates = input.pins.map(\.stored.location.date)
        return input.trips.compactMap { trip -> [String: Any]? in
            let pins = trip.pinIDs.compactMap { index[$0].map(Int.init) }
                .sorted { (dates[$0], $0) < (dates[$1], $1) }
            guard !pins.isEmpty else { return nil }
            return ["id": trip.id, "title": trip.title, "start": trip.start.description, "end": trip.end.description,
                    "days": trip.days, "countries": trip.countries, "places": trip.places, "pins": pins,
                    "newCountries": trip.newCountries]
        }
    }

    /// run-data: what an import run created, skipped, could not read and corrected.
    static func runJSON(_ run: RunOverlay) -> [String: Any] {
        [
            "root": run.root, "dryRun": run.dryRun, "created": run.created.map(\.json), "skipped": run.skipped.map(\.json),
            "counts": run.counts, "unreadable": run.unreadable.map(\.json), "corrected": run.corrected.map(\.json),
            "moved": run.movedCount, "kept": run.keptCount, "unplaced": run.unplaced.map(\.json),
            // The reasons in words, as the text reports write them ("no location").
            "reasonWords": Dictionary(uniqueKeysWithValues: PhotoDecision.allCases.map { ($0.rawValue, $0.words) }),
        ]
    }

    /// `<script type="application/json" id="ID">` holding `value`, made safe for the element.
    static func island(_ id: String, _ value: Any) -> String {
        "<script type=\"application/json\" id=\"\(id)\">" + JSONText.scriptSafe(JSONText.string(value)) + "</script>\n"
    }

    static func generatedLine(_ input: PageInput) -> String {
        var line = "Made by pins on " + ISO8601.format(input.generatedAt).prefix(10)
        if let filter = input.filterDescription, !filter.isEmpty { line += " \u{00B7} " + filter }
        return line
    }

    /// What pins-data does not say, only for the pins that need it, keyed by their index:
    /// `o` an offset other than the pin's own (its photo's, for a pin stored without one), `p` the
    /// photo's path below its folder when it is not what `photoPath(of:folders:)` finds, `t` a
    /// thumbnail as a data: URI, while the page's budget lasts. Most pins need nothing.
    static func extraJSON(_ pins: [PagePin], folders: [String] = [], served: Bool = false) -> [String: Any] {
        var budget = thumbnailPageCap
        var rows: [String: Any] = [:]
        let folders = folders.sorted { $0.utf8.count > $1.utf8.count }
        let strips = stripJSON(pins, served: served)
        for (index, pin) in pins.enumerated() {
            var extra: [String: Any] = [:]
            extra["s"] = strips[index]
            if let jpeg = pin.thumbnailJPEG, jpeg.count <= thumbnailCap, jpeg.count <= budget {
                budget -= jpeg.count
                extra["t"] = "data:image/jpeg;base64," + Data(jpeg).base64EncodedString()
            }
            if pin.utcOffsetSeconds != pin.location.utcOffsetSeconds { extra["o"] = pin.utcOffsetSeconds }
            if pin.photoPath != photoPath(of: pin.location, folders: folders) { extra["p"] = pin.photoPath ?? "" }
            if !extra.isEmpty { rows[String(index)] = extra }
        }
        return rows
    }

    /// Each pin's strip (`s` of pins-extra): the served page's photo ids, or a static page's
    /// previews as data: URIs within the caps, the newest pins' first (pins-data is oldest first).
    static func stripJSON(_ pins: [PagePin], served: Bool) -> [Int: [Any]] {
        var strips: [Int: [Any]] = [:]
        var budget = stripPageCap
        for (index, pin) in pins.enumerated().reversed() where !pin.strip.isEmpty {
            let photos = pin.strip.prefix(stripLength)
            if served {
                strips[index] = photos.map(\.id)
                continue
            }
            var uris: [Any] = []
            for photo in photos {
                guard let jpeg = photo.jpeg, jpeg.count <= stripPreviewCap, jpeg.count <= budget else { continue }
                budget -= jpeg.count
                uris.append("data:image/jpeg;base64," + Data(jpeg).base64EncodedString())
            }
            if !uris.isEmpty { strips[index] = uris }
        }
        return strips
    }

    /// The photo path the page's script derives: the pin's first photo id (an absolute path)
    /// below the longest imported folder it lies in, else the whole id; nil without photos.
    /// page.js's `photoPath` is the same function.
    static func photoPath(of location: Location, folders longestFirst: [String]) -> String? {
        guard let id = location.photoIDs.first else { return nil }
        for folder in longestFirst {
            let prefix = folder.hasSuffix("/") ? folder : folder + "/"
            if id.hasPrefix(prefix), id.count > prefix.count { return String(id.dropFirst(prefix.count)) }
        }
        return id
    }
}

/// Escaping for HTML text (JSON is made safe for the page by `JSONText.scriptSafe`).
enum PageText {
    /// Text for HTML element content and quoted attribute values.
    static func html(_ text: String) -> String {
        replacing(text) {
            switch $0 {
            case "&": return "&amp;"
            case "<": return "&lt;"
            case ">": return "&gt;"
            case "\"": return "&quot;"
            case "'": return "&#39;"
            default: return nil
            }
        }
    }

    /// `text` with each scalar that `replacement` maps replaced; the same string when none is.
    private static func replacing(_ text: String, _ replacement: (Unicode.Scalar) -> String?) -> String {
        guard text.unicodeScalars.contains(where: { replacement($0) != nil }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if let replaced = replacement(scalar) { out += replaced } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// A settings colour for CSS: `#RRGGBB` or the fallback (a stored value is never trusted
    /// into a style sheet as it is).
    static func color(_ text: String, fallback: String) -> String {
        Settings.normalizedColor(text) ?? fallback
    }
}
