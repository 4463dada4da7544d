import Foundation
import XCTest

/// Issue 11: edit, list filters, show, cities, mountains, settings, through the binary.
final class ManageTests: XCTestCase {
    var db = ""

    override func setUpWithError() throws {
        db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
    }

    @discardableResult
    func pins(_ args: [String], status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let run = try CLI.run(args + ["--db", db])
        XCTAssertEqual(run.status, status, "\(args): \(run.stderr)", file: file, line: line)
        return run.stdout
    }

    func add(_ args: [String]) throws -> String {
        CLI.addedID(Run(status: 0, stdout: try pins(["add"] + args), stderr: ""))
    }

    func list(_ args: [String]) throws -> [[String: Any]] {
        try CLI.json(try pins(["list", "--json"] + args)) as! [[String: Any]]
    }

    func titles(_ args: [String]) throws -> [String] {
        try list(args).map { $0["title"] as! String }
    }

    func testListShowsTheDateInThePinsOwnOffset() throws {
        // 20:30 in Honolulu (UTC−10) is 06:30 UTC the next day: the pin's day is the 10th.
        _ = try add(["--lat", "21.3069", "--lon", "-157.8583", "--title", "Waikiki", "--date", "2024-03-10T20:30:00-10:00"])
        let text = try pins(["list"])
        XCTAssertTrue(text.contains("2024-03-10"), text)
        XCTAssertFalse(text.contains("2024-03-11"), text)
        XCTAssertEqual(try list([]).first?["date"] as? String, "2024-03-10T20:30:00-10:00")
    }

    func testEveryListFilterSelectsTheHandWorkedPinsAndBadValuesExit64() throws {
        _ = try add(["--lat", "47.3769", "--lon", "8.5417", "--title", "Zürich HB", "--type", "city", "--name", "Zürich",
                     "--date", "2023-06-01T12:00:00+02:00", "--tag", "Rail"])
        _ = try add(["--lat", "45.8326", "--lon", "6.8652", "--title", "Summit", "--type", "mountain", "--name", "Mont Blanc",
                     "--height", "4806", "--date", "2023-07-14T09:00:00+02:00", "--note", "Café au sommet", "--tag", "rail", "--tag", "hike"])
        _ = try add(["--lat", "48.8584", "--lon", "2.2945", "--title", "Eiffel", "--date", "2024-01-02T10:00:00+01:00"])
        _ = try add(["--lat", "40.6892", "--lon", "-74.0445", "--title", "Liberty", "--date", "2022-12-31T23:30:00-05:00"])

        XCTAssertEqual(try titles(["--search", "zurich"]), ["Zürich HB"], "accents and case are ignored")
        XCTAssertEqual(try titles(["--search", "CAFE"]), ["Summit"], "the note is searched")
        XCTAssertEqual(try titles(["--search", "blanc"]), ["Summit"], "the mountain name is searched")
        XCTAssertEqual(try titles(["--search", "HIKE"]), ["Summit"], "tags are searched")
        XCTAssertEqual(try titles(["--country", "fr"]), ["Summit", "Eiffel"])
        XCTAssertEqual(try titles(["--country", "FR", "--country", "US"]), ["Liberty", "Summit", "Eiffel"])
        XCTAssertEqual(try titles(["--continent", "north america"]), ["Liberty"])
        XCTAssertEqual(try titles(["--type", "city"]), ["Zürich HB"])
        XCTAssertEqual(try titles(["--type", "city", "--type", "mountain"]), ["Zürich HB", "Summit"])
        XCTAssertEqual(try titles(["--tag", "RAIL"]), ["Zürich HB", "Summit"])
        XCTAssertEqual(try titles(["--tag", "rail", "--tag", "hike"]), ["Summit"], "every tag given is required")
        // Liberty is 2023-01-01T04:30Z, but its own day is 2022-12-31: --since/--until compare instants.
        XCTAssertEqual(try titles(["--since", "2023-06-01T00:00:00+02:00", "--until", "2023-07-14"]), ["Zürich HB", "Summit"])
        XCTAssertEqual(try titles(["--until", "2023-06-01T12:00:00+02:00"]), ["Liberty"], "--until is exclusive for an instant")
        // From the Eiffel Tower (haversine on the 6371 km sphere, worked in Python): Mont Blanc
        // 481.28 km, Zürich 491.97 km, Liberty 5837.42 km.
        XCTAssertEqual(try titles(["--near", "48.8584,2.2945", "--within", "485"]), ["Summit", "Eiffel"])
        XCTAssertEqual(try titles(["--near", "48.8584,2.2945", "--within", "10000", "--sort", "distance"]),
                       ["Eiffel", "Summit", "Zürich HB", "Liberty"])
        XCTAssertEqual(try titles(["--sort", "-title", "--limit", "2"]), ["Zürich HB", "Summit"])
        XCTAssertEqual(try titles(["--sort", "country"]), ["Zürich HB", "Summit", "Eiffel", "Liberty"])
        XCTAssertEqual(try titles(["--source", "import"]), [])
        XCTAssertEqual(try titles(["--source", "manual"]).count, 4)

        for bad in [["--type", "lake"], ["--near", "48,2"], ["--within", "5"], ["--near", "91,0", "--within", "1"],
                    ["--since", "yesterday"], ["--source", "phone"], ["--sort", "distance"], ["--limit", "0"], ["--country", "FRA"]] {
            let run = try CLI.run(["list"] + bad + ["--db", db])
            XCTAssertEqual(run.status, 64, "\(bad): \(run.stderr)")
        }
    }

