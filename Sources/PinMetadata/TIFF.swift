/// Resource limits of the TIFF walker (see `MetadataLimits` for the shared ones).
extension MetadataLimits {
    /// Most entries read from one IFD. The count field is 16 bits, so a crafted IFD can announce
    /// 65,535 entries (786 KB of reads and copies); cameras write fewer than 300.
    static let maxIFDEntries = 1_024
    /// Largest out-of-line value copied into the re-packed TIFF (bytes). Stops a UserComment or
    /// an undeclared blob of megabytes from being read and copied; every tag the decoder uses
    /// (dates, offsets, GPS rationals) is a few dozen bytes.
    static let maxCopiedTIFFValue = 4 * 1024
    /// Largest re-packed TIFF handed to libexif: below its 0xFFFE cap (docs/formats.md 2.2),
    /// so that libexif never truncates what we built; entries that would not fit are dropped.
    static let maxRepackedTIFF = 65_000
}

/// Reads the Exif of TIFF files and TIFF-based raws (DNG, CR2, NEF, ARW, PEF, ORF, RW2;
/// docs/formats.md section 4.3).
///
/// libexif truncates its input to 0xFFFE bytes and assumes the `42` magic (section 2.2), while
/// libtiff-style writers put the IFDs after the pixels, far beyond 64 KiB. So IFD0 is walked
/// here, and a small new TIFF is built: IFD0 with only the Exif and GPS pointers (plus any time
/// tag misplaced in IFD0), then the Exif IFD and the GPS IFD with their out-of-line values, all
/// offsets rewritten, byte order kept, magic 42. That TIFF goes to `ExifDecoder` like any other.
///
/// Decisions:
/// - Always re-pack, even when everything lies below 64 KiB: a prefix slice would make libexif
///   also load IFD0's other entries (strip offsets, XMP, ICC) and the MakerNote, whose data may
///   lie anywhere, for nothing but "past end of buffer" warnings.
/// - Dropped from the copy: the MakerNote (0x927C; its offsets would no longer be right, and
///   libexif would parse it), sub-IFD pointers inside the Exif/GPS IFDs (Interop 0xA005, nested
///   0x8769/0x8825: nothing the decoder reads lives there, and dropping them makes loops
///   impossible), and values over `maxCopiedTIFFValue`.
/// - ORF (`IIRO`, `IIRS`, `MMOR`) and RW2 (`IIU\0`) magics are accepted: the walk here does not
///   care about the magic, and the re-packed copy says 42.
/// - BigTIFF (magic 43: 8-byte offsets and counts, 20-byte entries, 8-byte value fields) is
///   walked the same way and re-packed into the same classic TIFF, since libexif knows only the
///   classic layout. Translating (not decoding the few tags here) keeps one decoder for every
///   container: the same libexif rules, GPS conversion and time rules apply to BigTIFF. A value
///   of 5–8 bytes that BigTIFF keeps in its field moves out of line in the copy; the 8-byte
///   types (LONG8, SLONG8, IFD8) are read as pointers only, and dropped from the copied IFDs
///   (classic TIFF has no such types, and no tag the decoder reads uses them).
/// - A sub-IFD pointer that points at IFD0 or at the other sub-IFD is a loop: ignored with a
///   warning. An IFD running past the end of the file makes the file unreadable (truncated); an
///   out-of-line value past the end drops that entry with a warning, as libexif would.
enum TIFF {
    static let container = "TIFF"

    enum Tag {
        static let exifPointer: UInt16 = 0x8769
        static let gpsPointer: UInt16 = 0x8825
        static let interopPointer: UInt16 = 0xA005
        static let makerNote: UInt16 = 0x927C
        static let xmp: UInt16 = 700
        /// Time tags some writers misplace in IFD0 (section 1.5); the decoder looks there too.
        static let misplacedTime: Set<UInt16> = [0x9003, 0x9004, 0x9011, 0x9012, 0x9291, 0x9292]
    }

