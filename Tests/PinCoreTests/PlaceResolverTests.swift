import Foundation
import Synchronization
import TestSupport
import XCTest
@testable import PinCore

/// The places rule (Resources/PLACES.md) against the shipped gazetteer and outlines, at points
/// checked by hand: the distances in the comments are worked from the GeoNames centres (in
/// the comments too) with an equirectangular approximation, and each point's side of a border
/// from a map.
final class PlaceResolverTests: XCTestCase {
    static func resolver() throws -> PlaceResolver { try ShippedData.gazetteer() }

    /// (country, place, region code) at a point, the country from its outline as pins does.
    func at(_ lat: Double, _ lon: Double) throws -> (String?, String?, String?, Double?) {
        let point = Coordinate(latitude: lat, longitude: lon)
        let country = try CountryResolverTests.resolver().countryCode(at: point)
        let match = try Self.resolver().match(at: point, countryCode: country)
        return (country, match.place?.name, match.region?.code, match.placeDistanceKm)
    }

    func assertAt(_ lat: Double, _ lon: Double, _ country: String?, _ place: String?, _ region: String?,
                  file: StaticString = #filePath, line: UInt = #line) throws {
        let (c, p, r, _) = try at(lat, lon)
        XCTAssertEqual(c, country, "country at \(lat),\(lon)", file: file, line: line)
        XCTAssertEqual(p, place, "place at \(lat),\(lon)", file: file, line: line)
        XCTAssertEqual(r, region, "region at \(lat),\(lon)", file: file, line: line)
    }

    /// Montréal (45.50884, -73.58781, 1,762,949 people: radius 13.3 km) and Longueuil
    /// (45.53121, -73.51806, 229,330: 4.8 km). The Olympic Stadium (45.5580, -73.5515) is in
    /// Montréal, 6.2 km from its centre and 4.0 km from Longueuil's: the nearest centre
    /// (Immich's rule, #4745) says Longueuil; d/r is 0.46 for Montréal, 0.83 for Longueuil.
    func testBigCityBeatsANearerSuburbCentre() throws {
        try assertAt(45.5580, -73.5515, "CA", "Montréal", "CA-QC")
        let (_, _, _, km) = try at(45.5580, -73.5515)
        XCTAssertEqual(km ?? 0, 6.15, accuracy: 0.05)
        // Near Longueuil's own centre (0.76 km; Montréal's is 6.3 km away) it is Longueuil.
        try assertAt(45.5350, -73.5100, "CA", "Longueuil", "CA-QC")
    }

    /// Windsor riverfront (42.3149, -83.0364): Detroit's centre (42.33143, -83.04575) is 2.0 km
    /// away, Windsor's (42.30008, -83.01654) 2.3 km; the point is in Canada, so Detroit is not a
    /// candidate at all (Immich #10850).
    func testTheTownOnTheRightSideOfTheBorder() throws {
        try assertAt(42.3149, -83.0364, "CA", "Windsor", "CA-ON")
        try assertAt(42.3314, -83.0458, "US", "Detroit", "US-MI")
        // A Strasbourg quay on the Rhine (48.5680, 7.8000): Kehl's centre (48.57297, 7.81523)
        // is 1.2 km away across the river, Strasbourg's (48.58392, 7.74553) 4.4 km.
        try assertAt(48.5680, 7.8000, "FR", "Strasbourg", "FR-GES")
        try assertAt(48.5730, 7.8150, "DE", "Kehl", "DE-BW")
    }

    /// Twin towns across the Torne: Haparanda (SE, 65.83549, 24.13676) and Tornio (FI,
    /// 65.84811, 24.14662), 1.5 km apart, each named on its own side.
    func testTwinTowns() throws {
        try assertAt(65.8355, 24.1300, "SE", "Haparanda", "SE-BD")
        try assertAt(65.8480, 24.1800, "FI", "Tornio", "FI-10")
        // El Paso (US) and Ciudad Juárez (MX) across the Rio Grande.
        try assertAt(31.7600, -106.4850, "US", "El Paso", "US-TX")
        try assertAt(31.7400, -106.4700, "MX", "Ciudad Juárez", "MX-CHH")
    }

