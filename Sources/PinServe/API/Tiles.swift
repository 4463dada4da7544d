import Foundation
import PinCore
import PinStore

/// The --basemap file's tiles, under the pins (serve.js draws them when /api/basemap says a
/// file is there). Like all data, they need a session when a password is set.
extension AppBackend {
    /// GET /api/basemap: `{"basemap": null}`, or the file's zooms, bounds, format and attribution.
    func basemapInfo() -> HTTPResponse {
        guard let basemap else { return .json(200, ["basemap": NSNull()]) }
        var object: [String: Any] = ["minZoom": basemap.minZoom, "maxZoom": basemap.maxZoom, "format": basemap.format]
        object["attribution"] = basemap.attribution
        object["name"] = basemap.name
        object["bounds"] = basemap.bounds
        return .json(200, ["basemap": object])
    }

    /// GET /tiles/Z/X/Y: the tile's bytes with the type they are (by their first bytes, else
    /// the file's format), kept a day by the browser (private: it may be behind a password).
    func tile(_ z: Int, _ x: Int, _ y: Int) throws -> HTTPResponse {
        guard let basemap else { throw RequestError(404, "this server has no base map (pins serve --basemap FILE.mbtiles)") }
        guard let bytes = try basemap.tile(z: z, x: x, y: y) else { throw RequestError(404, "the base map has no tile \(z)/\(x)/\(y)") }
        guard bytes.count <= MBTiles.tileLimit else { throw RequestError(500, "the tile \(z)/\(x)/\(y) is over \(MBTiles.tileLimit >> 20) MiB") }
        var response = HTTPResponse(status: 200, headers: [("Content-Type", basemap.mediaType(of: bytes))], body: bytes)
        response.headers.append(("Cache-Control", "private, max-age=86400"))
        return response
    }
}
