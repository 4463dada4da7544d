import Foundation

/// The contents of Regions.bin, every count, offset and index checked (the layout is at the top
/// of scripts/build-regions).
struct RegionOutlinesFile {
    var grids: [RegionOutlines.Grid] = []
    var unitCountry: [UInt16] = []
    var unitCodes: [String] = []
    var unitRegionCodes: [[String]] = []
    var unitCodeRef: [Int] = []
    var unitRegionRef: [Int] = []
    var unitFirstRing: [Int] = []
    var unitRingCount: [Int] = []
    var ringFirst: [UInt32] = []
    var ringCount: [UInt32] = []
    var xy: [Int32] = []
    var centre: [UInt16] = []
    var runStart: [UInt32] = []
    var runFirst: [UInt32] = []
    var runEdges: [UInt16] = []
    var runUnit: [UInt16] = []
    var pageUnit: [UInt32] = []
    var pageStart: [UInt32] = []
    var pageXY: [Int32] = []
    /// Region key ("FR-BRE", "RE:Reunion") → English name, where it differs from the gazetteer's.
    var regionNames: [String: String] = [:]
}

struct RegionDataReader {
    /// The file's bytes (every read below is checked against `need` or an end first).
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

    mutating func array<T: FixedWidthInteger>(_ count: Int, _: T.Type) throws -> [T] {
        let size = MemoryLayout<T>.size
        guard count >= 0, count <= data.count / size else { throw fail("bad count") }
        try need(count * size)
        let start = i
        i += count * size
        let raw = data
        return [T](unsafeUninitializedCapacity: count) { buffer, n in
            for k in 0..<count { buffer[k] = T(littleEndian: raw.loadUnaligned(fromByteOffset: start + k * size, as: T.self)) }
            n = count
        }
    }

    struct Header {
        var countries = 0, units = 0, rings = 0, vertices = 0, vertexBytes = 0, runs = 0, cells = 0, cellBytes = 0
        var pageLines = 0, pageVertices = 0, pageVertexBytes = 0, stringBytes = 0
    }

    mutating func readFile() throws -> RegionOutlinesFile {
        guard data.starts(with: RegionOutlines.magic) else { throw fail("not a pins regions file (magic)") }
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
        var file = RegionOutlinesFile()
        try readCountries(h, into: &file)
        try readUnits(h, into: &file)
        let rings = try array(2 * h.rings, UInt32.self)
        let runs = try array(2 * h.runs, UInt32.self)
        file.pageUnit = try array(h.pageLines, UInt32.self)
        file.pageStart = try array(h.pageLines + 1, UInt32.self)
        file.xy = try points(h.vertices, bytes: h.vertexBytes)
        try readRings(rings, h, into: &file)
        try readCells(h, into: &file)
        try checkRuns(runs, h, into: &file)
        file.pageXY = try points(h.pageVertices, bytes: h.pageVertexBytes)
        try checkPage(h, file)
        try readStrings(h, into: &file)
        return file
    }

