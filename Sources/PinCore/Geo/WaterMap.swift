import Foundation

/// The base map's water at city zoom: GSHHG 2.3.7 "high" coasts, lakes and WDBII rivers
/// (LGPL-3+) in 1-degree tiles, from Resources/Water.bin (scripts/build-water; the layout is at
/// the top of that script). A tile is land (no shore, no river), sea (no shore, no river), or
/// detail: closed land rings (lakes are rings inside them, the even-odd rule tells) and rivers,
/// in tile-local units (`units` per degree from the tile's south-west corner).
/// Every count and offset is checked when the file is read: damaged bytes are an error naming
/// the file, never a crash.
public struct WaterMap: Sendable {
    public enum State: UInt8, Sendable { case land = 0, sea = 1, detail = 2 }

    public struct Tile: Sendable, Equatable {
        /// The tile's south-west corner (whole degrees).
        public let west: Int, south: Int
        public let state: State
        /// Closed rings (first point repeated last), tile-local units.
        public var rings: [[(x: Int, y: Int)]] = []
        /// Rivers: WDBII level (1 double-lined, 2 permanent major, 3 additional major) and points.
        public var rivers: [(level: Int, points: [(x: Int, y: Int)])] = []

        public static func == (a: Tile, b: Tile) -> Bool {
            a.west == b.west && a.south == b.south && a.state == b.state
                && a.rings.map { $0.map { [$0.x, $0.y] } } == b.rings.map { $0.map { [$0.x, $0.y] } }
                && a.rivers.map { [$0.level] + $0.points.flatMap { [$0.x, $0.y] } } == b.rivers.map { [$0.level] + $0.points.flatMap { [$0.x, $0.y] } }
        }
    }

    public struct DataError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    static let magic = Array("PINSWT1\n".utf8)
    static let headerSize = 8 + 20, columns = 360, rows = 180

    public let units: Int
    let tolerance: Float
    private let bytes: [UInt8]
    private let states: Range<Int>
    /// Per tile index (row * 360 + column): the detail tile's blob range.
    private let detail: [Int: Range<Int>]

    public init(bytes: [UInt8]) throws {
        func fail(_ what: String) -> DataError { DataError(description: "Water.bin: \(what)") }
        guard bytes.count >= Self.headerSize, Array(bytes[0..<8]) == Self.magic else { throw fail("not a water map (bad magic)") }
        func u32(_ at: Int) -> Int { Int(UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24) }
        guard u32(8) == 1 else { throw fail("version \(u32(8)), this pins reads 1") }
        let count = u32(12), blobSize = u32(16)
        tolerance = Float(bitPattern: UInt32(u32(20)))
        units = u32(24)
        guard (1...32768).contains(units) else { throw fail("bad units \(units)") }
        let gridStart = Self.headerSize, indexStart = gridStart + Self.columns * Self.rows
        let blobStart = indexStart + 8 * count
        guard count <= Self.columns * Self.rows, blobStart + blobSize == bytes.count else { throw fail("truncated or sizes disagree") }
        var detail: [Int: Range<Int>] = [:]
        var k = 0
        for tile in 0..<(Self.columns * Self.rows) {
            guard let state = State(rawValue: bytes[gridStart + tile]) else { throw fail("bad tile state at byte \(gridStart + tile)") }
            guard state == .detail else { continue }
            guard k < count else { throw fail("more detail tiles than the header says") }
            let offset = u32(indexStart + 8 * k), length = u32(indexStart + 8 * k + 4)
            guard offset <= blobSize, length <= blobSize - offset else { throw fail("tile \(k) runs past the end") }
            detail[tile] = (blobStart + offset)..<(blobStart + offset + length)
            k += 1
        }
        guard k == count else { throw fail("fewer detail tiles than the header says") }
        self.bytes = bytes
        self.states = gridStart..<indexStart
        self.detail = detail
    }

    /// The tile whose south-west corner is (west, south) in whole degrees (-180..<180, -90..<90).
    public func tile(west: Int, south: Int) throws -> Tile? {
        guard (-180..<180).contains(west), (-90..<90).contains(south) else { return nil }
        let index = (south + 90) * Self.columns + (west + 180)
        let state = State(rawValue: bytes[states.lowerBound + index]) ?? .land
        var tile = Tile(west: west, south: south, state: state)
        guard state == .detail, let range = detail[index] else { return tile }
        try decode(range, into: &tile)
        return tile
    }

    private func decode(_ range: Range<Int>, into tile: inout Tile) throws {
        var at = range.lowerBound
        func fail() -> DataError { DataError(description: "Water.bin: tile \(tile.west),\(tile.south) is damaged at byte \(at)") }
        func u16() throws -> Int {
            guard at + 2 <= range.upperBound else { throw fail() }
            defer { at += 2 }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8
        }
        func points(_ n: Int) throws -> [(x: Int, y: Int)] {
            guard n >= 0, at + 4 * n <= range.upperBound else { throw fail() }
            var out: [(x: Int, y: Int)] = []
            out.reserveCapacity(n)
            for _ in 0..<n {
                let x = try u16(), y = try u16()
                guard x <= units, y <= units else { throw fail() }
                out.append((x, y))
            }
            return out
        }
        for _ in 0..<(try u16()) { tile.rings.append(try points(try u16())) }
        for _ in 0..<(try u16()) {
            guard at < range.upperBound else { throw fail() }
            let level = Int(bytes[at])
            at += 1
            tile.rivers.append((level, try points(try u16())))
        }
        guard at == range.upperBound else { throw fail() }
    }
}
