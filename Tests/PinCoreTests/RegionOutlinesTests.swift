import TestSupport
import XCTest
@testable import PinCore

/// The region by its admin-1 outline (DCW-GMT, Resources/PLACES.md "Regions") against the
/// shipped Regions.bin, Places.bin and outlines, at points checked by hand: each point's side of
/// the line from a map and the line's position (given in the comments), at least 300 m from it,
/// and its distance to DCW's own line worked from the unsimplified `gmt coast -E… -M` output.
final class RegionOutlinesTests: XCTestCase {
    static func outlines() throws -> RegionOutlines { try ShippedData.files.regionOutlines() }

    static func places() throws -> OutlinedRegionPlaces { try ShippedData.places() }

    /// (country, place, region code): with the outlines, and by the gazetteer alone (the rule
    /// before them, for the cases where they differ).
    func at(_ lat: Double, _ lon: Double) throws -> (country: String?, place: String?, region: String?, before: String?) {
        let point = Coordinate(latitude: lat, longitude: lon)
        let country = try CountryResolverTests.resolver().countryCode(at: point)
        let match = try Self.places().match(at: point, countryCode: country)
        let before = try PlaceResolverTests.resolver().match(at: point, countryCode: country)
        // Told whether the country's outline holds the point (as an import is): the same answer.
        let fix = try CountryResolverTests.resolver().country(at: point)
        XCTAssertEqual(try Self.places().match(at: point, countryCode: fix?.code, inOutline: fix?.inOutline), match, "told, at \(lat),\(lon)")
        return (country, match.place?.name, match.region?.code, before.region?.code)
    }

    func assertRegion(_ lat: Double, _ lon: Double, _ country: String, _ region: String?,
                      file: StaticString = #filePath, line: UInt = #line) throws {
        let got = try at(lat, lon)
        XCTAssertEqual(got.country, country, "country at \(lat),\(lon)", file: file, line: line)
        XCTAssertEqual(got.region, region, "region at \(lat),\(lon) (place \(got.place ?? "-"), before \(got.before ?? "-"))",
                       file: file, line: line)
    }

    /// Texarkana: the Texas-Arkansas line is State Line Avenue (-94.0430). 1.1 km west of it
    /// (cos 33.43° = 0.835: 0.012° is 1.11 km) is Texas, 1.1 km east Arkansas (DCW's line: 0.93
    /// and 1.28 km away).
    func testTexarkanaOnBothSidesOfStateLineAvenue() throws {
        try assertRegion(33.4300, -94.0550, "US", "US-TX")
        try assertRegion(33.4300, -94.0310, "US", "US-AR")
    }

    /// Kansas City: south of the Missouri River the line is State Line Road (-94.6078). 0.67 km
    /// east of it (cos 39.03° = 0.777) is Missouri, 1.05 km west Kansas.
    func testKansasCityMissouriAndKansas() throws {
        try assertRegion(39.0300, -94.6000, "US", "US-MO")
        try assertRegion(39.0300, -94.6200, "US", "US-KS")
    }

    /// Ottawa and Gatineau, across the Ottawa River (the Ontario-Quebec line runs mid-river):
    /// Parliament Hill (45.4236, -75.7009) is Ontario, the Canadian Museum of History on the Hull
    /// bank (45.4297, -75.7090) Quebec, each about 350 m from DCW's line. The museum's place is
    /// Ottawa (812,129 people, radius 9.0 km; its centre 45.41117, -75.69812 is 2.2 km away,
    /// d/r 0.25; Gatineau's centre is 5.3 km away, beyond its 4.9 km): the place stays the
    /// gazetteer's, the region is the outline's. Before the outlines it was Ontario.
    func testOttawaAndGatineauAcrossTheRiver() throws {
        try assertRegion(45.4236, -75.7009, "CA", "CA-ON")
        let museum = try at(45.4297, -75.7090)
        XCTAssertEqual(museum.place, "Ottawa")
        XCTAssertEqual(museum.region, "CA-QC")
        XCTAssertEqual(museum.before, "CA-ON")
    }

