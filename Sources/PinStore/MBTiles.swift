import Foundation
import PinCore

/// A raster MBTiles file, opened read-only (`pins serve --basemap`): the MBTiles 1.3 layout, an
/// SQLite file with `metadata(name, value)` and `tiles(zoom_level, tile_column, tile_row,
/// tile_data)` whose rows count from the south (TMS), as QGIS, GDAL (`gdal_translate -of MBTILES`)
/// and tile providers write it. One connection behind a lock: a tile is one indexed read.
public final class MBTiles: @unchecked Sendable {
    public let path: String
    /// png, jpg or webp: the metadata's `format`, else the first tile's bytes.
    public let format: String
    public let attribution: String?
    public let name: String?
    public let minZoom: Int
    public let maxZoom: Int
    /// West, south, east, north in degrees, when the metadata says.
    public let bounds: [Double]?
    /// The largest tile sent (a 256 or 512 px raster tile is a few hundred KiB at most).
    public static let tileLimit = 4 << 20

    private let connection: Connection
    private let lock = NSLock()

    /// Opens `path`; a missing file (`.noInput`) or one that is no raster MBTiles (`.dataError`)
    /// is an error that names it and says what is wrong.
    public init(path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw MBTilesError(path, ExitCode.noInput, "no such file") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw MBTilesError(path, ExitCode.noInput, "not a file") }
        guard access(path, R_OK) == 0 else { throw MBTilesError(path, ExitCode.noInput, "it cannot be read (permissions)") }
        self.path = path
        do {
            connection = try Connection(path: path, readOnly: true, create: false)
            let tables = Set(try connection.query("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')") { $0.string(0) })
            guard tables.contains("tiles"), tables.contains("metadata") else {
                throw MBTilesError(path, ExitCode.dataError, "an SQLite file without the MBTiles tables 'metadata' and 'tiles'")
            }
            var metadata: [String: String] = [:]
            for (key, value) in try connection.query("SELECT name, value FROM metadata", [], { ($0.optionalString(0), $0.optionalString(1)) }) {
                if let key, let value { metadata[key.lowercased()] = value }
            }
            let zooms = try connection.query("SELECT min(zoom_level), max(zoom_level) FROM tiles") { ($0.isNull(0) ? nil : $0.int(0), $0.isNull(1) ? nil : $0.int(1)) }
            guard let low = zooms.first?.0, let high = zooms.first?.1 else { throw MBTilesError(path, ExitCode.dataError, "it holds no tile") }
            minZoom = metadata["minzoom"].flatMap { Int($0) }.map { max($0, low) } ?? low
            maxZoom = metadata["maxzoom"].flatMap { Int($0) }.map { min($0, high) } ?? high
            guard (0...30).contains(minZoom), (minZoom...30).contains(maxZoom) else {
                throw MBTilesError(path, ExitCode.dataError, "its zoom levels \(low) to \(high) are not 0 to 30")
            }
            let first = try connection.query("SELECT tile_data FROM tiles LIMIT 1") { $0.blob(0) }.first ?? []
            let declared = metadata["format"]?.lowercased()
            guard let format = Self.imageFormat(first) ?? declared.flatMap({ Self.mediaTypes[$0] != nil ? $0 : nil }) else {
                throw MBTilesError(path, ExitCode.dataError, "its tiles are \(declared ?? "of no format a browser shows") (a raster MBTiles has png, jpg or webp tiles; vector tiles are not drawn)")
            }
            self.format = format
            attribution = metadata["attribution"].flatMap { $0.isEmpty ? nil : $0 }
            name = metadata["name"]
            let parts = metadata["bounds"]?.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            bounds = parts?.count == 4 ? parts : nil
        } catch let error as MBTilesError {
            throw error
        } catch {
            // SQLite's own words ("file is not a database"), without the store's advice for a pins database.
            let why = (error as? StorageError)?.cause?.message ?? (error as? SQLiteError)?.message ?? "\(error)"
            throw MBTilesError(path, ExitCode.dataError, "not an MBTiles file: SQLite cannot read it (\(why))")
        }
    }

    /// The tile at zoom `z`, column `x`, row `y` counted from the north (the web's XYZ), or nil
    /// when the file has none there.
    public func tile(z: Int, x: Int, y: Int) throws -> [UInt8]? {
        guard (0...30).contains(z), x >= 0, y >= 0, x < 1 << z, y < 1 << z else { return nil }
        lock.lock()
        defer { lock.unlock() }
        let row = (1 << z) - 1 - y
        return try connection.query("SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                                    [z, x, row]) { $0.blob(0) }.first
    }

    /// The media type of a tile: by its first bytes, else the file's format.
    public func mediaType(of tile: [UInt8]) -> String {
        Self.mediaTypes[Self.imageFormat(tile) ?? format] ?? "application/octet-stream"
    }

    static let mediaTypes = ["png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp"]

    static func imageFormat(_ b: [UInt8]) -> String? {
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "png" }
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpg" }
        if b.count >= 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) { return "webp" }
        return nil
    }
}

/// A base map file pins cannot use, named, with why, and the exit status it gives.
struct MBTilesError: Error, CustomStringConvertible, ExitStatusError {
    let path: String
    let exitStatus: Int32
    let reason: String
    init(_ path: String, _ exitStatus: Int32, _ reason: String) {
        self.path = path
        self.exitStatus = exitStatus
        self.reason = reason
    }
    var description: String { "--basemap \(path): \(reason)" }
}
