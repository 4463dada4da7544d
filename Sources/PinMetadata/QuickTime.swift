import Foundation
import PinCore

/// What the QuickTime/MP4 walker found, as raw values (docs/formats.md section 5).
struct QuickTimeValues: Sendable, Hashable {
    /// `com.apple.quicktime.location.ISO6709` from `meta` with the `mdta` handler (section 5.4).
    var keysLocation: String?
    /// `com.apple.quicktime.creationdate` from the same place.
    var keysCreationDate: String?
    /// `©xyz` text in a `udta` (section 5.3, Android, older iPhones, ExifTool `UserData`).
    var userDataLocation: String?
    /// `©xyz` item of an iTunes-style `udta/meta` `ilst` (Google Photos, ExifTool `ItemList`).
    var itemListLocation: String?
    /// 3GPP `loci` (latitude, longitude, altitude in 16.16 fixed point), as ffmpeg writes for
    /// MP4 and 3GP.
    var loci: LocationInformation?
    /// `©day` text in a `udta` (section 9.12: ISO 8601, often with an offset; ffmpeg writes
    /// `-metadata date=` there for MOV).
    var userDataDate: String?
    /// `©day` item of an iTunes-style `udta/meta` `ilst` (ffmpeg's MP4 `date`).
    var itemListDate: String?
    /// `date` text in a `udta` (ExifTool's `UserData:DateTimeOriginal`: ISO 8601 with an offset,
    /// `2019-07-14T10:11:12+0200`, from some cameras and phones), stored bare or as a
    /// QuickTime user-data text.
    var userDataDateTimeOriginal: String?
    /// `mvhd` creation_time: seconds since 1904-01-01 (0 = unset), section 5.2.
    var movieCreationTime: UInt64?
    /// `mvhd` duration in seconds (duration / timescale), for a video's placeholder.
    var movieDuration: Double?
    /// An XMP packet: top-level `uuid` BE7ACFCB-… (MP4) or `udta/XMP_` (MOV).
    var xmp: [UInt8]?
    /// Bytes that identify the movie's metadata (`mvhd` payload and the values above).
    var digestInput: [UInt8] = []

    struct LocationInformation: Sendable, Hashable {
        var latitude: Double
        var longitude: Double
        var altitude: Double
    }
}

/// Resource limits of the QuickTime/MP4 walker; each stops one way a crafted file could make it
/// loop, recurse or allocate without bound. All are far above what cameras and phones write.
extension MetadataLimits {
    /// Most top-level boxes walked. Stops a file of millions of empty `free` boxes (or a
    /// fragmented MP4 with thousands of `moof`/`mdat` pairs) from costing millions of reads;
    /// after `moov` has been read the walk simply stops there.
    static let maxMovieTopLevelBoxes = 4_096
    /// Most boxes visited below the top level (all containers together). Stops a `udta`
    /// filled with thousands of tiny atoms from keeping the reader busy.
    static let maxMovieNestedBoxes = 16_384
    /// Deepest container nesting followed (`moov/udta/meta/ilst/item/data` is 6). Stops a
    /// chain of nested `udta`/`meta` boxes from recursing without bound.
    static let maxMovieDepth = 8
    /// Largest `udta` or `meta` payload read into memory (bytes). Stops a crafted box
    /// claiming hundreds of megabytes (or a camera thumbnail in `udta`) from being read;
    /// an iPhone `meta` is a few KiB.
    static let maxMovieAtomPayload = 1024 * 1024
    /// Largest XMP packet read from a `uuid` or `XMP_` box (bytes). Stops an XMP box that
    /// carries a huge embedded preview from being read and parsed.
    static let maxMovieXMPPayload = 2 * 1024 * 1024
    /// Most `keys` entries read. Stops an entry count of four billion from looping.
    static let maxMovieKeys = 4_096
    /// Longest metadata text kept (bytes): a location or a date is under 64.
    static let maxMovieTextLength = 1_024
}

/// Reads position and capture time from QuickTime MOV and ISO MP4/M4V/3GP files (section 5).
///
/// Reads only box headers at the top level and inside `moov`, plus the payloads of the few
/// small boxes that matter (`mvhd`, `udta`, `meta`, an XMP `uuid`); never `mdat` or the sample
/// tables under `trak`, so a 4 GiB video costs a few KiB of reads wherever its `moov` sits.
///
/// Decisions:
/// - top level: size 1 → 64-bit size; size 0 → to the end of the file; any other size < 8
///   is malformed. A box that runs past the end of the file is fatal unless `moov` has
///   already been read (a video cut in its media data still has its metadata); `moov` itself
///   must be complete.
/// - inside `moov`: a child with an impossible size ends the walk of that container with a
///   warning (what was found before it is kept); size 0 inside a box is a terminator, as
///   Canon writes it and ExifTool tolerates.
/// - `meta` with or without the full-box version field (peek for `hdlr`, section 5.4).
enum QuickTime {
    static let container = "QuickTime"

