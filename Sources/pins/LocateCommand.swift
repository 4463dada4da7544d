import Foundation
import PinApp
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
    rest goes on. A line longer than 64 KiB is read to its end without being kept, and named.

    With --json each line is an object instead, in the order of the input, e.g.
    {"country":"JP","region":"Kyoto","regionCode":"JP-26","place":"Kyoto","placeDistanceKm":1.23}
    (a line that is not 'lat,lon' gives {}). The place and region come from the GeoNames
    gazetteer (CC BY 4.0), by the rule in PLACES.md: the place among the country's own, a big
    city before a nearer small centre inside it, none farther than 15 km beyond a place's size.
    """)

func runLocate(_ args: ParsedArguments) throws {
    guard args.positionals.isEmpty else { throw UsageError("locate reads stdin and takes no arguments", command: "locate") }
    // Only the country data: locate has no database, so it needs neither --db nor HOME.
    let json = args.has("--json")
    let locator = try PinApp.positionLocator(withPlaces: json)
    let codeBytes = locator.codes.map { Array($0.utf8) }
    var output = [UInt8]()
    output.reserveCapacity(1 << 16)
    var lineNumber = 0

    func flush() { writeToStdout(&output) }

    func handle(_ line: UnsafeBufferPointer<UInt8>?) {
        lineNumber += 1
        guard let line else {
            flush()
            Out.error("pins locate: line \(lineNumber): longer than \(locateMaxLine) bytes, not 'lat,lon' (skipped unread)")
            if json { output.append(contentsOf: Array("{}".utf8)) }
            output.append(0x0A)
            return
        }
        switch LatLonText.parse(line) {
        case let .success(point):
            if json {
                let (code, match) = locator.locate(point)
                appendLocateJSON(&output, country: code, match: match)
            } else if let index = locator.countryIndex(at: point) {
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

    try forEachStdinLine(handle)
    flush()
}

/// Writes `output` to standard output, all of it (a short write goes on), and empties it.
func writeToStdout(_ output: inout [UInt8]) {
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

/// The longest line `locate` reads: a 'lat,lon' line is under 100 bytes. A longer one is read
/// to its newline without being kept, and named as too long (a 400 MB line cost 1.2 GB).
let locateMaxLine = 1 << 16

/// Each line of standard input without its newline, in 64 KiB reads (the last one also when
/// no newline ends it); nil for a line longer than `locateMaxLine`. Memory: at most one line of
/// that size and one read.
func forEachStdinLine(_ body: (UnsafeBufferPointer<UInt8>?) -> Void) throws {
    var pending = [UInt8]()
    var skipping = false  // inside a line past the limit: its bytes are dropped up to its newline
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress!, $0.count) }
        if n < 0 { if errno == EINTR { continue }; throw CommandFailure("cannot read stdin: \(String(cString: strerror(errno)))") }
        if n == 0 { break }
        chunk.withUnsafeBufferPointer { c in
            var start = 0
            while start < n {
                guard let hit = memchr(c.baseAddress! + start, 0x0A, n - start) else {
                    if !skipping {
                        pending.append(contentsOf: c[start..<n])
                        if pending.count > locateMaxLine { skipping = true; pending = [] }
                    }
                    break
                }
                let newline = c.baseAddress!.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if skipping || pending.count + (newline - start) > locateMaxLine {
                    body(nil)
                } else if pending.isEmpty {
                    body(UnsafeBufferPointer(rebasing: c[start..<newline]))
                } else {
                    pending.append(contentsOf: c[start..<newline])
                    pending.withUnsafeBufferPointer { body($0) }
                }
                skipping = false
                pending.removeAll(keepingCapacity: pending.capacity <= locateMaxLine * 2)
                start = newline + 1
            }
        }
    }
    if skipping { body(nil) } else if !pending.isEmpty { pending.withUnsafeBufferPointer { body($0) } }
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
