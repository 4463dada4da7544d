import Foundation

/// The contents of Regions.bin, every count, offset and index checked (the layout is at the top
/// of scripts/build-regions). The fixed-size tables (rings, runs, page lines) are read where they
/// lie; the delta-coded vertices and the run-length-coded cells are checked in one pass each that
/// keeps nothing per vertex or cell, only where each ring and each country starts in them, so
/// that a country's points and cells are decoded when a lookup first needs them
/// (`RegionOutlines.CountryTables`), with nothing left to check.
struct RegionOutlinesFile {
    var grids: [RegionOutlines.Grid] = []
    var unitCountry: [UInt16] = []
    /// Per unit: its source code and its region codes, as (offset << 8 | length) into `strings`
    /// (each checked), made into strings when asked.
    var unitCodeRef: [Int] = []
    var unitRegionRef: [Int] = []
    var strings = UnsafeRawBufferPointer(start: nil, count: 0)
    var unitFirstRing: [Int] = []
    var unitRingCount: [Int] = []
    /// In place: per ring (first vertex, vertex count); per run (first vertex, edges | unit << 16).
    var rings = UnsafeBufferPointer<UInt32>(start: nil, count: 0)
    var runs = UnsafeBufferPointer<UInt32>(start: nil, count: 0)
    var pageUnit = UnsafeBufferPointer<UInt32>(start: nil, count: 0)
    var pageStart = UnsafeBufferPointer<UInt32>(start: nil, count: 0)
    var pageXY: [Int32] = []
    /// Per ring: where its first vertex's step starts in the file, and the point before it (the
    /// steps run on from ring to ring).
    var ringMarks: [RegionOutlines.VertexMark] = []
    /// Per country: where the group holding its first cell starts in the file, how many of that
    /// group's cells come before it, and the index of its first cell's first run.
    var cellMarks: [RegionOutlines.CellMark] = []
    /// Region key ("FR-BRE", "RE:Reunion") → English name, where it differs from the gazetteer's.
    var regionNames: [String: String] = [:]
}

struct RegionDataReader {
    /// The file's bytes, 4-byte aligned (every read below is checked against `need` or an end first).
    let data: UnsafeRawBufferPointer
    var i = 0

    init(data: UnsafeRawBufferPointer) { self.data = data }

    func fail(_ what: String) -> RegionDataError { .malformed(offset: i, what: what) }

    mutating func need(_ bytes: Int) throws {
        guard bytes >= 0, data.count - i >= bytes else { throw fail("unexpected end") }
    }

    mutating func u32() throws -> Int {
        try need(4)
        defer { i += 4 }
        return Int(data[i]) | Int(data[i + 1]) << 8 | Int(data[i + 2]) << 16 | Int(data[i + 3]) << 24
    }

    mutating func i32() throws -> Int { Int(Int32(truncatingIfNeeded: try u32())) }

    mutating func align() { i = min(data.count, (i + 3) & ~3) }

    /// The next `count` u32 where they lie (little-endian, as the machines pins runs on).
    mutating func table(_ count: Int) throws -> UnsafeBufferPointer<UInt32> {
        guard count >= 0, count <= data.count / 4 else { throw fail("bad count") }
        try need(count * 4)
        defer { i += count * 4 }
        return UnsafeBufferPointer(start: (data.baseAddress! + i).assumingMemoryBound(to: UInt32.self), count: count)
    }

    struct Header {
        var countries = 0, units = 0, rings = 0, vertices = 0, vertexBytes = 0, runs = 0, cells = 0, cellBytes = 0
        var pageLines = 0, pageVertices = 0, pageVertexBytes = 0, stringBytes = 0
    }

    mutating func readHeader() throws -> Header {
        guard data.starts(with: RegionOutlines.magic) else { throw fail("not a pins regions file (magic)") }
        guard Int(bitPattern: data.baseAddress) % 4 == 0 else { throw fail("not 4-byte aligned in memory") }
        i = RegionOutlines.magic.count
        guard try u32() == 2 else { throw fail("unknown version (rebuild it with scripts/build-regions)") }
        var h = Header()
        h.countries = try u32(); h.units = try u32(); h.rings = try u32(); h.vertices = try u32()
        h.vertexBytes = try u32(); h.runs = try u32(); h.cells = try u32(); h.cellBytes = try u32()
        h.pageLines = try u32(); h.pageVertices = try u32(); h.pageVertexBytes = try u32(); h.stringBytes = try u32()
        i += 8 // the tolerances (f32, for the record)
        let n = data.count
        guard h.countries > 0, h.countries < 1024, h.units > 0, h.units < 0xFFFF, h.rings > 0, h.rings <= n / 8,
              h.vertices > 0, h.vertices <= n, h.vertexBytes <= n, h.runs <= n / 8, h.cells > 0, h.cells <= 1 << 24,
              h.cellBytes <= n, h.pageLines <= n / 4, h.pageVertices <= n, h.pageVertexBytes <= n, h.stringBytes <= n else {
            throw fail("bad counts")
        }
        return h
    }

