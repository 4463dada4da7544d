import Glibc

/// Resource limits of the older camera raw readers (Minolta MRW, Canon CRW).
extension MetadataLimits {
    /// Most MRW header blocks walked (cameras write 4 or 5: PRD, TTW, WBG, RIF, padding).
    static let maxMRWBlocks = 64
    /// Most CIFF records read in one file, and deepest heap nesting followed (Canon cameras
    /// write a few dozen records, two levels deep). Stops a crafted heap table of 65,535 entries,
    /// heaps that list themselves again and again, or a chain of nested heaps from keeping a
    /// reader busy.
    static let maxCIFFRecords = 1_024
    static let maxCIFFDepth = 8
}

/// Minolta/Konica Minolta MRW raw files: `\0MRM`, the big-endian length of the header blocks,
/// then blocks of a 4-byte name and a big-endian length. The `\0TTW` block is a whole TIFF
/// (offsets from the block's start) with the Exif and GPS IFDs: read by `TIFF` through a slice
/// of the file. Only the block headers and the TIFF's IFDs are read.
enum MRW {
    static let container = "MRW"
    static let ttw: [UInt8] = [0, 0x54, 0x54, 0x57]  // "\0TTW"

    static func findMetadata<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> EmbeddedMetadata {
        let size = source.size
        guard size >= 8 else {
            throw MetadataError.endOfFile(container: container, offset: size, expected: "the 8-byte MRW header")
        }
        let headerLength = Int(try source.reader(at: 4, count: 4, context: container).u32(at: 4, .bigEndian))
        guard headerLength <= size - 8 else {
            throw MetadataError.truncated(container: container, what: "header blocks", endsAt: 8 + headerLength, fileSize: size)
        }
        let end = 8 + headerLength
        var position = 8
        for _ in 0..<MetadataLimits.maxMRWBlocks {
            guard position + 8 <= end else { return EmbeddedMetadata() }
            let head = try source.reader(at: position, count: 8, context: container)
            let length = Int(try head.u32(at: position + 4, .bigEndian))
            guard length <= end - position - 8 else {
                throw MetadataError.truncated(container: container, what: "block at byte \(position)",
                                              endsAt: position + 8 + length, fileSize: end)
            }
            if head.matches(ttw, at: position) {
                var tiff = SliceSource(base: source, start: position + 8, size: length)
                defer { source = tiff.base }
                let found = try TIFF.findMetadata(in: &tiff, warnings: &warnings)
                return EmbeddedMetadata(exif: found.exif.map { ExifBlock(tiff: $0.tiff, offset: position + 8) }, xmp: found.xmp)
            }
            position += 8 + length
        }
        warnings.append("more than \(MetadataLimits.maxMRWBlocks) MRW blocks: the rest skipped")
        return EmbeddedMetadata()
    }
}

/// Canon CRW raw files (CIFF, Camera Image File Format): `II`, the header length, `HEAPCCDR`,
/// then the root heap up to the end of the file. A heap ends with the offset of its record
/// table (u16 count, 10-byte records: type, size, offset from the heap's start); records of
/// type 0x28xx and 0x30xx are heaps themselves. The capture time is record 0x180E (TimeStamp:
/// u32 seconds of the wall clock as if it were UTC, u32 time zone code, u32 time zone info);
/// CRW has no GPS. Only the heap tables and that record are read.
///
/// The time is handed on as an EXIF DateTimeOriginal in a small TIFF built by `TIFF.assemble`,
/// so the one decoder and the time rules of every other container apply. The time zone code is
/// not used: ExifTool shows it apart and gives DateTimeOriginal without an offset, and what
/// marks it valid is not documented beyond ExifTool's note.
enum CRW {
    static let container = "CRW"
    static let timeStamp: UInt16 = 0x180E

    static func findMetadata<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> EmbeddedMetadata {
        let size = source.size
        guard size >= 14 else {
            throw MetadataError.endOfFile(container: container, offset: size, expected: "the CRW header")
        }
        let header = try source.reader(at: 0, count: 14, context: container)
        let order: ByteOrder = header.matches([0x4D, 0x4D], at: 0) ? .bigEndian : .littleEndian
        let rootStart = Int(try header.u32(at: 2, order))
        guard rootStart >= 14, rootStart < size else {
            throw MetadataError.malformed(container: container, offset: 2, reason: "header length \(rootStart)")
        }
        var budget = MetadataLimits.maxCIFFRecords
        guard let seconds = try findTimeStamp(in: &source, heap: rootStart..<size, order: order, depth: 0,
                                              budget: &budget, warnings: &warnings) else {
            return EmbeddedMetadata()
        }
        return EmbeddedMetadata(exif: wallClockExif(seconds: Int(seconds), warnings: &warnings))
    }