    /// Lloydminster straddles the 4th meridian (-110.0056): 1.04 km east of it (cos 53.28° =
    /// 0.598) is Saskatchewan, 0.96 km west Alberta; one town, two provinces.
    func testLloydminsterOnTheFourthMeridian() throws {
        try assertRegion(53.2800, -109.9900, "CA", "CA-SK")
        try assertRegion(53.2800, -110.0200, "CA", "CA-AB")
        // GeoNames puts the town (53.27237, -110.00516) in Alberta: before the outlines the
        // Saskatchewan side was Alberta too.
        let east = try at(53.2800, -109.9900)
        XCTAssertEqual([east.place, east.before], ["Lloydminster", "CA-AB"])
        XCTAssertEqual(try at(53.2800, -110.0200).place, "Lloydminster")
    }

    /// On Pine Island Sound's shore (26.59, -82.05), inside Natural Earth's United States but
    /// 260 m outside DCW's Florida coast: in no unit, so the unit with the nearest edge within
    /// 10 km, Florida.
    func testInTheCountryButInNoUnit() throws {
        let point = Coordinate(latitude: 26.59, longitude: -82.05)
        let outlines = try Self.outlines()
        XCTAssertNil(outlines.unit(at: point, countryCode: "US"))
        XCTAssertEqual(try CountryResolverTests.resolver().containingCountry(point).map { try CountryResolverTests.resolver().codes[$0] }, "US")
        XCTAssertEqual(outlines.nearestUnit(to: point, countryCode: "US", withinKm: 10).map(outlines.dcwCode(ofUnit:)), "US.FL")
        XCTAssertNil(outlines.nearestUnit(to: point, countryCode: "US", withinKm: 0.1))
        try assertRegion(26.59, -82.05, "US", "US-FL")
    }

    /// The Distrito Federal's northern line is the parallel 15°30' S: 5.6 km north of it is
    /// Goiás, 5.6 km south the Federal District.
    func testABrazilianStateLine() throws {
        try assertRegion(-15.45, -47.80, "BR", "BR-GO")
        try assertRegion(-15.55, -47.80, "BR", "BR-DF")
    }

    /// Off Miami Beach (25.77, -80.05), at sea 8 km from DCW's Florida coast (its country from
    /// the 22 km coastal rule): the nearest unit within 22 km, Florida.
    func testAtSeaOffFlorida() throws {
        let point = Coordinate(latitude: 25.77, longitude: -80.05)
        XCTAssertNil(try Self.outlines().unit(at: point, countryCode: "US"))
        XCTAssertNil(try CountryResolverTests.resolver().containingCountry(point))
        try assertRegion(25.77, -80.05, "US", "US-FL")
        // 40 km out no unit is within 22 km, and no country either.
        XCTAssertNil(try Self.outlines().nearestUnit(to: Coordinate(latitude: 25.77, longitude: -79.70), countryCode: "US", withinKm: 22))
    }

    /// Outside the 8 countries Natural Earth's outlines decide (RegionOutlinesWorldTests): a
    /// Strasbourg quay is Grand Est. In a country whose gazetteer has no regions (Saint Kitts
    /// and Nevis) there are no outlines, and Basseterre has no region, as before.
    func testACountryWithoutOutlines() throws {
        let quay = try at(48.5680, 7.8000)
        XCTAssertEqual([quay.country, quay.place, quay.region, quay.before], ["FR", "Strasbourg", "FR-GES", "FR-GES"])
        XCTAssertTrue(try Self.outlines().covers("FR"))
        XCTAssertFalse(try Self.outlines().covers("KN"))
        let basseterre = try at(17.3, -62.7)
        XCTAssertEqual([basseterre.country, basseterre.place, basseterre.region], ["KN", "Basseterre", nil])
    }

    /// DCW's Andhra Pradesh predates Telangana (2014): in Hyderabad (17.3850, 78.4867) the unit
    /// is IN.AP, which stands for two of today's regions, so the place decides: Telangana.
    func testAUnitOfTwoRegionsLeavesItToThePlace() throws {
        let outlines = try Self.outlines()
        let unit = try XCTUnwrap(outlines.unit(at: Coordinate(latitude: 17.3850, longitude: 78.4867), countryCode: "IN"))
        XCTAssertEqual(outlines.dcwCode(ofUnit: unit), "IN.AP")
        XCTAssertEqual(outlines.regionCodes(ofUnit: unit), ["IN-AP", "IN-TS"])
        try assertRegion(17.3850, 78.4867, "IN", "IN-TS")
    }