    /// The Pantheon (41.8986, 12.4769) is 1.9 km from Vatican City's centre (41.90268,
    /// 12.45414) and 2.9 km from Rome's (41.89193, 12.51133): Rome (Immich #16771). Inside the
    /// Vatican's outline the city-state is itself.
    func testACityStateInsideACity() throws {
        try assertAt(41.8986, 12.4769, "IT", "Rome", "IT-62")
        let (c, p, r, km) = try at(41.9029, 12.4534)
        XCTAssertEqual(c, "VA")
        XCTAssertEqual(p, "Vatican City")
        XCTAssertNil(r) // GeoNames gives the Vatican no admin-1 unit
        XCTAssertEqual(km ?? 99, 0.07, accuracy: 0.02)
    }

    /// Off Marseille's harbour (43.2900, 5.3500), at sea within 22 km of France: the nearest
    /// place, Marseille (43.29695, 5.38107, 2.6 km; its numbered arrondissements are left out
    /// as districts of it). 60 km out in the Gulf of Lion there is no country and nothing else.
    func testAtSeaNearAHarbour() throws {
        try assertAt(43.2900, 5.3500, "FR", "Marseille", "FR-PAC")
        try assertAt(42.8, 4.5, nil, nil, nil)
    }

    /// 97 km from Yulara (-25.2406, 130.9889), the nearest place: the Northern Territory, but no
    /// town. In the Ténéré (23.0, 12.0) no place is within 150 km: the country alone.
    func testEmptyLand() throws {
        try assertAt(-24.5, 131.5, "AU", nil, "AU-NT")
        try assertAt(23.0, 12.0, "NE", nil, nil)
    }

    /// Taveuni (-16.80, -179.98), east of the 180° line: its region comes from Labasa
    /// (-16.4332, 179.36451, 75 km away on the other side of the line); no place is close.
    /// Levuka, west of it, is itself.
    func testAcrossTheDateLine() throws {
        try assertAt(-16.80, -179.98, "FJ", nil, "FJ-N")
        try assertAt(-18.0667, 179.3167, "FJ", "Levuka", "FJ-E")
    }

    func testOverseasPartsHaveTheirOwnOutlines() throws {
        // Cayenne: French Guiana has its own outline (issue 38): the country is GF, its places
        // are the candidates, and France's are not.
        let point = Coordinate(latitude: 4.9372, longitude: -52.3260)
        let match = try Self.resolver().match(at: point, countryCode: "GF")
        XCTAssertEqual(match.place?.name, "Cayenne")
        XCTAssertEqual(match.place?.countryCode, "GF")
        XCTAssertEqual(try Self.resolver().match(at: point, countryCode: "FR").place, nil)
        try assertAt(-20.8789, 55.4481, "RE", "Saint-Denis", nil)
        try assertAt(78.2232, 15.6267, "SJ", "Longyearbyen", nil)
        try assertAt(41.9192, 8.7386, "FR", "Ajaccio", "FR-20R")
    }

    /// A place's name is kept in its 32-byte record when it is at most 21 bytes of UTF-8, else
    /// read from the file's strings: names each side of that line (and of a Swift small
    /// string's 15), at their GeoNames centres (so 0 km, d / r = 0: the place itself), each
    /// with its GeoNames id and population. Byte counts by hand: "Saint-Étienne" 14 (É is two),
    /// "Mönchengladbach" 16, "Ludwigshafen am Rhein" 21, "Villingen-Schwenningen" 22,
    /// "Saint-Jean-sur-Richelieu" 24.
    func testNamesShortAndLongAreWhole() throws {
        let places: [(Double, Double, String, String, Int, Int, String)] = [
            (45.43389, 4.39, "FR", "Saint-Étienne", 2_980_291, 176_280, "FR-ARA"),
            (51.18539, 6.44172, "DE", "Mönchengladbach", 2_869_894, 261_742, "DE-NW"),
            (49.48121, 8.44641, "DE", "Ludwigshafen am Rhein", 2_875_376, 163_196, "DE-RP"),
            (48.06226, 8.49358, "DE", "Villingen-Schwenningen", 2_817_220, 81_770, "DE-BW"),
            (45.30713, -73.26259, "CA", "Saint-Jean-sur-Richelieu", 6_138_495, 98_036, "CA-QC"),
        ]
        for (lat, lon, country, name, id, population, region) in places {
            try assertAt(lat, lon, country, name, region)
            let match = try Self.resolver().match(at: Coordinate(latitude: lat, longitude: lon), countryCode: country)
            XCTAssertEqual(match.place?.name.utf8.count, name.utf8.count, name)
            XCTAssertEqual(match.place?.id, id, name)
            XCTAssertEqual(match.place?.population, population, name)
            XCTAssertEqual(match.place?.countryCode, country, name)
            XCTAssertEqual(match.placeDistanceKm, 0, name)
        }
    }