    /// The TimeStamp's seconds (nonzero) found in `heap` or the heaps inside it, depth first;
    /// `budget` is what is left of `maxCIFFRecords` for the whole file.
    static func findTimeStamp<S: ByteSource>(in source: inout S, heap: Range<Int>, order: ByteOrder, depth: Int,
                                             budget: inout Int, warnings: inout [String]) throws -> UInt32? {
        guard depth < MetadataLimits.maxCIFFDepth, heap.count >= 6 else { return nil }
        let tableAt = heap.lowerBound + Int(try source.reader(at: heap.upperBound - 4, count: 4, context: container)
            .u32(at: heap.upperBound - 4, order))
        guard tableAt >= heap.lowerBound, tableAt <= heap.upperBound - 6 else {
            warnings.append("CIFF heap at byte \(heap.lowerBound): record table offset out of the heap; skipped")
            return nil
        }
        let count = Int(try source.reader(at: tableAt, count: 2, context: container).u16(at: tableAt, order))
        guard 2 + 10 * count <= heap.upperBound - 4 - tableAt else {
            warnings.append("CIFF heap at byte \(heap.lowerBound): \(count) records do not fit; skipped")
            return nil
        }
        guard count <= budget else {
            if budget >= 0 { warnings.append("more than \(MetadataLimits.maxCIFFRecords) CIFF records: the rest skipped") }
            budget = -1  // said once
            return nil
        }
        budget -= count
        let table = try source.reader(at: tableAt + 2, count: 10 * count, context: container)
        var heaps: [Range<Int>] = []
        for i in 0..<count {
            let at = tableAt + 2 + 10 * i
            let type = try table.u16(at: at, order)
            guard type & 0xC000 == 0 else { continue }  // value inside the record (0x4000): not ours
            let length = Int(try table.u32(at: at + 2, order)), offset = Int(try table.u32(at: at + 6, order))
            guard offset <= heap.count, length <= heap.count - offset else { continue }
            let start = heap.lowerBound + offset
            if type & 0x3FFF == timeStamp, length >= 4 {
                let seconds = try source.reader(at: start, count: 4, context: container).u32(at: start, order)
                if seconds != 0 { return seconds }
            } else if type & 0x3800 == 0x2800 || type & 0x3800 == 0x3000 {
                heaps.append(start..<(start + length))
            }
        }
        for inner in heaps {
            if let seconds = try findTimeStamp(in: &source, heap: inner, order: order, depth: depth + 1,
                                               budget: &budget, warnings: &warnings) {
                return seconds
            }
        }
        return nil
    }
}

/// A camera's wall clock given as seconds since 1970 read as if UTC (CRW TimeStamp, X3F `TIME`),
/// as an EXIF DateTimeOriginal in a small TIFF (`TIFF.assemble`), so that the one decoder and
/// the time rules of every other container apply; nil for a time outside years 1..9999.
func wallClockExif(seconds: Int, warnings: inout [String]) -> ExifBlock? {
    var time = tm()
    var t = time_t(seconds)
    guard gmtime_r(&t, &time) != nil, time.tm_year + 1900 >= 1, time.tm_year + 1900 <= 9999 else { return nil }
    func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
    let year = String(time.tm_year + 1900)
    let text = String(repeating: "0", count: 4 - year.count) + year + ":\(two(time.tm_mon + 1)):\(two(time.tm_mday)) "
        + "\(two(time.tm_hour)):\(two(time.tm_min)):\(two(time.tm_sec))"
    let date = TIFF.Entry(tag: 0x9003, type: 2, count: 20, value: Array(text.utf8) + [0])
    return ExifBlock(tiff: TIFF.assemble(order: .littleEndian, ifd0: [], exif: [date], gps: nil, warnings: &warnings), offset: 0)
}

/// Sigma X3F raw files (Foveon): `FOVb`, all little-endian; the last 4 bytes of the file give
/// the offset of the section directory `SECd` (version, count, then 12-byte entries: offset,
/// length, type). An `IMA2`/`IMAG` section whose 28-byte `SECi` header says JPEG (version 2.0,
/// type 2, format 18) and whose JPEG starts with its Exif APP1 is the JpgFromRaw that carries
/// the camera's Exif (all models but the SD9 and SD10), read through a slice of the file as
/// RAF's JPEG is. Without one, the `PROP` section's `TIME` property (decimal seconds, a wall
/// clock as CRW's) gives the capture time. No GPS otherwise. Only the directory, the section
/// headers, the JPEG's segments and the properties are read.
enum X3F {
    static let container = "X3F"
    /// Most directory entries and properties read (cameras write a handful of sections and
    /// about 60 properties).
    static let maxEntries = 1_024
    static let jpegSection: [UInt8] = Array("SECi".utf8) + [0, 0, 2, 0, 2, 0, 0, 0, 18, 0, 0, 0]

