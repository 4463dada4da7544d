import Foundation
import PinCore

/// Writes the map page: one self-contained HTML file (inline CSS, JavaScript and SVG; the data
/// in JSON islands). It loads nothing: the Content-Security-Policy forbids every remote load,
/// and only data: images (thumbnails) are allowed.
public enum PageRenderer {
    /// Per-thumbnail and per-page caps on embedded thumbnails (bytes of JPEG): a page of
    /// 10,000 pins stays a page, not a photo archive.
    public static let thumbnailCap = 24 * 1024
    public static let thumbnailPageCap = 4 * 1024 * 1024

    public static func render(_ input: PageInput) -> String {
        let stats = PageStatistics(pins: input.pins, catalog: input.catalog)
        let visited = Set(stats.countries.map(\.code))
        var html = ""
        html.reserveCapacity(input.worldMap.countries.reduce(0) { $0 + $1.d.utf8.count + 40 } + input.pins.count * 320 + 64 * 1024)
        let style = input.settings.mapStyle.rawValue
        html += """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="pins">
            <title>\(PageText.html(input.title))</title>
            <style>
            :root { --pin: \(PageText.color(input.settings.defaultPinColor, fallback: Settings.defaultPinColor)); --fill: \(PageText.color(input.settings.mapFillColor, fallback: Settings().mapFillColor)); }
            \(PageStyle.css)
            </style>
            </head>
            <body class="style-\(style)">
            <header id="top"><h1>\(PageText.html(input.title))</h1><p id="summary"></p><p id="generated">\(PageText.html(generatedLine(input)))</p></header>
            <main>
            <aside id="side">
            <nav id="tabs"><button type="button" data-tab="list" class="on">Pins</button><button type="button" data-tab="stats">Statistics</button>\(input.run == nil ? "" : "<button type=\"button\" data-tab=\"run\">This run</button>")</nav>
            <section id="tab-list" class="tab on">
            <input id="search" type="search" placeholder="Search title, note, tag, city, mountain" autocomplete="off" aria-label="Search pins">
            <div id="filters"><select id="f-country" aria-label="Country"></select><select id="f-continent" aria-label="Continent"></select><select id="f-type" aria-label="Type"></select><select id="f-tag" aria-label="Tag"></select><select id="f-year" aria-label="Year"></select></div>
            <p id="matches"></p>
            <ol id="list"></ol>
            </section>
            <section id="tab-stats" class="tab"></section>
            <section id="tab-run" class="tab"></section>
            </aside>
            <div id="map" tabindex="0" aria-label="Map">
            <svg id="base" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(input.worldMap.width) \(input.worldMap.width)" preserveAspectRatio="xMidYMid meet"><rect id="ocean" x="-\(input.worldMap.width)" y="-\(input.worldMap.width)" width="\(3 * input.worldMap.width)" height="\(3 * input.worldMap.width)"/><g id="countries">
            """
        for country in input.worldMap.countries {
            // Ids and path data were checked when WorldMap.json was loaded (letters; path characters).
            html += "<path id=\"c-\(country.id)\"\(visited.contains(country.id) ? " class=\"v\"" : "") d=\"\(country.d)\"/>\n"
        }
        html += """
            </g></svg>
            <svg id="pins-layer" xmlns="http://www.w3.org/2000/svg"></svg>
            <div id="zoom"><button type="button" id="zoom-in" title="Zoom in" aria-label="Zoom in">+</button><button type="button" id="zoom-out" title="Zoom out" aria-label="Zoom out">\u{2212}</button><button type="button" id="zoom-fit" title="Show all pins" aria-label="Show all pins">\u{2922}</button></div>
            <div id="hover"></div>
            <div id="legend"></div>
            <div id="popup" hidden><button type="button" id="popup-close" aria-label="Close">\u{00D7}</button><div id="popup-body"></div></div>
            </div>
            </main>

            """
        html += "<script type=\"application/json\" id=\"pins-data\">["
        for (i, pin) in input.pins.enumerated() {
            if i > 0 { html += "," }
            html += JSONText.scriptSafe(pin.listJSON)
        }
        html += "]</script>\n"
        html += island("pins-extra", extraJSON(input.pins, folders: input.importedFolders))
        // countries-data: each visited country's code, name, continent and pin count.
        html += island("countries-data", stats.countries.map {
            ["code": $0.code, "name": $0.name, "continent": $0.continent, "pinCount": $0.pinCount] as [String: Any]
        })
        var config: [String: Any] = [
            "width": input.worldMap.width, "pinColor": PageText.color(input.settings.defaultPinColor, fallback: Settings.defaultPinColor),
            "fillColor": PageText.color(input.settings.mapFillColor, fallback: Settings().mapFillColor), "mapStyle": style,
            "stats": stats.json, "names": input.catalog.entries.mapValues(\.name), "continents": input.catalog.entries.mapValues(\.continent),
            "folders": input.importedFolders,
        ]
        config["filter"] = input.filterDescription
        html += island("page-data", config)
        if let run = input.run {
            html += island("run-data", [
                "root": run.root, "dryRun": run.dryRun, "created": run.created.map(\.json), "skipped": run.skipped.map(\.json),
                "counts": run.counts, "unreadable": run.unreadable.map(\.json), "corrected": run.corrected.map(\.json),
                "moved": run.movedCount, "kept": run.keptCount,
                // The reasons in words, as the text reports write them ("no location").
                "reasonWords": Dictionary(uniqueKeysWithValues: PhotoDecision.allCases.map { ($0.rawValue, $0.words) }),
            ] as [String: Any])
        }
        html += "<script>\n" + PageScript.js + "\n</script>\n</body>\n</html>\n"
        return html
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
    static func extraJSON(_ pins: [PagePin], folders: [String] = []) -> [String: Any] {
        var budget = thumbnailPageCap
        var rows: [String: Any] = [:]
        let folders = folders.sorted { $0.utf8.count > $1.utf8.count }
        for (index, pin) in pins.enumerated() {
            var extra: [String: Any] = [:]
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

    /// The photo path the page's script derives: the pin's first photo id (an absolute path)
    /// below the longest imported folder it lies in, else the whole id; nil without photos.
    /// PageScript's `photoPath` is the same function.
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
public enum PageText {
    /// Text for HTML element content and quoted attribute values.
    public static func html(_ text: String) -> String {
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