    /// `count` points stored as i16 deltas (dx, dy) in `bytes` bytes, a step that does not fit
    /// being dx = -32768, dy = 0, then i32 x, y; each point in -180...360° and -90...90° (1e-5
    /// degree); the section padded to 4. One pass over raw buffers.
    mutating func points(_ count: Int, bytes: Int) throws -> [Int32] {
        try need(bytes)
        let start = i, end = i + bytes
        var ok = true, at = start
        let raw = data
        let out = [Int32](unsafeUninitializedCapacity: 2 * count) { buffer, n in
            do {
                var x: Int32 = 0, y: Int32 = 0
                for k in 0..<count {
                    guard at + 4 <= end else { ok = false; break }
                    let dx = Int16(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int16.self))
                    let dy = Int16(littleEndian: raw.loadUnaligned(fromByteOffset: at + 2, as: Int16.self))
                    at += 4
                    if dx == Int16.min {
                        guard dy == 0, at + 8 <= end else { ok = false; break }
                        x = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int32.self))
                        y = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 4, as: Int32.self))
                        at += 8
                    } else {
                        x &+= Int32(dx)
                        y &+= Int32(dy)
                    }
                    guard x >= -18_000_000, x <= 36_000_000, y >= -9_000_000, y <= 9_000_000 else { ok = false; break }
                    buffer[2 * k] = x
                    buffer[2 * k + 1] = y
                }
            }
            if !ok { for j in 0..<(2 * count) { buffer[j] = 0 } }
            n = 2 * count
        }
        guard ok, at == end else { throw fail("bad vertex bytes") }
        i = at
        align()
        return out
    }

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

    mutating func readRings(_ rings: [UInt32], _ h: Header, into file: inout RegionOutlinesFile) throws {
        var next = 0
        for r in 0..<h.rings {
            let first = Int(rings[2 * r]), count = Int(rings[2 * r + 1])
            guard first == next, count >= 4, count <= h.vertices - first else { throw fail("bad ring \(r)") }
            next = first + count
            let a = 2 * first, b = a + 2 * count - 2
            guard file.xy[a] == file.xy[b], file.xy[a + 1] == file.xy[b + 1] else { throw fail("ring \(r) is not closed") }
            file.ringFirst.append(rings[2 * r])
            file.ringCount.append(rings[2 * r + 1])
        }
        guard next == h.vertices else { throw fail("rings do not cover the vertices") }
    }

    /// The cells: groups of (repeat, centre unit + 1, run count), into one entry per cell.
    mutating func readCells(_ h: Header, into file: inout RegionOutlinesFile) throws {
        try need(h.cellBytes)
        let end = i + h.cellBytes
        file.centre.reserveCapacity(h.cells)
        file.runStart.reserveCapacity(h.cells + 1)
        file.runStart.append(0)
        var total = 0
        while file.centre.count < h.cells {
            let repeatCount = try varint(end), unit = try varint(end), runs = try varint(end)
            guard repeatCount > 0, repeatCount <= h.cells - file.centre.count, unit <= h.units, runs <= h.runs - total,
                  runs * repeatCount <= h.runs - total else { throw fail("bad cells") }
            for _ in 0..<repeatCount {
                file.centre.append(unit == 0 ? 0xFFFF : UInt16(unit - 1))
                total += runs
                file.runStart.append(UInt32(total))
            }
        }
        guard i == end, total == h.runs else { throw fail("bad cell bytes") }
        align()
    }

    /// Each cell's centre unit is of the cell's own country; each run lies inside one ring of
    /// its unit, of that country, the runs of a cell in unit order. The ring of every vertex
    /// first (one pass), so each run is checked at once.
    mutating func checkRuns(_ runs: [UInt32], _ h: Header, into file: inout RegionOutlinesFile) throws {
        var ringOf = [UInt32](repeating: 0, count: h.vertices)
        var unitOfRing = [UInt16](repeating: 0, count: h.rings)
        for u in 0..<h.units {
            for r in file.unitFirstRing[u]..<(file.unitFirstRing[u] + file.unitRingCount[u]) { unitOfRing[r] = UInt16(u) }
        }
        for r in 0..<h.rings {
            let first = Int(file.ringFirst[r])
            for v in first..<(first + Int(file.ringCount[r])) { ringOf[v] = UInt32(r) }
        }
        let centre = file.centre, start = file.runStart, ringFirst = file.ringFirst, ringCount = file.ringCount
        for g in file.grids {
            let units = g.firstUnit..<(g.firstUnit + g.unitCount)
            for k in g.firstCell..<(g.firstCell + g.columns * g.rows) {
                guard centre[k] == 0xFFFF || units.contains(Int(centre[k])) else { throw fail("bad cell \(k)") }
                var last = -1
                for s in Int(start[k])..<Int(start[k + 1]) {
                    let first = Int(runs[2 * s]), edges = Int(runs[2 * s + 1] & 0xFFFF), unit = Int(runs[2 * s + 1] >> 16)
                    guard units.contains(unit), unit >= last, edges > 0, first < h.vertices else { throw fail("bad run \(s)") }
                    let r = Int(ringOf[first])
                    guard Int(unitOfRing[r]) == unit, Int(ringFirst[r] + ringCount[r]) - 1 - first >= edges else {
                        throw fail("bad run \(s)")
                    }
                    last = unit
                }
            }
        }
        file.runFirst = (0..<h.runs).map { runs[2 * $0] }
        file.runEdges = (0..<h.runs).map { UInt16(runs[2 * $0 + 1] & 0xFFFF) }
        file.runUnit = (0..<h.runs).map { UInt16(runs[2 * $0 + 1] >> 16) }
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
        let nameRefs = try array(2 * nameCount, UInt32.self)
        guard i == data.count else { throw fail("trailing bytes") }
        func string(_ r: Int) throws -> String {
            let offset = r >> 8, length = r & 0xFF
            guard offset + length <= h.stringBytes else { throw fail("bad string") }
            return String(decoding: bytes[(base + offset)..<(base + offset + length)], as: UTF8.self)
        }
        for u in 0..<h.units {
            file.unitCodes.append(try string(file.unitCodeRef[u]))
            let codes = try string(file.unitRegionRef[u]).split(separator: " ").map(String.init)
            guard !codes.isEmpty else { throw fail("unit \(u) has no region code") }
            file.unitRegionCodes.append(codes)
        }
        for k in 0..<nameCount {
            let key = try string(Int(nameRefs[2 * k])), name = try string(Int(nameRefs[2 * k + 1]))
            guard !key.isEmpty, !name.isEmpty, file.regionNames.updateValue(name, forKey: key) == nil else { throw fail("bad region name \(k)") }
        }
    }
}