    static func findMetadata<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> EmbeddedMetadata {
        let size = source.size
        guard size >= 44 else {
            throw MetadataError.endOfFile(container: container, offset: size, expected: "the X3F header and directory pointer")
        }
        let dirAt = Int(try source.reader(at: size - 4, count: 4, context: container).u32(at: size - 4, .littleEndian))
        guard dirAt <= size - 16,
              try source.reader(at: dirAt, count: 12, context: container).matches(Array("SECd".utf8), at: dirAt) else {
            throw MetadataError.malformed(container: container, offset: size - 4, reason: "no SECd directory at byte \(dirAt)")
        }
        let count = Int(try source.reader(at: dirAt + 8, count: 4, context: container).u32(at: dirAt + 8, .littleEndian))
        guard count <= maxEntries, 12 + 12 * count <= size - 4 - dirAt else {
            throw MetadataError.malformed(container: container, offset: dirAt, reason: "\(count) directory entries do not fit")
        }
        let directory = try source.reader(at: dirAt + 12, count: 12 * count, context: container)
        var properties: (at: Int, length: Int)?
        for i in 0..<count {
            let at = dirAt + 12 + 12 * i
            let offset = Int(try directory.u32(at: at, .littleEndian)), length = Int(try directory.u32(at: at + 4, .littleEndian))
            guard offset <= size, length <= size - offset else {
                warnings.append("X3F section \(i) at byte \(offset) runs past the end of the file: skipped")
                continue
            }
            if directory.matches(Array("PROP".utf8), at: at + 8) {
                properties = properties ?? (offset, length)
            } else if directory.matches(Array("IMA2".utf8), at: at + 8) || directory.matches(Array("IMAG".utf8), at: at + 8),
                      length >= 32,
                      try source.reader(at: offset, count: 32, context: container).matches(jpegSection, at: offset),
                      try source.reader(at: offset + 28, count: 4, context: container).matches([0xFF, 0xD8, 0xFF, 0xE1], at: offset + 28) {
                var jpeg = SliceSource(base: source, start: offset + 28, size: length - 28)
                defer { source = jpeg.base }
                let exif = try JPEG.findExif(in: &jpeg, warnings: &warnings)
                let xmp = JPEG.findXMP(in: &jpeg, warnings: &warnings)
                if exif != nil || xmp != nil {
                    return EmbeddedMetadata(exif: exif.map { ExifBlock(tiff: $0.tiff, offset: offset + 28 + $0.offset) }, xmp: xmp)
                }
            }
        }
        guard let properties, let seconds = try time(in: &source, at: properties.at, length: properties.length, warnings: &warnings) else {
            return EmbeddedMetadata()
        }
        return EmbeddedMetadata(exif: wallClockExif(seconds: seconds, warnings: &warnings))
    }

    /// The `TIME` property of a `SECp` section: 24-byte header (entries, format 0 = UTF-16LE,
    /// pool length in characters), name/value character indices, the character pool.
    static func time<S: ByteSource>(in source: inout S, at: Int, length: Int, warnings: inout [String]) throws -> Int? {
        guard length >= 24, length <= MetadataLimits.maxXMPPacketBytes else { return nil }
        let section = try source.reader(at: at, count: length, context: container)
        guard section.matches(Array("SECp".utf8), at: at) else {
            warnings.append("X3F PROP section at byte \(at) has no SECp header: skipped")
            return nil
        }
        let entries = Int(try section.u32(at: at + 8, .littleEndian)), format = try section.u32(at: at + 12, .littleEndian)
        let chars = Int(try section.u32(at: at + 20, .littleEndian))
        guard format == 0, entries <= maxEntries, chars <= (length - 24) / 2, 8 * entries <= length - 24 - 2 * chars else {
            warnings.append("X3F PROP section at byte \(at) is malformed: skipped")
            return nil
        }
        let pool = at + 24 + 8 * entries
        func string(_ index: Int) throws -> String? {
            guard index < chars else { return nil }
            var units: [UInt16] = []
            var i = index
            while i < chars, units.count < 64 {
                let unit = try section.u16(at: pool + 2 * i, .littleEndian)
                if unit == 0 { break }
                units.append(unit)
                i += 1
            }
            return String(decoding: units, as: UTF16.self)
        }
        for e in 0..<entries {
            let name = Int(try section.u32(at: at + 24 + 8 * e, .littleEndian))
            guard try string(name) == "TIME" else { continue }
            let value = Int(try section.u32(at: at + 28 + 8 * e, .littleEndian))
            guard let text = try string(value), let seconds = Int(text), seconds > 0 else {
                warnings.append("X3F TIME property is not a number of seconds: ignored")
                return nil
            }
            return seconds
        }
        return nil
    }
}
