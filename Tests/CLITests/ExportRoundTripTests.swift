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
}
