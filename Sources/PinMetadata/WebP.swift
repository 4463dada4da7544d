/// Resource limits of the WebP reader.
extension MetadataLimits {
    /// Most RIFF chunks walked. An animated WebP has one `ANMF` chunk per frame (hundreds, rarely
    /// thousands); stops a file of millions of empty chunks from keeping a reader busy.
    static let maxRIFFChunks = 100_000
}

/// Finds the `EXIF` and `XMP ` chunks of a WebP file (docs/formats.md sections 4.2, 9.13).
///
/// Walks every chunk (little-endian sizes, one pad byte after an odd size) and reads only the
/// chunk headers and the `EXIF` and `XMP ` payloads. The `VP8X` flags are not trusted: a set EXIF flag
/// without a chunk, or a chunk without the flag, is a warning.
///
/// Decisions:
/// - The first `EXIF` chunk wins; a second one is ignored with a warning.
/// - The payload is a bare TIFF stream, or `Exif\0\0` + TIFF (read with a warning, as ExifTool).
/// - The walk ends at the RIFF size (8 + size field) or at the end of the file, whichever comes
///   first; a RIFF size smaller than the file is a warning (trailing bytes are not read).
/// - A chunk running past the end of the file is `truncated`, unless the Exif was already found.
enum WebP {
    static let container = "WebP"
    /// VP8X flag bit for "has an EXIF chunk".
    static let exifFlag: UInt8 = 0x08

    static func findMetadata<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> EmbeddedMetadata {
        let end = try riffEnd(in: &source, warnings: &warnings)
        var found = Found()
        var position = 12
        var chunks = 0
        while position < end {
            chunks += 1
            guard chunks <= MetadataLimits.maxRIFFChunks else {
                throw MetadataError.limitExceeded(container: container, what: "chunks", limit: MetadataLimits.maxRIFFChunks)
            }
            guard let chunk = try chunkHeader(in: &source, at: position, end: end, found: found, warnings: &warnings) else { break }
            try read(chunk, in: &source, found: &found, warnings: &warnings)
            // Pad byte after an odd-sized payload (it may be missing at the very end).
            position = min(chunk.end + (chunk.length & 1), end)
        }
        if let flags = found.flags {
            let flagged = flags & exifFlag != 0
            if flagged && found.exif == nil { warnings.append("VP8X says EXIF but there is no EXIF chunk") }
            if !flagged && found.exif != nil { warnings.append("EXIF chunk present although the VP8X flag is not set") }
        }
        return EmbeddedMetadata(exif: found.exif, xmp: found.xmp)
    }

    /// What the chunks gave so far.
    struct Found {
        var exif: ExifBlock?
        var xmp: [UInt8]?
        var flags: UInt8?
    }

    /// A chunk: its FourCC, payload length and offsets.
    struct Chunk {
        var fourCC: String
        var length: Int
        var position: Int
        var payload: Int { position + 8 }
        var end: Int { payload + length }
    }

    /// Where the RIFF says the file ends (at most the file's own end), after checking the header.
    static func riffEnd<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> Int {
        let size = source.size
        guard size >= 12 else {
            throw MetadataError.endOfFile(container: container, offset: size, expected: "the 12-byte RIFF header")
        }
        let header = try source.reader(at: 0, count: 12, context: container)
        guard header.matches(Array("RIFF".utf8), at: 0), header.matches(Array("WEBP".utf8), at: 8) else {
            throw MetadataError.malformed(container: container, offset: 0, reason: "not a RIFF WEBP header")
        }
        let riffSize = Int(try header.u32(at: 4, .littleEndian))
        let end = 8 + riffSize
        if end < size {
            warnings.append("RIFF size \(riffSize) ends at byte \(end) but the file has \(size) bytes: the rest is ignored")
        }
        return min(end, size)  // a cut file: the chunk walk reports where
    }

    /// The chunk at `position`; nil when the file is cut inside it after the Exif was found (a
    /// warning), else a cut is `truncated`.
    static func chunkHeader<S: ByteSource>(in source: inout S, at position: Int, end: Int, found: Found,
                                           warnings: inout [String]) throws -> Chunk? {
        guard end - position >= 8 else {
            if found.exif != nil {
                warnings.append("WebP cut at byte \(end), inside a chunk header")
                return nil
            }
            throw MetadataError.truncated(container: container, what: "chunk header at byte \(position)",
                                          endsAt: position + 8, fileSize: end)
        }
        let head = try source.reader(at: position, count: 8, context: container)
        let fourCC = String(decoding: try head.bytes(at: position, count: 4), as: UTF8.self)
        let chunk = Chunk(fourCC: fourCC, length: Int(try head.u32(at: position + 4, .littleEndian)), position: position)
        guard chunk.end <= end else {
            if found.exif != nil {
                warnings.append("WebP cut at byte \(end), inside the '\(fourCC)' chunk at byte \(position)")
                return nil
            }
            throw MetadataError.truncated(container: container, what: "'\(fourCC)' chunk at byte \(position)",
                                          endsAt: chunk.end, fileSize: end)
        }
        return chunk
    }

    /// The VP8X flags (first chunk only), the first EXIF chunk, the first XMP chunk.
    static func read<S: ByteSource>(_ chunk: Chunk, in source: inout S, found: inout Found,
                                    warnings: inout [String]) throws {
        let length = chunk.length
        switch chunk.fourCC {
        case "VP8X" where chunk.position == 12:
            guard length >= 10 else {
                throw MetadataError.malformed(container: container, offset: chunk.position,
                                              reason: "VP8X chunk of \(length) bytes (10 expected)")
            }
            found.flags = try source.byte(at: chunk.payload, context: container)
        case "EXIF":
            guard found.exif == nil else {
                warnings.append("second EXIF chunk at byte \(chunk.position) ignored")
                return
            }
            guard length <= MetadataLimits.maxItemBytes else {
                throw MetadataError.limitExceeded(container: container, what: "EXIF chunk of \(length) bytes",
                                                  limit: MetadataLimits.maxItemBytes)
            }
            let data = try source.reader(at: chunk.payload, count: length, context: container)
            found.exif = PNG.tiffBlock(data, what: "EXIF chunk", warnings: &warnings)
        case "XMP ", "XMP\0":
            // ImageMagick 6 names the chunk `XMP\0` (section 9.13).
            guard found.xmp == nil else { return }
            guard length <= MetadataLimits.maxXMPPacketBytes else {
                warnings.append("XMP chunk at byte \(chunk.position) is \(length) bytes: over the limit, skipped")
                return
            }
            found.xmp = try source.reader(at: chunk.payload, count: length, context: container).allBytes
        default:
            break
        }
    }
}
