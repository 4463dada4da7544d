/// Resource limits of the ISOBMFF (HEIF/AVIF/CR3) walker.
extension MetadataLimits {
    /// Most boxes walked at one level (the top level of a file, or the children of one box).
    /// Stops a file made of millions of 8-byte `free` boxes from keeping a reader busy; real
    /// files have fewer than 20 at the top level and a few dozen inside `meta`.
    static let maxBoxes = 4_096
    /// Largest `meta` (or Canon `uuid`) box read into memory. Apple's 48-tile grids with
    /// thumbnails and depth maps have meta boxes of a few KiB to a few hundred KiB; stops a
    /// crafted size from making us read gigabytes.
    static let maxMetaBox = 16 * 1024 * 1024
    /// Most items listed in `iinf`, `iloc` or one `iref` reference. Real files have fewer than
    /// 200 (tiles, thumbnails, metadata); stops a 32-bit count from driving a long loop.
    static let maxItems = 16_384
    /// Largest Exif or XMP item assembled from its extents (bytes). Stops an `iloc` extent of
    /// gigabytes from being allocated; Exif items are normally < 64 KiB.
    static let maxItemBytes = 4 * 1024 * 1024
}

/// Finds the Exif and XMP items of HEIF, HEIC and AVIF files (docs/formats.md section 3),
/// and the GPS/Exif directories of Canon CR3 (section 3.6).
///
/// Reads box headers top-level box by box until `meta`, reads `meta` whole (capped), then only
/// the extents of the chosen items. Every box size is checked against its parent: a top-level
/// box running past the end of the file is `truncated`; a nested one past its parent is
/// `malformed`; size 0 means "to the end of the file" at the top level and "no more boxes"
/// inside a box (Canon writes it as a terminator); size 1 means a 64-bit size follows.
///
/// Decisions:
/// - Exif item: the one whose `cdsc` reference targets the primary item (`pitm`), else the first
///   `Exif` item in `iinf` order. Same rule for XMP.
/// - Items stored in another file (data_reference_index ≠ 0), by construction method 2, or with
///   an extent length of 0 ("to the end of the data") are skipped with a warning.
/// - Exif payload: u32 offset, then the TIFF header at 4 + offset. When it is not there, scan
///   forward from there in 4-byte steps (section 3.4), then byte by byte from the start of the
///   payload, with a warning.
/// - A `hdlr` other than `pict` is warned about, not refused.
enum HEIF {
    static let container = "HEIF"
    /// Canon's `uuid` user type inside `moov` (section 3.6).
    static let canonUUID: [UInt8] = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0,
                                     0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48]
    static let xmpContentType = "application/rdf+xml"

    typealias Box = ISOBox

    static func findMetadata<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> EmbeddedMetadata {
        var walk = ISOBoxWalker(from: 0, to: source.size, sizeZeroEnds: false, limit: MetadataLimits.maxBoxes)
        var isCR3 = false
        while let step = try walk.next(in: &source, context: container) {
            let box = try self.box(step, in: walk, boxes: "top-level boxes")
            switch box.name {
            case "ftyp":
                let brands = try source.reader(at: box.payloadStart, count: min(box.end - box.payloadStart, 1024), context: container)
                isCR3 = stride(from: box.payloadStart, to: brands.endOffset - 3, by: 4)
                    .contains { brands.matches(Array("crx ".utf8), at: $0) }
            case "meta":
                guard box.size <= MetadataLimits.maxMetaBox else {
                    throw MetadataError.limitExceeded(container: container, what: "'meta' box of \(box.size) bytes",
                                                      limit: MetadataLimits.maxMetaBox)
                }
                let meta = try source.reader(at: box.start, count: box.size, context: container)
                return try readMeta(meta, box: box, source: &source, warnings: &warnings)
            case "moov" where isCR3:
                if let found = try canonMetadata(in: &source, moov: box, warnings: &warnings) { return found }
            default:
                break
            }
        }
        warnings.append("no 'meta' box: no metadata")
        return EmbeddedMetadata()
    }

    // MARK: Boxes

    /// The box of a walk's step, or HEIF's error for the problem that ended the walk: every
    /// problem is fatal. At the top level (size 0 means "to the end of the file") a box or a
    /// header past the end is `truncated`; inside a box it is `malformed`. `boxes` names what
    /// the box limit counts.
    static func box(_ step: ISOBoxWalker.Step, in walk: ISOBoxWalker, boxes: String) throws -> Box {
        let topLevel = !walk.sizeZeroEnds
        switch step {
        case .box(let box, _):
            return box
        case .stop(.tooManyBoxes(let limit)):
            throw MetadataError.limitExceeded(container: container, what: boxes, limit: limit)
        case .stop(.strayBytes(let at, let count, _)):
            if topLevel {
                throw MetadataError.truncated(container: container, what: "box header at byte \(at)", endsAt: at + 8, fileSize: walk.end)
            }
            throw MetadataError.malformed(container: container, offset: at,
                                          reason: "\(count) stray bytes where a box header was expected")
        case .stop(.badHeader(let at, let type, .tooSmall(let size, let header))):
            throw MetadataError.malformed(container: container, offset: at,
                                          reason: "'\(ISOBox.name(type ?? 0))' box size \(size) is smaller than its \(header)-byte header")
        case .stop(.badHeader(let at, _, .truncatedHeader)):
            // Only a 64-bit size can be cut: the walker saw 8 bytes.
            throw MetadataError.outOfBounds(container: container, offset: at + 8, count: 8, end: walk.end)
        case .stop(.badHeader(let at, _, .pastParent(let box))):
            if box.end == Int.max {
                throw MetadataError.malformed(container: container, offset: at, reason: "'\(box.name)' box size is too large")
            }
            if topLevel {
                throw MetadataError.truncated(container: container, what: "'\(box.name)' box at byte \(at)",
                                              endsAt: box.end, fileSize: walk.end)
            }
            throw MetadataError.malformed(container: container, offset: at,
                                          reason: "'\(box.name)' box (\(box.size) bytes) runs past the end of its parent at byte \(walk.end)")
        }
    }

    /// The child boxes of `r` between `from` and `to` (size 0 ends them); every problem is an
    /// error (`box(_:in:boxes:)`).
    static func children(_ r: ByteReader, from: Int, to: Int) throws -> [Box] {
        var result: [Box] = []
        var walk = ISOBoxWalker(from: from, to: to, sizeZeroEnds: true, limit: MetadataLimits.maxBoxes)
        while let step = walk.next(in: r) {
            result.append(try box(step, in: walk, boxes: "boxes in one box"))
        }
        return result
    }

    /// Reads an unsigned big-endian integer of `size` bytes (0, 4 or 8) at `at`.
    static func uint(_ r: ByteReader, at: Int, size: Int) throws -> UInt64 {
        switch size {
        case 0: return 0
        case 2: return UInt64(try r.u16(at: at, .bigEndian))
        case 4: return UInt64(try r.u32(at: at, .bigEndian))
        default: return try r.u64(at: at, .bigEndian)
        }
    }

    /// A NUL-terminated string starting at `at`, ending at the NUL or at `end`; and the offset
    /// after it.
    static func cString(_ r: ByteReader, at: Int, end: Int) throws -> (String, Int) {
        var i = at
        var bytes: [UInt8] = []
        while i < end {
            let b = try r.u8(at: i)
            i += 1
            if b == 0 { break }
            bytes.append(b)
        }
        return (String(decoding: bytes, as: UTF8.self), i)
    }

    // MARK: meta

    struct ItemInfo: Equatable {
        var id: UInt32
        var type: String
        var contentType: String?
    }

    struct Extent: Equatable {
        var offset: UInt64
        var length: UInt64
    }

    struct ItemLocation: Equatable {
        var method: Int
        var dataReference: Int
        var extents: [Extent]
    }

    static func readMeta<S: ByteSource>(_ r: ByteReader, box meta: Box, source: inout S,
                                        warnings: inout [String]) throws -> EmbeddedMetadata {
        // `meta` is a full box: version and flags before the children (section 3.3).
        let boxes = try children(r, from: try r.add(meta.payloadStart, 4), to: meta.end)
        var found: [String: Box] = [:]
        for box in boxes {
            if found[box.name] == nil {
                found[box.name] = box
            } else if ["pitm", "iinf", "iloc", "iref", "idat"].contains(box.name) {
                warnings.append("second '\(box.name)' box at byte \(box.start) ignored")
            }
        }
        if let hdlr = found["hdlr"], hdlr.end - hdlr.payloadStart >= 12 {
            let handler = String(decoding: try r.bytes(at: hdlr.payloadStart + 8, count: 4), as: UTF8.self)
            if handler != "pict" { warnings.append("'meta' handler is '\(handler)', not 'pict'") }
        }
        let primary = try found["pitm"].map { try readPitm(r, $0) }
        let items = try found["iinf"].map { try readIinf(r, $0) } ?? []
        let references = try found["iref"].map { try readCdsc(r, $0) } ?? [:]

        func pick(_ matches: (ItemInfo) -> Bool) -> UInt32? {
            let candidates = items.filter(matches)
            if let primary, let linked = candidates.first(where: { references[$0.id]?.contains(primary) ?? false }) {
                return linked.id
            }
            return candidates.first?.id
        }
        let exifID = pick { $0.type == "Exif" }
        let xmpID = pick { $0.type == "mime" && $0.contentType == xmpContentType }
        let wanted = Set([exifID, xmpID].compactMap { $0 })
        guard !wanted.isEmpty else { return EmbeddedMetadata() }
        guard let iloc = found["iloc"] else {
            warnings.append("metadata items but no 'iloc' box")
            return EmbeddedMetadata()
        }
        let locations = try readIloc(r, iloc, wanted: wanted)
        let idat = found["idat"].map { $0.payloadStart..<$0.end }

        var result = EmbeddedMetadata()
        if let exifID {
            if let (data, map) = try itemData(exifID, "Exif", locations, idat: idat, meta: r, source: &source, warnings: &warnings) {
                result.exif = exifBlock(fromItem: data, map: map, warnings: &warnings)
            }
        }
        if let xmpID {
            result.xmp = try itemData(xmpID, "XMP", locations, idat: idat, meta: r, source: &source, warnings: &warnings)?.0
        }
        return result
    }

    static func fullBoxVersion(_ r: ByteReader, _ box: Box) throws -> UInt8 {
        try r.u8(at: box.payloadStart)
    }

    static func readPitm(_ r: ByteReader, _ box: Box) throws -> UInt32 {
        let version = try fullBoxVersion(r, box)
        return version == 0 ? UInt32(try r.u16(at: box.payloadStart + 4, .bigEndian)) : try r.u32(at: box.payloadStart + 4, .bigEndian)
    }

    static func readIinf(_ r: ByteReader, _ box: Box) throws -> [ItemInfo] {
        let box = try boxReader(r, box)
        let version = try fullBoxVersion(box.r, box.box)
        let countSize = version == 0 ? 2 : 4
        let count = Int(try uint(box.r, at: box.box.payloadStart + 4, size: countSize))
        let first = box.box.payloadStart + 4 + countSize
        // Fail fast: each `infe` is a box of at least 8 bytes.
        try checkRoom(count: count, each: 8, from: first, to: box.box.end, what: "'iinf' entries", at: box.box.start)
        var items: [ItemInfo] = []
        for infe in try children(box.r, from: first, to: box.box.end).prefix(count) where infe.name == "infe" {
            let v = try fullBoxVersion(box.r, infe)
            guard v >= 2 else { continue }  // versions 0 and 1 carry no item type
            let idSize = v == 2 ? 2 : 4
            var at = infe.payloadStart + 4
            let id = UInt32(try uint(box.r, at: at, size: idSize))
            at += idSize + 2  // item_protection_index
            let type = String(decoding: try box.r.bytes(at: at, count: 4), as: UTF8.self)
            at += 4
            var contentType: String?
            let (_, afterName) = try cString(box.r, at: at, end: infe.end)
            if type == "mime", afterName < infe.end {
                contentType = try cString(box.r, at: afterName, end: infe.end).0
            }
            items.append(ItemInfo(id: id, type: type, contentType: contentType))
        }
        return items
    }

    /// `cdsc` references: from item → the items it describes.
    static func readCdsc(_ r: ByteReader, _ box: Box) throws -> [UInt32: [UInt32]] {
        let box = try boxReader(r, box)
        let idSize = try fullBoxVersion(box.r, box.box) == 0 ? 2 : 4
        var result: [UInt32: [UInt32]] = [:]
        for ref in try children(box.r, from: box.box.payloadStart + 4, to: box.box.end) where ref.name == "cdsc" {
            var at = ref.payloadStart
            let from = UInt32(try uint(box.r, at: at, size: idSize))
            let count = Int(try box.r.u16(at: at + idSize, .bigEndian))
            at += idSize + 2
            try checkRoom(count: count, each: idSize, from: at, to: ref.end, what: "'cdsc' references", at: ref.start)
            for i in 0..<count {
                result[from, default: []].append(UInt32(try uint(box.r, at: at + i * idSize, size: idSize)))
            }
        }
        return result
    }

    /// Locations of the `wanted` items (section 3.3, `iloc` versions 0–2).
    static func readIloc(_ r: ByteReader, _ box: Box, wanted: Set<UInt32>) throws -> [UInt32: ItemLocation] {
        let box = try boxReader(r, box)
        var iloc = try IlocReader(box.r, box.box)
        var result: [UInt32: ItemLocation] = [:]
        for _ in 0..<iloc.count {
            let (id, location) = try iloc.nextItem(keepExtents: wanted)
            if let location, result[id] == nil { result[id] = location }
        }
        return result
    }

    /// The `iloc` box read item by item: its field sizes, then each item's entry.
    struct IlocReader {
        let b: ByteReader
        let box: Box
        let version: Int
        let offsetSize: Int, lengthSize: Int, baseOffsetSize: Int, indexSize: Int, idSize: Int
        let count: Int
        /// Where the next item's entry starts.
        var at: Int

        init(_ b: ByteReader, _ box: Box) throws {
            self.b = b
            self.box = box
            version = Int(try fullBoxVersion(b, box))
            guard version <= 2 else {
                throw MetadataError.malformed(container: container, offset: box.start, reason: "'iloc' version \(version)")
            }
            at = box.payloadStart + 4
            let sizes1 = try b.u8(at: at), sizes2 = try b.u8(at: at + 1)
            at += 2
            offsetSize = Int(sizes1 >> 4)
            lengthSize = Int(sizes1 & 0x0F)
            baseOffsetSize = Int(sizes2 >> 4)
            indexSize = version == 0 ? 0 : Int(sizes2 & 0x0F)
            for (name, value) in [("offset_size", offsetSize), ("length_size", lengthSize),
                                  ("base_offset_size", baseOffsetSize), ("index_size", indexSize)]
                where ![0, 4, 8].contains(value) {
                throw MetadataError.malformed(container: container, offset: box.start, reason: "'iloc' \(name) \(value)")
            }
            idSize = version == 2 ? 4 : 2
            count = Int(try uint(b, at: at, size: idSize))
            at += idSize
            // Fail fast on a count the box cannot hold (65,535 items in a 20-byte box).
            let minimumItem = idSize + (version >= 1 ? 2 : 0) + 2 + baseOffsetSize + 2
            try checkRoom(count: count, each: minimumItem, from: at, to: box.end, what: "'iloc' items", at: box.start)
            guard count <= MetadataLimits.maxItems else {
                throw MetadataError.limitExceeded(container: container, what: "\(count) items in 'iloc'", limit: MetadataLimits.maxItems)
            }
        }

        /// The next item's id, and its location when `keepExtents` holds it (its extents are
        /// walked over either way).
        mutating func nextItem(keepExtents wanted: Set<UInt32>) throws -> (UInt32, ItemLocation?) {
            let id = UInt32(try uint(b, at: at, size: idSize))
            at += idSize
            var method = 0
            if version >= 1 {
                method = Int(try b.u16(at: at, .bigEndian) & 0x000F)
                at += 2
            }
            let dataReference = Int(try b.u16(at: at, .bigEndian))
            at += 2
            let base = try uint(b, at: at, size: baseOffsetSize)
            at += baseOffsetSize
            let extentCount = Int(try b.u16(at: at, .bigEndian))
            at += 2
            try checkRoom(count: extentCount, each: indexSize + offsetSize + lengthSize, from: at, to: box.end,
                          what: "extents of item \(id)", at: box.start)
            var extents: [Extent] = []
            for _ in 0..<extentCount {
                at += indexSize
                let offset = try uint(b, at: at, size: offsetSize)
                let length = try uint(b, at: at + offsetSize, size: lengthSize)
                at += offsetSize + lengthSize
                guard wanted.contains(id) else { continue }
                let (sum, overflow) = base.addingReportingOverflow(offset)
                guard !overflow else {
                    throw MetadataError.malformed(container: container, offset: box.start,
                                                  reason: "item \(id): base offset + extent offset overflows")
                }
                extents.append(Extent(offset: sum, length: length))
            }
            guard wanted.contains(id) else { return (id, nil) }
            return (id, ItemLocation(method: method, dataReference: dataReference, extents: extents))
        }
    }

    /// The item's bytes, and a map from payload index to absolute file offset (start of each
    /// extent's bytes in the payload, and its file offset); nil (with a warning) when the item
    /// cannot be read by design.
    static func itemData<S: ByteSource>(_ id: UInt32, _ what: String, _ locations: [UInt32: ItemLocation],
                                        idat: Range<Int>?, meta: ByteReader, source: inout S,
                                        warnings: inout [String]) throws -> ([UInt8], [(index: Int, offset: Int)])? {
        guard let location = locations[id], let total = try readableLength(location, id, what, warnings: &warnings) else {
            if locations[id] == nil { warnings.append("\(what) item \(id) has no location in 'iloc'") }
            return nil
        }
        var data: [UInt8] = []
        data.reserveCapacity(Int(total))
        var map: [(index: Int, offset: Int)] = []
        for extent in location.extents {
            let length = Int(extent.length)
            let at: Int
            if location.method == 1 {
                at = try idatOffset(of: extent, idat: idat, meta: meta, id, what)
                data += try meta.bytes(at: at, count: length)
            } else {
                guard extent.offset <= UInt64(source.size), extent.length <= UInt64(source.size) - extent.offset else {
                    let end = extent.offset.addingReportingOverflow(extent.length)
                    throw MetadataError.truncated(container: container, what: "\(what) item \(id)",
                                                  endsAt: end.overflow ? Int.max : Int(clamping: end.partialValue),
                                                  fileSize: source.size)
                }
                at = Int(extent.offset)
                data += try source.reader(at: at, count: length, context: container).allBytes
            }
            map.append((data.count - length, at))
        }
        return (data, map)
    }

    /// The item's length when this reader can read it (in this file, construction method 0 or
    /// 1, extents of known length, within `maxItemBytes`); nil with a warning when it cannot.
    static func readableLength(_ location: ItemLocation, _ id: UInt32, _ what: String,
                               warnings: inout [String]) throws -> UInt64? {
        guard location.dataReference == 0 else {
            warnings.append("\(what) item \(id) is stored in another file: skipped")
            return nil
        }
        guard location.method == 0 || location.method == 1 else {
            warnings.append("\(what) item \(id) uses construction method \(location.method): skipped")
            return nil
        }
        guard !location.extents.isEmpty else {
            warnings.append("\(what) item \(id) has no extents")
            return nil
        }
        var total: UInt64 = 0
        for extent in location.extents {
            guard extent.length > 0 else {
                warnings.append("\(what) item \(id) has an extent of length 0 (\"to the end\"): skipped")
                return nil
            }
            total += min(extent.length, UInt64(MetadataLimits.maxItemBytes) + 1)
            guard total <= UInt64(MetadataLimits.maxItemBytes) else {
                throw MetadataError.limitExceeded(container: container, what: "\(what) item of more than \(MetadataLimits.maxItemBytes) bytes",
                                                  limit: MetadataLimits.maxItemBytes)
            }
        }
        return total
    }

    /// The absolute offset of an extent stored in `idat` (construction method 1).
    static func idatOffset(of extent: Extent, idat: Range<Int>?, meta: ByteReader, _ id: UInt32, _ what: String) throws -> Int {
        guard let idat else {
            throw MetadataError.malformed(container: container, offset: meta.range.lowerBound,
                                          reason: "\(what) item \(id) is in 'idat' but there is no 'idat' box")
        }
        guard extent.offset <= UInt64(idat.count), extent.length <= UInt64(idat.count) - extent.offset else {
            throw MetadataError.malformed(container: container, offset: idat.lowerBound,
                                          reason: "\(what) item \(id) extent runs past the end of 'idat'")
        }
        return idat.lowerBound + Int(extent.offset)
    }

    /// Strips the Exif item's offset prefix (section 3.4).
    static func exifBlock(fromItem data: [UInt8], map: [(index: Int, offset: Int)], warnings: inout [String]) -> ExifBlock? {
        let r = ByteReader(data, context: "Exif item")
        guard let declared = try? r.u32(at: 0, .bigEndian) else {
            warnings.append("Exif item of \(data.count) bytes is too short")
            return nil
        }
        func isHeader(_ i: Int) -> Bool { JPEG.isTIFFHeader(r, at: i) }
        var start: Int?
        let expected = 4 + Int(declared)
        if declared <= UInt32(data.count), isHeader(expected) {
            start = expected
        } else {
            if declared <= UInt32(data.count) {
                start = stride(from: expected, to: data.count - 3, by: 4).first(where: isHeader)
            }
            if start == nil {
                start = (4..<max(4, data.count - 3)).first(where: isHeader)
            }
            if let start {
                warnings.append("Exif item's TIFF header offset \(declared) is wrong; header found at \(start - 4)")
            }
        }
        guard let start else {
            warnings.append("Exif item has no TIFF header")
            return nil
        }
        let base = map.last(where: { $0.index <= start }) ?? (0, 0)
        return ExifBlock(tiff: Array(data[start...]), offset: base.offset + (start - base.index))
    }

    /// A reader limited to the box (its bytes are already in `r`).
    static func boxReader(_ r: ByteReader, _ box: Box) throws -> (r: ByteReader, box: Box) {
        (try r.child(at: box.start, count: box.size), box)
    }

    /// Throws when `count` records of `each` bytes cannot fit between `from` and `to`.
    static func checkRoom(count: Int, each: Int, from: Int, to: Int, what: String, at: Int) throws {
        guard each > 0 else { return }
        let room = max(0, to - from) / each
        guard count <= room else {
            throw MetadataError.malformed(container: container, offset: at,
                                          reason: "\(count) \(what) announced, room for at most \(room)")
        }
    }

    // MARK: Canon CR3 (section 3.6)

    /// `moov` → Canon `uuid` → `CMT2` (Exif IFD as IFD0) and `CMT4` (GPS IFD as IFD0), re-packed
    /// as one TIFF. nil when there is no Canon box.
    static func canonMetadata<S: ByteSource>(in source: inout S, moov: Box,
                                             warnings: inout [String]) throws -> EmbeddedMetadata? {
        var walk = ISOBoxWalker(from: moov.payloadStart, to: moov.end, sizeZeroEnds: true, limit: MetadataLimits.maxBoxes)
        while let step = try walk.next(in: &source, context: container) {
            // Bytes too few for a header at the end of `moov` end it, as size 0 does.
            if case .stop(.strayBytes) = step { break }
            let box = try self.box(step, in: walk, boxes: "boxes in 'moov'")
            if box.name == "uuid", case .box(_, let head) = step, head.matches(canonUUID, at: box.payloadStart - 16) {
                guard box.size <= MetadataLimits.maxMetaBox else {
                    throw MetadataError.limitExceeded(container: container, what: "Canon 'uuid' box of \(box.size) bytes",
                                                      limit: MetadataLimits.maxMetaBox)
                }
                let r = try source.reader(at: box.start, count: box.size, context: container)
                var streams: [String: [UInt8]] = [:]
                for child in try children(r, from: box.payloadStart, to: box.end) where child.name == "CMT2" || child.name == "CMT4" {
                    if streams[child.name] == nil { streams[child.name] = try r.bytes(at: child.payloadStart, count: child.end - child.payloadStart) }
                }
                return EmbeddedMetadata(exif: try canonExif(cmt2: streams["CMT2"], cmt4: streams["CMT4"], warnings: &warnings))
            }
        }
        return nil
    }

    /// Builds one TIFF from the CMT2 and CMT4 streams (each a TIFF whose IFD0 *is* that IFD).
    static func canonExif(cmt2: [UInt8]?, cmt4: [UInt8]?, warnings: inout [String]) throws -> ExifBlock? {
        func directory(_ stream: [UInt8]?, _ name: String) throws -> (ByteOrder, [TIFF.Entry])? {
            guard let stream else { return nil }
            let r = ByteReader(stream, context: name)
            let order: ByteOrder
            if r.matches([0x49, 0x49, 0x2A, 0x00], at: 0) {
                order = .littleEndian
            } else if r.matches([0x4D, 0x4D, 0x00, 0x2A], at: 0) {
                order = .bigEndian
            } else {
                warnings.append("\(name) is not a TIFF stream: ignored")
                return nil
            }
            let ifd = Int(try r.u32(at: 4, order))
            var memory = MemorySource(stream)
            let entries = try TIFF.readIFD(in: &memory, at: ifd, order: order, name: name, warnings: &warnings, keep: {
                $0 != TIFF.Tag.makerNote && $0 != TIFF.Tag.interopPointer
                    && $0 != TIFF.Tag.exifPointer && $0 != TIFF.Tag.gpsPointer
            })
            return (order, entries)
        }
        var exif = try directory(cmt2, "CMT2")
        let gps = try directory(cmt4, "CMT4")
        if let e = exif, let g = gps, e.0 != g.0 {
            warnings.append("CR3 CMT2 and CMT4 differ in byte order: capture time not read")
            exif = nil
        }
        guard let order = gps?.0 ?? exif?.0 else { return nil }
        let tiff = TIFF.assemble(order: order, ifd0: [], exif: exif?.1, gps: gps?.1, warnings: &warnings)
        return ExifBlock(tiff: tiff, offset: 0)
    }
}

