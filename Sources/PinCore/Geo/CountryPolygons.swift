import Foundation

/// Country outlines as loaded from Countries.geojson: rings of (lon, lat) vertices.
/// Exterior rings and holes are stored alike: point-in-polygon by the even-odd rule needs no
/// difference between them (a point in Lesotho is inside South Africa's exterior ring and inside
/// its Lesotho hole: two crossings, outside South Africa).
public struct CountryPolygons: Sendable {
    struct Ring: Sendable {
        let country: Int
        /// Index of the first vertex in `xs`/`ys`; the ring is closed (last vertex == first).
        let start: Int
        let count: Int
    }

    /// ISO 3166-1 alpha-2 code and name of each country, indexed by `Ring.country`.
    private(set) var codes: [String] = []
    private(set) var names: [String] = []
    private(set) var xs: [Double] = []
    private(set) var ys: [Double] = []
    private(set) var rings: [Ring] = []

    public init() {}

    /// Adds one country's rings; vertices are (longitude, latitude). Open rings are closed.
    mutating func add(code: String, name: String, rings newRings: [[(Double, Double)]]) {
        let country = index(code: code, name: name)
        for ring in newRings where ring.count >= 3 {
            let start = xs.count
            for (x, y) in ring {
                xs.append(x)
                ys.append(y)
            }
            if let first = ring.first, let last = ring.last, first != last {
                xs.append(first.0)
                ys.append(first.1)
            }
            rings.append(Ring(country: country, start: start, count: xs.count - start))
        }
    }

    /// The index of the country `code`, added (with `name`) if it is new.
    private mutating func index(code: String, name: String) -> Int {
        if let existing = codes.firstIndex(of: code) { return existing }
        codes.append(code)
        names.append(name)
        return codes.count - 1
    }

    /// The same as `add(code:name:rings:)` for rings given flat, as the parser collects them:
    /// ring k's vertices are `ringXs[ringEnds[k - 1] ..< ringEnds[k]]` (from 0 for the first).
    mutating func add(code: String, name: String, ringXs: [Double], ringYs: [Double], ringEnds: [Int]) {
        let country = index(code: code, name: name)
        var first = 0
        for end in ringEnds {
            defer { first = end }
            guard end - first >= 3 else { continue }
            let start = xs.count
            xs.append(contentsOf: ringXs[first..<end])
            ys.append(contentsOf: ringYs[first..<end])
            if ringXs[first] != ringXs[end - 1] || ringYs[first] != ringYs[end - 1] {
                xs.append(ringXs[first])
                ys.append(ringYs[first])
            }
            rings.append(Ring(country: country, start: start, count: xs.count - start))
        }
    }
}

public enum GeoJSONError: Error, CustomStringConvertible {
    case syntax(offset: Int, expected: String)
    case unsupported(String)

    public var description: String {
        switch self {
        case let .syntax(offset, expected): return "Countries.geojson: expected \(expected) at byte \(offset)"
        case let .unsupported(what): return "Countries.geojson: \(what)"
        }
    }
}