    mutating func readFile() throws -> RegionOutlinesFile {
        let h = try readHeader()
        var file = RegionOutlinesFile()
        try readCountries(h, into: &file)
        try readUnits(h, into: &file)
        file.rings = try table(2 * h.rings)
        file.runs = try table(2 * h.runs)
        file.pageUnit = try table(h.pageLines)
        file.pageStart = try table(h.pageLines + 1)
        try checkRings(h, file.rings)
        file.ringMarks = try scanVertices(h, rings: file.rings)
        file.cellMarks = try scanCells(h, file)
        file.pageXY = try points(h.pageVertices, bytes: h.pageVertexBytes)
        try checkPage(h, file)
        try readStrings(h, into: &file)
        return file
    }

    /// One vertex step at `at` (before `end`): an i16 (dx, dy), or dx = -32768, dy = 0 and then
    /// i32 x, y; false where the bytes do not hold one. The point must then lie in -180...360°
    /// and -90...90° (1e-5 degree).
    @inline(__always)
    static func step(_ raw: UnsafeRawBufferPointer, _ at: inout Int, _ end: Int, _ x: inout Int32, _ y: inout Int32) -> Bool {
        guard at + 4 <= end else { return false }
        let dx = Int16(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int16.self))
        let dy = Int16(littleEndian: raw.loadUnaligned(fromByteOffset: at + 2, as: Int16.self))
        at += 4
        if dx == Int16.min {
            guard dy == 0, at + 8 <= end else { return false }
            x = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int32.self))
            y = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4, as: Int32.self))
            at += 8
        } else {
            x &+= Int32(dx)
            y &+= Int32(dy)
        }
        return true
    }

    @inline(__always)
    static func inRange(_ x: Int32, _ y: Int32) -> Bool {
        x >= -18_000_000 && x <= 36_000_000 && y >= -9_000_000 && y <= 9_000_000
    }

    /// `count` points stored as steps (`step`) in `bytes` bytes, the section padded to 4, decoded
    /// (the page lines: 68,762 points).
    mutating func points(_ count: Int, bytes: Int) throws -> [Int32] {
        try need(bytes)
        let end = i + bytes
        var at = i, x: Int32 = 0, y: Int32 = 0
        var out: [Int32] = []
        out.reserveCapacity(2 * min(count, bytes / 4))
        for _ in 0..<count {
            guard Self.step(data, &at, end, &x, &y), Self.inRange(x, y) else { throw fail("bad vertex bytes") }
            out.append(x)
            out.append(y)
        }
        guard at == end else { throw fail("bad vertex bytes") }
        i = at
        align()
        return out
    }

    /// The rings follow one another over all the vertices, each of 4 or more.
    func checkRings(_ h: Header, _ rings: UnsafeBufferPointer<UInt32>) throws {
        var next = 0
        for r in 0..<h.rings {
            let first = Int(rings[2 * r]), count = Int(rings[2 * r + 1])
            guard first == next, count >= 4, count <= h.vertices - first else { throw fail("bad ring \(r)") }
            next = first + count
        }
        guard next == h.vertices else { throw fail("rings do not cover the vertices") }
    }

    /// The lookup rings' vertices (`step`s, ring after ring), checked without keeping them: every
    /// step whole, every point in range, each ring closed (its last point its first). Returns
    /// each ring's mark.
    mutating func scanVertices(_ h: Header, rings: UnsafeBufferPointer<UInt32>) throws -> [RegionOutlines.VertexMark] {
        try need(h.vertexBytes)
        let end = i + h.vertexBytes, raw = data
        var at = i, x: Int32 = 0, y: Int32 = 0
        var marks: [RegionOutlines.VertexMark] = []
        marks.reserveCapacity(h.rings)
        for r in 0..<h.rings {
            marks.append(RegionOutlines.VertexMark(offset: at, x: x, y: y))
            guard Self.step(raw, &at, end, &x, &y), Self.inRange(x, y) else { throw fail("bad vertex bytes") }
            let firstX = x, firstY = y
            for _ in 1..<Int(rings[2 * r + 1]) {
                guard Self.step(raw, &at, end, &x, &y), Self.inRange(x, y) else { throw fail("bad vertex bytes") }
            }
            guard x == firstX, y == firstY else { throw fail("ring \(r) is not closed") }
        }
        guard at == end else { throw fail("bad vertex bytes") }
        i = at
        align()
        return marks
    }

    @inline(__always)
    mutating func varint(_ end: Int) throws -> Int {
        var value = 0, shift = 0
        while true {
            guard i < end, shift <= 35 else { throw fail("bad varint") }
            let b = data[i]
            i += 1
            value |= Int(b & 0x7F) << shift
            if b < 0x80 { return value }
            shift += 7
        }
    }

    mutating func readCountries(_ h: Header, into file: inout RegionOutlinesFile) throws {
        var nextCell = 0, nextUnit = 0
        for _ in 0..<h.countries {
            try need(4)
            let a = data[i], b = data[i + 1]
            guard (0x41...0x5A).contains(a), (0x41...0x5A).contains(b) else { throw fail("bad country code") }
            i += 4
            let west = try i32(), south = try i32(), cell = try u32(), columns = try u32(), rows = try u32()
            let firstUnit = try u32(), unitCount = try u32(), firstCell = try u32()
            guard (-18_000_000...36_000_000).contains(west), (-9_000_000...9_000_000).contains(south), cell >= 1_000,
                  columns > 0, rows > 0, columns <= 40_000, rows <= 20_000,
                  firstCell == nextCell, columns * rows <= h.cells - firstCell,
                  firstUnit == nextUnit, unitCount > 0, unitCount <= h.units - firstUnit else {
                throw fail("bad country")
            }
            nextCell += columns * rows
            nextUnit += unitCount
            file.grids.append(RegionOutlines.Grid(code: String(decoding: [a, b], as: UTF8.self), west: Double(west),
                                                  south: Double(south), cell: Double(cell), columns: columns, rows: rows,
                                                  firstUnit: firstUnit, unitCount: unitCount, firstCell: firstCell))
        }
        guard nextCell == h.cells, nextUnit == h.units else { throw fail("countries do not cover the cells and units") }
    }

    /// Per unit: its country (checked against the country's unit range), strings (read later)
    /// and rings (checked here).
    mutating func readUnits(_ h: Header, into file: inout RegionOutlinesFile) throws {
        for u in 0..<h.units {
            let country = try u32() & 0xFFFF
            let code = try u32(), regions = try u32(), firstRing = try u32(), ringCount = try u32()
            guard country < h.countries, u >= file.grids[country].firstUnit,
                  u < file.grids[country].firstUnit + file.grids[country].unitCount,
                  ringCount > 0, firstRing < h.rings, ringCount <= h.rings - firstRing else {
                throw fail("bad unit \(u)")
            }
            file.unitCountry.append(UInt16(country))
            file.unitCodeRef.append(code)          // resolved in readStrings
            file.unitRegionRef.append(regions)
            file.unitFirstRing.append(firstRing)
            file.unitRingCount.append(ringCount)
        }
    }

    /// The cells (groups of equal neighbouring cells: varint repeat, centre unit + 1, run count),
    /// checked without keeping them: each cell's centre unit is of the cell's own country; each
    /// of its runs lies inside one ring of its unit, of that country, the runs of a cell in unit
    /// order. Returns each country's mark.
    mutating func scanCells(_ h: Header, _ file: RegionOutlinesFile) throws -> [RegionOutlines.CellMark] {
        try need(h.cellBytes)
        let end = i + h.cellBytes
        let runs = RunCheck(file, vertices: h.vertices)
        // Each country's cells and units as plain numbers (a Grid copied holds a String).
        let cellEnd = file.grids.map { $0.firstCell + $0.columns * $0.rows }, firstCell = file.grids.map { $0.firstCell }
        let unitRange = file.grids.map { $0.firstUnit..<($0.firstUnit + $0.unitCount) }
        var marks: [RegionOutlines.CellMark] = []
        marks.reserveCapacity(h.countries)
        var cell = 0, total = 0
        while cell < h.cells {
            let groupStart = i, groupFirst = cell
            let repeatCount = try varint(end), unit = try varint(end), count = try varint(end)
            guard repeatCount > 0, repeatCount <= h.cells - cell, unit <= h.units, count <= h.runs - total,
                  count * repeatCount <= h.runs - total else { throw fail("bad cells") }
            let groupEnd = cell + repeatCount
            while cell < groupEnd {  // the group's cells country by country (a group may span two)
                if marks.count < h.countries, firstCell[marks.count] == cell {
                    marks.append(RegionOutlines.CellMark(offset: groupStart, skip: cell - groupFirst, firstRun: total))
                }
                let g = marks.count - 1, upto = min(groupEnd, cellEnd[g]), units = unitRange[g]
                guard unit == 0 || units.contains(unit - 1) else { throw fail("bad cell \(cell)") }
                if count > 0 {
                    for _ in cell..<upto {
                        if let bad = runs.firstBad(total..<(total + count), units: units) { throw fail("bad run \(bad)") }
                        total += count
                    }
                }
                cell = upto
            }
        }
        guard i == end, total == h.runs, marks.count == h.countries else { throw fail("bad cell bytes") }
        align()
        return marks
    }

    /// What checks the runs: the runs in place, each unit's vertices (its rings follow one
    /// another), and a bit per vertex set where a ring starts.
    struct RunCheck {
        let runs: UnsafeBufferPointer<UInt32>
        /// Per unit: its first vertex, and the one after its last.
        let unitVertices: [UInt32]
        let ringStarts: [UInt64]

        init(_ file: RegionOutlinesFile, vertices: Int) {
            runs = file.runs
            let rings = file.rings
            unitVertices = file.unitFirstRing.indices.flatMap { u -> [UInt32] in
                let last = file.unitFirstRing[u] + file.unitRingCount[u] - 1
                return [rings[2 * file.unitFirstRing[u]], rings[2 * last] + rings[2 * last + 1]]
            }
            var starts = [UInt64](repeating: 0, count: vertices / 64 + 1)
            for r in 0..<(rings.count / 2) { starts[Int(rings[2 * r]) >> 6] |= 1 << (rings[2 * r] & 63) }
            ringStarts = starts
        }

        /// The first of a cell's runs that is not of one of `units`, in unit order, its edges
        /// inside one ring of its unit (its vertices within the unit's, no ring starting after
        /// its first); nil when all are.
        @inline(__always)
        func firstBad(_ range: Range<Int>, units: Range<Int>) -> Int? {
            var last = -1
            for s in range {
                let first = Int(runs[2 * s]), edges = Int(runs[2 * s + 1] & 0xFFFF), unit = Int(runs[2 * s + 1] >> 16)
                guard units.contains(unit), unit >= last, edges > 0, first >= Int(unitVertices[2 * unit]),
                      first + edges < Int(unitVertices[2 * unit + 1]), !anyRingStarts(first + 1, first + edges) else { return s }
                last = unit
            }
            return nil
        }

        /// Whether a ring starts at a vertex in a...b.
        @inline(__always)
        func anyRingStarts(_ a: Int, _ b: Int) -> Bool {
            var word = a >> 6
            var bits = ringStarts[word] & (~0 << UInt64(a & 63))
            while word < b >> 6 {
                if bits != 0 { return true }
                word += 1
                bits = ringStarts[word]
            }
            return bits & (~0 >> UInt64(63 - (b & 63))) != 0
        }
    }

    func checkPage(_ h: Header, _ file: RegionOutlinesFile) throws {
        for u in file.pageUnit where Int(u) >= h.units { throw fail("bad page line unit") }
        guard file.pageStart.first == 0, file.pageStart.last.map({ Int($0) }) == h.pageVertices else { throw fail("bad page lines") }
        for k in 0..<h.pageLines where file.pageStart[k] > file.pageStart[k + 1] { throw fail("bad page lines") }
    }

    /// The strings: (offset << 8 | length) into the UTF-8 bytes at the end.
    mutating func readStrings(_ h: Header, into file: inout RegionOutlinesFile) throws {
        try need(h.stringBytes)
        let bytes = data[i..<(i + h.stringBytes)]
        let base = i
        i += h.stringBytes
        align()
        let nameCount = try u32()
        let nameRefs = try table(2 * nameCount)
        guard i == data.count else { throw fail("trailing bytes") }
        func string(_ r: Int) throws -> String {
            let offset = r >> 8, length = r & 0xFF
            guard offset + length <= h.stringBytes else { throw fail("bad string") }
            return String(decoding: bytes[(base + offset)..<(base + offset + length)], as: UTF8.self)
        }
        file.strings = UnsafeRawBufferPointer(rebasing: bytes)
        for u in 0..<h.units {
            let code = file.unitCodeRef[u], regions = file.unitRegionRef[u]
            guard (code >> 8) + (code & 0xFF) <= h.stringBytes, (regions >> 8) + (regions & 0xFF) <= h.stringBytes else {
                throw fail("bad string")
            }
            let start = base + (regions >> 8), end = start + (regions & 0xFF)
            guard bytes[start..<end].contains(where: { $0 != 0x20 }) else {
                throw fail("unit \(u) has no region code")
            }
        }
        for k in 0..<nameCount {
            let key = try string(Int(nameRefs[2 * k])), name = try string(Int(nameRefs[2 * k + 1]))
            guard !key.isEmpty, !name.isEmpty, file.regionNames.updateValue(name, forKey: key) == nil else { throw fail("bad region name \(k)") }
        }
    }
}

