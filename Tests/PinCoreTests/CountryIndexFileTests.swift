import TestSupport
import XCTest
@testable import PinCore

/// Resources/Countries.bin (CountryIndexFile) is the index CountryResolver builds from
/// Resources/Countries.geojson, and a damaged copy is an error naming it, never a crash.
final class CountryIndexFileTests: XCTestCase {
    static func shipped() throws -> [UInt8] {
        try ShippedData.files.read("Countries.bin")
    }

    /// The shipped file is what the shipped outlines give (a stale or hand-edited file fails),
    /// and the resolver read from it holds the same grid, to the bit, as the one built from them.
    func testTheShippedIndexIsTheOneTheOutlinesGive() throws {
        let geojson = try ShippedData.files.read("Countries.geojson")
        let polygons = try CountryGeoJSONParser.parse(geojson)
        let file = try Self.shipped()
        XCTAssertTrue(try CountryIndexFile.bytes(polygons: polygons) == file,
                      "Resources/Countries.bin is not the index of Resources/Countries.geojson: run scripts/build-countries")
        let built = try CountryResolverTests.geoJSONResolver()
        let read = try CountryIndexFile.resolver(file)
        XCTAssertEqual(read.codes, built.codes)
        XCTAssertEqual(read.names, built.names)
        XCTAssertEqual(read.coastalKilometres, built.coastalKilometres)
        XCTAssertEqual(read.cellDegrees, built.cellDegrees)
        XCTAssertTrue(read.cellStart.elementsEqual(built.cellStart), "cell starts")
        XCTAssertTrue(read.centreCountry.elementsEqual(built.centreCountry), "centre countries")
        XCTAssertTrue(read.nearCoast.elementsEqual(built.nearCoast), "coastal cells")
        XCTAssertTrue(read.edgeCountry.elementsEqual(built.edgeCountry), "edge countries")
        XCTAssertTrue(read.edgeCoords.elementsEqual(built.edgeCoords) { $0.bitPattern == $1.bitPattern }, "edge endpoints")
        XCTAssertEqual(read.edgeCoords.count, 4 * 635_107, "the edges Python counted from the outlines' bounding boxes")
    }

    func testDamagedFilesAreErrorsNotCrashes() throws {
        let file = try Self.shipped()
        for bad in [[], Array(file.prefix(16)), Array(file.prefix(file.count / 2)), Array(file.dropLast()), file + [0]] {
            XCTAssertThrowsError(try CountryIndexFile.resolver(bad)) { error in
                XCTAssertTrue("\(error)".hasPrefix("Countries.bin: "), "\(error)")
            }
        }
        var wrongMagic = file
        wrongMagic[0] = 0
        XCTAssertThrowsError(try CountryIndexFile.resolver(wrongMagic)) { error in
            XCTAssertTrue("\(error)".hasPrefix("Countries.bin: not a pins country index"), "\(error)")
        }
        // One bit flipped anywhere (a header count, a vertex, an edge, a run): an error.
        var flips = 0
        for offset in stride(from: 8, to: file.count, by: file.count / 23) {
            var bad = file
            bad[offset] ^= 0x10
            XCTAssertThrowsError(try CountryIndexFile.resolver(bad), "byte \(offset)")
            flips += 1
        }
        XCTAssertGreaterThan(flips, 20)
    }

    /// Hand-made outlines: a square country with a square hole (another country inside it),
    /// written and read back, answer as geography says.
    func testASmallIndexWrittenAndRead() throws {
        var polygons = CountryPolygons()
        polygons.add(code: "AA", name: "Outer", rings: [[(10, 10), (12, 10), (12, 12), (10, 12)], [(10.5, 10.5), (10.5, 11.5), (11.5, 11.5), (11.5, 10.5)]])
        polygons.add(code: "BB", name: "Inner", rings: [[(10.5, 10.5), (11.5, 10.5), (11.5, 11.5), (10.5, 11.5)]])
        let resolver = try CountryIndexFile.resolver(try CountryIndexFile.bytes(polygons: polygons))
        XCTAssertEqual(resolver.countryCode(at: Coordinate(latitude: 11.9, longitude: 11.9)), "AA")
        XCTAssertEqual(resolver.countryCode(at: Coordinate(latitude: 11, longitude: 11)), "BB")
        // 0.1° (11 km) east of the square: the coastal rule; 1° east: nothing.
        XCTAssertEqual(resolver.countryCode(at: Coordinate(latitude: 11, longitude: 12.1)), "AA")
        XCTAssertNil(resolver.countryCode(at: Coordinate(latitude: 11, longitude: 13)))
        XCTAssertEqual(resolver.names, ["Outer", "Inner"])
    }

    /// The checks of the cell starts, edge countries, centre countries and coast flags (run
    /// over whole arrays at each load), on a file whose checksum is right: each value out of
    /// range, one at a time, is an error naming the file.
    func testAnIndexOrFlagOutOfRangeIsAnError() throws {
        var polygons = CountryPolygons()
        polygons.add(code: "AA", name: "Outer", rings: [[(10, 10), (12, 10), (12, 12), (10, 12)]])
        polygons.add(code: "BB", name: "Inner", rings: [[(10.5, 10.5), (11.5, 10.5), (11.5, 11.5), (10.5, 11.5)]])
        let file = try CountryIndexFile.bytes(polygons: polygons)
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(file[at + $1]) << (8 * $1) } }
        let cells = u32(16) * u32(20), edges = u32(24)
        func padded(_ n: Int) -> Int { (n + 7) & ~7 }
        // The layout of CountryIndexFile: the header, the four strings, then the arrays.
        let starts = padded(CountryIndexFile.headerSize + [2, 5, 2, 5].reduce(0) { $0 + 2 + $1 })
        let owners = padded(starts + 4 * (cells + 1)) + 16 * edges
        let centres = padded(owners + 2 * edges), near = padded(centres + 2 * cells)
        XCTAssertEqual(padded(near + cells), file.count)
        let row = 100 * 1440 + 700  // a cell at 65° S, 5° W: no edge, no country, no coast
        let damages: [(at: Int, bytes: [UInt8])] = [
            (owners, [2, 0]),                    // an edge of country 2 (there are 2)
            (centres + 2 * row, [2, 0]),         // a centre in country 2
            (centres + 2 * row, [0xFE, 0xFF]),   // a centre in country -2
            (near + row, [2]),                   // a coast flag 2
            (starts + 4 * row, [1, 0, 0, 0]),    // a cell start above the next one's (0)
        ]
        for (at, bytes) in damages {
            var bad = file
            bad.replaceSubrange(at..<(at + bytes.count), with: bytes)
            let sum = bad.withUnsafeBytes { CountryIndexFile.checksum(UnsafeRawBufferPointer(rebasing: $0[CountryIndexFile.headerSize...])) }
            withUnsafeBytes(of: sum.littleEndian) { bad.replaceSubrange((CountryIndexFile.headerSize - 8)..<CountryIndexFile.headerSize, with: $0) }
            XCTAssertThrowsError(try CountryIndexFile.resolver(bad), "byte \(at)") { error in
                XCTAssertTrue("\(error)".hasPrefix("Countries.bin: an index or flag out of range") || "\(error)".hasPrefix("Countries.bin: bad cell starts"), "\(error)")
            }
        }
        XCTAssertNoThrow(try CountryIndexFile.resolver(file))
    }
}
