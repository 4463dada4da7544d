import Foundation
import PinCore

/// The admin-1 borders of the visited countries (DCW-GMT, LGPL-3+; Resources/PLACES.md
/// "Regions"): one path per country in the base map's own projection (Web Mercator, world units,
/// like WorldMap.json's paths), which page.css shows only at region zoom (page.js sets the
/// class). Integer world units (2 km at the equator, 1.4 km at 45°) as the base map: the lines
/// were simplified to 1.5 km for the page.
extension PageRenderer {
    static func appendRegionBorders(_ input: PageInput, to html: inout String) {
        let width = Double(input.worldMap.width)
        for code in input.regionBorders.keys.sorted() {
            guard let lines = input.regionBorders[code], !lines.isEmpty, code.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) else { continue }
            var d = ""
            for line in lines { appendLine(line, width: width, to: &d) }
            guard !d.isEmpty else { continue }
            html += "<path id=\"r-\(code)\" d=\"\(d)\"/>\n"
        }
    }

    /// The visited regions of each country, a group per country and a path per unit (its rings
    /// by the even-odd rule), simplified in the page's world units (`fillTolerance`). A path per
    /// unit: the units' rings, each simplified on its own, overlap along their shared borders,
    /// and one even-odd path of all of them left each overlap unfilled (white wedges through
    /// Île-de-France at city zoom). page.css strokes each path in its fill to close the gaps.
    static func appendVisitedRegions(_ input: PageInput, to html: inout String) {
        let width = Double(input.worldMap.width)
        for code in input.visitedRegions.keys.sorted() {
            guard let units = input.visitedRegions[code], code.utf8.allSatisfy({ (0x41...0x5A).contains($0) }) else { continue }
            var paths = ""
            for rings in units {
                var d = ""
                for ring in rings {
                    let points = simplified(ring.map { worldUnits($0, width: width) })
                    guard points.count >= 4 else { continue }
                    appendUnits(points, to: &d)
                    d += "z"
                }
                if !d.isEmpty { paths += "<path d=\"\(d)\"/>" }
            }
            if !paths.isEmpty { html += "<g id=\"vr-\(code)\">\(paths)</g>\n" }
        }
    }

    /// How far (world units) a visited region's outline may stray from its lookup rings: 3 units
    /// (6 km at the equator, 4 km at 48°, a pixel or two where the regions are drawn). At 1 unit
    /// the fills of the 10,000-pin page took 167,199 B and broke its budget (scripts/bench-map).
    static let fillTolerance = 3.0

    /// Douglas-Peucker at `fillTolerance` on a closed ring of world units, repeated points first
    /// dropped (the page draws in whole units anyway).
    static func simplified(_ ring: [(Int, Int)]) -> [(Int, Int)] {
        var points: [(Int, Int)] = []
        for p in ring where points.last.map({ $0 != p }) ?? true { points.append(p) }
        guard points.count > 3 else { return points }
        var keep = [Bool](repeating: false, count: points.count)
        keep[0] = true
        keep[points.count - 1] = true
        var stack = [(0, points.count - 1)]
        while let (a, b) = stack.popLast() {
            guard b - a > 1 else { continue }
            let (ax, ay) = (Double(points[a].0), Double(points[a].1)), (dx, dy) = (Double(points[b].0) - ax, Double(points[b].1) - ay)
            let length = (dx * dx + dy * dy).squareRoot()
            var far = a, farDistance = 0.0
            for k in (a + 1)..<b {
                let (px, py) = (Double(points[k].0) - ax, Double(points[k].1) - ay)
                // A closed ring's ends coincide: there the distance is to the point itself.
                let distance = length == 0 ? (px * px + py * py).squareRoot() : abs(px * dy - py * dx) / length
                if distance > farDistance { (far, farDistance) = (k, distance) }
            }
            if farDistance > Self.fillTolerance {
                keep[far] = true
                stack.append((a, far))
                stack.append((far, b))
            }
        }
        return zip(points, keep).filter(\.1).map(\.0)
    }

    /// "M x y l dx dy…" of points already in world units.
    static func appendUnits(_ points: [(Int, Int)], to d: inout String) {
        guard let first = points.first else { return }
        var last = first
        d += "M\(first.0) \(first.1)l"
        var steps = 0
        for p in points.dropFirst() {
            for (i, n) in [p.0 - last.0, p.1 - last.1].enumerated() {
                d += n < 0 || (steps == 0 && i == 0) ? String(n) : " " + String(n)
            }
            steps += 1
            last = p
        }
    }

    /// "M x y l dx dy dx dy…" as build-basemap writes paths (a minus sign is its own separator);
    /// nothing for a line that moves by no whole unit.
    static func appendLine(_ line: [Coordinate], width: Double, to d: inout String) {
        guard let first = line.first else { return }
        var last = worldUnits(first, width: width)
        var text = "M\(last.0) \(last.1)l", steps = 0
        for point in line.dropFirst() {
            let p = worldUnits(point, width: width)
            guard p != last else { continue }
            for (i, n) in [p.0 - last.0, p.1 - last.1].enumerated() {
                text += n < 0 || (steps == 0 && i == 0) ? String(n) : " " + String(n)
            }
            steps += 1
            last = p
        }
        if steps > 0 { d += text }
    }

    /// The point in the base map's world units: x = (lon + 180) / 360 × width, y Web Mercator.
    static func worldUnits(_ point: Coordinate, width: Double) -> (Int, Int) {
        let lat = max(-85.0511287798, min(85.0511287798, point.latitude))
        let s = sin(lat * .pi / 180)
        let x = (point.longitude + 180) / 360 * width
        let y = (0.5 - log((1 + s) / (1 - s)) / (4 * .pi)) * width
        return (Int(saturating: x.rounded()), Int(saturating: y.rounded()))
    }
}