extension RegionOutlines {
    /// Where a ring's vertices start in the file, and the point before its first.
    struct VertexMark {
        var offset: Int
        var x: Int32, y: Int32
    }

    /// Where a country's cells start in the file: the group holding its first cell, the cells of
    /// that group before it, and its first cell's first run.
    struct CellMark {
        var offset: Int
        var skip: Int
        var firstRun: Int
    }

    /// One country's cells and points, decoded from the file's bytes when a lookup first needs
    /// them (`RegionDataReader` checked every byte of them at load: nothing can fail here).
    final class CountryTables: Sendable {
        /// Per cell of the country, row by row, in 8 bytes (what a lookup reads of its cell in one
        /// cache line, where two arrays were two): the index of its first run in the low 32 bits,
        /// the unit holding its centre (0xFFFF: none) above. One more at the end: the next cell's
        /// first run.
        let cells: [UInt64]
        /// The points of the country's rings (x, y), vertex `firstVertex` first.
        let xy: [Int32]
        let firstVertex: Int

        init(bytes raw: UnsafeRawBufferPointer, cells: CellMark, cellCount: Int, vertices: VertexMark,
             firstVertex: Int, vertexCount: Int) {
            var made: [UInt64] = []
            made.reserveCapacity(cellCount + 1)
            var at = cells.offset, skip = cells.skip, total = cells.firstRun
            while made.count < cellCount {
                let repeatCount = Self.varint(raw, &at), unit = Self.varint(raw, &at), runs = Self.varint(raw, &at)
                let centre = UInt64(unit == 0 ? 0xFFFF : UInt16(unit - 1)) << 32
                for _ in 0..<min(repeatCount - skip, cellCount - made.count) {
                    made.append(centre | UInt64(UInt32(total)))
                    total += runs
                }
                skip = 0
            }
            made.append(0xFFFF << 32 | UInt64(UInt32(total)))
            var xy = [Int32](repeating: 0, count: 2 * vertexCount)
            var x = vertices.x, y = vertices.y, offset = vertices.offset
            for k in 0..<vertexCount {
                _ = RegionDataReader.step(raw, &offset, raw.count, &x, &y)
                xy[2 * k] = x
                xy[2 * k + 1] = y
            }
            (self.cells, self.xy, self.firstVertex) = (made, xy, firstVertex)
        }

        /// The unit holding cell k's centre, 0xFFFF: none.
        @inline(__always)
        func centre(_ k: Int) -> Int { Int(cells[k] >> 32) }

        /// Cell k's runs.
        @inline(__always)
        func runs(_ k: Int) -> Range<Int> { Int(UInt32(truncatingIfNeeded: cells[k]))..<Int(UInt32(truncatingIfNeeded: cells[k + 1])) }

        private static func varint(_ raw: UnsafeRawBufferPointer, _ at: inout Int) -> Int {
            var value = 0, shift = 0
            while at < raw.count, shift <= 35 {
                let b = raw[at]
                at += 1
                value |= Int(b & 0x7F) << shift
                if b < 0x80 { break }
                shift += 7
            }
            return value
        }
    }
}
