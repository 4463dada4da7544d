import Foundation
import PinCore

/// Resource limits of the Matroska reader.
extension MetadataLimits {
    /// Most top-level elements of the Segment walked before the first Cluster. Stops a file of
    /// thousands of Void elements from costing thousands of reads; ffmpeg writes six.
    static let maxMatroskaTopLevel = 256
    /// Largest SeekHead or Info payload read (bytes); real ones are under 200 bytes.
    static let maxMatroskaSmallElement = 64 * 1024
    /// Largest Tags payload read (bytes). Stops a Tags element with a big binary tag (cover art)
    /// from being read.
    static let maxMatroskaTags = 1024 * 1024
    /// Most elements visited inside Tags, and the deepest SimpleTag nesting followed.
    static let maxMatroskaTagElements = 16_384
    static let maxMatroskaTagDepth = 6
}

/// Matroska and WebM (EBML, docs/formats.md section 9.10): Info `DateUTC` (signed
/// nanoseconds since 2001-01-01T00:00:00 UTC, ffmpeg's `creation_time`) and the SimpleTags
/// `DATE_RECORDED` (a date-time, with or without an offset) and `LOCATION` (ISO 6709, as ffmpeg
/// writes `-metadata location=` and phones write it).
///
/// Reads the element headers of the Segment up to the first Cluster, and the payloads of
/// SeekHead, Info and Tags only. Info or Tags placed after the Clusters (mkvpropedit does so
/// when tags grow) are found through the SeekHead: one read at the position it gives, checked
/// to hold the element it names. Media data is never read.
enum Matroska {
    static let container = "Matroska"
    static let ebml: UInt32 = 0x1A45_DFA3, segment: UInt32 = 0x1853_8067, seekHead: UInt32 = 0x114D_9B74
    static let info: UInt32 = 0x1549_A966, tags: UInt32 = 0x1254_C367, cluster: UInt32 = 0x1F43_B675
    static let seek: UInt32 = 0x4DBB, seekID: UInt32 = 0x53AB, seekPosition: UInt32 = 0x53AC
    static let dateUTC: UInt32 = 0x4461, tag: UInt32 = 0x7373, simpleTag: UInt32 = 0x67C8
    static let tagName: UInt32 = 0x45A3, tagString: UInt32 = 0x4487
    static let timestampScale: UInt32 = 0x2AD7B1, duration: UInt32 = 0x4489
    /// Seconds from 1970-01-01 to 2001-01-01.
    static let epoch2001: Double = 978_307_200

    struct Values {
        /// Unix seconds.
        var dateUTC: Double?
        var dateRecorded: String?
        var location: String?
        var digestInput: [UInt8] = []
        /// Info's Duration (a float in TimestampScale units, default 1 ms) in seconds.
        var durationSeconds: Double?
    }

    struct Element {
        var id: UInt32
        /// Offset of the payload and its size (nil: unknown size).
        var payload: Int
        var size: Int?
    }

    /// An element header at `at` (ID with its marker bits, then the size as a vint); nil when the
    /// bytes are not a valid header.
    static func element(_ r: ByteReader, at: Int) -> Element? {
        guard let first = try? r.u8(at: at), first != 0 else { return nil }
        let idLength = first.leadingZeroBitCount + 1
        guard idLength <= 4, let idBytes = try? r.bytes(at: at, count: idLength) else { return nil }
        let id = idBytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard let sizeFirst = try? r.u8(at: at + idLength), sizeFirst != 0 else { return nil }
        let sizeLength = sizeFirst.leadingZeroBitCount + 1
        guard let sizeBytes = try? r.bytes(at: at + idLength, count: sizeLength) else { return nil }
        var value = UInt64(sizeFirst & (0xFF >> sizeLength))
        var allOnes = value == UInt64(0xFF >> sizeLength)
        for b in sizeBytes.dropFirst() {
            value = value << 8 | UInt64(b)
            allOnes = allOnes && b == 0xFF
        }
        let payload = at + idLength + sizeLength
        if allOnes { return Element(id: id, payload: payload, size: nil) }
        guard value <= UInt64(Int.max / 2) else { return nil }
        return Element(id: id, payload: payload, size: Int(value))
    }

    /// The header at `offset` of the file (at most 12 bytes read).
    static func header<S: ByteSource>(_ source: inout S, at offset: Int) throws -> Element? {
        let r = try source.reader(at: offset, count: min(12, source.size - offset), context: container)
        return element(r, at: offset)
    }

