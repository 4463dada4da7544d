import Foundation

enum TimeZoneDataError: Error, CustomStringConvertible {
    case malformed(offset: Int, what: String)

    var description: String {
        switch self {
        case let .malformed(offset, what): return "TimeZones.bin: \(what) at byte \(offset)"
        }
    }
}

/// Reads Resources/TimeZones.bin, the zone outlines scripts/build-timezones writes
/// (timezone-boundary-builder, simplified; format in that script and Resources/TIMEZONES.md),
/// into the same `CountryPolygons` the country index is built from: one "country" per IANA
/// zone, its identifier as the code.
enum TimeZonePolygons {
    static let magic = Array("PINSTZ1\n".utf8)
    /// 1e-5 degree per unit.
    static let scale = 100_000.0

    static func parse(_ data: [UInt8]) throws -> CountryPolygons {
        var i = 0
        func fail(_ what: String) -> TimeZoneDataError { .malformed(offset: i, what: what) }
        func u8() throws -> Int {
            guard i < data.count else { throw fail("unexpected end") }
            defer { i += 1 }
            return Int(data[i])
        }
        func uint(_ bytes: Int) throws -> Int {
            guard data.count - i >= bytes else { throw fail("unexpected end") }
            var v = 0
            for k in 0..<bytes { v |= Int(data[i + k]) << (8 * k) }
            i += bytes
            return v
        }
        func zigzag() throws -> Int {
            var v: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = try u8()
                guard shift < 35 else { throw fail("varint too long") }
                v |= UInt64(b & 0x7F) << shift
                if b < 0x80 { break }
                shift += 7
            }
            return Int(v >> 1) ^ -Int(v & 1)
        }
        guard data.starts(with: magic) else { throw fail("not a pins time-zone file (magic)") }
        i = magic.count
        let zoneCount = try uint(4)
        guard zoneCount <= 0xFFFF else { throw fail("\(zoneCount) zones") }
        var names: [String] = []
        for _ in 0..<zoneCount {
            let length = try u8()
            guard length > 0, data.count - i >= length else { throw fail("bad zone name") }
            names.append(String(decoding: data[i..<(i + length)], as: UTF8.self))
            i += length
        }
        var polygons = CountryPolygons()
        let ringCount = try uint(4)
        for _ in 0..<ringCount {
            let zone = try uint(2)
            guard zone < names.count else { throw fail("zone index \(zone) of \(names.count)") }
            let count = try uint(4)
            // Each vertex takes at least 2 bytes: a count beyond that is a lie, not an allocation.
            guard count >= 3, count <= (data.count - i) / 2 else { throw fail("ring of \(count) vertices") }
            var ring: [(Double, Double)] = []
            ring.reserveCapacity(count + 1)
            var x = 0, y = 0
            for _ in 0..<count {
                x += try zigzag()
                y += try zigzag()
                guard abs(x) <= 18_000_000, abs(y) <= 9_000_000 else { throw fail("position out of range") }
                ring.append((Double(x) / scale, Double(y) / scale))
            }
            polygons.add(code: names[zone], name: names[zone], rings: [ring])
        }
        guard i == data.count else { throw fail("trailing bytes") }
        return polygons
    }
}
