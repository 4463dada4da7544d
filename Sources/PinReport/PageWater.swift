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

    public static let scale = 32
    /// What the static page may spend on water: the page of 10,000 pins stays within 1.3 times
    /// its size before water (3,059,686 bytes, scripts/bench-map --sizes 10000: 3.98 MB).
    public static let pageBudget = 850_000

    public init() {}

    public var byteCount: Int { land.utf8.count + visitedLand.utf8.count + sea.utf8.count + rivers.utf8.count }

    /// The tiles where the pins are, most pins first, then the tiles around them (a list click
    /// shows about 2 degrees), each while it fits `budget` bytes. `points` carry their pin's
    /// country: a tile's land square is in the fill colour (`visitedLand`) when its pins (or
    /// the pinned tile it neighbours) are in a country, so a visited country's coast is filled
    /// where its coarse outline left sea.
    public static func nearPins(_ points: [(Coordinate, String?)], map: WaterMap, width: Int, budget: Int = pageBudget) throws -> PageWater {
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
            if visited.contains(k) { water.visitedLand += one.land } else { water.land += one.land }
            water.sea += one.sea; water.rivers += one.rivers
            water.tiles.append(k)
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
                water.append(tile, units: map.units, width: width)
                water.tiles.append([lon, lat])
            }
        }
        return water
    }

    /// page.js shows the water from this scale on (screen pixels per world unit; 1 px ≈ 2 km).
    public static let minimumZoom = 1.0

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
        let square = "M\(x0) \(y0)H\(x1)V\(y1)H\(x0)Z"
        switch tile.state {
        case .land: land += square; return
        case .sea: sea += square; return
        case .detail: land += square; sea += square
        }
        let u = Double(units), west = Double(tile.west), south = Double(tile.south)
        func line(_ points: [(x: Int, y: Int)], closed: Bool) -> String {
            var last: (Int, Int)? = nil, text = "", steps = 0
            for p in points {
                let q = project(west + Double(p.x) / u, south + Double(p.y) / u)
                guard let l = last else { text = "M\(q.0) \(q.1)l"; last = q; continue }
                guard q != l else { continue }
                let dx = q.0 - l.0, dy = q.1 - l.1
                text += (dx < 0 || steps == 0 ? "" : " ") + String(dx) + (dy < 0 ? "" : " ") + String(dy)
                steps += 1
                last = q
            }
            guard steps > 0 else { return "" }
            return closed ? text + "z" : text
        }
        for ring in tile.rings { sea += line(ring, closed: true) }
        for river in tile.rivers { rivers += line(river.points, closed: false) }
    }
}