    func testEditMovesCountsAndShowTellsEverything() throws {
        let id = try add(["--lat", "47.3769", "--lon", "8.5417", "--title", "France, 2023-07-14", "--type", "city", "--name", "Zürich",
                          "--date", "2023-07-14T10:00:00+02:00", "--tag", "todo"])
        // Within the 4-decimal key of the first: the same shared City.
        _ = try add(["--lat", "47.37691", "--lon", "8.54172", "--title", "Zürich again", "--type", "city", "--name", "Zürich"])
        let cities = try CLI.json(try pins(["cities", "--json"])) as! [[String: Any]]
        XCTAssertEqual(cities.map { $0["name"] as! String }, ["Zürich"])
        XCTAssertEqual(cities.first?["pinCount"] as? Int, 2)

        // Move to Paris under a new name: CH loses its pin, FR gains one, the city counts move.
        let short = String(id.prefix(8))
        let edited = try CLI.json(try pins(["edit", short, "--title", "Paris", "--lat", "48.8566", "--lon", "2.3522", "--name", "Paris",
                                            "--tag", "france", "--untag", "todo", "--note", "moved", "--color", "#00aa00", "--visits", "3",
                                            "--json"])) as! [String: Any]
        XCTAssertEqual(edited["country"] as? String, "FR")
        XCTAssertEqual(edited["tags"] as? [String], ["france"])
        XCTAssertEqual(edited["color"] as? String, "#00AA00")
        XCTAssertEqual(edited["visitCount"] as? Int, 3)
        XCTAssertEqual(edited["edited"] as? Bool, true)
        XCTAssertEqual(edited["date"] as? String, "2023-07-14T10:00:00+02:00", "the date and its offset are kept")
        let stats = try CLI.json(try pins(["stats", "--json"])) as! [String: Any]
        let countries = (stats["countries"] as! [[String: Any]]).map { "\($0["id"]!):\($0["pinCount"]!)" }.sorted()
        XCTAssertEqual(countries, ["CH:1", "FR:1"])
        let after = (try CLI.json(try pins(["cities", "--json"])) as! [[String: Any]]).map { "\($0["name"]!):\($0["pinCount"]!)" }
        XCTAssertEqual(after, ["Paris:1", "Zürich:1"])

        // Then a mountain: the city loses it, the mountain list gains it.
        try pins(["edit", id, "--type", "mountain", "--name", "Montmartre", "--height", "130"])
        XCTAssertEqual((try CLI.json(try pins(["cities", "--json"])) as! [[String: Any]]).count, 1)
        let mountains = try CLI.json(try pins(["mountains", "--json"])) as! [[String: Any]]
        XCTAssertEqual(mountains.first?["name"] as? String, "Montmartre")
        XCTAssertEqual(mountains.first?["height"] as? Int, 130)
        XCTAssertTrue(try pins(["mountains"]).contains("130 m"))

        let show = try pins(["show", short])
        for expected in ["Paris", "France (FR)", "2023-07-14T10:00:00+02:00", "Montmartre, 130 m", "made by hand", "france", "moved"] {
            XCTAssertTrue(show.contains(expected), "\(expected) missing from:\n\(show)")
        }
        let shown = try CLI.json(try pins(["show", id, "--json"])) as! [String: Any]
        XCTAssertEqual(shown["countryName"] as? String, "France")
        XCTAssertEqual(shown["photos"] as? [Any] != nil, true)

        // Refusals: exit 64 for usage, 1 for a pin that is not there; nothing changes.
        try pins(["edit", id], status: 64)
        try pins(["edit", id, "--lat", "1"], status: 64)
        try pins(["edit", id, "--color", "red"], status: 64)
        // In the Atlantic, 700 km from any coast, no town: a city pin needs --name there (usage).
        let sea = try add(["--lat", "40", "--lon", "-40", "--title", "ship"])
        try pins(["edit", sea, "--type", "city"], status: 64)
        try pins(["edit", "00000000-0000-0000-0000-000000000000", "--title", "x"], status: 1)
        try pins(["show", "ffffffff"], status: 1)
        XCTAssertEqual(try list(["--type", "mountain"]).count, 1)
    }