    /// A place's facts (what naming it reads) are made a block of places at a time, when one of
    /// them is first named (`PlaceResolver.makeFacts`, under a lock, published by an atomic
    /// flag). Eight threads naming the same 4,000 points at once on a fresh resolver, each
    /// block first asked for by several of them, give every point the name, id and region one
    /// thread gives on another fresh resolver. (Points round the largest places of 40
    /// countries, so most of the 64 blocks are made under contention.)
    func testThreadsNamingAtOnceOnAFreshResolverNameAsOneThreadDoes() throws {
        let data = try ShippedData.files.read("Places.bin")
        let shared = try PlaceResolver(data: Array(data)), alone = try PlaceResolver(data: Array(data))
        let anchors = try CountryResolverTests.resolver().codes.prefix(40).flatMap { code in alone.largestPlaces(of: code, limit: 100).map { (code, $0.coordinate) } }
        XCTAssertGreaterThan(anchors.count, 1_000)
        let points = (0..<4_000).map { k -> (String, Coordinate) in
            let (code, c) = anchors[(k * 7919) % anchors.count]
            return (code, Coordinate(latitude: c.latitude + Double(k % 7) * 0.01, longitude: c.longitude - Double(k % 5) * 0.01))
        }
        @Sendable func answer(_ r: PlaceResolver, _ p: (String, Coordinate)) -> String {
            let m = r.match(at: p.1, countryCode: p.0)
            return "\(m.place?.name ?? "-") \(m.place?.id ?? -1) \(m.region?.code ?? "-")"
        }
        let expected = points.map { answer(alone, $0) }
        let results = Mutex([[String]](repeating: [], count: 8))
        DispatchQueue.concurrentPerform(iterations: 8) { t in
            let got = points.indices.map { k in answer(shared, points[(k + t * 500) % points.count]) }
            results.withLock { $0[t] = got }
        }
        for (t, got) in results.withLock({ $0 }).enumerated() {
            for (k, text) in got.enumerated() where text != expected[(k + t * 500) % points.count] {
                XCTFail("thread \(t), point \((k + t * 500) % points.count): \(text), one thread: \(expected[(k + t * 500) % points.count])")
                break
            }
        }
    }

    func testNoCountryNoPlace() throws {
        XCTAssertEqual(try Self.resolver().match(at: Coordinate(latitude: 48.85, longitude: 2.35), countryCode: nil), .none)
        XCTAssertEqual(try Self.resolver().match(at: Coordinate(latitude: 48.85, longitude: 2.35), countryCode: "ZZ"), .none)
    }

    func testRegionsOfACountry() throws {
        let us = try Self.resolver().regions(of: "US")
        XCTAssertEqual(us.count, 51) // 50 states and DC in GeoNames' admin-1
        XCTAssertTrue(us.contains(Region(code: "US-CA", name: "California", countryCode: "US")))
        let jp = try Self.resolver().regions(of: "JP")
        XCTAssertEqual(jp.count, 47)
    }

