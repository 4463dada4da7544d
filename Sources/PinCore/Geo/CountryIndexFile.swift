import Foundation

public enum CountryIndexError: Error, CustomStringConvertible {
    case malformed(offset: Int, what: String)

    public var description: String {
        switch self {
        case let .malformed(offset, what): return "Countries.bin: \(what) at byte \(offset)"
        }
    }
}

/// Resources/Countries.bin: the country index of `CountryResolver` as built from
/// Countries.geojson, laid out as the resolver holds it, so that a process reads it and checks it
/// in milliseconds instead of parsing 12 MB of JSON and building the grid (about 0.2 s) at every
/// start. `scripts/build-countries` writes it through `build-country-index`, from the outlines it
/// has just written; CountryIndexFileTests checks that the shipped file is the one the shipped
/// outlines give.
///
/// Little-endian; every array starts at a multiple of 8 from the file's start:
///   header      "PINSCO1\n"; u32 version (1), countries, columns, rows, edges, 0; f64 cell size
///               (degrees), coastal distance (km); u64 checksum of every byte after the header.
///   countries   per country: u16 length and the UTF-8 of its code, then of its name.
///   cell starts u32[cells + 1]: the edges of cell k (row 0 at −90°, column 0 at −180°) are
///               edges cellStart[k] ..< cellStart[k + 1], grouped by country.
///   endpoints   f32[edges × 4]: x1, y1, x2, y2 of each edge, degrees from its cell's centre.
///   countries   u16[edges]: each edge's country.
///   centres     i16[cells]: the country of each cell's centre, -1 for none.
///   near coast  u8[cells]: 1 where a coast is within the coastal distance of the cell, else 0.
public enum CountryIndexFile {
    static let magic = Array("PINSCO1\n".utf8)
    static let version: UInt32 = 1
    static let headerSize = 8 + 4 * 6 + 8 * 3

