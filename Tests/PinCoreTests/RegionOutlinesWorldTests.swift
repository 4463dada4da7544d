import TestSupport
import XCTest
@testable import PinCore

/// Regions by Natural Earth's admin-1 outlines outside DCW's 8 countries (issue 38 item 3;
/// docs/regions.md), against the shipped Regions.bin, Places.bin and country outlines. Each pair
/// of points lies on the two sides of a region border, each point kilometres from the line (its
/// side worked from a map, the line described in the comment), so the outline, not the nearest
/// town, decides. A region without an ISO 3166-2 code in the gazetteer (Norway's 2024 counties,
/// Réunion's, French Guiana's) is given by its name.
final class RegionOutlinesWorldTests: XCTestCase {
    /// (country, region code or else name, the place's region alone: the rule before).
    func at(_ lat: Double, _ lon: Double) throws -> (country: String?, region: String?, before: String?) {
        let point = Coordinate(latitude: lat, longitude: lon)
        let fix = try CountryResolverTests.resolver().country(at: point)
        let match = try ShippedData.places().match(at: point, countryCode: fix?.code, inOutline: fix?.inOutline)
        let before = try PlaceResolverTests.resolver().match(at: point, countryCode: fix?.code)
        return (fix?.code, match.region.map { $0.code ?? $0.name }, before.region.map { $0.code ?? $0.name })
    }

    func assertRegion(_ lat: Double, _ lon: Double, _ country: String, _ region: String,
                      file: StaticString = #filePath, line: UInt = #line) throws {
        let got = try at(lat, lon)
        XCTAssertEqual(got.country, country, "country at \(lat),\(lon)", file: file, line: line)
        XCTAssertEqual(got.region, region, "region at \(lat),\(lon) (before: \(got.before ?? "none"))", file: file, line: line)
    }

    /// Norway's counties of 1 January 2024 (Viken, Vestfold og Telemark and Troms og Finnmark
    /// split again). The gazetteer's places there carry the 2020 counties, which its admin-1
    /// table no longer has: before, Drammen and Tromsø had no region at all.
    func testNorwaysCountiesOf2024() throws {
        // Drammen (Buskerud) and Holmestrand (Vestfold), 28 km apart across the Buskerud-Vestfold
        // line, which leaves Drammensfjorden's west shore about 10 km south of Drammen.
        try assertRegion(59.7439, 10.2045, "NO", "Buskerud")
        XCTAssertNil(try at(59.7439, 10.2045).before)
        try assertRegion(59.4890, 10.3130, "NO", "Vestfold")
        // Tromsø (Troms) and Alta (Finnmark): the Troms-Finnmark line runs north-south over
        // Kvænangen's mountains near 22.0-22.3° E, Alta 45 km east of it.
        try assertRegion(69.6492, 18.9553, "NO", "Troms")
        XCTAssertNil(try at(69.6492, 18.9553).before)
        try assertRegion(69.9689, 23.2716, "NO", "Finnmark")
        // Skien (Telemark), Fredrikstad (Østfold), Lillestrøm (Akershus), Oslo.
        try assertRegion(59.2090, 9.6090, "NO", "Telemark")
        try assertRegion(59.2181, 10.9298, "NO", "Østfold")
        try assertRegion(59.9560, 11.0500, "NO", "Akershus")
        try assertRegion(59.9139, 10.7522, "NO", "NO-03")
    }

    /// Egypt's Western Desert, hundreds of km from any town: the Gilf Kebir plateau (23.5 N,
    /// 26.0 E) is New Valley (Al Wadi al Jadid, which holds the whole south-west), Siwa (29.20 N,
    /// 25.52 E) is Matrouh. The Red Sea governorate's desert 40 km inland of Marsa Alam against
    /// Aswan on the Nile (the line follows the Eastern Desert's watershed, near 33.5° E there).
    func testEgyptsDeserts() throws {
        try assertRegion(23.5000, 26.0000, "EG", "EG-WAD")
        try assertRegion(29.2000, 25.5200, "EG", "EG-MT")
        try assertRegion(25.0000, 34.5000, "EG", "EG-BA")
        try assertRegion(24.0900, 32.9000, "EG", "EG-ASN")
    }