    func testSettingsAndNewPinsTakeThePinColour() throws {
        // Like list and stats, showing reads an existing database only: a missing one is an error.
        try pins(["settings"], status: 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "showing the settings creates nothing")
        _ = try add(["--lat", "-33.85", "--lon", "151.21"])
        XCTAssertEqual(try pins(["settings"]), "pin color   #E53935\nfill color  #43A047\nmap style   light\ncountries   iso (ISO 3166-1)\n")
        try pins(["settings", "--pin-color", "#1e88e5", "--fill-color", "#000000", "--map-style", "dark"])
        let settings = try CLI.json(try pins(["settings", "--json"])) as! [String: String]
        XCTAssertEqual(settings, ["pinColor": "#1E88E5", "fillColor": "#000000", "mapStyle": "dark", "countryList": "iso"])
        // The share of countries visited counts against the list chosen (issue 38 item 5): one
        // pin in Sydney, one in Paris is 2 of ISO 3166-1's 249 and 2 of the UN's 193.
        _ = try add(["--lat", "48.85", "--lon", "2.35"])
        XCTAssertEqual(try list(["--country", "FR"]).first?["color"] as? String, "#1E88E5")
        XCTAssertEqual(try list(["--country", "AU"]).first?["color"] as? String, "#E53935", "existing pins keep theirs")
        let iso = try CLI.json(try pins(["stats", "--json"])) as! [String: Any]
        let list = try XCTUnwrap(iso["countryList"] as? [String: Any])
        XCTAssertEqual([list["list"] as? String, list["title"] as? String], ["iso", "ISO 3166-1"])
        XCTAssertEqual([list["total"] as? Int, list["visited"] as? Int], [249, 2])
        try pins(["settings", "--country-list", "un"])
        XCTAssertTrue(try pins(["stats"]).contains("Countries visited: 2 of 193 (1.0 %, UN member states)\n"))
        try pins(["settings", "--country-list", "world"], status: 64)
        try pins(["settings", "--map-style", "satellite"], status: 64)
        try pins(["settings", "--pin-color", "blue"], status: 64)
    }
}
