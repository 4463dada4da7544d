import Foundation
import PinCore
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
    /// 640,000 = 318,222.1 to 320,000 at the equator (worked by hand).
    func testTilesAsPathsInThePagesProjection() throws {
        let map = try WaterMap(bytes: Self.handMade())
        let sea = try PageWater.detail(map: map, south: 0.2, west: 0.2, north: 0.8, east: 0.8, zoom: 8, width: 20_000)
        XCTAssertEqual(sea.sea, "M320000 318222H321778V320000H320000Z")
        XCTAssertEqual(sea.land, "")
        XCTAssertEqual(sea.tiles, [[0, 0]])
        // The island of tile (1, 0): its square is land below and sea above, the ring cut out.
        let island = try PageWater.detail(map: map, south: 0.5, west: 1.5, north: 0.5, east: 1.5, zoom: 8, width: 20_000)
        XCTAssertEqual(island.land, "M321778 318222H323556V320000H321778Z")
        XCTAssertTrue(island.sea.hasPrefix("M321778 318222H323556V320000H321778ZM"), island.sea)
        XCTAssertTrue(island.sea.hasSuffix("z"), island.sea)
        XCTAssertTrue(island.rivers.hasPrefix("M321778 "), island.rivers)
        // Below city zoom, or a box of too many tiles: nothing (the server draws the outlines).
        XCTAssertEqual(try PageWater.detail(map: map, south: 0, west: 0, north: 1, east: 1, zoom: 0.5, width: 20_000), PageWater())
        XCTAssertEqual(try PageWater.detail(map: map, south: -40, west: -40, north: 40, east: 40, zoom: 8, width: 20_000).tiles, [])
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