    /// In the 8 countries, DCW's 272 units (its 275 less CN.HK, CN.MO and CN.TW, their own
    /// countries in the outlines); Natural Earth's for the others (4,146 units in 216 countries:
    /// scripts/build-regions' summary). Each names a region the gazetteer has (the loader checks it).
    func testEveryUnitIsARegionOfTheGazetteer() throws {
        let outlines = try Self.outlines()
        XCTAssertEqual(outlines.unitCount, 4418)
        XCTAssertEqual(outlines.countryCodes.count, 224)
        let counts = Dictionary(grouping: 0..<outlines.unitCount, by: outlines.countryCode(ofUnit:)).mapValues(\.count)
        let dcw = ["AR": 24, "AU": 8, "BR": 27, "CA": 13, "CN": 31, "IN": 35, "RU": 83, "US": 51]
        XCTAssertEqual(counts.filter { dcw[$0.key] != nil }, dcw)
        for unit in 0..<outlines.unitCount where dcw[outlines.countryCode(ofUnit: unit)] != nil {
            XCTAssertFalse(outlines.dcwCode(ofUnit: unit).hasPrefix("NE:"), outlines.dcwCode(ofUnit: unit))
        }
        _ = try Self.places()
    }

    func testDamagedFilesAreErrorsNotCrashes() throws {
        let data = try ShippedData.files.read("Regions.bin")
        XCTAssertThrowsError(try RegionOutlines(data: Array(data.prefix(data.count - 4))))
        XCTAssertThrowsError(try RegionOutlines(data: Array(data.prefix(200))))
        XCTAssertThrowsError(try RegionOutlines(data: []))
        var wrongMagic = data
        wrongMagic[0] = 0
        XCTAssertThrowsError(try RegionOutlines(data: wrongMagic)) { error in
            XCTAssertTrue("\(error)".hasPrefix("Regions.bin: not a pins regions file"), "\(error)")
        }
        // Every count in the header, and bytes all through the file, damaged one at a time: an
        // error or a file that still reads (a vertex moved), never a crash.
        for offset in stride(from: 12, to: 60, by: 4) {
            var bad = data
            bad[offset + 3] ^= 0x40
            XCTAssertThrowsError(try RegionOutlines(data: bad), "header byte \(offset + 3)")
        }
        for offset in stride(from: 60, to: data.count, by: data.count / 211) {
            var bad = data
            bad[offset] ^= 0xA5
            if let outlines = try? RegionOutlines(data: bad) {
                _ = outlines.unit(at: Coordinate(latitude: 33.43, longitude: -94.05), countryCode: "US")
            }
        }
    }

    /// Each run is checked at load against its unit's rings and its cell's country (a country's
    /// points are decoded at its first lookup, by these runs): run 0 one edge past the end of
    /// any ring, or moved to the last unit (of another country), is an error naming the file.
    func testARunOutsideItsRingOrCountryIsAnError() throws {
        let data = try ShippedData.files.read("Regions.bin")
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(data[at + $1]) << (8 * $1) } }
        let countries = u32(12), units = u32(16), rings = u32(20)
        // The header (68 bytes), 36 per country, 20 per unit, 8 per ring, then the runs.
        let run0 = 68 + 36 * countries + 20 * units + 8 * rings
        XCTAssertNoThrow(try RegionOutlines(data: data))
        var longRun = data
        longRun[run0 + 4] = 0xFF  // edges: 0xFFFF, more than any ring has
        longRun[run0 + 5] = 0xFF
        var movedRun = data
        movedRun[run0 + 6] = UInt8((units - 1) & 0xFF)
        movedRun[run0 + 7] = UInt8((units - 1) >> 8)
        for bad in [longRun, movedRun] {
            XCTAssertThrowsError(try RegionOutlines(data: bad)) { error in
                XCTAssertTrue("\(error)".hasPrefix("Regions.bin: bad run 0 at byte"), "\(error)")
            }
        }
    }
}
