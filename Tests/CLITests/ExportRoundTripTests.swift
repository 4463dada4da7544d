import Foundation
import XCTest

/// Tags and notes come back from CSV, KML and GPX as they went in (issue 24 item 9): tags in
/// one unambiguous form (`;` between tags, `\;` and `\\` inside one), a KML description that a
/// viewer renders as the text itself. Read back by Python's csv, xml.etree and html.parser.
final class ExportRoundTripTests: XCTestCase {
    let tags = ["x;y", "z", "a, b", "c\\d"]
    let note = "<b>bold</b> & co\nline 2"
    /// Worked by hand from the rule: `;` and `\` escaped with `\`, tags joined with `;`.
    let joined = "x\\;y;z;a, b;c\\\\d"

    func testTagsAndNotesReadBackFromCSVKMLAndGPX() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let add = try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Paris", "--note", note, "--db", db]
                              + tags.flatMap { ["--tag", $0] })
        XCTAssertEqual(add.status, 0, add.stderr)
        var paths: [String: String] = [:]
        for format in ["csv", "kml", "gpx"] {
            let path = dir.appendingPathComponent("pins.\(format)").path
            let run = try CLI.run(["export", "--format", format, "--out", path, "--db", db])
            XCTAssertEqual(run.status, 0, run.stderr)
            paths[format] = path
        }
        let script = #"""
            import csv, json, sys, html.parser, xml.etree.ElementTree as ET
            def split(cell):
                tags, cur, esc = [], "", False
                for ch in cell:
                    if esc: cur += ch; esc = False
                    elif ch == "\\": esc = True
                    elif ch == ";": tags.append(cur); cur = ""
                    else: cur += ch
                tags.append(cur)
                return [t for t in tags if t]
            class Text(html.parser.HTMLParser):
                def __init__(self):
                    super().__init__(convert_charrefs=True); self.text = ""
                def handle_starttag(self, tag, attrs):
                    if tag == "br": self.text += "\n"
                    else: self.text += "<TAG " + tag + ">"
                def handle_data(self, data): self.text += data
            row = next(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
            k = "{http://www.opengis.net/kml/2.2}"
            pm = ET.parse(sys.argv[2]).getroot().find(".//" + k + "Placemark")
            data = {d.get("name"): d.find(k + "value").text for d in pm.iter(k + "Data")}
            description = pm.find(k + "description").text
            shown = Text(); shown.feed(description); shown.close()
            g = "{http://www.topografix.com/GPX/1/1}"
            wpt = ET.parse(sys.argv[3]).getroot().find(g + "wpt")
            print(json.dumps({"csvCell": row["tags"], "csvTags": split(row["tags"]), "csvNote": row["note"],
                              "kmlCell": data["tags"], "kmlTags": split(data["tags"]), "kmlNote": data["note"],
                              "kmlDescription": description, "kmlShown": shown.text,
                              "gpxDesc": wpt.find(g + "desc").text, "gpxNote": wpt.find(g + "cmt").text}))
            """#
        let run = try CLI.run(["python3", "-c", script, paths["csv"]!, paths["kml"]!, paths["gpx"]!], executable: "/usr/bin/env")
        XCTAssertEqual(run.status, 0, run.stderr)
        let read = try XCTUnwrap(try CLI.json(run.stdout) as? [String: Any])
        XCTAssertEqual(read["csvCell"] as? String, joined)
        XCTAssertEqual(read["kmlCell"] as? String, joined)
        XCTAssertEqual(read["csvTags"] as? [String], tags)
        XCTAssertEqual(read["kmlTags"] as? [String], tags)
        XCTAssertEqual(read["csvNote"] as? String, note)
        XCTAssertEqual(read["kmlNote"] as? String, note)
        XCTAssertEqual(read["gpxNote"] as? String, note)
        // The pin is at the Eiffel Tower: the gazetteer's Paris, Île-de-France (issue 23) leads.
        XCTAssertEqual(read["gpxDesc"] as? String, "Paris, Île-de-France, France; Tags: " + joined)
        // The description is HTML whose text is the note: no <b> element, the break kept.
        XCTAssertEqual(read["kmlDescription"] as? String, "Paris, Île-de-France<br>&lt;b&gt;bold&lt;/b&gt; &amp; co<br>line 2<br>Tags: " + joined)
        XCTAssertEqual(read["kmlShown"] as? String, "Paris, Île-de-France\n" + note + "\nTags: " + joined)
    }

    /// Issue 40 item 12: a place to go went through pins' own CSV as a visit (the export had no
    /// column for it), so export then import-places turned a wish into a visit and a country.
    /// The CSV now ends with `wanted` (`true`/`false`), KML says it in ExtendedData and its
    /// description, GPX in its desc; a CSV of an older version (no `wanted` column) still reads,
    /// every row a visit as it was. Read by Python's csv and xml.etree.
    func testAWantedPlaceStaysWantedThroughCSVAndKML() throws {
        let dir = try CLI.temporaryDirectory(self)
        func pins(_ db: String, _ args: [String]) throws -> Run {
            let run = try CLI.run(args + ["--db", dir.appendingPathComponent(db).path])
            XCTAssertEqual(run.status, 0, "\(args): \(run.stderr)")
            return run
        }
        func wanted(_ db: String) throws -> [String] {
            let list = try XCTUnwrap(try CLI.json(try pins(db, ["list", "--json", "--sort", "title"]).stdout) as? [[String: Any]])
            return list.map { "\($0["title"]!) \($0["wanted"] as? Bool ?? false)" }
        }
        let madrid = dir.appendingPathComponent("list.geojson")
        try Data(#"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[-3.7038,40.4168]},"properties":{"name":"Madrid"}}]}"#.utf8).write(to: madrid)
        _ = try pins("a.sqlite", ["import-places", madrid.path, "--wanted", "--quiet"])
        _ = try pins("a.sqlite", ["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Paris"])
        XCTAssertEqual(try wanted("a.sqlite"), ["Madrid true", "Paris false"])
        var paths: [String] = []
        for format in ["csv", "kml", "gpx"] {
            paths.append(dir.appendingPathComponent("pins.\(format)").path)
            _ = try pins("a.sqlite", ["export", "--format", format, "--out", paths.last!, "--sort", "title"])
        }
        let older = dir.appendingPathComponent("older.csv").path
        let script = #"""
            import csv, json, sys, xml.etree.ElementTree as ET
            rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
            k = "{http://www.opengis.net/kml/2.2}"
            kml = {pm.find(k + "name").text: ({d.get("name"): d.find(k + "value").text for d in pm.iter(k + "Data")}.get("wanted"),
                                               (pm.find(k + "description").text or "").split("<br>")[-1])
                   for pm in ET.parse(sys.argv[2]).getroot().iter(k + "Placemark")}
            g = "{http://www.topografix.com/GPX/1/1}"
            gpx = {w.find(g + "name").text: w.find(g + "desc").text for w in ET.parse(sys.argv[3]).getroot().iter(g + "wpt")}
            # The same file as a version before the column wrote it: every column but the last.
            with open(sys.argv[4], "w", newline="", encoding="utf-8") as out:
                w = csv.writer(out, lineterminator="\r\n")
                w.writerow(list(rows[0].keys())[:-1])
                for r in rows: w.writerow(list(r.values())[:-1])
            print(json.dumps({"header": list(rows[0].keys())[-2:], "csv": {r["title"]: r["wanted"] for r in rows},
                              "kml": kml, "gpx": gpx}))
            """#
        let run = try CLI.run(["python3", "-c", script] + paths + [older], executable: "/usr/bin/env")
        XCTAssertEqual(run.status, 0, run.stderr)
        let read = try XCTUnwrap(try CLI.json(run.stdout) as? [String: Any])
        XCTAssertEqual(read["header"] as? [String], ["photo_count", "wanted"])
        XCTAssertEqual(read["csv"] as? [String: String], ["Madrid": "true", "Paris": "false"])
        let kml = try XCTUnwrap(read["kml"] as? [String: [Any]])
        XCTAssertEqual(kml["Madrid"]?.first as? String, "true")
        XCTAssertEqual(kml["Madrid"]?.last as? String, "Wanted, not visited yet")
        XCTAssertTrue(kml["Paris"]?.first is NSNull, "a visit's placemark has no wanted data: \(kml)")
        let gpx = try XCTUnwrap(read["gpx"] as? [String: String])
        XCTAssertTrue(gpx["Madrid"]!.hasSuffix(", Spain; Wanted, not visited yet"), gpx["Madrid"]!)
        XCTAssertEqual(gpx["Paris"], "Paris, Île-de-France, France", "a visit's desc is as before")
        // Read back: the wish stays a wish (and no country), the visit a visit.
        _ = try pins("b.sqlite", ["import-places", paths[0], "--quiet"])
        XCTAssertEqual(try wanted("b.sqlite"), ["Madrid true", "Paris false"])
        let stats = try XCTUnwrap(try CLI.json(try pins("b.sqlite", ["stats", "--json"]).stdout) as? [String: Any])
        XCTAssertEqual((stats["countries"] as? [[String: Any]])?.map { $0["id"] as? String }, ["FR"])
        _ = try pins("c.sqlite", ["import-places", paths[1], "--quiet"])
        XCTAssertEqual(try wanted("c.sqlite"), ["Madrid true", "Paris false"])
        // An older version's CSV: read field for field as before, both rows visits.
        _ = try pins("d.sqlite", ["import-places", older, "--quiet"])
        XCTAssertEqual(try wanted("d.sqlite"), ["Madrid false", "Paris false"])
        // A value that is neither: that row malformed, named with its line; the other read.
        let text = try String(contentsOfFile: paths[0], encoding: .utf8)
        let bad = dir.appendingPathComponent("bad.csv").path
        try Data(text.replacingOccurrences(of: ",true\r\n", with: ",yes\r\n").utf8).write(to: URL(fileURLWithPath: bad))
        let report = try XCTUnwrap(try CLI.json(try pins("e.sqlite", ["import-places", bad, "--json"]).stdout) as? [String: Any])
        let skipped = try XCTUnwrap(report["skipped"] as? [[String: Any]])
        XCTAssertEqual(skipped.map { "\($0["position"]!) \($0["reason"]!) \($0["detail"]!)" }, ["line 2 malformed wanted 'yes' is not true or false"])
        XCTAssertEqual(try wanted("e.sqlite"), ["Paris false"])
    }
}
