/// The Exif block a container reader found: the TIFF stream (section 1.2) and where it sat.
struct ExifBlock: Sendable, Hashable {
    /// From the `II`/`MM` header to the end of the block.
    var tiff: [UInt8]
    /// Absolute file offset of the TIFF header.
    var offset: Int
}

/// What a container reader found: the Exif TIFF stream and the XMP packet describing the
/// image (JPEG APP1, PNG text chunk, WebP `XMP ` chunk, TIFF tag 700, HEIF `mime` item, ...).
struct EmbeddedMetadata: Sendable, Hashable {
    var exif: ExifBlock?
    var xmp: [UInt8]?
    /// Set when a bound stopped the walk before the end of the file, so a position further on
    /// went unseen: the file's `locationIssue` when no position was found (the import's skip
    /// detail says why, not just "no GPS position").
    var unreadPart: String?
}

/// Finds the Exif APP1 of a JPEG (docs/formats.md section 1.1). Reads only marker headers
/// and APP1 payloads before SOS; never the scan data, and never hands libexif the whole file
/// (its own walker gives up at a COM or DQT before the APP1, section 2.2).
///
/// Decisions on the oddities of section 1.1 (all as ExifTool does, with a warning):
/// - up to 4 bytes of garbage before `Exif\0` are skipped;
/// - Kodak's `Exif\0` + one byte other than NUL is accepted when a TIFF header follows at
///   6; a payload `Exif\0` + TIFF header at 5 (a truly missing byte) is accepted too;
/// - the first APP1 with an Exif identifier *and* a TIFF header wins; one whose TIFF header is
///   missing is skipped with a warning; "multi-segment Exif" continuations are not joined
///   (libexif could not follow offsets past 64 KiB anyway).
/// Truncation: a segment (Exif or any other before it) that runs past the end of the file
/// throws `MetadataError.truncated`; the file ending after the Exif segment is fine.
enum JPEG {
    static let container = "JPEG"
    static let exifIdentifier: [UInt8] = Array("Exif\0".utf8)
    /// Most garbage bytes accepted before `Exif\0` (ExifTool's `^(.{0,4})Exif\0`).
    static let maxGarbageBeforeExif = 4

    static func findExif<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> ExifBlock? {
        let size = source.size
        guard size >= 2, try source.reader(at: 0, count: 2, context: container).matches([0xFF, 0xD8], at: 0) else {
            throw MetadataError.malformed(container: container, offset: 0, reason: "no SOI marker (FF D8)")
        }
        var position = 2
        var segments = 0
        while true {
            guard position < MetadataLimits.maxJPEGHeaderBytes else {
                warnings.append("no Exif segment in the first \(MetadataLimits.maxJPEGHeaderBytes) bytes; stopped looking")
                return nil
            }
            segments += 1
            guard segments <= MetadataLimits.maxJPEGSegments else {
                throw MetadataError.limitExceeded(container: container, what: "marker segments before the image data",
                                                  limit: MetadataLimits.maxJPEGSegments)
            }
            guard position < size else {
                throw MetadataError.endOfFile(container: container, offset: position, expected: "a marker")
            }
            if try source.byte(at: position, context: container) != 0xFF {
                // Junk between segments: rescan for the next marker, as ExifTool does.
                position = try skipJunk(in: &source, from: position, warnings: &warnings)
                continue
            }
            let code: UInt8
            (code, position) = try markerCode(in: &source, at: position)
            let codeOffset = position - 1
            switch code {
            case 0xD0...0xD7, 0x01:
                continue  // RSTn, TEM: no length field
            case 0xDA, 0xD9:
                return nil  // SOS: scan data follows; EOI: no image. Either way no Exif before it.
            case 0x00, 0xD8:
                throw MetadataError.malformed(container: container, offset: codeOffset - 1,
                                              reason: "unexpected marker FF \(hex(code).dropFirst(2)) before SOS")
            default:
                break
            }
            let end = try segmentEnd(in: &source, code: code, lengthAt: position)
            if code == 0xE1, let block = try exifBlock(in: &source, payload: (position + 2)..<end,
                                                       segmentAt: codeOffset - 1, warnings: &warnings) {
                return block
            }
            position = end
        }
    }

    /// The code of the marker whose first FF is at `start` (after any run of FF fill bytes),
    /// and the offset just past the code.
    static func markerCode<S: ByteSource>(in source: inout S, at start: Int) throws -> (UInt8, Int) {
        var position = start
        var code: UInt8 = 0xFF
        var fill = 0
        while code == 0xFF {
            position += 1
            guard position < source.size else {
                throw MetadataError.endOfFile(container: container, offset: position, expected: "a marker code")
            }
            code = try source.byte(at: position, context: container)
            if code == 0xFF {
                fill += 1
                guard fill <= MetadataLimits.maxJPEGFillBytes else {
                    throw MetadataError.limitExceeded(container: container, what: "FF fill bytes at byte \(start)",
                                                      limit: MetadataLimits.maxJPEGFillBytes)
                }
            }
        }
        return (code, position + 1)
    }

