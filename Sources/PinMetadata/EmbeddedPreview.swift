import PinCore

/// The JPEG a camera stores inside its raw file for showing it (issue 39 item 3): pins makes a
/// raw's preview from it, since no raw decoder is at hand on a NAS. Found by the project's own
/// readers, not by a tool:
/// - TIFF-based raws (CR2, NEF, NRW, ARW, DNG, PEF, ORF, RW2, SRW...): every IFD of the chain
///   from IFD0 and their SubIFDs (tag 0x14A), each giving a JPEG by JPEGInterchangeFormat /
///   Length (0x201/0x202), by a single strip of a JPEG-compressed IFD (Compression 6 or 7,
///   StripOffsets/StripByteCounts: CR2's IFD0, DNG's preview SubIFD), or by Panasonic's
///   JpgFromRaw (0x2E, an UNDEFINED value holding a whole JPEG);
/// - Fujifilm RAF: the JPEG its header points to (0x54/0x58).
/// The largest one a browser can show wins: a JPEG whose frame is baseline or progressive
/// (SOF0, SOF1, SOF2). The raw image data of CR2 and DNG is also "JPEG" (lossless, SOF3): it
/// is never taken. The orientation is IFD0's (0x112): the embedded JPEG often has none.
/// Not read yet: previews kept only in a maker note (ORF's and PEF's larger ones), CR3, CRW,
/// MRW, X3F.
public enum EmbeddedPreview {
    /// Largest embedded JPEG read (bytes): a full-size preview of a 60 MP camera is about 20 MB.
    public static let maxBytes = 48 << 20
    /// Most IFDs looked at (IFD chain and SubIFDs together): cameras write under 8.
    static let maxIFDs = 16
    /// Most SubIFD pointers followed from one IFD, and marker segments walked to a JPEG's frame.
    static let maxSubIFDs = 8, maxSegments = 64

    public struct Found: Sendable, Equatable {
        public var jpeg: [UInt8]
        /// IFD0's Orientation (1...8), nil when absent.
        public var orientation: Int?
    }

    /// The largest viewable JPEG embedded in the raw file at `path`, nil when it has none.
    public static func read(path: RawPath) throws -> Found? {
        try withOpenFile(path) { fd, size in
            var source = try FileSource(fd: fd, size: size)
            return try find(in: &source)
        }
    }

    static func find<S: ByteSource>(in source: inout S) throws -> Found? {
        let head = try source.reader(at: 0, count: min(FileKind.sniffLength, source.size), context: "file")
        switch FileKind.sniff(head.allBytes) {
        case .tiff:
            let (candidates, orientation) = try tiffCandidates(in: &source)
            return try largest(candidates, in: &source).map { Found(jpeg: $0, orientation: orientation) }
        case .raf:
            guard source.size >= RAF.jpegLengthField + 4 else { return nil }
            let header = try source.reader(at: RAF.jpegOffsetField, count: 8, context: RAF.container)
            let range = (Int(try header.u32(at: RAF.jpegOffsetField, .bigEndian)), Int(try header.u32(at: RAF.jpegLengthField, .bigEndian)))
            return try largest([range], in: &source).map { Found(jpeg: $0, orientation: nil) }
        default:
            return nil
        }
    }

    /// The bytes of the longest candidate (offset, length) that is a viewable JPEG.
    static func largest<S: ByteSource>(_ candidates: [(Int, Int)], in source: inout S) throws -> [UInt8]? {
        let size = source.size
        for (offset, length) in candidates.sorted(by: { $0.1 > $1.1 })
        where offset >= 8 && length >= 4 && length <= maxBytes && offset <= size && length <= size - offset {
            if try isViewableJPEG(in: &source, at: offset, length: length) {
                return try source.reader(at: offset, count: length, context: "embedded JPEG").allBytes
            }
        }
        return nil
    }

    /// A JPEG (SOI) whose first frame header is SOF0, SOF1 or SOF2: what browsers and
    /// ImageMagick decode. Walks the marker segments (their headers only) up to the frame.
    static func isViewableJPEG<S: ByteSource>(in source: inout S, at offset: Int, length: Int) throws -> Bool {
        let end = offset + length
        guard try source.reader(at: offset, count: 2, context: "embedded JPEG").matches([0xFF, 0xD8], at: offset) else { return false }
        var at = offset + 2
        for _ in 0..<maxSegments {
            guard at <= end - 4 else { return false }
            let r = try source.reader(at: at, count: 4, context: "embedded JPEG")
            guard try r.u8(at: at) == 0xFF else { return false }
            let marker = try r.u8(at: at + 1)
            if marker == 0xFF { at += 1; continue }  // fill byte
            switch marker {
            case 0xC0, 0xC1, 0xC2: return true
            case 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF, 0xDA, 0xD9: return false
            default: at += 2 + Int(try r.u16(at: at + 2, .bigEndian))
            }
        }
        return false
    }

    /// Tags read from each IFD.
    static let tags: Set<UInt16> = [0x103, 0x111, 0x117, 0x201, 0x202, 0x2E, 0x112, 0x14A]