/// A small, fast reader for the GeoJSON that scripts/build-countries writes: a FeatureCollection
/// of Polygon/MultiPolygon features with `iso_a2` and `name` properties. It is a real JSON
/// parser (any key order, any whitespace), only limited to what a country file holds, and it
/// parses the ~1 M coordinates without building a JSON object tree (start-up matters: `pins
/// locate` must answer within half a second, and every import that reads files loads them).
/// A feature's positions go straight into flat arrays kept from feature to feature, and from
/// there into the outlines' own: no array per ring or per position.
public struct CountryGeoJSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0
    /// The rings of the feature being read: vertices, and where each ring ends.
    private var ringXs: [Double] = []
    private var ringYs: [Double] = []
    private var ringEnds: [Int] = []

    public static func parse(_ data: [UInt8]) throws -> CountryPolygons {
        try data.withUnsafeBufferPointer { buffer in
            var parser = CountryGeoJSONParser(bytes: buffer)
            return try parser.parseCollection()
        }
    }

    /// The geometry of each feature whose `iso_a2` is in `codes`, in file order, as the file
    /// spells it (the export's country outlines): the same reading of the file, with the rings
    /// skipped instead of parsed.
    public static func geometries(_ data: [UInt8], of codes: Set<String>) throws -> [(code: String, geometry: ArraySlice<UInt8>)] {
        try data.withUnsafeBufferPointer { buffer in
            var parser = CountryGeoJSONParser(bytes: buffer)
            parser.wanted = codes
            _ = try parser.parseCollection()
            return parser.spans.map { ($0.code, data[$0.bytes]) }
        }
    }

    /// Set by `geometries(_:of:)`: the codes whose geometry is kept as bytes, and where each lies.
    private var wanted: Set<String>?
    private var spans: [(code: String, bytes: Range<Int>)] = []

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    // MARK: tokens

    private mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws {
        skipSpace()
        guard i < bytes.count, bytes[i] == byte else { throw GeoJSONError.syntax(offset: i, expected: what) }
        i += 1
    }

    /// Consumes `byte` if it is next.
    private mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        if i < bytes.count, bytes[i] == byte { i += 1; return true }
        return false
    }

    private mutating func parseString() throws -> String {
        try expect(UInt8(ascii: "\""), "a string")
        var out = [UInt8]()
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            if b == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
            if b == UInt8(ascii: "\\") {
                guard i < bytes.count else { break }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16)
                    else { throw GeoJSONError.syntax(offset: i, expected: "4 hex digits") }
                    i += 4
                    // Surrogate pairs are not expected in country names; a lone one becomes U+FFFD.
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(v) ?? "\u{FFFD}")).utf8))
                default: out.append(e)
                }
            } else {
                out.append(b)
            }
        }
        throw GeoJSONError.syntax(offset: i, expected: "end of string")
    }

    /// Numbers: a fast exact path for up to 15 significant digits and no exponent (m / 10^k
    /// with both exact is correctly rounded, so it equals strtod), strtod otherwise.
    private mutating func parseNumber() throws -> Double {
        skipSpace()
        let start = i
        var negative = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = 0
        while i < bytes.count, bytes[i] &- 0x30 < 10 {
            mantissa = mantissa &* 10 &+ UInt64(bytes[i] &- 0x30)
            digits += 1
            i += 1
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < bytes.count, bytes[i] &- 0x30 < 10 {
                mantissa = mantissa &* 10 &+ UInt64(bytes[i] &- 0x30)
                digits += 1
                fraction += 1
                i += 1
            }
        }
        if digits == 0 { throw GeoJSONError.syntax(offset: start, expected: "a number") }
        let next = i < bytes.count ? bytes[i] : 0
        if digits <= 15 && next != UInt8(ascii: "e") && next != UInt8(ascii: "E") {
            let value = Double(mantissa) / Self.powersOfTen[fraction]
            return negative ? -value : value
        }
        // Slow path: exponent or many digits.
        while i < bytes.count, let c = Optional(bytes[i]), c == UInt8(ascii: "e") || c == UInt8(ascii: "E")
                || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || (c >= 0x30 && c <= 0x39) {
            i += 1
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard let value = Double(text) else { throw GeoJSONError.syntax(offset: start, expected: "a number") }
        return value
    }

    private static let powersOfTen: [Double] = (0...15).map { pow(10, Double($0)) }

    /// Skips any JSON value (for keys we do not use).
    private mutating func skipValue() throws {
        skipSpace()
        guard i < bytes.count else { throw GeoJSONError.syntax(offset: i, expected: "a value") }
        switch bytes[i] {
        case UInt8(ascii: "\""): _ = try parseString()
        case UInt8(ascii: "{"):
            i += 1
            if take(UInt8(ascii: "}")) { return }
            repeat {
                _ = try parseString()
                try expect(UInt8(ascii: ":"), "':'")
                try skipValue()
            } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"), "'}'")
        case UInt8(ascii: "["):
            i += 1
            if take(UInt8(ascii: "]")) { return }
            repeat { try skipValue() } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"), "']'")
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            while i < bytes.count, bytes[i] >= UInt8(ascii: "a"), bytes[i] <= UInt8(ascii: "z") { i += 1 }
        default:
            _ = try parseNumber()
        }
    }

    /// A string or null.
    private mutating func parseOptionalString() throws -> String? {
        skipSpace()
        if i + 4 <= bytes.count, bytes[i] == UInt8(ascii: "n") {
            i += 4
            return nil
        }
        return try parseString()
    }

    // MARK: structure

    private mutating func parseCollection() throws -> CountryPolygons {
        var polygons = CountryPolygons()
        try expect(UInt8(ascii: "{"), "'{'")
        repeat {
            let key = try parseString()
            try expect(UInt8(ascii: ":"), "':'")
            if key == "features" {
                try expect(UInt8(ascii: "["), "'['")
                if !take(UInt8(ascii: "]")) {
                    repeat { try parseFeature(into: &polygons) } while take(UInt8(ascii: ","))
                    try expect(UInt8(ascii: "]"), "']'")
                }
            } else {
                try skipValue()
            }
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"), "'}'")
        return polygons
    }

    private mutating func parseFeature(into polygons: inout CountryPolygons) throws {
        var code: String?
        var name = ""
        var geometry: Range<Int>?
        clearRings()
        try expect(UInt8(ascii: "{"), "'{' (a feature)")
        repeat {
            let key = try parseString()
            try expect(UInt8(ascii: ":"), "':'")
            switch key {
            case "properties":
                try expect(UInt8(ascii: "{"), "'{' (properties)")
                if !take(UInt8(ascii: "}")) {
                    repeat {
                        let property = try parseString()
                        try expect(UInt8(ascii: ":"), "':'")
                        switch property {
                        case "iso_a2": code = try parseOptionalString()
                        case "name": name = try parseOptionalString() ?? ""
                        default: try skipValue()
                        }
                    } while take(UInt8(ascii: ","))
                    try expect(UInt8(ascii: "}"), "'}'")
                }
            case "geometry" where wanted != nil:
                skipSpace()
                let start = i
                try skipValue()
                geometry = start..<i
            case "geometry":
                try parseGeometry()
            default:
                try skipValue()
            }
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"), "'}'")
        if let code, let geometry, wanted?.contains(code) == true { spans.append((code, geometry)) }
        if let code, !ringEnds.isEmpty {
            polygons.add(code: code, name: name, ringXs: ringXs, ringYs: ringYs, ringEnds: ringEnds)
        }
    }

    /// Forgets the rings read so far (a feature's rings are those of its last geometry).
    private mutating func clearRings() {
        ringXs.removeAll(keepingCapacity: true)
        ringYs.removeAll(keepingCapacity: true)
        ringEnds.removeAll(keepingCapacity: true)
    }

    /// Reads every ring of a Polygon or MultiPolygon into the feature's rings; other geometry
    /// types are refused.
    private mutating func parseGeometry() throws {
        var type: String?
        var coordinatesStart: Int?
        var parsedInPlace = false
        clearRings()
        try expect(UInt8(ascii: "{"), "'{' (geometry)")
        repeat {
            let key = try parseString()
            try expect(UInt8(ascii: ":"), "':'")
            if key == "type" {
                type = try parseString()
            } else if key == "coordinates", let known = type {
                // The type came first (scripts/build-countries writes it so): parse at once.
                try parseCoordinates(type: known, at: i)
                parsedInPlace = true
            } else if key == "coordinates" {
                skipSpace()
                coordinatesStart = i
                try skipValue()
            } else {
                try skipValue()
            }
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"), "'}'")
        if parsedInPlace { return }
        guard let start = coordinatesStart else { return }
        // The type came after the coordinates: go back and parse them now.
        let end = i
        try parseCoordinates(type: type, at: start)
        i = end
    }

    /// Parses a Polygon's or MultiPolygon's coordinates starting at byte `start` into the
    /// feature's rings (replacing any read before), leaving `i` after them.
    private mutating func parseCoordinates(type: String?, at start: Int) throws {
        clearRings()
        i = start
        switch type {
        case "Polygon": try parsePolygon()
        case "MultiPolygon":
            try expect(UInt8(ascii: "["), "'['")
            if !take(UInt8(ascii: "]")) {
                repeat { try parsePolygon() } while take(UInt8(ascii: ","))
                try expect(UInt8(ascii: "]"), "']'")
            }
        default:
            throw GeoJSONError.unsupported("geometry type \(type ?? "missing") at byte \(start)")
        }
    }

    private mutating func parsePolygon() throws {
        try expect(UInt8(ascii: "["), "'[' (polygon)")
        if take(UInt8(ascii: "]")) { return }
        repeat {
            try expect(UInt8(ascii: "["), "'[' (ring)")
            if !take(UInt8(ascii: "]")) {
                repeat {
                    try expect(UInt8(ascii: "["), "'[' (position)")
                    let x = try parseNumber()
                    try expect(UInt8(ascii: ","), "','")
                    let y = try parseNumber()
                    while take(UInt8(ascii: ",")) { _ = try parseNumber() } // altitude, if any
                    try expect(UInt8(ascii: "]"), "']'")
                    guard x.isFinite, y.isFinite, abs(x) <= 180, abs(y) <= 90 else {
                        throw GeoJSONError.unsupported("position out of range near byte \(i)")
                    }
                    ringXs.append(x)
                    ringYs.append(y)
                } while take(UInt8(ascii: ","))
                try expect(UInt8(ascii: "]"), "']'")
            }
            ringEnds.append(ringXs.count)
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"), "']'")
    }
}

extension CountryPolygons {
    /// Only the rings that reach the latitudes `band`, each whole (even-odd parity needs every
    /// edge of a ring); countries keep their indices, so codes and names are unchanged.
    func reaching(latitudes band: ClosedRange<Double>) -> CountryPolygons {
        var kept = CountryPolygons()
        kept.codes = codes
        kept.names = names
        for ring in rings {
            let lats = ys[ring.start..<(ring.start + ring.count)]
            guard let low = lats.min(), let high = lats.max(), high >= band.lowerBound, low <= band.upperBound else { continue }
            let start = kept.xs.count
            kept.xs += xs[ring.start..<(ring.start + ring.count)]
            kept.ys += lats
            kept.rings.append(Ring(country: ring.country, start: start, count: ring.count))
        }
        return kept
    }
}

extension CountryResolver {
    /// The latitudes whose rings decide every answer of a resolver at `latitude`: the point's
    /// cell and its grid row (whose centre line is swept for the cell's centre country), the
    /// coastal reach and the cells it ends in, and a whole degree to spare. A resolver built
    /// from `polygons.reaching(latitudes:)` of this band answers at that latitude exactly as one
    /// built from all of them (OneLatitudeZoneIndexTests, for the zone outlines).
    static func decidingLatitudes(around latitude: Double, cellDegrees: Double = 0.25,
                                         coastalKilometres: Double = defaultCoastalKilometres) -> ClosedRange<Double> {
        let kmPerDegree = AngularDistance.earthRadiusKm * .pi / 180
        let reach = coastalKilometres / kmPerDegree + 4 * cellDegrees + 1
        return (latitude - reach)...(latitude + reach)
    }
}
