import Glibc

/// Resource limits of the older camera raw readers (Minolta MRW, Canon CRW).
extension MetadataLimits {
    /// Most MRW header blocks walked (cameras write 4 or 5: PRD, TTW, WBG, RIF, padding).
    static let maxMRWBlocks = 64
    /// Most CIFF records read in one heap, and deepest heap nesting followed (Canon cameras
    /// write a few dozen records, two levels deep). Stops a crafted heap table of 65,535 entries
    /// or a chain of nested heaps from keeping a reader busy.
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
        guard let seconds = try findTimeStamp(in: &source, heap: rootStart..<size, order: order, depth: 0, warnings: &warnings) else {
            return EmbeddedMetadata()
        }
        var time = tm()
        var t = time_t(seconds)
        guard gmtime_r(&t, &time) != nil else { return EmbeddedMetadata() }
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let text = "\(time.tm_year + 1900):\(two(time.tm_mon + 1)):\(two(time.tm_mday)) "
            + "\(two(time.tm_hour)):\(two(time.tm_min)):\(two(time.tm_sec))"
        let date = TIFF.Entry(tag: 0x9003, type: 2, count: 20, value: Array(text.utf8) + [0])
        let tiff = TIFF.assemble(order: order, ifd0: [], exif: [date], gps: nil, warnings: &warnings)
        return EmbeddedMetadata(exif: ExifBlock(tiff: tiff, offset: 0))
    }

    /// The TimeStamp's seconds (nonzero) found in `heap` or the heaps inside it, depth first.
    static func findTimeStamp<S: ByteSource>(in source: inout S, heap: Range<Int>, order: ByteOrder, depth: Int,
                                             warnings: inout [String]) throws -> UInt32? {
        guard depth < MetadataLimits.maxCIFFDepth, heap.count >= 6 else { return nil }
        let tableAt = heap.lowerBound + Int(try source.reader(at: heap.upperBound - 4, count: 4, context: container)
            .u32(at: heap.upperBound - 4, order))
        guard tableAt >= heap.lowerBound, tableAt <= heap.upperBound - 6 else {
            warnings.append("CIFF heap at byte \(heap.lowerBound): record table offset out of the heap; skipped")
            return nil
        }
        let count = Int(try source.reader(at: tableAt, count: 2, context: container).u16(at: tableAt, order))
        guard count <= MetadataLimits.maxCIFFRecords, 2 + 10 * count <= heap.upperBound - 4 - tableAt else {
            warnings.append("CIFF heap at byte \(heap.lowerBound): \(count) records do not fit; skipped")
            return nil
        }
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
            if let seconds = try findTimeStamp(in: &source, heap: inner, order: order, depth: depth + 1, warnings: &warnings) {
                return seconds
            }
        }
        return nil
    }
}