    /// The end of the segment of marker `code` whose length field is at `position`; a segment
    /// that runs past the end of the file is `truncated` (named as the Exif segment when enough
    /// of it is there to tell).
    static func segmentEnd<S: ByteSource>(in source: inout S, code: UInt8, lengthAt position: Int) throws -> Int {
        let size = source.size
        let name = markerName(code)
        let segmentAt = position - 2
        guard position + 2 <= size else {
            throw MetadataError.truncated(container: container, what: "\(name) segment header at byte \(segmentAt)",
                                          endsAt: position + 2, fileSize: size)
        }
        let length = Int(try source.reader(at: position, count: 2, context: container).u16(at: position, .bigEndian))
        guard length >= 2 else {
            throw MetadataError.malformed(container: container, offset: position,
                                          reason: "\(name) segment length \(length) (minimum 2)")
        }
        let payloadStart = position + 2
        let end = position + length
        guard end <= size else {
            let head = try source.reader(at: payloadStart, count: min(size - payloadStart, 16), context: container)
            let isExif = code == 0xE1 && exifStart(in: head) != nil
            throw MetadataError.truncated(container: container,
                                          what: isExif ? "Exif segment" : "\(name) segment at byte \(segmentAt)",
                                          endsAt: end, fileSize: size)
        }
        return end
    }

    /// The Exif block of an APP1 payload, nil when it is XMP or another APP1 or has an Exif
    /// identifier but no TIFF header (then named in `warnings`).
    static func exifBlock<S: ByteSource>(in source: inout S, payload: Range<Int>, segmentAt: Int,
                                         warnings: inout [String]) throws -> ExifBlock? {
        let bytes = try source.reader(at: payload.lowerBound, count: payload.count, context: container)
        switch exifStart(in: bytes) {
        case .some(.tiff(let start, let note)):
            if let note { warnings.append("\(note) (APP1 at byte \(segmentAt))") }
            let tiff = try bytes.bytes(at: start, count: bytes.endOffset - start)
            return ExifBlock(tiff: tiff, offset: start)
        case .some(.noTIFFHeader):
            warnings.append("APP1 at byte \(segmentAt) has an Exif identifier but no TIFF header: skipped")
            return nil
        case nil:
            return nil
        }
    }

    /// The offset of the next marker (an FF followed by a code other than 00) at or after
    /// `start`, scanning at most `MetadataLimits.maxJPEGJunkBytes`; the skipped bytes are noted
    /// once in `warnings`.
    static func skipJunk<S: ByteSource>(in source: inout S, from start: Int, warnings: inout [String]) throws -> Int {
        let next = try nextMarker(in: &source, from: start)
        note("\(next - start) junk byte\(next - start == 1 ? "" : "s") at byte \(start) before the next marker: skipped",
             in: &warnings)
        return next
    }

    private static func nextMarker<S: ByteSource>(in source: inout S, from start: Int) throws -> Int {
        var position = start
        while true {
            guard position - start < MetadataLimits.maxJPEGJunkBytes else {
                throw MetadataError.limitExceeded(container: container, what: "junk bytes at byte \(start) before a marker",
                                                  limit: MetadataLimits.maxJPEGJunkBytes)
            }
            guard position + 1 < source.size else {
                throw MetadataError.endOfFile(container: container, offset: source.size, expected: "a marker")
            }
            let pair = try source.reader(at: position, count: 2, context: container)
            if try pair.u8(at: position) == 0xFF, try pair.u8(at: position + 1) != 0x00 { return position }
            position += 1
        }
    }

    /// Appends a warning once (the Exif and XMP walks cross the same segments).
    static func note(_ warning: String, in warnings: inout [String]) {
        if !warnings.contains(warning) { warnings.append(warning) }
    }

    enum ExifStart: Equatable {
        /// TIFF header at this absolute offset; `note` describes a tolerated oddity.
        case tiff(Int, note: String?)
        case noTIFFHeader
    }

    /// Where the TIFF stream starts inside an APP1 payload, if the payload is Exif.
    static func exifStart(in payload: ByteReader) -> ExifStart? {
        let base = payload.range.lowerBound
        for garbage in 0...maxGarbageBeforeExif where payload.matches(exifIdentifier, at: base + garbage) {
            let standard = base + garbage + 6
            let secondNUL = (try? payload.u8(at: base + garbage + 5)) == 0
            var note: String?
            if garbage > 0 {
                note = "\(garbage) byte\(garbage == 1 ? "" : "s") of garbage before the Exif identifier"
            }
            if isTIFFHeader(payload, at: standard) {
                if !secondNUL { note = note ?? "Exif identifier without its second NUL" }
                return .tiff(standard, note: note)
            }
            if isTIFFHeader(payload, at: standard - 1) {
                return .tiff(standard - 1, note: note ?? "Exif identifier with a single NUL")
            }
            return .noTIFFHeader
        }
        return nil
    }

    /// `II*\0` or `MM\0*` (section 1.2).
    static func isTIFFHeader(_ reader: ByteReader, at offset: Int) -> Bool {
        reader.matches([0x49, 0x49, 0x2A, 0x00], at: offset) || reader.matches([0x4D, 0x4D, 0x00, 0x2A], at: offset)
    }

    static func markerName(_ code: UInt8) -> String {
        switch code {
        case 0xE0...0xEF: return "APP\(code - 0xE0)"
        case 0xFE: return "COM"
        case 0xDB: return "DQT"
        case 0xC4: return "DHT"
        case 0xDD: return "DRI"
        case 0xC0...0xCF: return "SOF\(code - 0xC0)"
        default: return "marker FF \(hex(code).dropFirst(2))"
        }
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }
}
