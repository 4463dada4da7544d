import Foundation
import PinCore

/// The water of the base map at city zoom (GSHHG coasts, lakes and rivers: `WaterMap`) as SVG
/// path data in the page's projection (Web Mercator world units, like WorldMap.json's paths,
/// times `scale` so a step is 1/32 of a unit: 1.25 px at the page's deepest zoom).
///
/// Three paths: `land`, the tiles' squares, drawn under the countries in the land colour (a tile
/// the coarse country outlines leave partly as sea is land where GSHHG says so); `sea`, each
/// tile's square with its land rings, drawn over the countries in the sea colour with the
/// even-odd rule (the sea and the lakes: Puget Sound and Lake Geneva where the 0.06° outlines
/// have land); `rivers`, stroked. page.css shows them from city zoom on (page.js sets the class).
public struct PageWater: Sendable, Equatable {
    public var land = "", visitedLand = "", sea = "", rivers = ""
    /// The tiles drawn, as (west, south) corners.
    public var tiles: [[Int]] = []
    /// Each tile's bytes in `land`, `visitedLand`, `sea` and `rivers`, in `tiles` order (each
    /// tile's share starts with an absolute moveto, so any choice of tiles is a valid path).
    public var sizes: [[Int]] = []

    public static let scale = 32
    /// The budget of the static page (issue 38): the page of 10,000 pins at most 1.3 times its
    /// size before water, 3,059,686 B (scripts/bench-map --sizes 10000 on 0ca0942): 3,977,592 B.
    /// The water takes what the rest of the page leaves under it (`allowance`).
    static let pageBudget = 3_977_592
    /// The most the water takes, however small the rest of the page (the tiles around a few
    /// hundred places), and the least, however big (the most pinned places' tiles: about 150
    /// in the bench's library; a page of 20,000 pins is past the budget without water, and keeps
    /// its cities' water).
    public static let waterBudget = 850_000
    static let waterFloor = 150_000

    public init() {}

    public var byteCount: Int { land.utf8.count + visitedLand.utf8.count + sea.utf8.count + rivers.utf8.count }

    /// What the water may take on a page whose other bytes are `restOfPage`.
    static func allowance(restOfPage: Int) -> Int {
        min(waterBudget, max(waterFloor, pageBudget - restOfPage))
    }

    /// The tiles that fit `budget` bytes, in order, skipping one that does not fit (a later,
    /// smaller one may): the water `PageRenderer` puts on the page once it knows the rest.
    func fitting(_ budget: Int) -> PageWater {
        guard byteCount > budget else { return self }
        let parts = [land, visitedLand, sea, rivers].map { Array($0.utf8) }
        var kept = [[UInt8]](repeating: [], count: 4), offsets = [0, 0, 0, 0], total = 0
        var out = PageWater()
        for (tile, size) in zip(tiles, sizes) {
            defer { for i in 0..<4 { offsets[i] += size[i] } }
            guard total + size.reduce(0, +) <= budget else { continue }
            for i in 0..<4 { kept[i] += parts[i][offsets[i]..<(offsets[i] + size[i])] }
            total += size.reduce(0, +)
            out.tiles.append(tile)
            out.sizes.append(size)
        }
        (out.land, out.visitedLand, out.sea, out.rivers) = (String(decoding: kept[0], as: UTF8.self), String(decoding: kept[1], as: UTF8.self),
                                                            String(decoding: kept[2], as: UTF8.self), String(decoding: kept[3], as: UTF8.self))
        return out
    }