    /// Chile's fjords: Fiordo Reñihue (42.55 S) is Los Lagos, the Puyuhuapi fjord (44.40 S) Aysén
    /// (the line runs near 43.7° S), Seno Última Esperanza (51.6 S) Magallanes.
    func testChilesFjords() throws {
        try assertRegion(-42.5500, -72.6000, "CL", "CL-LL")
        try assertRegion(-44.4000, -72.6000, "CL", "CL-AI")
        try assertRegion(-51.6000, -72.7000, "CL", "CL-MA")
    }

    /// Réunion and French Guiana are countries of their own (ISO 3166-1 RE, GF), each one region:
    /// Saint-Denis and the Piton des Neiges; Cayenne and the forest 180 km inland.
    func testReunionAndFrenchGuiana() throws {
        try assertRegion(-20.8820, 55.4500, "RE", "Réunion")
        try assertRegion(-21.1000, 55.4800, "RE", "Réunion")
        try assertRegion(4.9330, -52.3300, "GF", "French Guiana")
        try assertRegion(3.0000, -53.5000, "GF", "French Guiana")
    }

    /// Rolled up to the first level people use: France's régions (Natural Earth draws its
    /// départements), Spain's communities (its provinces), the United Kingdom's four countries.
    /// Avignon's east side is Provence-Alpes-Côte d'Azur, 5 km west across the Rhône (the line)
    /// is Occitanie (Gard); Annan (Scotland) and Carlisle (England) lie 10 km either side of the
    /// Sark and the Solway; Madrid and Toledo either side of the Madrid-Castilla-La Mancha line.
    func testRolledUpToTheFirstLevel() throws {
        try assertRegion(43.9400, 4.8400, "FR", "FR-PAC")
        try assertRegion(43.9600, 4.7400, "FR", "FR-OCC")
        try assertRegion(54.9900, -3.2600, "GB", "GB-SCT")
        try assertRegion(54.8900, -2.9300, "GB", "GB-ENG")
        try assertRegion(40.4168, -3.7038, "ES", "ES-MD")
        try assertRegion(39.8628, -4.0273, "ES", "ES-CM")
        try assertRegion(41.9028, 12.4964, "IT", "IT-62")
        try assertRegion(40.8518, 14.2681, "IT", "IT-72")
    }

    /// Mainz (Rhineland-Palatinate) and Wiesbaden (Hesse), either side of the Rhine; Geneva and
    /// Nyon (Vaud), either side of the Versoix; Mexico City's Zócalo and Ecatepec (State of
    /// Mexico), 5 km north of the city's line; Jakarta and Bogor (West Java); Colombia's
    /// Amazonas at La Chorrera, 60 km from any town of the gazetteer, and Mitú (Vaupés).
    func testBordersInFiveMoreCountries() throws {
        try assertRegion(49.9800, 8.2300, "DE", "DE-RP")
        try assertRegion(50.0826, 8.2400, "DE", "DE-HE")
        try assertRegion(46.2044, 6.1432, "CH", "CH-GE")
        try assertRegion(46.3833, 6.2396, "CH", "CH-VD")
        try assertRegion(19.4326, -99.1332, "MX", "MX-CMX")
        try assertRegion(19.6010, -99.0500, "MX", "MX-MEX")
        try assertRegion(-6.2000, 106.8456, "ID", "ID-JK")
        try assertRegion(-6.5950, 106.8166, "ID", "ID-JB")
        try assertRegion(-1.4400, -72.8000, "CO", "CO-AMA")
        try assertRegion(1.2500, -70.2300, "CO", "CO-VAU")
    }

    /// Every country with regions in the gazetteer has outlines but those whose units no
    /// region could be given to; DCW's 8 keep DCW's units.
    func testTheOutlinesCoverTheWorld() throws {
        let outlines = try ShippedData.files.regionOutlines()
        XCTAssertGreaterThan(outlines.countryCodes.count, 200)
        for code in ["NO", "EG", "CL", "RE", "GF", "FR", "GB", "ES", "IT", "DE", "CH", "MX", "ID", "CO", "JP"] {
            XCTAssertTrue(outlines.covers(code), code)
        }
        let us = (0..<outlines.unitCount).filter { outlines.countryCode(ofUnit: $0) == "US" }
        XCTAssertEqual(us.count, 51)
        XCTAssertTrue(us.allSatisfy { outlines.dcwCode(ofUnit: $0).hasPrefix("US.") })
    }
}