    /// Classic TIFF (and its ORF/RW2 magics) or BigTIFF: the sizes of an IFD's parts.
    struct Layout: Equatable, Sendable {
        /// Bytes of an IFD's entry count (2, BigTIFF 8), of one entry (12, 20), of an entry's
        /// value field and of an offset (4, 8).
        let countSize: Int, entrySize: Int, fieldSize: Int
        static let classic = Layout(countSize: 2, entrySize: 12, fieldSize: 4)
        static let big = Layout(countSize: 8, entrySize: 20, fieldSize: 8)
        var isBig: Bool { fieldSize == 8 }

        /// The unsigned integer of `fieldSize` bytes at `at` (an offset), nil when over 2^62
        /// (beyond any file, and far enough from `Int.max` that offset arithmetic cannot
        /// overflow).
        func offset(_ reader: ByteReader, at: Int, _ order: ByteOrder) throws -> Int? {
            let value = isBig ? try reader.u64(at: at, order) : UInt64(try reader.u32(at: at, order))
            return value <= 1 << 62 ? Int(value) : nil
        }
    }

    /// BigTIFF's 8-byte types: LONG8, SLONG8, IFD8.
    static let bigTypes: ClosedRange<UInt16> = 16...18

    /// One IFD entry with its value bytes resolved (in the file's byte order).
    struct Entry: Equatable {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        /// The value: the 4 raw bytes of the value field when it fits there, else the bytes read
        /// from the offset (count × type size).
        var value: [UInt8]
        var isInline: Bool { value.count <= 4 }
    }

    /// The byte order, IFD0 offset and layout from the header (8 bytes, BigTIFF 16); throws for
    /// what is not a TIFF this reader walks.
    static func header<S: ByteSource>(in source: inout S) throws -> (ByteOrder, Int, Layout) {
        let size = source.size
        guard size >= 8 else {
            throw MetadataError.endOfFile(container: container, offset: size, expected: "an 8-byte TIFF header")
        }
        let header = try source.reader(at: 0, count: 8, context: container)
        let order: ByteOrder
        if header.matches([0x49, 0x49], at: 0) {
            order = .littleEndian
        } else if header.matches([0x4D, 0x4D], at: 0) {
            order = .bigEndian
        } else {
            throw MetadataError.malformed(container: container, offset: 0, reason: "byte order is neither II nor MM")
        }
        let magic = try header.u16(at: 2, order)
        switch magic {
        case 42, 0x4F52, 0x5352, 0x55:
            let ifd0 = Int(try header.u32(at: 4, order))
            guard ifd0 >= 8 else {
                throw MetadataError.malformed(container: container, offset: 4, reason: "IFD0 offset \(ifd0) overlaps the header")
            }
            return (order, ifd0, .classic)
        case 43:
            // BigTIFF: offset size 8, then 2 zero bytes, then IFD0's 8-byte offset.
            guard size >= 16 else {
                throw MetadataError.endOfFile(container: container, offset: size, expected: "a 16-byte BigTIFF header")
            }
            let big = try source.reader(at: 0, count: 16, context: container)
            guard try big.u16(at: 4, order) == 8, try big.u16(at: 6, order) == 0 else {
                throw MetadataError.malformed(container: container, offset: 4,
                                              reason: "BigTIFF offset size is \(try big.u16(at: 4, order)), not 8")
            }
            guard let ifd0 = try Layout.big.offset(big, at: 8, order) else {
                throw MetadataError.malformed(container: container, offset: 8, reason: "BigTIFF IFD0 offset is beyond any file")
            }
            guard ifd0 >= 16 else {
                throw MetadataError.malformed(container: container, offset: 8, reason: "IFD0 offset \(ifd0) overlaps the header")
            }
            return (order, ifd0, .big)
        default:
            throw MetadataError.malformed(container: container, offset: 2, reason: "unknown TIFF magic \(magic)")
        }
    }

    /// A TIFF stream re-packed as `exifBlock` does (IFD0 reduced to the pointers and time tags),
    /// or nil when it has neither; for a second libexif pass over an Exif block whose IFD0
    /// libexif abandoned.
    static func repacked(_ tiff: [UInt8], warnings: inout [String]) -> [UInt8]? {
        var source = MemorySource(tiff)
        guard let (order, ifd0, layout) = try? header(in: &source) else { return nil }
        return (try? exifBlock(in: &source, order: order, ifd0: ifd0, layout: layout, warnings: &warnings))??.tiff
    }