    static let xmpUUID: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8,
                                   0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]
    static let locationKey = "com.apple.quicktime.location.ISO6709"
    static let creationDateKey = "com.apple.quicktime.creationdate"
    /// Seconds from 1904-01-01 to 1970-01-01 (section 5.2).
    static let epochOffset1904: UInt64 = 2_082_844_800

    static func code(_ text: String) -> UInt32 { ISOBox.code(text) }

    static let moov = code("moov"), mvhd = code("mvhd"), udta = code("udta"), meta = code("meta")
    static let hdlr = code("hdlr"), keys = code("keys"), ilst = code("ilst"), data = code("data")
    static let uuid = code("uuid"), mdat = code("mdat"), xmpAtom = code("XMP_"), loci = code("loci")
    static let mdta = code("mdta")
    /// `©xyz`: 0xA9 'x' 'y' 'z'.
    static let xyz: UInt32 = 0xA978_797A
    /// `©day`: 0xA9 'd' 'a' 'y'.
    static let day: UInt32 = 0xA964_6179
    /// `date` (no ©): the capture time some cameras and phones write in `udta`.
    static let dateAtom = code("date")

    typealias Box = ISOBox

    // MARK: Walking the file

    static func read<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> QuickTimeValues {
        var values = QuickTimeValues()
        var nested = 0
        var sawMoov = false
        // A `uuid` too small for its user type is read as a plain box (ExifTool reads past it).
        var walk = ISOBoxWalker(from: 0, to: source.size, sizeZeroEnds: false, lenientUUID: true,
                                limit: MetadataLimits.maxMovieTopLevelBoxes)
        while let step = try walk.next(in: &source, context: container) {
            guard case .box(let box, _) = step else {
                if case .stop(let reason) = step {
                    try topLevelStop(reason, sawMoov: sawMoov, fileSize: source.size, warnings: &warnings)
                }
                break
            }
            if box.type == moov {
                if sawMoov {
                    warnings.append("a second 'moov' box at byte \(box.start): ignored")
                } else {
                    sawMoov = true
                    try readMoov(box, source: &source, values: &values, nested: &nested, warnings: &warnings)
                }
            } else if box.type == uuid, values.xmp == nil {
                try readXMPUUID(box, in: &source, values: &values, warnings: &warnings)
            }
        }
        if !sawMoov { warnings.append("no 'moov' box: the file has no movie metadata") }
        return values
    }

    /// Where the top-level walk stopped: after the `moov`, the file's end is noted and what was
    /// read stands; before it, the file is malformed or cut (thrown).
    static func topLevelStop(_ reason: ISOBoxWalker.Problem, sawMoov: Bool, fileSize size: Int,
                             warnings: inout [String]) throws {
        switch reason {
        case .tooManyBoxes(let limit):
            if sawMoov { return }
            throw MetadataError.limitExceeded(container: container, what: "top-level boxes before moov", limit: limit)
        case .strayBytes(let offset, let available, _):
            guard sawMoov else { throw MetadataError.endOfFile(container: container, offset: offset, expected: "a box header") }
            warnings.append("\(available) stray byte\(available == 1 ? "" : "s") at the end of the file (byte \(offset))")
        case .badHeader(let offset, let code, let problem):
            let type = code.map(typeName) ?? "?"
            switch problem {
            case .tooSmall(let n, _):
                guard sawMoov else {
                    throw MetadataError.malformed(container: container, offset: offset,
                                                  reason: "'\(type)' box size \(n) is smaller than its header")
                }
                warnings.append("top-level '\(type)' box at byte \(offset) has size \(n): stopped there")
            case .pastParent(let pastBox):
                guard sawMoov, type != "moov" else {
                    throw MetadataError.truncated(container: container, what: "'\(type)' box at byte \(offset)",
                                                  endsAt: pastBox.end, fileSize: size)
                }
                warnings.append("file truncated: '\(type)' box at byte \(offset) ends at byte \(pastBox.end) but the file has \(size) bytes")
            case .truncatedHeader:
                guard sawMoov else {
                    throw MetadataError.endOfFile(container: container, offset: offset, expected: "a 64-bit box size")
                }
                warnings.append("file truncated in a box header at byte \(offset)")
            }
        }
    }

    /// A top-level `uuid` box with the XMP user type: its payload is the XMP packet.
    static func readXMPUUID<S: ByteSource>(_ box: Box, in source: inout S, values: inout QuickTimeValues,
                                           warnings: inout [String]) throws {
        guard box.headerSize == 24 || box.headerSize == 32,
              try source.reader(at: box.payloadStart - 16, count: 16, context: container)
                  .matches(xmpUUID, at: box.payloadStart - 16) else { return }
        if box.payloadCount <= MetadataLimits.maxMovieXMPPayload {
            values.xmp = try source.reader(at: box.payloadStart, count: box.payloadCount, context: container).allBytes
        } else {
            warnings.append("XMP 'uuid' box at byte \(box.start) is \(box.payloadCount) bytes: over the limit, skipped")
        }
    }

    /// Walks the children of `moov` by their headers; reads only `mvhd`, `udta` and `meta`.
    static func readMoov<S: ByteSource>(_ moovBox: Box, source: inout S, values: inout QuickTimeValues,
                                        nested: inout Int, warnings: inout [String]) throws {
        var walk = ISOBoxWalker(from: moovBox.payloadStart, to: moovBox.end, sizeZeroEnds: true, lenientUUID: true,
                                limit: MetadataLimits.maxMovieNestedBoxes)
        while let step = try walk.next(in: &source, context: container, counting: &nested) {
            let box: Box
            switch step {
            case .box(let found, _):
                box = found
            case .stop(.tooManyBoxes(let limit)):
                throw MetadataError.limitExceeded(container: container, what: "boxes inside moov", limit: limit)
            case .stop(.strayBytes(let offset, _, _)):
                warnings.append(describe(.truncatedHeader, at: offset, type: nil, parent: "moov"))
                return
            case .stop(.badHeader(let offset, let type, let problem)):
                warnings.append(describe(problem, at: offset, type: type, parent: "moov"))
                return
            }
            switch box.type {
            case mvhd:
                let count = min(box.payloadCount, 32)
                let payload = try source.reader(at: box.payloadStart, count: count, context: container)
                values.movieCreationTime = movieCreationTime(payload, warnings: &warnings)
                values.movieDuration = movieDuration(payload)
                values.digestInput += payload.allBytes
            case udta, meta:
                if box.payloadCount > MetadataLimits.maxMovieAtomPayload {
                    warnings.append("'\(box.name)' box at byte \(box.start) is \(box.payloadCount) bytes: over the limit, skipped")
                } else {
                    let payload = try source.reader(at: box.payloadStart, count: box.payloadCount, context: container)
                    if box.type == udta {
                        parseUserData(payload, depth: 1, values: &values, nested: &nested, warnings: &warnings)
                    } else {
                        parseMeta(payload, depth: 1, values: &values, nested: &nested, warnings: &warnings)
                    }
                }
            default:
                break  // trak (sample tables), iods, …: never read
            }
        }
    }

    /// The warning for a bad header inside `parent`: the rest of `parent` is skipped.
    static func describe(_ problem: ISOBox.Problem, at offset: Int, type code: UInt32?, parent: String) -> String {
        let type = code.map(typeName) ?? "?"
        switch problem {
        case .tooSmall(let n, _):
            return "'\(type)' box at byte \(offset) in '\(parent)' has size \(n), smaller than its header: rest of '\(parent)' skipped"
        case .pastParent(let box):
            let end = box.end
            return "'\(type)' box at byte \(offset) ends at byte \(end), past its parent '\(parent)': rest of '\(parent)' skipped"
        case .truncatedHeader:
            return "'\(parent)' ends inside a box header at byte \(offset): rest skipped"
        }
    }

    /// The children of an in-memory container, stopping (with a warning) at the first header
    /// that does not fit and at a size-0 terminator.
    static func children(_ r: ByteReader, parent: String, nested: inout Int,
                         warnings: inout [String]) -> [Box] {
        var boxes: [Box] = []
        var walk = ISOBoxWalker(from: r.range.lowerBound, to: r.endOffset, sizeZeroEnds: true, lenientUUID: true,
                                limit: MetadataLimits.maxMovieNestedBoxes)
        while let step = walk.next(in: r, counting: &nested) {
            switch step {
            case .box(let box, _):
                boxes.append(box)
            case .stop(.tooManyBoxes(let limit)):
                warnings.append("more than \(limit) boxes inside moov: rest skipped")
            case .stop(.strayBytes(let offset, let count, let allZero)):
                // Trailing padding (QuickTime allows a 32-bit zero terminator in udta).
                if !allZero { warnings.append("'\(parent)' ends with \(count) stray bytes at byte \(offset)") }
            case .stop(.badHeader(let offset, let type, let problem)):
                warnings.append(describe(problem, at: offset, type: type, parent: parent))
            }
        }
        return boxes
    }

    // MARK: udta, meta, keys, ilst

    static func parseUserData(_ r: ByteReader, depth: Int, values: inout QuickTimeValues, nested: inout Int,
                              warnings: inout [String]) {
        guard depth <= MetadataLimits.maxMovieDepth else {
            warnings.append("boxes nested deeper than \(MetadataLimits.maxMovieDepth) levels: skipped")
            return
        }
        for box in children(r, parent: "udta", nested: &nested, warnings: &warnings) {
            guard let payload = try? r.child(at: box.payloadStart, count: box.payloadCount) else { continue }
            switch box.type {
            case xyz:
                if values.userDataLocation == nil, let text = userDataText(payload) {
                    values.userDataLocation = text
                    values.digestInput += Array(text.utf8)
                }
            case day:
                if values.userDataDate == nil, let text = userDataText(payload) {
                    values.userDataDate = text
                    values.digestInput += Array(text.utf8)
                }
            case dateAtom:
                if values.userDataDateTimeOriginal == nil, let text = bareOrUserDataText(payload) {
                    values.userDataDateTimeOriginal = text
                    values.digestInput += Array(text.utf8)
                }
            case meta:
                parseMeta(payload, depth: depth + 1, values: &values, nested: &nested, warnings: &warnings)
            case udta:
                parseUserData(payload, depth: depth + 1, values: &values, nested: &nested, warnings: &warnings)
            case xmpAtom:
                if values.xmp == nil {
                    if payload.count <= MetadataLimits.maxMovieXMPPayload {
                        values.xmp = payload.allBytes
                    } else {
                        warnings.append("'XMP_' box at byte \(box.start) is over the limit: skipped")
                    }
                }
            case loci:
                if values.loci == nil, let position = locationInformation(payload) {
                    values.loci = position
                    values.digestInput += payload.allBytes.prefix(64)
                }
            default:
                break
            }
        }
    }

    /// A QuickTime user-data text (section 5.3): u16 length, u16 language, the bytes. The
    /// length may disagree with the box by a byte or two: the smaller wins. Some writers put
    /// a `data` atom there instead; that is read too.
    static func userDataText(_ r: ByteReader) -> String? {
        let base = r.range.lowerBound
        if r.count >= 16, r.matches(Array("data".utf8), at: base + 4) {
            var count = 0
            return itemText(r, nested: &count)
        }
        guard r.count >= 4, let length = try? Int(r.u16(at: base, .bigEndian)) else { return nil }
        let count = min(length, r.count - 4, MetadataLimits.maxMovieTextLength)
        guard let bytes = try? r.bytes(at: base + 4, count: count) else { return nil }
        return text(bytes)
    }

    /// A text atom that may hold the bare text (ExifTool writes `udta/date` so: the date's
    /// first byte is a digit) or a user-data text (u16 length first, whose high byte is 0 for
    /// any length a date needs).
    static func bareOrUserDataText(_ r: ByteReader) -> String? {
        guard let first = try? r.u8(at: r.range.lowerBound) else { return nil }
        guard (0x30...0x39).contains(first) else { return userDataText(r) }
        guard let bytes = try? r.bytes(at: r.range.lowerBound, count: min(r.count, MetadataLimits.maxMovieTextLength)) else { return nil }
        return text(bytes)
    }

    /// Text bytes: UTF-8 with trailing NULs and white space removed; nil when empty.
    static func text(_ bytes: [UInt8]) -> String? {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0 || bytes[end - 1] == 0x20 { end -= 1 }
        guard end > 0 else { return nil }
        return String(decoding: bytes[0..<end], as: UTF8.self)
    }

    static func parseMeta(_ r: ByteReader, depth: Int, values: inout QuickTimeValues, nested: inout Int,
                          warnings: inout [String]) {
        guard depth <= MetadataLimits.maxMovieDepth else {
            warnings.append("boxes nested deeper than \(MetadataLimits.maxMovieDepth) levels: skipped")
            return
        }
        // Apple's container form starts with a child box (`hdlr`); the ISO full box has four
        // version/flags bytes first (section 5.4).
        var start = r.range.lowerBound
        if !r.matches(Array("hdlr".utf8), at: start + 4) { start += 4 }
        guard start <= r.endOffset, let body = try? r.child(at: start, count: r.endOffset - start) else { return }
        var handler: UInt32?
        var keyNames: [UInt32: String] = [:]
        var items: [(key: UInt32, box: Box)] = []
        var ilstReader: ByteReader?
        for box in children(body, parent: "meta", nested: &nested, warnings: &warnings) {
            guard let payload = try? body.child(at: box.payloadStart, count: box.payloadCount) else { continue }
            switch box.type {
            case hdlr:
                // version/flags (4), pre_defined (4), handler_type (4).
                handler = try? payload.u32(at: payload.range.lowerBound + 8, .bigEndian)
            case keys:
                keyNames = parseKeys(payload, warnings: &warnings)
            case ilst:
                ilstReader = payload
                items = children(payload, parent: "ilst", nested: &nested, warnings: &warnings).map { ($0.type, $0) }
            case udta:
                parseUserData(payload, depth: depth + 1, values: &values, nested: &nested, warnings: &warnings)
            default:
                break
            }
        }
        guard let ilstReader else { return }
        for (key, box) in items {
            guard let item = try? ilstReader.child(at: box.payloadStart, count: box.payloadCount) else { continue }
            if handler == mdta {
                guard let name = keyNames[key] else { continue }
                if name == locationKey, values.keysLocation == nil, let text = itemText(item, nested: &nested) {
                    values.keysLocation = text
                    values.digestInput += Array(text.utf8)
                } else if name == creationDateKey, values.keysCreationDate == nil,
                          let text = itemText(item, nested: &nested) {
                    values.keysCreationDate = text
                    values.digestInput += Array(text.utf8)
                }
            } else if key == xyz, values.itemListLocation == nil, let text = itemText(item, nested: &nested) {
                values.itemListLocation = text
                values.digestInput += Array(text.utf8)
            } else if key == day, values.itemListDate == nil, let text = itemText(item, nested: &nested) {
                values.itemListDate = text
                values.digestInput += Array(text.utf8)
            }
        }
    }

    /// `keys` (section 5.4): version/flags, entry_count, then key_size (counting itself and the
    /// namespace), namespace, name. Index i (1-based) → name, for the `mdta` namespace only.
    static func parseKeys(_ r: ByteReader, warnings: inout [String]) -> [UInt32: String] {
        let base = r.range.lowerBound
        guard let count = try? r.u32(at: base + 4, .bigEndian) else { return [:] }
        var names: [UInt32: String] = [:]
        var offset = base + 8
        var index: UInt32 = 0
        while index < count {
            index += 1
            guard index <= UInt32(MetadataLimits.maxMovieKeys) else {
                warnings.append("'keys' lists \(count) entries: only the first \(MetadataLimits.maxMovieKeys) read")
                break
            }
            guard let size = try? Int(r.u32(at: offset, .bigEndian)), size >= 8, size <= r.endOffset - offset,
                  let namespace = try? r.u32(at: offset + 4, .bigEndian),
                  let name = try? r.bytes(at: offset + 8, count: min(size - 8, MetadataLimits.maxMovieTextLength)) else {
                warnings.append("'keys' entry \(index) at byte \(offset) does not fit: rest of 'keys' skipped")
                break
            }
            if namespace == mdta { names[index] = String(decoding: name, as: UTF8.self) }
            offset += size
        }
        return names
    }

    /// The text of the first `data` atom of an `ilst` item (section 5.4): type 1 (UTF-8), 2
    /// (UTF-16BE), or 0 (implicit, read as UTF-8); trailing NULs removed.
    static func itemText(_ item: ByteReader, nested: inout Int) -> String? {
        var ignored: [String] = []
        for box in children(item, parent: "ilst item", nested: &nested, warnings: &ignored) where box.type == data {
            guard box.payloadCount >= 8, let indicator = try? item.u32(at: box.payloadStart, .bigEndian) else { continue }
            let count = min(box.payloadCount - 8, MetadataLimits.maxMovieTextLength)
            guard let bytes = try? item.bytes(at: box.payloadStart + 8, count: count) else { continue }
            switch indicator & 0x00FF_FFFF {
            case 0, 1:
                return text(bytes)
            case 2:
                var units: [UInt16] = []
                var i = 0
                while i + 1 < bytes.count {
                    units.append(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]))
                    i += 2
                }
                return text(Array(String(decoding: units, as: UTF16.self).utf8))
            default:
                continue
            }
        }
        return nil
    }

    /// 3GPP `loci` (TS 26.244): version/flags (4), language (2), name (NUL-terminated, or
    /// UTF-16 with a BOM ending in a 16-bit NUL), role (1), longitude, latitude, altitude
    /// (signed 16.16 fixed point each).
    static func locationInformation(_ r: ByteReader) -> QuickTimeValues.LocationInformation? {
        let base = r.range.lowerBound
        var offset = base + 6
        guard offset < r.endOffset else { return nil }
        if r.matches([0xFE, 0xFF], at: offset) || r.matches([0xFF, 0xFE], at: offset) {
            offset += 2
            while offset + 1 < r.endOffset, !r.matches([0, 0], at: offset) { offset += 2 }
            offset += 2
        } else {
            while offset < r.endOffset, (try? r.u8(at: offset)) != 0 { offset += 1 }
            offset += 1
        }
        offset += 1  // role
        guard let lon = try? r.u32(at: offset, .bigEndian), let lat = try? r.u32(at: offset + 4, .bigEndian),
              let alt = try? r.u32(at: offset + 8, .bigEndian) else { return nil }
        func fixed(_ v: UInt32) -> Double { Double(Int32(bitPattern: v)) / 65_536 }
        return QuickTimeValues.LocationInformation(latitude: fixed(lat), longitude: fixed(lon), altitude: fixed(alt))
    }

    /// `mvhd` creation_time (section 5.2): v0 u32 at payload offset 4, v1 u64 at offset 4.
    static func movieCreationTime(_ payload: ByteReader, warnings: inout [String]) -> UInt64? {
        let base = payload.range.lowerBound
        guard let version = try? payload.u8(at: base) else { return nil }
        switch version {
        case 0: return (try? payload.u32(at: base + 4, .bigEndian)).map(UInt64.init)
        case 1: return try? payload.u64(at: base + 4, .bigEndian)
        default:
            warnings.append("'mvhd' version \(version) is unknown: creation time not read")
            return nil
        }
    }

    /// `mvhd` duration (ISO/IEC 14496-12 8.2.2): v0 u32 timescale at payload offset 12 and u32
    /// duration at 16; v1 u32 timescale at 20 and u64 duration at 24. nil when unset (0 or all
    /// ones: "unknown") or the timescale is 0.
    static func movieDuration(_ payload: ByteReader) -> Double? {
        let base = payload.range.lowerBound
        guard let version = try? payload.u8(at: base) else { return nil }
        let scale: UInt32?, duration: UInt64?
        switch version {
        case 0: (scale, duration) = (try? payload.u32(at: base + 12, .bigEndian), (try? payload.u32(at: base + 16, .bigEndian)).map { $0 == .max ? 0 : UInt64($0) })
        case 1: (scale, duration) = (try? payload.u32(at: base + 20, .bigEndian), (try? payload.u64(at: base + 24, .bigEndian)).map { $0 == .max ? 0 : $0 })
        default: return nil
        }
        guard let scale, scale > 0, let duration, duration > 0 else { return nil }
        return Double(duration) / Double(scale)
    }

    // MARK: Interpreting

    /// `mvhd` seconds → Unix seconds: 0 is unset; below 2,082,844,800 the writer used the 1970
    /// epoch by mistake (as ExifTool assumes); otherwise subtract the 1904 offset.
    static func unixTime(mvhd value: UInt64) -> Double? {
        guard value != 0 else { return nil }
        let unix = value < epochOffset1904 ? Double(value) : Double(value - epochOffset1904)
        // A 64-bit (version 1) value can claim any date; past the year 9999 it is noise.
        return unix < 253_402_300_800 ? unix : nil
    }

    /// Builds the result. Position: embedded XMP, then `mdta` keys, then `©xyz` (user data,
    /// then item list), then `loci`. Time: the best step of section 7 among embedded XMP,
    /// `creationdate`, `udta/date` and `©day` (with zone: step 2; without: step 5) and `mvhd`
    /// (step 4).
    static func metadata(_ values: QuickTimeValues, fileSize: Int, warnings: [String],
                         modificationTime: Date?, options: MetadataOptions) -> PhotoMetadata {
        var result = PhotoMetadata(format: .quicktime, warnings: warnings)
        if !values.digestInput.isEmpty {
            result.storedDigest = .value(FNV1a64.hash(values.digestInput + Array(String(fileSize).utf8)))
        }

        position(values, into: &result)
        captureTime(values, options: options, into: &result)

        // Embedded XMP ranks above the video atoms (MetadataMerge).
        if let packet = values.xmp {
            if let xmp = XMP.parse(packet, options: options) {
                result = MetadataMerge.applyEmbeddedXMP(xmp, toMovie: result)
            } else {
                result.warnings.append("QuickTime XMP box holds no XMP packet")
            }
        }
        if result.takenAt == nil, let modificationTime {
            result.takenAt = modificationTime
            result.timeSource = .fileModification
        }
        return result
    }

    /// The position: `mdta` keys, then `©xyz` (user data, then item list), then `loci`; else
    /// why there is none.
    static func position(_ values: QuickTimeValues, into result: inout PhotoMetadata) {
        var issues: [String] = []
        func location(_ text: String?, _ what: String) -> (Coordinate, Double?)? {
            guard let text else { return nil }
            switch ISO6709.parse(text) {
            case .position(let coordinate, let altitude):
                return (coordinate, altitude)
            case .nullIsland:
                issues.append(GPSConversion.Issue.nullIsland)
            case .invalid:
                result.warnings.append("\(what) '\(CaptureTime.printable(text))' is not an ISO 6709 position: ignored")
                issues.append("malformed ISO 6709 location")
            }
            return nil
        }
        let candidates: [(Coordinate, Double?)?] = [
            location(values.keysLocation, "QuickTime key \(locationKey)"),
            location(values.userDataLocation, "QuickTime udta ©xyz"),
            location(values.itemListLocation, "QuickTime ilst ©xyz"),
            values.loci.flatMap { loci -> (Coordinate, Double?)? in
                let c = Coordinate(latitude: loci.latitude, longitude: loci.longitude)
                if loci.latitude == 0 && loci.longitude == 0 { issues.append(GPSConversion.Issue.nullIsland); return nil }
                guard c.isValid else { issues.append("3GPP loci out of range"); return nil }
                return (c, loci.altitude)
            },
        ]
        if let (coordinate, altitude) = candidates.compactMap({ $0 }).first {
            result.coordinate = coordinate
            result.altitude = altitude
            result.positionSource = .quickTime
        } else {
            result.locationIssue = issues.first
        }
    }

    /// The time: the first ISO date with an offset, else `mvhd`, else the first ISO date
    /// without one.
    static func captureTime(_ values: QuickTimeValues, options: MetadataOptions, into result: inout PhotoMetadata) {
        // Time: the first ISO date with an offset (step 2: `creationdate`, then `udta/date`, the
        // capture time as ExifTool names it, then `©day`, the content's date), else `mvhd` (step
        // 4), else the first ISO date without one (step 5).
        var zoned: (Date, Int, String)?
        var local: (Date, Int, String)?
        for (text, what) in [(values.keysCreationDate, "QuickTime creationdate"),
                             (values.userDataDateTimeOriginal, "QuickTime udta date"),
                             (values.userDataDate, "QuickTime udta ©day"), (values.itemListDate, "QuickTime ilst ©day")] {
            guard let text else { continue }
            guard let parsed = ISODateTime.parse(text), parsed.hasTime else {
                result.warnings.append("\(what) '\(CaptureTime.printable(text))' is not a date-time: ignored")
                continue
            }
            let (date, offset, source) = parsed.instant(defaultTimeZone: options.defaultTimeZone)
            if source == .isoWithOffset {
                if zoned == nil { zoned = (date, offset, what) }
            } else if local == nil {
                local = (date, offset, what)
            }
        }
        if let (date, offset, what) = zoned {
            result.takenAt = date
            result.utcOffsetSeconds = offset
            result.timeSource = .isoWithOffset
            result.timeTag = what
        } else if let raw = values.movieCreationTime, let unix = unixTime(mvhd: raw) {
            if raw < epochOffset1904 {
                result.warnings.append("mvhd creation time \(raw) is below the 1904→1970 offset: read as Unix seconds")
            }
            result.takenAt = Date(timeIntervalSince1970: unix)
            result.timeSource = .containerUTC
            result.timeTag = "QuickTime mvhd"
        } else if let (date, offset, what) = local {
            result.takenAt = date
            result.utcOffsetSeconds = offset
            result.timeSource = .assumedZone
            result.timeTag = what
        }
    }

    static func typeName(_ type: UInt32) -> String { ISOBox.name(type) }
}

