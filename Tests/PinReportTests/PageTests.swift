import Foundation
@testable import PinCore
import PinFormats
@testable import PinReport
import TestSupport
import XCTest

final class PageTextTests: XCTestCase {
    func testJSONIslandEscapesEverythingThatCouldEndTheScriptElement() {
        // Hand-written: each of < > & U+2028 U+2029 becomes its \u escape; nothing else changes.
        XCTAssertEqual(JSONText.scriptSafe(#"{"t":"</script><!--&\#u{2028}\#u{2029}é"}"#),
                       #"{"t":"\u003c/script\u003e\u003c!--\u0026\u2028\u2029é"}"#)
        XCTAssertEqual(JSONText.scriptSafe(#"{"a":1}"#), #"{"a":1}"#)
        // Each alone is found (the check reads bytes: U+2028 is E2 80 A8), and other characters
        // of E2 (€ is E2 82 AC, ‘ E2 80 98) are left alone.
        XCTAssertEqual(JSONText.scriptSafe("{\"a\":\"x\u{2028}\"}"), #"{"a":"x\u2028"}"#)
        XCTAssertEqual(JSONText.scriptSafe("{\"a\":\"\u{2029}\"}"), #"{"a":"\u2029"}"#)
        XCTAssertEqual(JSONText.scriptSafe("{\"a\":\"b>\"}"), #"{"a":"b\u003e"}"#)
        XCTAssertEqual(JSONText.scriptSafe("{\"a\":\"5 € ‘q’\"}"), "{\"a\":\"5 € ‘q’\"}")
    }

    func testHTMLTextEscapesMarkupAndQuotes() {
        XCTAssertEqual(PageText.html(#"<b a="1">Tom's & co</b>"#), "&lt;b a=&quot;1&quot;&gt;Tom&#39;s &amp; co&lt;/b&gt;")
    }
}

/// A small catalogue: three countries on two continents.
let testCatalog = CountryCatalog(entries: [
    CountryInfo(alpha2: "FR", alpha3: "FRA", numeric: "250", name: "France", continent: "Europe", region: "", subRegion: ""),
    CountryInfo(alpha2: "ES", alpha3: "ESP", numeric: "724", name: "Spain", continent: "Europe", region: "", subRegion: ""),
    CountryInfo(alpha2: "JP", alpha3: "JPN", numeric: "392", name: "Japan", continent: "Asia", region: "", subRegion: ""),
])

func pin(_ title: String, _ country: String?, _ iso: String, offset: Int? = nil, type: LocationType = .point) -> PagePin {
    let date = ISO8601.parse(iso)!.date
    let location = Location(id: UUID(), title: title, coordinate: Coordinate(latitude: 1, longitude: 2), countryID: country, type: type, date: date)
    return PagePin(location: location, utcOffsetSeconds: offset)
}

final class PageStatisticsTests: XCTestCase {
    func testCountsYearsInEachPinsOwnOffset() {
        let city = LocationType.city(CityVisitData(cityName: "Paris", cityCoordinate: Coordinate(latitude: 1, longitude: 2)))
        let mountain = LocationType.mountain(MountainVisitData(mountainName: "Teide", mountainCoordinate: Coordinate(latitude: 1, longitude: 2)))
        let stats = PageStatistics(pins: [
            // 23:30 UTC on 31 Dec 2019 is 00:30 on 1 Jan 2020 at +01:00: France's first year is 2020.
            pin("a", "FR", "2019-12-31T23:30:00Z", offset: 3600, type: city),
            pin("b", "FR", "2021-06-01T12:00:00Z"),
            pin("c", "ES", "2020-03-01T12:00:00Z", type: mountain),
            pin("d", nil, "2019-05-05T12:00:00Z"),
        ], catalog: testCatalog)
        XCTAssertEqual(stats.totalPins, 4)
        XCTAssertEqual([stats.typeCounts[.point], stats.typeCounts[.city], stats.typeCounts[.mountain], stats.atSea], [2, 1, 1, 1])
        XCTAssertEqual(stats.countriesInWorld, 3)
        XCTAssertEqual(stats.continentsInWorld, 2)
        XCTAssertEqual(stats.countries.map(\.code), ["FR", "ES"])
        XCTAssertEqual(stats.countries.map(\.pinCount), [2, 1])
        XCTAssertEqual(stats.countries.map(\.firstYear), [2020, 2020])
        XCTAssertEqual(stats.continents, [.init(name: "Europe", countryCount: 2, pinCount: 3)])
        XCTAssertEqual(stats.years.map(\.year), [2019, 2020, 2021])
        XCTAssertEqual(stats.years.map(\.newCountries), [[], ["ES", "FR"], []])
        XCTAssertEqual(stats.years.map(\.pinCount), [1, 2, 1])
    }

    /// A place someone wants to go counts as wanted only; without one the pins are counted as
    /// they are (the statistics no longer copy them to leave none out).
    func testAWantedPinCountsOnlyAsWanted() {
        var wanted = pin("w", "ES", "2022-01-01T00:00:00Z")
        wanted.location.wanted = true
        let visits = [pin("a", "FR", "2021-06-01T12:00:00Z"), pin("b", "FR", "2023-06-01T12:00:00Z")]
        for (pins, wantedCount) in [(visits + [wanted], 1), (visits, 0)] {
            let stats = PageStatistics(pins: pins, catalog: testCatalog)
            XCTAssertEqual(stats.totalPins, 2)
            XCTAssertEqual(stats.wanted, wantedCount)
            XCTAssertEqual(stats.countries.map(\.code), ["FR"])
            XCTAssertEqual(stats.countries.map(\.pinCount), [2])
            XCTAssertEqual(stats.continents, [.init(name: "Europe", countryCount: 1, pinCount: 2)])
        }
    }
}

final class PageRendererTests: XCTestCase {
    let world = WorldMap(width: 20000, countries: [.init(id: "FR", d: "M1 1l5 0 0 5z"), .init(id: "JP", d: "M9 9l5 0 0 5z")])

    /// pins-places by hand: two regions once each, three distinct places (one of them only a
    /// region, one with a place but no region), and an index per pin.
    func testPinPlacesGiveEachRegionAndPlaceOnceAndAnIndexPerPin() throws {
        var pins = (0..<6).map { pin("p\($0)", "FR", "2024-01-01T00:00:00Z") }
        pins[0].location.placeFields = PinPlace(placeID: 1, place: "Paris", region: "Île-de-France", regionCode: "FR-IDF")
        pins[1].location.placeFields = PinPlace(placeID: 1, place: "Paris", region: "Île-de-France", regionCode: "FR-IDF")
        pins[2].location.placeFields = PinPlace(place: nil, region: "Bretagne", regionCode: "FR-BRE")
        pins[4].location.placeFields = PinPlace(placeID: 2, place: "Versailles", region: "Île-de-France", regionCode: "FR-IDF")
        pins[5].location.placeFields = PinPlace(placeID: 3, place: "Nowhere")
        let table = try JSONSerialization.jsonObject(with: Data(PageRenderer.pinPlaces(pins).utf8))
        XCTAssertEqual(try JSONSerialization.data(withJSONObject: table, options: .sortedKeys),
                       Data(#"{"i":[0,0,1,-1,2,3],"r":["Île-de-France","FR-IDF","Bretagne","FR-BRE"],"t":["Paris",0,null,1,"Versailles",0,"Nowhere",-1]}"#.utf8))
    }

    /// The title page.js makes where pins-data has none: the place (else the region) and the
    /// country, the country alone, "At sea".
    func testTheMadeTitleIsThePlaceOrRegionAndTheCountry() {
        XCTAssertEqual(PageRenderer.madeTitle(place: "Kyoto", region: "Kyoto", countryName: "Japan"), "Kyoto, Japan")
        XCTAssertEqual(PageRenderer.madeTitle(place: nil, region: "Hokkaido", countryName: "Japan"), "Hokkaido, Japan")
        XCTAssertEqual(PageRenderer.madeTitle(place: "", region: "Hokkaido", countryName: "Japan"), "Japan")
        XCTAssertEqual(PageRenderer.madeTitle(place: nil, region: nil, countryName: "Japan"), "Japan")
        XCTAssertEqual(PageRenderer.madeTitle(place: "Kyoto", region: nil, countryName: nil), "At sea")
    }

    func render(_ pins: [PagePin], settings: Settings = Settings()) -> String {
        PageRenderer.render(PageInput(pins: pins, catalog: testCatalog, settings: settings, worldMap: world))
    }

    /// The text between `<script type="application/json" id="ID">` and its end tag.
    func island(_ html: String, _ id: String) throws -> Any {
        let start = try XCTUnwrap(html.range(of: "<script type=\"application/json\" id=\"\(id)\">"))
        let end = try XCTUnwrap(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        return try JSONSerialization.jsonObject(with: Data(html[start.upperBound..<end.lowerBound].utf8))
    }

    func testHostileTextStaysInsideTheIslandsAndReadsBackUnchanged() throws {
        let hostile = "</script><script>alert(1)</script><!-- \u{2028} & \"q\" 'a' \n"
        var p = pin("t", "FR", "2024-01-01T00:00:00Z")
        p.location.title = hostile
        p.photoPath = hostile
        let html = render([p])
        // Only the page's own script elements end: pins-data, pins-extra, places-data, pins-places, countries-data, page-data, the code.
        XCTAssertEqual(html.components(separatedBy: "</script>").count - 1, 7)
        XCTAssertFalse(html.contains("<!--"))
        XCTAssertFalse(html.contains("\u{2028}"))
        let pins = try XCTUnwrap(try island(html, "pins-data") as? [[String: Any]])
        XCTAssertEqual(pins.first?["title"] as? String, hostile)
        let extra = try XCTUnwrap(try island(html, "pins-extra") as? [String: [String: Any]])
        XCTAssertEqual(extra["0"]?["p"] as? String, hostile)
    }

    func testCountriesIslandAndVisitedFill() throws {
        let html = render([pin("a", "FR", "2024-01-01T00:00:00Z"), pin("b", "FR", "2024-02-01T00:00:00Z")])
        let countries = try XCTUnwrap(try island(html, "countries-data") as? [[String: Any]])
        XCTAssertEqual(countries.count, 1)
        XCTAssertEqual(countries[0]["code"] as? String, "FR")
        XCTAssertEqual(countries[0]["name"] as? String, "France")
        XCTAssertEqual(countries[0]["continent"] as? String, "Europe")
        XCTAssertEqual(countries[0]["pinCount"] as? Int, 2)
        XCTAssertTrue(html.contains("<path id=\"c-FR\" class=\"v\" d=\"M1 1l5 0 0 5z\"/>"))
        XCTAssertTrue(html.contains("<path id=\"c-JP\" d=\"M9 9l5 0 0 5z\"/>"))
    }

    func testPlaceLabelsMostPopulousFirstAndRegionsInTheStatistics() throws {
        var input = PageInput(pins: [pin("a", "FR", "2024-01-01T00:00:00Z")], catalog: testCatalog, settings: Settings(), worldMap: world)
        input.labelPlaces = [
            Place(id: 2988507, name: "Paris", countryCode: "FR", coordinate: Coordinate(latitude: 48.85341, longitude: 2.3488), population: 2138551),
            Place(id: 1, name: "</script><b>x", countryCode: "FR", coordinate: Coordinate(latitude: -0.0004, longitude: -179.9996), population: 1),
        ]
        input.pins[0].location.placeFields = PinPlace(placeID: 2988507, place: "Paris", region: "Île-de-France", regionCode: "FR-IDF")
        input.regionCounts = ["FR": 18]
        let html = PageRenderer.render(input)
        let labels = try XCTUnwrap(try island(html, "places-data") as? [[Any]])
        XCTAssertEqual(labels.count, 2)
        XCTAssertEqual(labels[0][0] as? String, "Paris")
        XCTAssertEqual(labels[0][1] as? Double, 2.349, "3 decimals")
        XCTAssertEqual(labels[0][2] as? Double, 48.853)
        XCTAssertEqual(labels[1][0] as? String, "</script><b>x", "a hostile name stays text in its island")
        XCTAssertEqual(labels[1][1] as? Double, -180)
        XCTAssertEqual(labels[1][2] as? Double, 0, "no -0")
        XCTAssertEqual(PageRenderer.labelDegrees(-0.0004), "0")
        XCTAssertEqual(PageRenderer.labelDegrees(-12.3456), "-12.346")
        XCTAssertEqual(PageRenderer.labelDegrees(7.5), "7.5")
        let page = try XCTUnwrap(try island(html, "page-data") as? [String: Any])
        let stats = try XCTUnwrap(page["stats"] as? [String: Any])
        XCTAssertEqual(stats["regionsVisited"] as? Int, 1)
        XCTAssertEqual(stats["placesVisited"] as? Int, 1)
        let france = try XCTUnwrap((stats["countries"] as? [[String: Any]])?.first)
        XCTAssertEqual(france["regions"] as? String, "1 of 18 regions")
        XCTAssertEqual(france["places"] as? Int, 1)
        XCTAssertTrue(html.contains("GeoNames (CC BY 4.0)"), "GeoNames credited on the page")
    }

    /// The admin-1 borders: one path per country, in the base map's world units (Web Mercator,
    /// here 360 wide: lon 0 is x 180, lon 10 x 190; lat 0 is y 180, lat 30 y
    /// (0.5 - ln(3) / 4π) × 360 = 148.5, drawn 149), relative steps, a line of no whole step left out.
    func testRegionBordersAreOnePathPerCountryInWorldUnits() throws {
        var input = PageInput(pins: [pin("a", "US", "2024-01-01T00:00:00Z")], catalog: testCatalog, settings: Settings(),
                              worldMap: WorldMap(width: 360, countries: []))
        XCTAssertTrue(PageRenderer.render(input).contains("<g id=\"regions\"></g>"))
        input.regionBorders = ["US": [[Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 10),
                                       Coordinate(latitude: 30, longitude: 10)],
                                      [Coordinate(latitude: 1, longitude: 1), Coordinate(latitude: 1.0001, longitude: 1.0001)]],
                               "<b": [[Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 10)]]]
        let html = PageRenderer.render(input)
        XCTAssertTrue(html.contains("<g id=\"regions\"><path id=\"r-US\" d=\"M180 180l10 0 0-31\"/>\n</g>"), html)
        XCTAssertFalse(html.contains("r-<b"), "a code that is not two letters is left out")
        XCTAssertTrue(html.contains("regions: DCW-GMT (LGPL-3+), Natural Earth"), "DCW-GMT and Natural Earth credited on the page")
    }

    func testLoadsNothingFromOutside() {
        let html = render([pin("a", "FR", "2024-01-01T00:00:00Z")])
        XCTAssertTrue(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:;"))
        XCTAssertFalse(html.contains("unsafe-inline"), "inline scripts and styles are allowed by their hashes only")
        // The only URL is the SVG namespace, a name and never fetched.
        for rest in html.components(separatedBy: "http").dropFirst() {
            XCTAssertTrue(rest.hasPrefix("://www.w3.org/2000/svg\"") || rest.hasPrefix("-equiv="), String(rest.prefix(40)))
        }
        XCTAssertFalse(html.contains(" src="))
        XCTAssertFalse(html.contains(" href="))
    }

    func testSettingsColoursAndStyleAndAJunkColour() {
        let custom = render([], settings: Settings(defaultPinColor: "#123abc", mapFillColor: "#8e24aa", mapStyle: .dark))
        XCTAssertTrue(custom.contains(":root { --pin: #123ABC; --fill: #8E24AA; }"))
        XCTAssertTrue(custom.contains("<body class=\"style-dark\">"))
        let junk = render([], settings: Settings(defaultPinColor: "red;}</style><script>", mapFillColor: "x"))
        XCTAssertTrue(junk.contains(":root { --pin: #E53935; --fill: #43A047; }"))
        XCTAssertFalse(junk.contains("red;}"))
    }

    func testThumbnailsAreCappedPerImageAndPerPage() throws {
        var small = pin("a", "FR", "2024-01-01T00:00:00Z")
        small.thumbnailJPEG = [0xFF, 0xD8, 0xFF, 0xD9]
        var large = small
        large.thumbnailJPEG = [UInt8](repeating: 0, count: PageRenderer.thumbnailCap + 1)
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(JSONText.string(PageRenderer.extraJSON([small, large])).utf8)) as? [String: [String: Any]])
        XCTAssertEqual(rows["0"]?["t"] as? String, "data:image/jpeg;base64,/9j/2Q==")
        XCTAssertNil(rows["1"], "a thumbnail over the cap is left out, and the pin needs nothing else")
        // The page budget: as many full-size thumbnails as fit, then none.
        var full = small
        full.thumbnailJPEG = [UInt8](repeating: 1, count: PageRenderer.thumbnailCap)
        let many = Array(repeating: full, count: PageRenderer.thumbnailPageCap / PageRenderer.thumbnailCap + 3)
        let budgeted = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(JSONText.string(PageRenderer.extraJSON(many)).utf8)) as? [String: Any])
        XCTAssertEqual(budgeted.count, PageRenderer.thumbnailPageCap / PageRenderer.thumbnailCap)
    }

    /// The popup's strip (issue 39): the served page gets the first 4 photo ids of a pin; a static
    /// page embeds the previews already made, at most 16 KiB each and 1 MiB per page, newest pins
    /// first. Worked by hand: 70 pins of 5 previews of 4,000 bytes; 4 per pin count, so 280 would
    /// be 1,120,000 bytes; 1,048,576 / 4,000 = 262 fit: the 65 newest pins get 4, the 66th 2,
    /// the 4 oldest none. A preview of 16,385 bytes is never embedded.
    func testAStripHasFourPhotosAndAStaticPageEmbedsPreviewsWithinItsBudget() throws {
        var one = pin("a", "FR", "2024-01-01T00:00:00Z")
        one.strip = (1...5).map { StripPhoto(id: Int64($0), jpeg: [UInt8](repeating: 7, count: 4_000)) }
        let pins = Array(repeating: one, count: 70)
        func rows(_ served: Bool) throws -> [String: [String: Any]] {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(JSONText.string(PageRenderer.extraJSON(pins, served: served)).utf8)) as? [String: [String: Any]])
        }
        let served = try rows(true)
        XCTAssertEqual(served.count, 70)
        XCTAssertEqual(served["0"]?["s"] as? [Int], [1, 2, 3, 4])
        let embedded = try rows(false)
        let counts = (0..<70).map { (embedded[String($0)]?["s"] as? [String])?.count ?? 0 }
        XCTAssertEqual(counts.reduce(0, +), 262)
        XCTAssertEqual(Array(counts.suffix(65)), Array(repeating: 4, count: 65))
        XCTAssertEqual(counts[4], 2)
        XCTAssertEqual(Array(counts.prefix(4)), [0, 0, 0, 0])
        XCTAssertEqual((embedded["69"]?["s"] as? [String])?.first, "data:image/jpeg;base64," + Data([UInt8](repeating: 7, count: 4_000)).base64EncodedString())
        var large = one
        large.strip = [StripPhoto(id: 9, jpeg: [UInt8](repeating: 7, count: PageRenderer.stripPreviewCap + 1))]
        XCTAssertNil(try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(JSONText.string(PageRenderer.extraJSON([large])).utf8)) as? [String: Any])["0"])
    }

    func testAPhotoPathIsStoredOnlyWhenThePinsPhotoIDDoesNotGiveIt() throws {
        var derived = pin("a", "FR", "2024-01-01T00:00:00Z")
        derived.location.photoIDs = ["/photos/2024/a.jpg"]
        derived.photoPath = "2024/a.jpg"
        var moved = derived
        moved.photoPath = "2025/a.jpg"
        var deeper = derived
        deeper.photoPath = "a.jpg"  // imported again from /photos/2024: the deepest folder wins
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(
            with: Data(JSONText.string(PageRenderer.extraJSON([derived, moved], folders: ["/photos"])).utf8)) as? [String: [String: Any]])
        XCTAssertNil(rows["0"])
        XCTAssertEqual(rows["1"]?["p"] as? String, "2025/a.jpg")
        XCTAssertEqual(PageRenderer.photoPath(of: deeper.location, folders: ["/photos/2024", "/photos"]), "a.jpg")
        XCTAssertEqual(PageRenderer.photoPath(of: deeper.location, folders: ["/elsewhere"]), "/photos/2024/a.jpg")
    }
}

final class WorldMapTests: XCTestCase {
    func testRejectsMarkupInPathDataAndBadCodes() {
        XCTAssertNoThrow(try WorldMap(json: Array(#"{"width":10,"countries":[{"id":"FR","d":"M1 2l-3 4z"}]}"#.utf8)))
        XCTAssertThrowsError(try WorldMap(json: Array(#"{"width":10,"countries":[{"id":"FR","d":"M1\"/><script>"}]}"#.utf8)))
        XCTAssertThrowsError(try WorldMap(json: Array(#"{"width":10,"countries":[{"id":"F\"","d":"M1 2z"}]}"#.utf8)))
        XCTAssertThrowsError(try WorldMap(json: Array("{\"width\":10".utf8)))
    }

    func testTheBundledMapHasEveryResolvedCountry() throws {
        // Every code of Countries.geojson (what the resolver can return) has an outline to fill.
        let resources = Repository.url("Resources")
        let map = try WorldMap(json: Array(try Data(contentsOf: resources.appendingPathComponent("WorldMap.json"))))
        let geojson = try String(contentsOf: resources.appendingPathComponent("Countries.geojson"), encoding: .utf8)
        let codes = Set(geojson.components(separatedBy: "\"iso_a2\":\"").dropFirst().map { String($0.prefix(2)) })
        XCTAssertEqual(Set(map.countries.map(\.id)), codes)
        XCTAssertLessThan(try Data(contentsOf: resources.appendingPathComponent("WorldMap.json")).count, 400_000)
    }
}

final class PageFilesTests: XCTestCase {
    /// Sources/PinReport/Page, found from this file's own path.
    let pageFolder = Repository.url("Sources/PinReport/Page")

    func testTheBinaryHoldsTheExactBytesOfPageJSCSSAndHTML() throws {
        for (name, embedded) in [("page.js", EmbeddedFiles.pageJS), ("page.css", EmbeddedFiles.pageCSS), ("page.html", EmbeddedFiles.pageHTML)] {
            let onDisk = try Data(contentsOf: pageFolder.appendingPathComponent(name))
            XCTAssertEqual(Data(embedded.utf8), onDisk, name)
        }
    }

    /// page.js names no pin type list itself: the script the page runs has the registry's, as
    /// page.js had them typed before the registry (so the page is the same, byte for byte).
    func testTheScriptHasThePinTypeListsOfTheRegistry() {
        let script = PagePolicy.scriptText
        XCTAssertTrue(script.contains(#"options("f-type", "All types", ["point", "city", "mountain"].map((t) => [t, t[0].toUpperCase() + t.slice(1)])"#))
        XCTAssertTrue(script.contains(#"kpi(k4, s.points + " \u00b7 " + s.cities + " \u00b7 " + s.mountains, "points \u00b7 cities \u00b7 mountains");"#))
        // The popup and the shared object's name, as page.js had them typed before.
        XCTAssertTrue(script.contains(#"function placeName(p) { return p.city ? p.city.name : p.mountain ? p.mountain.name : ""; }"#))
        XCTAssertTrue(script.contains(#"""
                let type = typeOf(p);
                if (p.city) type = "City: " + p.city.name;
                if (p.mountain) type = "Mountain: " + p.mountain.name + (typeof p.mountain.height === "number" ? " (" + Math.round(p.mountain.height) + " m)" : "");
                row(dl, "Type", type);
            """#))
        XCTAssertTrue(script.contains(#"""
                row(dl, "Region", p.region ? p.region + (p.regionCode ? " (" + p.regionCode + ")" : "") : null);
                if (p.city && p.city.address) row(dl, "Address", p.city.address);
                if (p.mountain && typeof p.mountain.achievedHeight === "number") row(dl, "Reached", Math.round(p.mountain.achievedHeight) + " m");
                row(dl, "Note", p.note);
            """#))
        XCTAssertFalse(script.contains("REGISTRY_"))
        for (name, _) in PagePolicy.registryLists { XCTAssertTrue(EmbeddedFiles.pageJS.contains(name), name) }
    }

    func testTheScriptAndStyleSheetCannotEndTheElementsThatHoldThem() {
        XCTAssertFalse(EmbeddedFiles.pageJS.lowercased().contains("</script"))
        XCTAssertFalse(EmbeddedFiles.pageCSS.lowercased().contains("</style"))
    }

    func testATemplateSplitsIntoTextAndHolesAndKeepsAnUnclosedBraceAsText() {
        XCTAssertEqual(PageTemplate("a{{b}}c{{d}}").parts, [.text("a"), .hole("b"), .text("c"), .hole("d")])
        XCTAssertEqual(PageTemplate("{{x}}{{y}} {{z").parts, [.hole("x"), .hole("y"), .text(" {{z")])
        var out = ""
        PageTemplate("<{{a}}|{{b}}>").render(into: &out) { name, out in out += name == "a" ? "{{b}}" : "B" }
        XCTAssertEqual(out, "<{{b}}|B>") // what fills a hole is not read as a template again
    }

    func testEveryHoleOfThePageTemplateIsFilled() {
        let own = ["countries", "regions", "visitedRegions", "waterLand", "water", "data", "style", "script"]
        let input = PageInput(pins: [], catalog: testCatalog, settings: Settings(), worldMap: WorldMap(width: 10, countries: []))
        XCTAssertEqual(Set(PageTemplate.page.holes).intersection(own), Set(own))
        for hole in PageTemplate.page.holes where !own.contains(hole) {
            XCTAssertNotNil(PageRenderer.text(of: hole, input), hole)
        }
        XCTAssertFalse(PageRenderer.render(input).contains("{{"))
    }
}

/// The page's Content-Security-Policy names the SHA-256 of its one script and its one style
/// sheet; the digests are checked against coreutils' sha256sum and the FIPS 180-4 examples.
final class PagePolicyTests: XCTestCase {
    func testSHA256OfTheStandardsExamples() {
        func hex(_ text: String) -> String { SHA256.digest(Array(text.utf8)).map { String(format: "%02x", $0) }.joined() }
        // FIPS 180-4 / NIST CSRC examples: empty, one block, two blocks (56 bytes: the padding
        // spills into a second block), and a million 'a's (many blocks).
        XCTAssertEqual(hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(hex(String(repeating: "a", count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// What sha256sum prints for `text`, as the base64 CSP wants.
    private func coreutilsSource(_ text: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pins-policy-\(UUID().uuidString)")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let hexText = Array(output.prefix(64))
        let bytes = stride(from: 0, to: 64, by: 2).map { UInt8(String(hexText[$0..<$0 + 2]), radix: 16)! }
        return "sha256-" + Data(bytes).base64EncodedString()
    }

    /// The text between `open` and the next `close` in the page.
    private func element(_ html: String, _ open: String, _ close: String) -> String {
        let start = html.range(of: open)!.upperBound
        return String(html[start..<html.range(of: close, range: start..<html.endIndex)!.lowerBound])
    }

    func testThePolicyAllowsThePagesOwnScriptAndStyleByTheirHashesAndNothingInline() throws {
        let settings = Settings(defaultPinColor: "#123abc", mapFillColor: "#8e24aa", mapStyle: .dark)
        let input = PageInput(pins: [pin("</script><script>alert(1)</script>", "FR", "2024-01-01T00:00:00Z")], catalog: testCatalog,
                              settings: settings, worldMap: WorldMap(width: 10, countries: []))
        let html = PageRenderer.render(input)
        let policy = element(html, "<meta http-equiv=\"Content-Security-Policy\" content=\"", "\"")
        XCTAssertEqual(policy, PagePolicy.contentSecurityPolicy(settings: settings), "the meta holds what a server would send")
        // The script element that runs (the JSON islands have a type and never run).
        let script = element(html, "<script>", "</script>")
        let style = element(html, "<style>", "</style>")
        XCTAssertTrue(style.contains("--pin: #123ABC; --fill: #8E24AA;"))
        XCTAssertEqual(policy, "default-src 'none'; img-src data:; style-src '\(try coreutilsSource(style))'; "
                       + "script-src '\(try coreutilsSource(script))'; base-uri 'none'; form-action 'none'")
        XCTAssertEqual(html.components(separatedBy: "<script>").count, 2, "one script without a type: the page's own")
        // Other colours, another style sheet, another hash; the script's stays.
        let other = PagePolicy.contentSecurityPolicy(settings: Settings())
        XCTAssertNotEqual(other, policy)
        XCTAssertTrue(other.contains("script-src '\(try coreutilsSource(script))'"))
    }
}

/// The visited regions' outlines on the page (issue 38 item 5).
final class PageVisitedRegionTests: XCTestCase {
    /// Every ring of Regions.bin is closed (its first and last points are one): the simplification
    /// measures from that point, not from a line of no length (it looped, growing without end, on
    /// the first region a report drew). A 100-unit square with a point every unit keeps its corners.
    func testAClosedRingIsSimplifiedToItsCorners() {
        var ring: [(Int, Int)] = []
        for x in 0..<100 { ring.append((x, 0)) }
        for y in 0..<100 { ring.append((100, y)) }
        for x in stride(from: 100, to: 0, by: -1) { ring.append((x, 100)) }
        for y in stride(from: 100, through: 0, by: -1) { ring.append((0, y)) }
        XCTAssertEqual(PageRenderer.simplified(ring).map { [$0.0, $0.1] }, [[0, 0], [100, 0], [100, 100], [0, 100], [0, 0]])
    }

    /// A visited country's regions are a group with a path per unit (its rings by parity): two
    /// units that overlap along their border (0..1 and 0.9..2 degrees of longitude) are two
    /// paths, each filled whole. One even-odd path of both rings left the overlap unfilled.
    /// At 36,000 world units for 360 degrees: 100 units a degree, (0, 0) at (18000, 18000).
    func testVisitedRegionsAreAGroupPerCountryAndAPathPerUnit() throws {
        var html = ""
        func square(_ west: Double, _ east: Double) -> [Coordinate] {
            [(0.0, west), (1.0, west), (1.0, east), (0.0, east), (0.0, west)].map { Coordinate(latitude: $0.0, longitude: $0.1) }
        }
        var input = PageInput(pins: [], catalog: CountryCatalog(entries: []), settings: Settings(), worldMap: try WorldMap(json: Array(#"{"width":36000,"countries":[]}"#.utf8)))
        input.visitedRegions = ["FR": [[square(0, 1)], [square(0.9, 2)]]]
        PageRenderer.appendVisitedRegions(input, to: &html)
        XCTAssertEqual(html, "<g id=\"vr-FR\"><path d=\"M18000 18000l0-100 100 0 0 100-100 0z\"/>"
                       + "<path d=\"M18090 18000l0-100 110 0 0 100-110 0z\"/></g>\n")
    }
}