    /// The date tags (DateTimeOriginal 0x9003, DateTimeDigitized 0x9004) that IFD0 or the Exif
    /// IFD of `tiff` announce, with their type and count, read from the raw directories (the
    /// Exif IFD's entry wins). libexif drops an entry whose value it cannot load (a count that
    /// runs past the block, a count of 0) without a CORRUPT_DATA message, so a date that
    /// vanished is found here and reported instead of silently becoming the file's time.
    static func announcedDateTags(_ tiff: [UInt8]) -> [UInt16: (type: UInt16, count: UInt32)] {
        var source = MemorySource(tiff)
        var ignored: [String] = []
        let dates: Set<UInt16> = [0x9003, 0x9004]
        guard let (order, ifd0, layout) = try? header(in: &source),
              let entries0 = try? readIFD(in: &source, at: ifd0, order: order, name: "IFD0", layout: layout,
                                          warnings: &ignored, keep: { $0 == Tag.exifPointer || dates.contains($0) },
                                          resolveValues: false) else { return [:] }
        var found: [UInt16: (type: UInt16, count: UInt32)] = [:]
        for e in entries0 where dates.contains(e.tag) { found[e.tag] = (e.type, e.count) }
        guard let pointer = entries0.first(where: { $0.tag == Tag.exifPointer }),
              let at = (try? layout.offset(ByteReader(pointer.value, context: container), at: 0, order)) ?? nil,
              at >= 8, at != ifd0,
              let exif = try? readIFD(in: &source, at: at, order: order, name: "Exif IFD", layout: layout,
                                      warnings: &ignored, keep: { dates.contains($0) }, resolveValues: false)
        else { return found }
        for e in exif { found[e.tag] = (e.type, e.count) }
        return found
    }

    static func findMetadata<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> EmbeddedMetadata {
        let (order, ifd0, layout) = try header(in: &source)
        let exif = try exifBlock(in: &source, order: order, ifd0: ifd0, layout: layout, warnings: &warnings)
        let xmp = try xmpPacket(in: &source, order: order, ifd0: ifd0, layout: layout, warnings: &warnings)
        return EmbeddedMetadata(exif: exif, xmp: xmp)
    }

    /// The XMP packet of IFD0's tag 700 (section 9.13; BYTE per the spec, UNDEFINED seen: the
    /// type is not checked), or nil. The IFD is already in memory from `exifBlock`.
    static func xmpPacket<S: ByteSource>(in source: inout S, order: ByteOrder, ifd0: Int, layout: Layout = .classic,
                                         warnings: inout [String]) throws -> [UInt8]? {
        let raw = try readIFD(in: &source, at: ifd0, order: order, name: "IFD0", layout: layout, warnings: &warnings,
                              keep: { $0 == Tag.xmp }, resolveValues: false)
        guard let entry = raw.first else { return nil }
        let reader = ByteReader(entry.value, context: container)
        let count = Int(entry.count)
        guard count > layout.fieldSize else { return nil }
        guard let at = try layout.offset(reader, at: 0, order) else {
            warnings.append("XMP (tag 700) offset does not fit: skipped")
            return nil
        }
        guard count <= MetadataLimits.maxXMPPacketBytes else {
            warnings.append("XMP (tag 700) of \(count) bytes is over the limit: skipped")
            return nil
        }
        guard at <= source.size, count <= source.size - at else {
            warnings.append("XMP (tag 700) at byte \(at) runs past the end of the file: skipped")
            return nil
        }
        return try source.reader(at: at, count: count, context: container).allBytes
    }