// MARK: - ISO 6709

/// ISO 6709 position strings as QuickTime stores them (section 5.5): `±DD.D±DDD.D`,
/// `±DDMM.M±DDDMM.M` or `±DDMMSS.S±DDDMMSS.S`, each optionally followed by `±altitude`, a
/// `CRS…` part and the closing `/` (which may be missing). The form is told by the count of
/// integer digits: latitude 1–2 / 4 / 6, longitude 1–3 / 5 / 7 (unpadded degrees accepted);
/// both halves must use the same form.
enum ISO6709 {
    enum Result: Sendable, Hashable {
        case position(Coordinate, altitude: Double?)
        /// `+00.0000+000.0000/`: no fix (section 1.5).
        case nullIsland
        case invalid
    }

    static func parse(_ text: String) -> Result {
        var scan = Cursor(s: text.utf8TrimmingPadding)
        guard let lat = scan.number(), let lon = scan.number(),
              let latForm = form(latitudeDigits: lat.integer.count), let lonForm = form(longitudeDigits: lon.integer.count),
              latForm == lonForm,
              let latitude = degrees(lat, form: latForm),
              let longitude = degrees(lon, form: lonForm) else { return .invalid }
        var altitude: Double?
        if scan.atSign {
            guard let alt = scan.number() else { return .invalid }
            let metres = value(alt.integer[...], alt.fraction)
            altitude = alt.negative ? -metres : metres
        }
        guard scan.atEndAfterCRS() else { return .invalid }
        guard abs(latitude) <= 90, abs(longitude) <= 180 else { return .invalid }
        if latitude == 0 && longitude == 0 { return .nullIsland }
        return .position(Coordinate(latitude: latitude, longitude: longitude), altitude: altitude)
    }

