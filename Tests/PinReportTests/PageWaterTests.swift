import Foundation
@testable import PinCore
@testable import PinReport
import TestSupport
import XCTest

/// Water.bin (scripts/build-water) read back, and its tiles as the page's SVG paths (issue 38
/// item 1). Hand-made files test the format and its checks; the shipped file is checked at
/// Lake Geneva, Puget Sound and the budget of the 10,000-pin page.
final class PageWaterTests: XCTestCase {
    /// A Water.bin with every tile land but (0, 0) sea and (1, 0) detail: one ring (a square
    /// island, units 0..8) and one river of level 2.
    static func handMade(units: Int = 8) -> [UInt8] {
        var grid = [UInt8](repeating: 0, count: 360 * 180)
        grid[90 * 360 + 180] = 1
        grid[90 * 360 + 181] = 2
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16) }
        var blob = u16(1) + u16(5)
        for (x, y) in [(2, 2), (6, 2), (6, 6), (2, 6), (2, 2)] { blob += u16(x) + u16(y) }
        blob += u16(1) + [2] + u16(2) + u16(0) + u16(4) + u16(8) + u16(4)
        let tolerance = Float(60).bitPattern
        return Array("PINSWT1\n".utf8) + u32(1) + u32(1) + u32(blob.count) + u32(Int(tolerance)) + u32(units)
            + grid + u32(0) + u32(blob.count) + blob
    }

    func testAHandMadeFileReadsBack() throws {
        let map = try WaterMap(bytes: Self.handMade())
        XCTAssertEqual(map.units, 8)
        XCTAssertEqual(map.tolerance, 60)
        XCTAssertEqual(try map.tile(west: 0, south: 0)?.state, .sea)
        XCTAssertEqual(try map.tile(west: 5, south: 5)?.state, .land)
        let tile = try XCTUnwrap(try map.tile(west: 1, south: 0))
        XCTAssertEqual(tile.state, .detail)
        XCTAssertEqual(tile.rings.map { $0.map { [$0.x, $0.y] } }, [[[2, 2], [6, 2], [6, 6], [2, 6], [2, 2]]])
        XCTAssertEqual(tile.rivers.map(\.level), [2])
        XCTAssertEqual(tile.rivers[0].points.map { [$0.x, $0.y] }, [[0, 4], [8, 4]])
        XCTAssertNil(try map.tile(west: 180, south: 0))
    }

    /// Damaged bytes are an error naming the file, never a crash: every truncation, and a byte
    /// changed at each place of the header, the grid and the blob.
    func testDamagedFilesAreErrorsNamingTheFile() throws {
        let good = Self.handMade()
        for cut in [0, 7, 27, 100, good.count - 1] {
            XCTAssertThrowsError(try WaterMap(bytes: Array(good.prefix(cut)))) { error in
                XCTAssertTrue("\(error)".hasPrefix("Water.bin: "), "\(error)")
            }
        }
        var badState = good
        badState[28 + 5] = 7
        XCTAssertThrowsError(try WaterMap(bytes: badState)) { XCTAssertTrue("\($0)".contains("bad tile state")) }
        var badCount = good
        badCount[28 + 360 * 180 + 8] = 40  // 40 rings: past the tile's end
        let map = try WaterMap(bytes: badCount)
        XCTAssertThrowsError(try map.tile(west: 1, south: 0)) { XCTAssertTrue("\($0)".contains("Water.bin: tile 1,0 is damaged"), "\($0)") }
        var badPoint = good
        badPoint[28 + 360 * 180 + 8 + 4] = 9  // x = 9 > 8 units
        XCTAssertThrowsError(try WaterMap(bytes: badPoint).tile(west: 1, south: 0))
        for i in stride(from: 0, to: good.count, by: 997) {
            var bytes = good
            bytes[i] ^= 0x5A
            if let map = try? WaterMap(bytes: bytes) { _ = try? map.tile(west: 1, south: 0) }
        }
    }

    /// The tile (0°, 0°) in the page's world units × 32 at width 20,000: x from 180/360 × 640,000
    /// = 320,000 to 181/360 × 640,000 = 321,777.8; y from lat 1° (0.5 − atanh(sin 1°)/(2π)) ×
    /// 640,000 = 318,222.1 to 320,000 at the equator (worked by hand), drawn as a relative square.
    func testTilesAsPathsInThePagesProjection() throws {
        let map = try WaterMap(bytes: Self.handMade())
        let sea = try PageWater.detail(map: map, south: 0.2, west: 0.2, north: 0.8, east: 0.8, zoom: 8, width: 20_000)
        XCTAssertEqual(sea.sea, "M320000 318222h1778v1778h-1778z")
        XCTAssertEqual(sea.land, "")
        XCTAssertEqual(sea.tiles, [[0, 0]])
        // The island of tile (1, 0): its square is land below and sea above, the ring cut out.
        // The ring (units of 1/8°) from (1.25°, 0.25°) = (322,222.2, 319,555.6) by hand, a
        // relative moveto from the square's corner (321,778, 318,222) after its z: m444 1334;
        // then 0.5° east = 888.9 and 0.5° north = 888.9 (1,333.4 − 444.4 units from the equator).
        let island = try PageWater.detail(map: map, south: 0.5, west: 1.5, north: 0.5, east: 1.5, zoom: 8, width: 20_000)
        XCTAssertEqual(island.land, "M321778 318222h1778v1778h-1778z")
        XCTAssertEqual(island.sea, "M321778 318222h1778v1778h-1778zm444 1334 889 0 0-889-889 0 0 889z")
        // The river across the tile at 0.5° north: y = 320,000 − 888.9.
        XCTAssertEqual(island.rivers, "M321778 319111l1778 0")
        XCTAssertEqual(island.sizes, [[31, 0, 65, 21]])
        // Below city zoom, or a box of too many tiles: nothing (the server draws the outlines).
        XCTAssertEqual(try PageWater.detail(map: map, south: 0, west: 0, north: 1, east: 1, zoom: 0.5, width: 20_000), PageWater())
        XCTAssertEqual(try PageWater.detail(map: map, south: -40, west: -40, north: 40, east: 40, zoom: 8, width: 20_000).tiles, [])
    }

    /// Later subpaths of a tile move from where SVG leaves the pen: a closed ring's start, an
    /// open line's end; a minus sign needs no space, a repeated point is dropped.
    func testSubpathsMoveRelativeToThePen() {
        var pen: (Int, Int)? = nil
        XCTAssertEqual(PageWater.path([(10, 10), (13, 10), (13, 10), (13, 6)], closed: false, pen: &pen), "M10 10l3 0 0-4")
        XCTAssertEqual(pen.map { [$0.0, $0.1] }, [13, 6])
        XCTAssertEqual(PageWater.path([(20, 2), (18, 4), (20, 2)], closed: true, pen: &pen), "m7-4-2 2 2-2z")
        XCTAssertEqual(pen.map { [$0.0, $0.1] }, [20, 2])
        XCTAssertEqual(PageWater.path([(5, 5), (5, 5)], closed: true, pen: &pen), "", "a ring of no length draws nothing")
        XCTAssertEqual(pen.map { [$0.0, $0.1] }, [20, 2])
    }

    /// The water takes what the rest of the page leaves under its budget (3,977,592 B), at most
    /// 850,000 B and at least 150,000 B; `fitting` keeps the tiles in order while they fit,
    /// skipping one that does not, each tile's share whole.
    func testThePageBudgetTrimsTheWater() throws {
        XCTAssertEqual(PageWater.allowance(restOfPage: 1_000_000), 850_000)
        XCTAssertEqual(PageWater.allowance(restOfPage: 3_500_000), 477_592)
        XCTAssertEqual(PageWater.allowance(restOfPage: 3_900_000), 150_000)
        let map = try WaterMap(bytes: Self.handMade())
        let all = try PageWater.detail(map: map, south: 0.5, west: -0.5, north: 0.5, east: 2.5, zoom: 8, width: 20_000)
        XCTAssertEqual(all.tiles, [[-1, 0], [0, 0], [1, 0], [2, 0]])
        XCTAssertEqual(all.sizes.map { $0.reduce(0, +) }, [31, 31, 117, 31])
        XCTAssertEqual(all.fitting(10_000), all)
        let some = all.fitting(31 + 31 + 31)
        XCTAssertEqual(some.tiles, [[-1, 0], [0, 0], [2, 0]], "the island's 117 B do not fit; the next tile does")
        XCTAssertEqual(some.land, "M318222 318222h1778v1778h-1778zM323556 318222h1777v1778h-1777z")
        XCTAssertEqual(some.sea, "M320000 318222h1778v1778h-1778z")
        XCTAssertEqual(some.rivers, "")
        XCTAssertEqual(some.byteCount, 93)
        XCTAssertEqual(all.fitting(30), PageWater())
    }

    /// The most-pinned tiles first, then their neighbours, each while it fits the budget.
    func testThePagesBudgetGoesToTheTilesWithMostPins() throws {
        let map = try WaterMap(bytes: Self.handMade())
        let points: [(Coordinate, String?)] = [(Coordinate(latitude: 0.5, longitude: 1.5), "GH"), (Coordinate(latitude: 0.5, longitude: 1.5), "GH"),
                                               (Coordinate(latitude: 0.5, longitude: 0.5), nil)]
        let all = try PageWater.nearPins(points, map: map, width: 20_000)
        XCTAssertEqual(Array(all.tiles.prefix(2)), [[1, 0], [0, 0]])
        XCTAssertGreaterThan(all.tiles.count, 2)
        let single = try PageWater.detail(map: map, south: 0.5, west: 1.5, north: 0.5, east: 1.5, zoom: 8, width: 20_000)
        let one = try PageWater.nearPins(points, map: map, width: 20_000, budget: single.byteCount)
        XCTAssertEqual(one.tiles, [[1, 0]])
        XCTAssertEqual(one.byteCount, single.byteCount)
        // Tile (1, 0)'s pins are in a country: its land square (and its neighbours') is filled.
        XCTAssertEqual(one.visitedLand, single.land)
        XCTAssertEqual(one.land, "")
        XCTAssertTrue(all.visitedLand.contains(single.land), all.visitedLand)
    }

    /// A page whose other parts take about 3.5 MB (one pin with a long note) keeps the water's
    /// first tiles that fit under 3,977,592 B in all: 4 of 6 tiles of 99,997 B, in their order.
    func testTheRenderedPageStaysWithinItsBudget() throws {
        var big = pin("a", "FR", "2024-01-01T00:00:00Z")
        big.location.note = String(repeating: "n", count: 3_450_000 - 200)
        var input = PageInput(pins: [big], catalog: testCatalog, settings: Settings(),
                              worldMap: WorldMap(width: 20000, countries: [.init(id: "FR", d: "M1 1l5 0 0 5z")]))
        for k in 0..<6 {
            input.water.sea += "M\(k) 0" + String(repeating: "l1 1", count: 24_998) + "z"
            input.water.tiles.append([k, 0])
            input.water.sizes.append([0, 0, 99_997, 0])
        }
        XCTAssertEqual(input.water.byteCount, 6 * 99_997)
        let html = PageRenderer.render(input)
        XCTAssertLessThanOrEqual(html.utf8.count, PageWater.pageBudget)
        XCTAssertGreaterThan(html.utf8.count, PageWater.pageBudget - 100_000)
        let water = try XCTUnwrap(html.range(of: #"<g id="water" transform="scale(0.03125)"><path class="sea" d="M0 0l1 1"#))
        let sea = html[water.upperBound...].prefix { $0 != "\"" }
        XCTAssertEqual(sea.utf8.count + 8, 4 * 99_997, "4 tiles")
        XCTAssertTrue(sea.hasSuffix("zM3 0" + String(repeating: "l1 1", count: 24_998) + "z"))
    }

    /// The shipped file: Lake Geneva and Puget Sound are water, Lausanne and Bainbridge Island
    /// land, by the even-odd rule on the tiles' rings (points from a map, checked by hand).
    func testTheShippedWaterHasLakeGenevaAndPugetSound() throws {
        let map = try ShippedData.files.waterMap()
        func isWater(_ lat: Double, _ lon: Double) throws -> Bool {
            let tile = try XCTUnwrap(try map.tile(west: Int(floor(lon)), south: Int(floor(lat))))
            guard tile.state == .detail else { return tile.state == .sea }
            let u = Double(map.units), x = (lon - Double(tile.west)) * u, y = (lat - Double(tile.south)) * u
            var inside = false
            for ring in tile.rings {
                for (a, b) in zip(ring, ring.dropFirst()) where (Double(a.y) > y) != (Double(b.y) > y) {
                    let cross = Double(a.x) + (y - Double(a.y)) * Double(b.x - a.x) / Double(b.y - a.y)
                    if x < cross { inside.toggle() }
                }
            }
            return !inside
        }
        XCTAssertTrue(try isWater(46.45, 6.55), "Lake Geneva between Lausanne and Évian")
        XCTAssertFalse(try isWater(46.53, 6.63), "Lausanne")
        XCTAssertTrue(try isWater(47.60, -122.45), "Puget Sound west of Seattle")
        XCTAssertFalse(try isWater(47.63, -122.53), "Bainbridge Island")
        XCTAssertFalse(try isWater(47.61, -122.33), "Seattle")
        XCTAssertTrue(try isWater(0.5, -30.5), "the mid-Atlantic")
        let rhone = try XCTUnwrap(try map.tile(west: 4, south: 45))
        XCTAssertFalse(rhone.rivers.isEmpty, "the Rhône near Lyon is among the rivers")
    }
}
