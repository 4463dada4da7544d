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