    /// The (offset, length) of every JPEG the IFDs point to, and IFD0's orientation.
    static func tiffCandidates<S: ByteSource>(in source: inout S) throws -> ([(Int, Int)], Int?) {
        let (order, ifd0, layout) = try TIFF.header(in: &source)
        var queue = [ifd0], seen = Set<Int>(), candidates: [(Int, Int)] = [], orientation: Int?
        var warnings: [String] = []
        while !queue.isEmpty, seen.count < maxIFDs {
            let at = queue.removeFirst()
            guard at >= 8, at < source.size, seen.insert(at).inserted,
                  let entries = try? TIFF.readIFD(in: &source, at: at, order: order, name: "IFD", layout: layout,
                                                  warnings: &warnings, keep: { tags.contains($0) }, resolveValues: false)
            else { continue }
            // A damaged entry gives nothing: the other IFDs' candidates still count.
            func values(_ tag: UInt16, max: Int = 1) throws -> [Int] {
                guard let entry = entries.first(where: { $0.tag == tag }) else { return [] }
                return (try? integers(entry, max: max, in: &source, order: order, layout: layout)) ?? []
            }
            if at == ifd0 { orientation = try values(0x112).first.flatMap { (1...8).contains($0) ? $0 : nil } }
            if let o = try values(0x201).first, let l = try values(0x202).first { candidates.append((o, l)) }
            if let compression = try values(0x103).first, compression == 6 || compression == 7, let o = try values(0x111).first, let l = try values(0x117).first {
                candidates.append((o, l))
            }
            if let raw = entries.first(where: { $0.tag == 0x2E }), raw.type == 7, raw.count > 4,
               let o = try layout.offset(ByteReader(raw.value, context: TIFF.container), at: 0, order) {
                candidates.append((o, Int(raw.count)))
            }
            queue += try values(0x14A, max: maxSubIFDs)
            if let next = try nextIFD(after: at, in: &source, order: order, layout: layout) { queue.append(next) }
        }
        return (candidates, orientation)
    }

    /// The unsigned integers of a SHORT, LONG, IFD or BigTIFF LONG8/IFD8 entry (at most `max`),
    /// inline or read from where its field points; [] for another type or more than `max`.
    static func integers<S: ByteSource>(_ entry: TIFF.Entry, max: Int, in source: inout S, order: ByteOrder,
                                        layout: TIFF.Layout) throws -> [Int] {
        let unit: Int
        switch entry.type {
        case 3: unit = 2
        case 4, 13: unit = 4
        case 16 where layout.isBig, 18 where layout.isBig: unit = 8
        default: return []
        }
        let count = Int(entry.count)
        guard count >= 1, count <= max else { return [] }
        var reader = ByteReader(entry.value, context: TIFF.container)
        var base = 0
        if count * unit > layout.fieldSize {
            guard let at = try layout.offset(reader, at: 0, order), at <= source.size, count * unit <= source.size - at else { return [] }
            reader = try source.reader(at: at, count: count * unit, context: TIFF.container)
            base = at
        }
        return try (0..<count).map { i in
            let p = base + i * unit
            switch unit {
            case 2: return Int(try reader.u16(at: p, order))
            case 4: return Int(try reader.u32(at: p, order))
            default: return Int(clamping: try reader.u64(at: p, order))
            }
        }
    }

    /// The offset of the IFD after the one at `at` (0 ends the chain: nil).
    static func nextIFD<S: ByteSource>(after at: Int, in source: inout S, order: ByteOrder, layout: TIFF.Layout) throws -> Int? {
        let countField = try source.reader(at: at, count: layout.countSize, context: TIFF.container)
        let count = layout.isBig ? Int(clamping: try countField.u64(at: at, order)) : Int(try countField.u16(at: at, order))
        guard count <= MetadataLimits.maxIFDEntries else { return nil }
        let field = at + layout.countSize + layout.entrySize * count
        guard field <= source.size - layout.fieldSize else { return nil }
        let next = try layout.offset(try source.reader(at: field, count: layout.fieldSize, context: TIFF.container), at: field, order)
        return next.flatMap { $0 >= 8 ? $0 : nil }
    }
}

/// A video's length, for the placeholder shown where no decoder makes its poster frame: from
/// the metadata the readers already walk (QuickTime/MP4 `mvhd`, Matroska/WebM Info Duration).
public enum VideoDuration {
    /// Seconds, nil when the container says nothing (AVI, MPEG-TS) or the file cannot be read.
    public static func seconds(path: RawPath) -> Double? {
        try? withOpenFile(path) { fd, size -> Double? in
            var source = try FileSource(fd: fd, size: size)
            let head = try source.reader(at: 0, count: min(FileKind.sniffLength, source.size), context: "file")
            var warnings: [String] = []
            switch FileKind.sniff(head.allBytes) {
            case .quicktime: return try QuickTime.read(in: &source, warnings: &warnings).movieDuration
            case .matroska: return try Matroska.read(in: &source, warnings: &warnings).durationSeconds
            default: return nil
            }
        } ?? nil
    }

    /// `m:ss`, or `h:mm:ss` from an hour; a part second rounds up (a 0.4 s clip is `0:01`).
    public static func text(_ seconds: Double) -> String {
        let total = Int(min(seconds, 1e9).rounded(.up))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }
}