    /// The children of an in-memory payload.
    static func children(_ r: ByteReader, budget: inout Int) -> [(Element, ByteReader)] {
        var out: [(Element, ByteReader)] = []
        var at = r.range.lowerBound
        while at < r.endOffset, budget > 0 {
            budget -= 1
            guard let e = element(r, at: at), let size = e.size, size <= r.endOffset - e.payload,
                  let child = try? r.child(at: e.payload, count: size) else { break }
            out.append((e, child))
            at = e.payload + size
        }
        return out
    }

    static func unsigned(_ r: ByteReader) -> UInt64? {
        guard r.count >= 1, r.count <= 8 else { return nil }
        return r.allBytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// An EBML float: 4 or 8 bytes, big-endian IEEE 754.
    static func float(_ r: ByteReader) -> Double? {
        guard let bits = unsigned(r) else { return nil }
        switch r.count {
        case 4: return Double(Float(bitPattern: UInt32(bits)))
        case 8: return Double(bitPattern: bits)
        default: return nil
        }
    }

    static func read<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> Values {
        let size = source.size
        guard let head = try header(&source, at: 0), head.id == ebml, let headSize = head.size else {
            throw MetadataError.malformed(container: container, offset: 0, reason: "no EBML header")
        }
        let segmentAt = head.payload + headSize
        guard segmentAt < size, let seg = try header(&source, at: segmentAt), seg.id == segment else {
            throw MetadataError.endOfFile(container: container, offset: min(segmentAt, size), expected: "the Segment")
        }
        var walk = SegmentWalk(start: seg.payload, end: seg.size.map { min(size, seg.payload + $0) } ?? size, size: size)
        let walked = try walk.topLevel(in: &source, warnings: &warnings)
        try walk.followSeeks(walkedTo: walked, in: &source, warnings: &warnings)
        return walk.values
    }

    /// The Segment's elements that carry metadata (SeekHead, Info, Tags), read once each.
    struct SegmentWalk {
        let start: Int, end: Int, size: Int
        var values = Values()
        var seen = Set<UInt32>()
        /// Where the SeekHeads say the elements are (id, offset from the Segment's payload).
        var seeks: [(UInt32, Int)] = []

        /// The Segment's top level, up to the first Cluster or an element of unknown size; the
        /// offset where the walk stopped.
        mutating func topLevel<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> Int {
            var offset = start
            var count = 0
            while offset < end {
                count += 1
                guard count <= MetadataLimits.maxMatroskaTopLevel else { break }
                guard let e = try header(&source, at: offset) else {
                    warnings.append("Matroska: no valid element at byte \(offset): the rest of the Segment is not read")
                    break
                }
                if e.id == cluster { break }
                guard let length = e.size else { break }
                if [seekHead, info, tags].contains(e.id), !seen.contains(e.id) || e.id == seekHead {
                    try load(e, at: offset, in: &source, warnings: &warnings)
                }
                guard length <= end - e.payload else {
                    warnings.append("Matroska element at byte \(offset) runs past the end of the Segment")
                    break
                }
                offset = e.payload + length
            }
            return offset
        }

        /// Info and Tags after the Clusters, where the SeekHead says (a second SeekHead once).
        mutating func followSeeks<S: ByteSource>(walkedTo offset: Int, in source: inout S, warnings: inout [String]) throws {
            var followed = 0
            var i = 0
            while i < seeks.count, followed < 4 {
                let (id, position) = seeks[i]
                i += 1
                guard [info, tags, seekHead].contains(id), !seen.contains(id) || id == seekHead else { continue }
                let at = start + position
                guard at < end, at != start, let e = try header(&source, at: at), e.id == id else { continue }
                if id == seekHead && at < offset { continue }  // already walked
                followed += 1
                try load(e, at: at, in: &source, warnings: &warnings)
            }
        }

        /// Reads one SeekHead, Info or Tags element (bounded by its own limit).
        mutating func load<S: ByteSource>(_ e: Element, at offset: Int, in source: inout S, warnings: inout [String]) throws {
            guard let length = e.size, length <= end - e.payload else { return }
            let limit = e.id == tags ? MetadataLimits.maxMatroskaTags : MetadataLimits.maxMatroskaSmallElement
            guard length <= limit else {
                warnings.append("Matroska element \(String(e.id, radix: 16)) at byte \(offset) has \(length) bytes, over \(limit): not read")
                return
            }
            seen.insert(e.id)
            let payload = try source.reader(at: e.payload, count: length, context: container)
            var budget = MetadataLimits.maxMatroskaTagElements
            switch e.id {
            case seekHead:
                seeks += seekEntries(payload, fileSize: size, budget: &budget)
            case info:
                var scale: UInt64 = 1_000_000, ticks: Double?
                for (field, value) in children(payload, budget: &budget) {
                    if field.id == dateUTC && value.count == 8 {
                        let ns = Int64(bitPattern: unsigned(value) ?? 0)
                        values.dateUTC = Double(ns) / 1e9 + epoch2001
                        values.digestInput += value.allBytes
                    } else if field.id == timestampScale, let s = unsigned(value), s > 0 {
                        scale = s
                    } else if field.id == duration {
                        ticks = float(value)
                    }
                }
                if let ticks, ticks.isFinite, ticks > 0 { values.durationSeconds = ticks * Double(scale) / 1e9 }
            case tags:
                for (t, r) in children(payload, budget: &budget) where t.id == tag {
                    simpleTags(r, depth: 0, values: &values, budget: &budget)
                }
            default:
                break
            }
        }
    }

    /// The (id, position) of each Seek of a SeekHead's payload.
    static func seekEntries(_ payload: ByteReader, fileSize size: Int, budget: inout Int) -> [(UInt32, Int)] {
        var seeks: [(UInt32, Int)] = []
        for (entry, r) in children(payload, budget: &budget) where entry.id == seek {
            var id: UInt32?, position: Int?
            for (field, value) in children(r, budget: &budget) {
                if field.id == seekID, value.count <= 4 { id = value.allBytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
                if field.id == seekPosition, let p = unsigned(value), p < UInt64(size) { position = Int(p) }
            }
            if let id, let position { seeks.append((id, position)) }
        }
        return seeks
    }

    /// SimpleTags of one Tag (nested ones included): DATE_RECORDED and LOCATION, first wins.
    static func simpleTags(_ r: ByteReader, depth: Int, values: inout Values, budget: inout Int) {
        guard depth < MetadataLimits.maxMatroskaTagDepth else { return }
        for (e, child) in children(r, budget: &budget) where e.id == simpleTag {
            var name: String?, text: String?
            for (field, value) in children(child, budget: &budget) {
                if field.id == tagName { name = String(decoding: value.allBytes.prefix(256), as: UTF8.self) }
                if field.id == tagString, value.count <= 1_024 {
                    text = String(decoding: value.allBytes.prefix { $0 != 0 }, as: UTF8.self)
                }
            }
            if let name, let text {
                if name == "DATE_RECORDED", values.dateRecorded == nil {
                    values.dateRecorded = text
                    values.digestInput += Array(text.utf8)
                } else if name == "LOCATION", values.location == nil {
                    values.location = text
                    values.digestInput += Array(text.utf8)
                }
            }
            simpleTags(child, depth: depth + 1, values: &values, budget: &budget)
        }
    }

    static func metadata<S: ByteSource>(in source: inout S, warnings: [String], modificationTime: Date?,
                                        options: MetadataOptions) throws -> PhotoMetadata {
        var warnings = warnings
        let values = try read(in: &source, warnings: &warnings)
        var result = PhotoMetadata(format: .matroska, warnings: warnings)
        if !values.digestInput.isEmpty { result.storedDigest = .value(FNV1a64.hash(values.digestInput)) }
        if let text = values.location {
            switch ISO6709.parse(text) {
            case .position(let coordinate, let altitude):
                result.coordinate = coordinate
                result.altitude = altitude
                result.positionSource = .matroska
            case .nullIsland:
                result.locationIssue = GPSConversion.Issue.nullIsland
            case .invalid:
                result.warnings.append("Matroska LOCATION '\(CaptureTime.printable(text))' is not an ISO 6709 position: ignored")
                result.locationIssue = "malformed ISO 6709 location"
            }
        }
        // Time: DATE_RECORDED with its offset, else DateUTC (UTC), else DATE_RECORDED as a wall
        // clock (the QuickTime order: creationdate, mvhd, a date without zone).
        var recorded: (Date, Int, TimeSource)?
        if let text = values.dateRecorded {
            if let parsed = ISODateTime.parse(text), parsed.hasTime {
                recorded = parsed.instant(defaultTimeZone: options.defaultTimeZone)
            } else {
                result.warnings.append("Matroska DATE_RECORDED '\(CaptureTime.printable(text))' is not a date-time: ignored")
            }
        }
        if let (date, offset, source) = recorded, source == .isoWithOffset {
            (result.takenAt, result.utcOffsetSeconds, result.timeSource) = (date, offset, source)
            result.timeTag = "Matroska DATE_RECORDED"
        } else if let utc = values.dateUTC, utc.isFinite {
            result.takenAt = Date(timeIntervalSince1970: utc)
            result.timeSource = .containerUTC
            result.timeTag = "Matroska DateUTC"
        } else if let (date, offset, source) = recorded {
            (result.takenAt, result.utcOffsetSeconds, result.timeSource) = (date, offset, source)
            result.timeTag = "Matroska DATE_RECORDED"
        } else if let modificationTime {
            result.takenAt = modificationTime
            result.timeSource = .fileModification
        }
        return MetadataMerge.capped(result)
    }
}