    /// Walks IFD0 at `ifd0` (offsets relative to byte 0 of `source`) and re-packs the Exif and
    /// GPS IFDs; nil when IFD0 points to neither and holds no time tag.
    static func exifBlock<S: ByteSource>(in source: inout S, order: ByteOrder, ifd0: Int, layout: Layout = .classic,
                                         warnings: inout [String]) throws -> ExifBlock? {
        let entries0 = try readIFD(in: &source, at: ifd0, order: order, name: "IFD0", layout: layout, warnings: &warnings,
                                   keep: { $0 == Tag.exifPointer || $0 == Tag.gpsPointer || Tag.misplacedTime.contains($0) })
        func pointer(_ tag: UInt16, _ name: String) -> Int? {
            guard let entry = entries0.first(where: { $0.tag == tag }) else { return nil }
            // LONG or IFD (13), one value; some writers use SHORT for small offsets; BigTIFF
            // writers also LONG8 or IFD8.
            let wide = layout.isBig && (entry.type == 16 || entry.type == 18)
            guard entry.count == 1, entry.type == 4 || entry.type == 13 || entry.type == 3 || wide else {
                warnings.append("\(name) pointer has type \(entry.type) × \(entry.count): ignored")
                return nil
            }
            let r = ByteReader(entry.value, context: container)
            let offset = entry.type == 3 ? Int((try? r.u16(at: 0, order)) ?? 0)
                : wide ? ((try? Layout.big.offset(r, at: 0, order)) ?? nil) ?? 0
                : Int((try? r.u32(at: 0, order)) ?? 0)
            guard offset >= 8 else {
                warnings.append("\(name) pointer \(offset) points into the TIFF header: ignored")
                return nil
            }
            guard offset != ifd0 else {
                warnings.append("\(name) pointer points back at IFD0 (a loop): ignored")
                return nil
            }
            return offset
        }
        let exifAt = pointer(Tag.exifPointer, "Exif IFD")
        var gpsAt = pointer(Tag.gpsPointer, "GPS IFD")
        if let e = exifAt, e == gpsAt {
            warnings.append("Exif and GPS IFD pointers are the same offset \(e): GPS ignored")
            gpsAt = nil
        }
        let time0 = entries0.filter { Tag.misplacedTime.contains($0.tag) }
        guard exifAt != nil || gpsAt != nil || !time0.isEmpty else { return nil }

        let dropInSubIFD: (UInt16) -> Bool = {
            $0 == Tag.makerNote || $0 == Tag.interopPointer || $0 == Tag.exifPointer || $0 == Tag.gpsPointer
        }
        func subIFD(_ at: Int, _ name: String) throws -> [Entry] {
            try readIFD(in: &source, at: at, order: order, name: name, layout: layout, warnings: &warnings,
                        keep: { !dropInSubIFD($0) }).filter { !bigTypes.contains($0.type) }
        }
        let exif = try exifAt.map { try subIFD($0, "Exif IFD") }
        let gps = try gpsAt.map { try subIFD($0, "GPS IFD") }
        let tiff = assemble(order: order, ifd0: time0, exif: exif, gps: gps, warnings: &warnings)
        return ExifBlock(tiff: tiff, offset: 0)
    }

