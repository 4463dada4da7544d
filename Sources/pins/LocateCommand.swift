import Foundation
import PinCore

let locateSpec = CommandSpec(
    name: "locate", summary: "Resolve countries offline: reads 'lat,lon' lines on stdin, writes one line per input.",
    usage: "locate [--json] < points.txt",
    options: [
        OptionSpec(name: "--json", value: nil, help: "One JSON object per line: country, region, regionCode, place, placeDistanceKm (each absent when there is none)."),
    ],
    details: """
    Each output line is the ISO 3166-1 alpha-2 code of the country at that point, or empty where
    there is none (open sea; within 22 km of a coast the nearest country counts). A line that is
    not 'lat,lon' gets an error on stderr naming its line number and an empty output line; the
    rest goes on.

    With --json each line is an object instead, in the order of the input, e.g.
    {"country":"JP","region":"Kyoto","regionCode":"JP-26","place":"Kyoto","placeDistanceKm":1.23}
    (a line that is not 'lat,lon' gives {}). The place and region come from the GeoNames
    gazetteer (CC BY 4.0), by the rule in PLACES.md: the place among the country's own, a big
    city before a nearer small centre inside it, none farther than 15 km beyond a place's size.
    """)

func runLocate(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("locate reads stdin and takes no arguments", command: "locate") }
    // Only the country data: locate has no database, so it needs neither --db nor HOME.
    let resolver = try AppDependencies.loadResolver()
    let codeBytes = resolver.codes.map { Array($0.utf8) }
    let json = args.has("--json")
    let places: OutlinedRegionPlaces? = json ? try AppDependencies.loadPlaces(countries: resolver) : nil
    var output = [UInt8]()
    output.reserveCapacity(1 << 16)
    var lineNumber = 0
    var pending = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)

    func flush() {
        output.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(1, buffer.baseAddress! + offset, buffer.count - offset)
                if n <= 0 { if errno == EINTR { continue }; break }
                offset += n
            }
        }
        output.removeAll(keepingCapacity: true)
    }

    func handle(_ line: UnsafeBufferPointer<UInt8>) {
        lineNumber += 1
        switch parseLatLon(line) {
        case let .success(point):
            if let places {
                let index = resolver.countryIndex(at: point)
                appendLocateJSON(&output, country: index.map { resolver.codes[$0] },
                                 match: places.match(at: point, countryCode: index.map { resolver.codes[$0] }))
            } else if let index = resolver.countryIndex(at: point) {
                output.append(contentsOf: codeBytes[index])
            }
        case let .failure(message):
            flush()
            Out.error("pins locate: line \(lineNumber): \(message)")
            if json { output.append(contentsOf: Array("{}".utf8)) }
        }
        output.append(0x0A)
        if output.count >= 1 << 15 { flush() }
    }

    while true {
        let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
        if n < 0 { if errno == EINTR { continue }; throw CommandFailure("cannot read stdin: \(String(cString: strerror(errno)))") }
        if n == 0 { break }
        pending.append(contentsOf: chunk[0..<n])
        let consumed = pending.withUnsafeBufferPointer { buffer -> Int in
            var start = 0
            while start < buffer.count,
                  let hit = memchr(buffer.baseAddress! + start, 0x0A, buffer.count - start) {
                let newline = buffer.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                handle(UnsafeBufferPointer(rebasing: buffer[start..<newline]))
                start = newline + 1
            }
            return start
        }
        pending.removeSubrange(..<consumed)
    }
    if !pending.isEmpty { pending.withUnsafeBufferPointer { handle($0) } }
    flush()
}

/// One `locate --json` object: the keys in a fixed order, each absent when there is none.
func appendLocateJSON(_ out: inout [UInt8], country: String?, match: PlaceMatch) {
    var first = true
    func key(_ name: String) {
        out.append(contentsOf: Array((first ? "{\"" : ",\"").utf8))
        out.append(contentsOf: Array(name.utf8))
        out.append(contentsOf: Array("\":".utf8))
        first = false
    }
    func string(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        appendJSONString(&out, value)
    }
    string("country", country)
    string("region", match.region?.name)
    string("regionCode", match.region?.code)
    string("place", match.place?.name)
    if let km = match.placeDistanceKm, match.place != nil {
        key("placeDistanceKm")
        out.append(contentsOf: Array(String(format: "%.2f", km).utf8))
    }
    out.append(contentsOf: Array((first ? "{}" : "}").utf8))
}