    /// A fast checksum (4 lanes of 64-bit multiply-xor over 8-byte words, then the tail), so
    /// that any damage is an error rather than a wrong country.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (1, 2, 3, 4)
        let prime: UInt64 = 0x9E37_79B9_7F4A_7C15
        let words = bytes.count / 32
        for w in 0..<words {
            let at = w * 32
            lanes.0 = (lanes.0 ^ bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) &* prime
            lanes.1 = (lanes.1 ^ bytes.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)) &* prime
            lanes.2 = (lanes.2 ^ bytes.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self)) &* prime
            lanes.3 = (lanes.3 ^ bytes.loadUnaligned(fromByteOffset: at + 24, as: UInt64.self)) &* prime
        }
        var h = lanes.0 ^ (lanes.1 &* 3) ^ (lanes.2 &* 5) ^ (lanes.3 &* 7) ^ UInt64(bytes.count)
        for i in (words * 32)..<bytes.count { h = (h ^ UInt64(bytes[i])) &* prime }
        return h ^ (h >> 29)
    }

    /// The file for these outlines, indexed as `CountryResolver(polygons:)` indexes them.
    public static func bytes(polygons: CountryPolygons, cellDegrees: Double = 0.25,
                             coastalKilometres: Double = CountryResolver.defaultCoastalKilometres) throws -> [UInt8] {
        let index = CountryResolver(polygons: polygons, cellDegrees: cellDegrees, coastalKilometres: coastalKilometres)
        var body: [UInt8] = []
        func pad() { while (headerSize + body.count) % 8 != 0 { body.append(0) } }
        func append<T>(_ values: UnsafeBufferPointer<T>) {
            body += UnsafeRawBufferPointer(values)
            pad()
        }
        for text in zip(index.codes, index.names).flatMap({ [$0.0, $0.1] }) {
            let utf8 = Array(text.utf8)
            guard utf8.count <= 0xFFFF else { throw CountryIndexError.malformed(offset: 0, what: "a name of \(utf8.count) bytes") }
            body += [UInt8(utf8.count & 0xFF), UInt8(utf8.count >> 8)] + utf8
        }
        pad()
        append(index.cellStart)
        append(index.edgeCoords)
        append(index.edgeCountry)
        append(index.centreCountry)
        append(index.nearCoast)
        var header = magic
        for n in [Int(version), index.codes.count, index.columns, index.rows, index.edgeCountry.count, 0] {
            withUnsafeBytes(of: UInt32(n).littleEndian) { header += $0 }
        }
        for word in [cellDegrees.bitPattern, coastalKilometres.bitPattern, body.withUnsafeBytes { checksum($0) }] {
            withUnsafeBytes(of: word.littleEndian) { header += $0 }
        }
        return header + body
    }

    /// The resolver of the file's bytes, read in place: `bytes` (8-byte aligned, the file's
    /// private copy in memory) must stay valid as long as `owner` lives, which the resolver
    /// keeps. Every count, index and flag is checked and the checksum catches any other change:
    /// damaged bytes are an error, never a crash or a wrong country.
    public static func resolver(mapped bytes: UnsafeRawBufferPointer, owner: AnyObject) throws -> CountryResolver {
        var input = Reader(raw: bytes)
        return try input.resolver(owner: owner)
    }

    /// The same from bytes in an array (tests, the bench): copied into memory the resolver owns.
    public static func resolver(_ data: [UInt8]) throws -> CountryResolver {
        let copy = AlignedBytes(data)
        return try resolver(mapped: copy.bytes, owner: copy)
    }

    private struct Reader {
        let raw: UnsafeRawBufferPointer
        var i = 0

        func fail(_ what: String) -> CountryIndexError { .malformed(offset: i, what: what) }

        mutating func u32() -> Int {
            defer { i += 4 }
            return Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt32.self)))
        }

        mutating func u64() -> UInt64 {
            defer { i += 8 }
            return UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
        }

        mutating func string() throws -> String {
            guard raw.count - i >= 2 else { throw fail("unexpected end") }
            let length = Int(raw[i]) | Int(raw[i + 1]) << 8
            i += 2
            guard raw.count - i >= length else { throw fail("unexpected end") }
            defer { i += length }
            return String(decoding: UnsafeRawBufferPointer(rebasing: raw[i..<(i + length)]), as: UTF8.self)
        }

        /// The next `count` values of T where they lie, then `i` at the next multiple of 8.
        mutating func array<T>(_ count: Int, of _: T.Type) throws -> UnsafeBufferPointer<T> {
            guard count <= (raw.count - i) / MemoryLayout<T>.stride else { throw fail("unexpected end") }
            let values = UnsafeBufferPointer(start: (raw.baseAddress! + i).assumingMemoryBound(to: T.self), count: count)
            i = (i + count * MemoryLayout<T>.stride + 7) & ~7
            return values
        }

        mutating func resolver(owner: AnyObject) throws -> CountryResolver {
            guard raw.count >= CountryIndexFile.headerSize, raw.starts(with: CountryIndexFile.magic),
                  Int(bitPattern: raw.baseAddress) % 8 == 0 else { throw fail("not a pins country index (magic)") }
            i = CountryIndexFile.magic.count
            guard u32() == CountryIndexFile.version else { throw fail("unknown version (rebuild it with scripts/build-countries)") }
            let countries = u32(), columns = u32(), rows = u32(), edges = u32(), zero = u32()
            let cellDegrees = Double(bitPattern: u64()), coastal = Double(bitPattern: u64())
            let sum = u64()
            guard CountryIndexFile.checksum(UnsafeRawBufferPointer(rebasing: raw[i...])) == sum else {
                throw fail("checksum mismatch: the file is damaged")
            }
            guard zero == 0, countries > 0, countries < Int(Int16.max), cellDegrees >= 0.01, cellDegrees <= 90,
                  Double(columns) * cellDegrees == 360, Double(rows) * cellDegrees == 180, coastal >= 0, coastal <= 1000 else {
                throw fail("bad header")
            }
            var codes: [String] = [], names: [String] = []
            for _ in 0..<countries {
                codes.append(try string())
                names.append(try string())
            }
            i = (i + 7) & ~7
            let cells = columns * rows
            let start = try array(cells + 1, of: UInt32.self)
            let coords = try array(edges * 4, of: Float.self)
            let owners = try array(edges, of: UInt16.self)
            let centres = try array(cells, of: Int16.self)
            let near = try array(cells, of: UInt8.self)
            guard i == raw.count else { throw fail("trailing bytes") }
            try check(start: start, edges: edges, owners: owners, centres: centres, near: near, countries: countries)
            return CountryResolver(codes: codes, names: names, coastalKilometres: coastal, cellDegrees: cellDegrees, memory: owner,
                                   cellStart: start, centreCountry: centres, edgeCoords: coords, edgeCountry: owners, nearCoast: near)
        }

        /// What the lookups index with must be in range: cell starts rising from 0 to the edge
        /// count, countries below the count (-1: none), flags 0 or 1.
        func check(start: UnsafeBufferPointer<UInt32>, edges: Int, owners: UnsafeBufferPointer<UInt16>,
                   centres: UnsafeBufferPointer<Int16>, near: UnsafeBufferPointer<UInt8>, countries: Int) throws {
            guard start[0] == 0, Int(start[start.count - 1]) == edges else { throw fail("bad cell starts") }
            // Each as a branch-free reduction over the whole array, which the compiler vectorises.
            var falling: UInt32 = 0
            for k in 1..<start.count { falling |= start[k] < start[k - 1] ? 1 : 0 }
            var highestOwner: UInt16 = 0, lowestCentre: Int16 = -1, highestCentre: Int16 = -1, highestFlag: UInt8 = 0
            for o in owners { highestOwner = max(highestOwner, o) }
            for c in centres {
                lowestCentre = min(lowestCentre, c)
                highestCentre = max(highestCentre, c)
            }
            for n in near { highestFlag = max(highestFlag, n) }
            guard falling == 0, owners.isEmpty || Int(highestOwner) < countries, lowestCentre >= -1,
                  Int(highestCentre) < countries, highestFlag <= 1 else { throw fail("an index or flag out of range") }
        }
    }
}

/// A copy of bytes at an aligned address (a resource's arrays are read where they lie), freed
/// with the object: what the readers of Countries.bin, Places.bin and Regions.bin keep when given
/// an array instead of the file's copy in memory.
final class AlignedBytes {
    let bytes: UnsafeRawBufferPointer

    init(_ data: [UInt8]) {
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
        block.copyBytes(from: data)
        bytes = UnsafeRawBufferPointer(rebasing: block[0..<data.count])
    }

    deinit { UnsafeMutableRawPointer(mutating: bytes.baseAddress!).deallocate() }
}