    /// Bytes per value of a TIFF type (section 1.2); 0 for a type we do not know.
    static func typeSize(_ type: UInt16) -> Int {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: 0
        }
    }

    /// Reads the IFD at absolute `offset` and resolves the values of the entries `keep` accepts.
    /// Throws when the IFD itself runs past the end of the input; drops (with a warning) an entry
    /// whose value does.
    /// With `resolveValues` false, each entry's `value` is its raw value field (4 bytes, BigTIFF
    /// 8). In a BigTIFF (`layout`), a value that fits its 8-byte field is resolved to its own
    /// bytes (moved out of line by `assemble` when over 4); a count over 2^32 - 1 is clamped
    /// there (no value that large is copied).
    static func readIFD<S: ByteSource>(in source: inout S, at offset: Int, order: ByteOrder, name: String,
                                       layout: Layout = .classic,
                                       warnings: inout [String], keep: (UInt16) -> Bool,
                                       resolveValues: Bool = true) throws -> [Entry] {
        let size = source.size
        guard offset <= size - layout.countSize else {
            throw MetadataError.truncated(container: container, what: "\(name) at byte \(offset)",
                                          endsAt: offset + layout.countSize, fileSize: size)
        }
        let countField = try source.reader(at: offset, count: layout.countSize, context: container)
        let announced = layout.isBig ? try countField.u64(at: offset, order) : UInt64(try countField.u16(at: offset, order))
        guard announced <= UInt64(MetadataLimits.maxIFDEntries) else {
            throw MetadataError.limitExceeded(container: container, what: "\(announced) entries in \(name) at byte \(offset)",
                                              limit: MetadataLimits.maxIFDEntries)
        }
        let count = Int(announced)
        let length = layout.countSize + layout.entrySize * count
        guard length <= size - offset else {
            throw MetadataError.truncated(container: container, what: "\(name) at byte \(offset)",
                                          endsAt: offset + length, fileSize: size)
        }
        let ifd = try source.reader(at: offset, count: length, context: container)
        var raw: [(tag: UInt16, type: UInt16, count: UInt64, field: [UInt8])] = []
        raw.reserveCapacity(count)
        let countAt = 4, fieldAt = 4 + layout.fieldSize
        for i in 0..<count {
            let at = offset + layout.countSize + layout.entrySize * i
            let tag = try ifd.u16(at: at, order)
            guard keep(tag) else { continue }
            let n = layout.isBig ? try ifd.u64(at: at + countAt, order) : UInt64(try ifd.u32(at: at + countAt, order))
            raw.append((tag, try ifd.u16(at: at + 2, order), n, try ifd.bytes(at: at + fieldAt, count: layout.fieldSize)))
        }
        if !resolveValues {
            return raw.map { Entry(tag: $0.tag, type: $0.type, count: UInt32(clamping: $0.count), value: $0.field) }
        }
        var entries: [Entry] = []
        for (tag, type, n64, field) in raw {
            if let entry = try resolve(tag: tag, type: type, count: n64, field: field, in: &source, order: order,
                                       name: name, layout: layout, warnings: &warnings) {
                entries.append(entry)
            }
        }
        return entries
    }

    /// The entry with its value: inline (a value that fits its field, or of an unknown type,
    /// keeps the field's bytes), else copied from its offset; nil (with a warning) when the value
    /// is too large to copy or runs past the end of the file.
    static func resolve<S: ByteSource>(tag: UInt16, type: UInt16, count n64: UInt64, field: [UInt8],
                                       in source: inout S, order: ByteOrder, name: String, layout: Layout,
                                       warnings: inout [String]) throws -> Entry? {
        let unit = layout.isBig && bigTypes.contains(type) ? 8 : typeSize(type)
        let (bytes, overflow) = n64 > UInt64(Int.max) ? (0, true) : Int(n64).multipliedReportingOverflow(by: unit)
        let n = UInt32(clamping: n64)
        if unit == 0 || (!overflow && bytes <= 4) {
            // Unknown types keep their raw field (libexif drops them itself); BigTIFF keeps a
            // small value at the start of its 8-byte field.
            return Entry(tag: tag, type: type, count: n, value: Array(field.prefix(4)))
        }
        if layout.isBig, !overflow, bytes <= 8 {
            return Entry(tag: tag, type: type, count: n, value: Array(field.prefix(bytes)))
        }
        let tagName = "tag 0x" + String(tag, radix: 16, uppercase: true) + " in \(name)"
        guard !overflow, bytes <= MetadataLimits.maxCopiedTIFFValue else {
            warnings.append("\(tagName): value of \(overflow ? "overflowing" : String(bytes)) bytes not copied")
            return nil
        }
        let size = source.size
        let found = try layout.offset(ByteReader(field, context: container), at: 0, order)
        guard let at = found, at <= size, bytes <= size - at else {
            warnings.append("\(tagName): value at byte \(found.map(String.init) ?? "2^62 or more") runs past the end of the file: dropped")
            return nil
        }
        return Entry(tag: tag, type: type, count: n, value: try source.reader(at: at, count: bytes, context: container).allBytes)
    }

    /// Builds a TIFF stream: header, IFD0 (`ifd0` entries plus the pointers), Exif IFD, GPS IFD,
    /// then the out-of-line values, word-aligned. Entries that would push the stream over
    /// `maxRepackedTIFF` are dropped with a warning.
    static func assemble(order: ByteOrder, ifd0: [Entry], exif: [Entry]?, gps: [Entry]?,
                         warnings: inout [String]) -> [UInt8] {
        var ifds = RepackedIFDs(ifd0: ifd0.sorted { $0.tag < $1.tag }, exif: exif?.sorted { $0.tag < $1.tag },
                                gps: gps?.sorted { $0.tag < $1.tag })
        ifds.fit(warnings: &warnings)
        var writer = TIFFWriter(order: order)
        let ifd0At = 8
        let exifAt = ifd0At + RepackedIFDs.ifdSize(ifds.ifd0.count + ifds.pointerCount)
        let gpsAt = exifAt + (ifds.exif.map { RepackedIFDs.ifdSize($0.count) } ?? 0)
        writer.dataAt = gpsAt + (ifds.gps.map { RepackedIFDs.ifdSize($0.count) } ?? 0)
        var pointers: [Entry] = []
        if ifds.exif != nil { pointers.append(Entry(tag: Tag.exifPointer, type: 4, count: 1, value: writer.u32(UInt32(exifAt)))) }
        if ifds.gps != nil { pointers.append(Entry(tag: Tag.gpsPointer, type: 4, count: 1, value: writer.u32(UInt32(gpsAt)))) }
        writer.out = order == .bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]
        writer.out += writer.u32(UInt32(ifd0At))
        writer.directory((ifds.ifd0 + pointers).sorted { $0.tag < $1.tag })
        if let exif = ifds.exif { writer.directory(exif) }
        if let gps = ifds.gps { writer.directory(gps) }
        return writer.out + writer.data
    }

    /// The three directories of a repacked stream, each sorted by tag (nil: not written).
    struct RepackedIFDs {
        var ifd0: [Entry]
        var exif: [Entry]?
        var gps: [Entry]?

        static func ifdSize(_ n: Int) -> Int { 2 + 12 * n + 4 }
        var pointerCount: Int { (exif != nil ? 1 : 0) + (gps != nil ? 1 : 0) }

        /// The stream's size: header, directories, out-of-line values word-aligned.
        var total: Int {
            let dirs = 8 + Self.ifdSize(ifd0.count + pointerCount) + (exif.map { Self.ifdSize($0.count) } ?? 0)
                + (gps.map { Self.ifdSize($0.count) } ?? 0)
            let values = (ifd0 + (exif ?? []) + (gps ?? [])).filter { !$0.isInline }.map { $0.value.count + ($0.value.count & 1) }
            return dirs + values.reduce(0, +)
        }

        /// Drops entries until the stream fits `maxRepackedTIFF`: the largest out-of-line values
        /// of the Exif IFD first (GPS and time values are small); only a crafted file gets here.
        mutating func fit(warnings: inout [String]) {
            while total > MetadataLimits.maxRepackedTIFF {
                if var entries = exif, let i = entries.indices.filter({ !entries[$0].isInline })
                    .max(by: { entries[$0].value.count < entries[$1].value.count }) {
                    warnings.append("Exif IFD tag 0x\(String(entries[i].tag, radix: 16, uppercase: true)) dropped: too much Exif data")
                    entries.remove(at: i)
                    exif = entries
                } else if exif?.isEmpty == false {
                    exif?.removeLast()
                } else if gps?.isEmpty == false {
                    gps?.removeLast()
                } else if !ifd0.isEmpty {
                    ifd0.removeLast()
                } else {
                    break
                }
            }
        }
    }

    /// Writes directories in one byte order, their out-of-line values gathered after them.
    struct TIFFWriter {
        let order: ByteOrder
        var out: [UInt8] = []
        var data: [UInt8] = []
        /// Where the next out-of-line value goes (absolute).
        var dataAt = 0

        func u16(_ v: UInt16) -> [UInt8] {
            order == .bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
        }
        func u32(_ v: UInt32) -> [UInt8] {
            let be = [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
            return order == .bigEndian ? be : Array(be.reversed())
        }

        mutating func directory(_ entries: [Entry]) {
            out += u16(UInt16(entries.count))
            for e in entries {
                out += u16(e.tag) + u16(e.type) + u32(e.count)
                if e.isInline {
                    out += e.value + [UInt8](repeating: 0, count: 4 - e.value.count)
                } else {
                    out += u32(UInt32(dataAt))
                    data += e.value
                    dataAt += e.value.count
                    if e.value.count & 1 == 1 {
                        data.append(0)
                        dataAt += 1
                    }
                }
            }
            out += u32(0)
        }
    }
}