/// A JSON string literal: quotes, backslashes and control characters escaped, the rest as UTF-8.
func appendJSONString(_ out: inout [UInt8], _ value: String) {
    out.append(0x22)
    for b in value.utf8 {
        switch b {
        case 0x22: out.append(contentsOf: [0x5C, 0x22])
        case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
        case 0x0D: out.append(contentsOf: [0x5C, 0x72])
        case 0x09: out.append(contentsOf: [0x5C, 0x74])
        case 0..<0x20: out.append(contentsOf: Array(String(format: "\\u%04x", Int(b)).utf8))
        default: out.append(b)
        }
    }
    out.append(0x22)
}

enum LineResult { case success(Coordinate), failure(String) }

/// `lat,lon` with optional spaces (and a trailing CR). A byte parser: `pins locate` must keep
/// up with half a million lines a second, which String and Double(String) do not.
func parseLatLon(_ line: UnsafeBufferPointer<UInt8>) -> LineResult {
    var i = 0
    func skipSpace() { while i < line.count, line[i] == 0x20 || line[i] == 0x09 || line[i] == 0x0D { i += 1 } }
    func quoted() -> String {
        var text = String(decoding: line.prefix(60), as: UTF8.self)
        while text.hasSuffix("\r") { text.removeLast() }
        return text
    }
    skipSpace()
    guard let lat = parseDecimal(line, &i) else {
        return .failure(line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } ? "empty line, expected 'lat,lon'" : "expected 'lat,lon', got '\(quoted())'")
    }
    skipSpace()
    guard i < line.count, line[i] == UInt8(ascii: ",") else { return .failure("expected 'lat,lon', got '\(quoted())'") }
    i += 1
    skipSpace()
    guard let lon = parseDecimal(line, &i) else { return .failure("expected 'lat,lon' as two decimal numbers, got '\(quoted())'") }
    skipSpace()
    guard i == line.count else { return .failure("expected 'lat,lon', got '\(quoted())'") }
    guard abs(lat) <= 90 else { return .failure("latitude \(lat) is out of range (-90 to 90)") }
    guard abs(lon) <= 180 else { return .failure("longitude \(lon) is out of range (-180 to 180)") }
    return .success(Coordinate(latitude: lat, longitude: lon))
}

private let exactPowersOfTen: [Double] = (0...15).map { pow(10, Double($0)) }

/// A decimal number at `i`: a fast exact path (up to 15 significant digits, no exponent:
/// m / 10^k with both exact is correctly rounded), strtod for the rest.
func parseDecimal(_ s: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Double? {
    let start = i
    var negative = false
    if i < s.count, s[i] == UInt8(ascii: "-") || s[i] == UInt8(ascii: "+") { negative = s[i] == UInt8(ascii: "-"); i += 1 }
    var mantissa: UInt64 = 0
    var digits = 0, fraction = 0
    var dot = false
    while i < s.count {
        let b = s[i]
        if b >= 0x30 && b <= 0x39 {
            if digits < 19 { mantissa = mantissa * 10 + UInt64(b - 0x30) }
            digits += 1
            if dot { fraction += 1 }
        } else if b == UInt8(ascii: "."), !dot {
            dot = true
        } else {
            break
        }
        i += 1
    }
    guard digits > 0 else { i = start; return nil }
    let exponent = i < s.count && (s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E"))
    if digits <= 15 && !exponent {
        let value = Double(mantissa) / exactPowersOfTen[fraction]
        return negative ? -value : value
    }
    if exponent {
        i += 1
        if i < s.count, s[i] == UInt8(ascii: "-") || s[i] == UInt8(ascii: "+") { i += 1 }
        let expStart = i
        while i < s.count, s[i] >= 0x30 && s[i] <= 0x39 { i += 1 }
        guard i > expStart else { i = start; return nil }
    }
    var text = Array(s[start..<i]).map { CChar(bitPattern: $0) }
    text.append(0)
    let value = strtod(text, nil)
    return value.isFinite ? value : nil
}