    func testDamagedFilesAreErrorsNotCrashes() throws {
        let data = try ShippedData.files.read("Places.bin")
        XCTAssertThrowsError(try PlaceResolver(data: Array(data.prefix(data.count - 1))))
        XCTAssertThrowsError(try PlaceResolver(data: Array(data.prefix(100))))
        XCTAssertThrowsError(try PlaceResolver(data: []))
        var wrongMagic = data
        wrongMagic[0] = 0
        XCTAssertThrowsError(try PlaceResolver(data: wrongMagic)) { error in
            XCTAssertTrue("\(error)".hasPrefix("Places.bin: not a pins places file"), "\(error)")
        }
        // Every count and constant in the header, damaged one at a time.
        for offset in stride(from: 12, to: 56, by: 4) {
            var bad = data
            bad[offset + 3] ^= 0x40
            XCTAssertThrowsError(try PlaceResolver(data: bad), "header byte \(offset + 3)")
        }
    }
    /// The places' columns are checked at load (each as a reduction over the whole column): a
    /// latitude or a longitude of -2^31 is an error naming the file and the place.
    func testACoordinateOutOfRangeIsAnError() throws {
        let data = try ShippedData.files.read("Places.bin")
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(data[at + $1]) << (8 * $1) } }
        let countries = u32(12), regions = u32(16), places = u32(20), strings = u32(24), stringBytes = u32(28)
        // The header (56 bytes), 4 bytes per country, 12 per region, the string offsets and
        // bytes (padded to 4), then the latitudes and the longitudes (i32 each).
        let latitudes = (56 + 4 * countries + 12 * regions + 4 * (strings + 1) + stringBytes + 3) & ~3
        for column in [latitudes, latitudes + 4 * places] {
            var bad = data
            bad.replaceSubrange((column + 8)..<(column + 12), with: [0, 0, 0, 0x80])  // place 2: Int32.min
            XCTAssertThrowsError(try PlaceResolver(data: bad)) { error in
                XCTAssertTrue("\(error)".hasPrefix("Places.bin: bad place 2 at byte"), "\(error)")
            }
        }
    }
}

/// The grid and its early exits (scripts/build-places: a cell's places in increasing gap, the
/// scan stopping where none can win) change no answer: at 100,000 points near places, on land,
/// at sea and far from any town, `match` gives what measuring every place of the country gives.
final class PlaceGridTests: XCTestCase {
    func testTheGridAnswersAsAScanOfEveryPlaceOfTheCountry() throws {
        let resolver = try PlaceResolverTests.resolver()
        let countries = try CountryResolverTests.resolver()
        var state: UInt64 = 23
        func random() -> Double { // SplitMix64, in [0, 1)
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        let anchors = countries.codes.flatMap { resolver.largestPlaces(of: $0, limit: 200) }
        var candidates: [String: [Int]] = [:]
        var named = 0, regionOnly = 0, atSea = 0
        for _ in 0..<100_000 {
            let a = anchors[Int(random() * Double(anchors.count))].coordinate
            // Up to 0.3° (33 km) from a place: inside towns, between them, beyond every reach.
            let point = Coordinate(latitude: max(-90, min(90, a.latitude + 0.6 * random() - 0.3)),
                                   longitude: max(-180, min(180, a.longitude + 0.6 * random() - 0.3)))
            guard let code = countries.countryCode(at: point) else { continue }
            if countries.containingCountry(point) == nil { atSea += 1 }
            let all = candidates[code] ?? resolver.placeIndices(inOutlineOf: code)
            candidates[code] = all
            let expected = resolver.matchByScanning(at: point, countryCode: code, candidates: all)
            XCTAssertEqual(resolver.match(at: point, countryCode: code), expected, "\(point) in \(code)")
            // Told by the country lookup whether the outline holds the point (as an import
            // is), the resolver answers the same without asking the outlines again.
            let fix = countries.country(at: point)
            XCTAssertEqual(fix?.code, code)
            XCTAssertEqual(resolver.match(at: point, countryCode: code, inOutline: fix?.inOutline), expected, "\(point) in \(code), told")
            if expected.place != nil { named += 1 } else if expected.region != nil { regionOnly += 1 }
        }
        // The points test every rule: named places, regions without a town, the sea.
        XCTAssertGreaterThan(named, 50_000)
        XCTAssertGreaterThan(regionOnly, 1_000)
        XCTAssertGreaterThan(atSea, 1_000)
    }
}