    /// A signed number: sign, the integer digits and the fraction digits as written.
    typealias Number = (negative: Bool, integer: [UInt8], fraction: [UInt8])

    /// The text, read left to right.
    struct Cursor {
        let s: [UInt8]
        var i = 0

        var atSign: Bool { i < s.count && (s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-")) }

        mutating func number() -> Number? {
            guard atSign else { return nil }
            let negative = s[i] == UInt8(ascii: "-")
            i += 1
            let integer = digits()
            guard !integer.isEmpty, integer.count <= 9 else { return nil }
            var fraction: [UInt8] = []
            if i < s.count, s[i] == UInt8(ascii: ".") {
                i += 1
                fraction = digits()
                guard fraction.count <= 20 else { return nil }
            }
            return (negative, integer, fraction)
        }

        mutating func digits() -> [UInt8] {
            let start = i
            while i < s.count, (48...57).contains(s[i]) { i += 1 }
            return Array(s[start..<i])
        }

        /// Past an optional `CRS…` part and the closing `/` (which may be missing): the end?
        mutating func atEndAfterCRS() -> Bool {
            if i + 3 <= s.count, s[i..<(i + 3)].elementsEqual(Array("CRS".utf8)) {
                while i < s.count, s[i] != UInt8(ascii: "/") { i += 1 }
            }
            if i < s.count, s[i] == UInt8(ascii: "/") { i += 1 }
            return i == s.count
        }
    }

    /// The form told by the count of integer digits (0 degrees, 1 DM, 2 DMS).
    static func form(latitudeDigits n: Int) -> Int? {
        switch n {
        case 1, 2: 0
        case 4: 1
        case 6: 2
        default: nil
        }
    }

    static func form(longitudeDigits n: Int) -> Int? {
        switch n {
        case 1, 2, 3: 0
        case 5: 1
        case 7: 2
        default: nil
        }
    }

    /// `digits[.fraction]` as a Double, parsed from the text (exactly as a literal would be).
    static func value(_ digits: ArraySlice<UInt8>, _ fraction: [UInt8] = []) -> Double {
        var text = String(decoding: digits, as: UTF8.self)
        if text.isEmpty { text = "0" }
        if !fraction.isEmpty { text += "." + String(decoding: fraction, as: UTF8.self) }
        return Double(text) ?? .nan
    }

    /// Degrees from a number in the form chosen by `form`.
    static func degrees(_ n: Number, form: Int) -> Double? {
        let d = n.integer
        var total: Double
        switch form {
        case 0:
            total = value(d[...], n.fraction)
        case 1:
            let minutes = value(d[(d.count - 2)...], n.fraction)
            guard minutes < 60 else { return nil }
            total = value(d[..<(d.count - 2)]) + minutes / 60
        default:
            let minutes = value(d[(d.count - 4)..<(d.count - 2)])
            let seconds = value(d[(d.count - 2)...], n.fraction)
            guard minutes < 60, seconds < 60 else { return nil }
            total = value(d[..<(d.count - 4)]) + minutes / 60 + seconds / 3600
        }
        return n.negative ? -total : total
    }
}