    /// The tiles where the pins are, most pins first, then the tiles around them (a list click
    /// shows about 2 degrees), each while it fits `budget` bytes. `points` carry their pin's
    /// country: a tile's land square is in the fill colour (`visitedLand`) when its pins (or
    /// the pinned tile it neighbours) are in a country, so a visited country's coast is filled
    /// where its coarse outline left sea.
    public static func nearPins(_ points: [(Coordinate, String?)], map: WaterMap, width: Int, budget: Int = waterBudget) throws -> PageWater {
        var counts: [[Int]: Int] = [:], inCountry: [[Int]: Int] = [:]
        for (p, country) in points where p.latitude.isFinite && p.longitude.isFinite {
            counts[key(p.longitude, p.latitude), default: 0] += 1
            if country != nil { inCountry[key(p.longitude, p.latitude), default: 0] += 1 }
        }
        let pinned = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.lexicographicallyPrecedes($1.key) }.map(\.key)
        var visited = Set(pinned.filter { 2 * (inCountry[$0] ?? 0) > (counts[$0] ?? 0) })
        var order = pinned, seen = Set(pinned)
        for k in pinned {
            for dy in -1...1 { for dx in -1...1 where dx != 0 || dy != 0 {
                let n = [(k[0] + dx + 540) % 360 - 180, k[1] + dy]
                guard (-90..<90).contains(n[1]), seen.insert(n).inserted else { continue }
                order.append(n)
                if visited.contains(k) { visited.insert(n) }
            } }
        }
        var water = PageWater()
        for k in order {
            guard let tile = try map.tile(west: k[0], south: k[1]) else { continue }
            var one = PageWater()
            one.append(tile, units: map.units, width: width)
            guard water.byteCount + one.byteCount <= budget else { continue }
            let filled = visited.contains(k)
            if filled { water.visitedLand += one.land } else { water.land += one.land }
            water.sea += one.sea; water.rivers += one.rivers
            water.tiles.append(k)
            water.sizes.append([filled ? 0 : one.land.utf8.count, filled ? one.land.utf8.count : 0, one.sea.utf8.count, one.rivers.utf8.count])
        }
        return water
    }

    /// The detail of a view (for `pins serve`, which loads it on demand): every tile the box
    /// (degrees) touches, from zoom `minimumZoom` on (page.js's world units per pixel scale k),
    /// at most `maxTiles` of them.
    public static func detail(map: WaterMap, south: Double, west: Double, north: Double, east: Double,
                              zoom: Double, width: Int, maxTiles: Int = 64) throws -> PageWater {
        var water = PageWater()
        guard zoom >= minimumZoom, south <= north, west <= east, [south, west, north, east].allSatisfy(\.isFinite) else { return water }
        let s = max(-90, Int(floor(south))), n = min(89, Int(floor(north)))
        let w = max(-180, Int(floor(west))), e = min(179, Int(floor(east)))
        guard s <= n, w <= e, (n - s + 1) * (e - w + 1) <= maxTiles else { return water }
        for lat in s...n {
            for lon in w...e {
                guard let tile = try map.tile(west: lon, south: lat) else { continue }
                var one = PageWater()
                one.append(tile, units: map.units, width: width)
                water.land += one.land; water.sea += one.sea; water.rivers += one.rivers
                water.tiles.append([lon, lat])
                water.sizes.append([one.land.utf8.count, 0, one.sea.utf8.count, one.rivers.utf8.count])
            }
        }
        return water
    }

    /// page.js shows the water from this scale on (screen pixels per world unit; 1 px ≈ 2 km).
    static let minimumZoom = 1.0

    static func key(_ lon: Double, _ lat: Double) -> [Int] {
        [min(179, max(-180, Int(floor(lon)))), min(89, max(-90, Int(floor(lat))))]
    }

    mutating func append(_ tile: WaterMap.Tile, units: Int, width: Int) {
        let w = Double(width) * Double(Self.scale)
        func project(_ lon: Double, _ lat: Double) -> (Int, Int) {
            let la = max(-85.0511287798, min(85.0511287798, lat)), s = sin(la * .pi / 180)
            return (Int(((lon + 180) / 360 * w).rounded()), Int(((0.5 - log((1 + s) / (1 - s)) / (4 * .pi)) * w).rounded()))
        }
        let (x0, y0) = project(Double(tile.west), Double(tile.south + 1))
        let (x1, y1) = project(Double(tile.west + 1), Double(tile.south))
        let square = "M\(x0) \(y0)h\(x1 - x0)v\(y1 - y0)h\(x0 - x1)z"
        switch tile.state {
        case .land: land += square; return
        case .sea: sea += square; return
        case .detail: land += square; sea += square
        }
        let u = Double(units), west = Double(tile.west), south = Double(tile.south)
        // After the square's z the pen is at its corner; each later ring or river starts with a
        // relative moveto from where the pen is (its numbers after it are relative linetos):
        // the tile's numbers stay small (a tile is 1,778 wide), a tenth of the bytes less.
        var seaPen: (Int, Int)? = (x0, y0), riverPen: (Int, Int)? = nil
        for ring in tile.rings { sea += Self.path(ring.map { project(west + Double($0.x) / u, south + Double($0.y) / u) }, closed: true, pen: &seaPen) }
        for river in tile.rivers {
            rivers += Self.path(river.points.map { project(west + Double($0.x) / u, south + Double($0.y) / u) }, closed: false, pen: &riverPen)
        }
    }

    /// A subpath of `points` (the page's units × scale): "M x y l dx dy…" when nothing is drawn
    /// yet (`pen` nil), else "m dx dy dx dy…" from the pen; a minus sign is its own separator.
    /// Repeated points are dropped; nothing for a line that moves by no step. `pen` ends where
    /// SVG leaves it: a closed ring's start, an open line's end.
    static func path(_ points: [(Int, Int)], closed: Bool, pen: inout (Int, Int)?) -> String {
        guard let first = points.first else { return "" }
        var text = "", last = first, steps = 0
        func number(_ n: Int, first: Bool) { text += n < 0 || first ? String(n) : " " + String(n) }
        for q in points.dropFirst() where q != last {
            number(q.0 - last.0, first: steps == 0 && pen == nil)
            number(q.1 - last.1, first: false)
            steps += 1
            last = q
        }
        guard steps > 0 else { return "" }
        let start: String
        if let p = pen {
            start = "m" + String(first.0 - p.0) + (first.1 - p.1 < 0 ? "" : " ") + String(first.1 - p.1)
        } else {
            start = "M\(first.0) \(first.1)l"
        }
        pen = closed ? first : last
        return start + text + (closed ? "z" : "")
    }
}
