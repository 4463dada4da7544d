import CZlib

/// Resource limits of the PNG reader.
extension MetadataLimits {
    /// Most chunks walked. `eXIf` may follow the image data, so the walk goes on to IEND;
    /// libpng writes 8 KiB IDAT chunks, so a 400 MB PNG has about 50,000. Stops a file of
    /// millions of empty chunks from keeping a reader busy.
    static let maxPNGChunks = 100_000
    /// Largest `tEXt`/`zTXt`/`iTXt` chunk read when its keyword says "Raw profile type exif".
    /// The hex text of a 64 KiB Exif block is about 130 KiB; stops a huge text chunk from being
    /// read whole.
    static let maxPNGTextChunk = 8 * 1024 * 1024
    /// Largest inflated text of a compressed chunk. Stops a zlib bomb (a few KiB that inflate
    /// to gigabytes).
    static let maxInflatedText = 8 * 1024 * 1024
}

/// Finds the Exif of a PNG (docs/formats.md section 4.1): the `eXIf` chunk (also the
/// pre-registration `exIf`), else an ImageMagick-style "Raw profile type exif" (or "APP1") text
/// chunk, hex inside `tEXt`, `zTXt` or `iTXt`; and the XMP packet: keyword `XML:com.adobe.xmp`
/// in `iTXt` (compressed or not), `zTXt` or `tEXt`, or ImageMagick's "Raw profile type xmp"
/// (section 9.13). The first of each wins.
///
/// Walks the chunks from the signature to IEND (reading only chunk headers, and the data of the
/// chunks it wants), because ImageMagick writes `eXIf` after the image data.
///
/// Decisions:
/// - `eXIf` wins over a raw text profile wherever each sits; the first `eXIf` wins over a second
///   (warning).
/// - `eXIf` starting with `Exif\0\0` is read with a warning (as ExifTool does).
/// - A CRC mismatch on a chunk we read is a warning; the data is still used.
/// - A chunk running past the end of the file is `truncated`, unless the Exif was already found
///   (then a warning: the file was cut in or after the image data).
/// - A file ending cleanly after a chunk but without IEND: a warning.
/// - A raw profile whose text cannot be inflated or decoded is ignored with a warning (the image
///   is still readable); only an inflated size over `maxInflatedText` throws.
enum PNG {
    static let container = "PNG"
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let rawProfileKeywords: Set<String> = ["Raw profile type exif", "Raw profile type APP1"]
    /// XMP as a text chunk (section 9.13): the standard keyword (in `iTXt`, also found in
    /// `zTXt` and `tEXt`), and ImageMagick's hex profile.
    static let xmpKeyword = "XML:com.adobe.xmp"
    static let rawXMPKeyword = "Raw profile type xmp"
    static let xmpKeywords: Set<String> = [xmpKeyword, rawXMPKeyword]
    /// Longest keyword (PNG allows 1–79 bytes) plus its NUL.
    static let maxKeyword = 80

    static func findMetadata<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> EmbeddedMetadata {
        let size = source.size
        guard size >= 8, try source.reader(at: 0, count: 8, context: container).matches(signature, at: 0) else {
            throw MetadataError.malformed(container: container, offset: 0, reason: "no PNG signature")
        }
        var found = Found()
        var position = 8
        var chunks = 0
        while true {
            if position == size {
                warnings.append("PNG ends at byte \(size) without an IEND chunk")
                break
            }
            chunks += 1
            guard chunks <= MetadataLimits.maxPNGChunks else {
                throw MetadataError.limitExceeded(container: container, what: "chunks", limit: MetadataLimits.maxPNGChunks)
            }
            guard let chunk = try chunkHeader(in: &source, at: position, found: found, warnings: &warnings),
                  chunk.type != "IEND" else { break }
            if chunk.type.lowercased() == "exif" {
                try exifChunk(chunk, in: &source, found: &found, warnings: &warnings)
            } else if ["tEXt", "zTXt", "iTXt"].contains(chunk.type), chunk.length >= 2,
                      let keyword = try textKeyword(in: &source, at: chunk.dataStart, length: chunk.length),
                      xmpKeywords.contains(keyword) ? found.xmp == nil : (found.textProfile == nil && found.exif == nil) {
                try textChunk(chunk, keyword: keyword, in: &source, found: &found, warnings: &warnings)
            }
            position = chunk.end
        }
        return EmbeddedMetadata(exif: found.exif ?? found.textProfile, xmp: found.xmp)
    }

    /// What the chunks gave so far.
    struct Found {
        var exif: ExifBlock?
        var textProfile: ExifBlock?
        var xmp: [UInt8]?
        /// Once something was found, a file cut short ends the walk with a warning, not an error.
        var any: Bool { exif != nil || textProfile != nil || xmp != nil }
    }

    /// A chunk's header: its type, data length and where it (data + CRC) ends.
    struct Chunk {
        var type: String
        var length: Int
        var position: Int
        var dataStart: Int { position + 8 }
        var end: Int { dataStart + length + 4 }
    }

    /// The header of the chunk at `position`; nil when the file is cut inside it after something
    /// was found (a warning), else a cut is `truncated`.
    static func chunkHeader<S: ByteSource>(in source: inout S, at position: Int, found: Found,
                                           warnings: inout [String]) throws -> Chunk? {
        let size = source.size
        let headerEnd = position + 8
        guard headerEnd <= size else {
            if found.any {
                warnings.append("PNG cut at byte \(size), inside a chunk header")
                return nil
            }
            throw MetadataError.truncated(container: container, what: "chunk header at byte \(position)",
                                          endsAt: headerEnd, fileSize: size)
        }
        let header = try source.reader(at: position, count: 8, context: container)
        let length = Int(try header.u32(at: position, .bigEndian))
        let type = String(decoding: try header.bytes(at: position + 4, count: 4), as: UTF8.self)
        guard length <= 0x7FFF_FFFF else {
            throw MetadataError.malformed(container: container, offset: position,
                                          reason: "'\(type)' chunk length \(length) exceeds 2^31 − 1")
        }
        let chunk = Chunk(type: type, length: length, position: position)
        guard chunk.end <= size else {
            if found.any {
                warnings.append("PNG cut at byte \(size), inside the '\(type)' chunk at byte \(position)")
                return nil
            }
            throw MetadataError.truncated(container: container, what: "'\(type)' chunk at byte \(position)",
                                          endsAt: chunk.end, fileSize: size)
        }
        return chunk
    }

    /// An `eXIf` chunk (or one of its pre-registration spellings): the first one is the Exif.
    static func exifChunk<S: ByteSource>(_ chunk: Chunk, in source: inout S, found: inout Found,
                                         warnings: inout [String]) throws {
        let type = chunk.type
        guard found.exif == nil else {
            warnings.append("second '\(type)' chunk at byte \(chunk.position) ignored")
            return
        }
        guard chunk.length <= MetadataLimits.maxItemBytes else {
            throw MetadataError.limitExceeded(container: container, what: "'\(type)' chunk of \(chunk.length) bytes",
                                              limit: MetadataLimits.maxItemBytes)
        }
        let bytes = try source.reader(at: chunk.position + 4, count: chunk.length + 8, context: container)
        checkCRC(bytes, type: type, at: chunk.position, warnings: &warnings)
        if type != "eXIf" { warnings.append("Exif chunk named '\(type)' (before registration: 'eXIf')") }
        found.exif = tiffBlock(try bytes.child(at: chunk.dataStart, count: chunk.length), what: "'\(type)' chunk",
                               warnings: &warnings)
    }

    /// A text chunk with an XMP or raw-profile keyword: the XMP packet, or ImageMagick's hex
    /// Exif profile.
    static func textChunk<S: ByteSource>(_ chunk: Chunk, keyword: String, in source: inout S, found: inout Found,
                                         warnings: inout [String]) throws {
        let type = chunk.type
        guard chunk.length <= MetadataLimits.maxPNGTextChunk else {
            throw MetadataError.limitExceeded(container: container, what: "'\(type)' chunk of \(chunk.length) bytes",
                                              limit: MetadataLimits.maxPNGTextChunk)
        }
        let bytes = try source.reader(at: chunk.position + 4, count: chunk.length + 8, context: container)
        checkCRC(bytes, type: type, at: chunk.position, warnings: &warnings)
        let data = try bytes.child(at: chunk.dataStart, count: chunk.length)
        var text: [UInt8]?
        do {
            text = try profileText(data, type: type, keywordLength: keyword.utf8.count, warnings: &warnings)
        } catch let error as MetadataError {
            // A broken text chunk loses only this profile; a zlib bomb (limit) still throws.
            if case .limitExceeded = error { throw error }
            warnings.append("'\(keyword)' in the '\(type)' chunk at byte \(chunk.position) is unreadable (\(error)): ignored")
        }
        if keyword == xmpKeyword {
            found.xmp = text
        } else if keyword == rawXMPKeyword {
            found.xmp = text.flatMap { rawProfile($0, warnings: &warnings) }
        } else if let text, var profile = rawProfile(text, warnings: &warnings) {
            // ImageMagick's profile normally starts with `Exif\0\0` (section 4.1): no warning.
            if profile.starts(with: ExifDecoder.exifHeader) { profile.removeFirst(ExifDecoder.exifHeader.count) }
            found.textProfile = tiffBlock(ByteReader(profile, context: "raw profile"), what: "'\(keyword)'",
                                          warnings: &warnings).map { ExifBlock(tiff: $0.tiff, offset: chunk.dataStart) }
        }
    }

    /// Warns when the CRC-32 over type + data (the last 4 bytes of `chunk`) does not match.
    static func checkCRC(_ chunk: ByteReader, type: String, at: Int, warnings: inout [String]) {
        let stored = (try? chunk.u32(at: chunk.endOffset - 4, .bigEndian)) ?? 0
        let computed = chunk.withUnsafeBytes { raw -> UInt32 in
            let body = UnsafeRawBufferPointer(rebasing: raw[0..<(raw.count - 4)])
            let bytes = body.bindMemory(to: UInt8.self)
            return UInt32(truncatingIfNeeded: crc32(0, bytes.baseAddress, UInt32(bytes.count)))
        }
        if stored != computed { warnings.append("'\(type)' chunk at byte \(at): CRC mismatch (read anyway)") }
    }

    /// The TIFF stream of an Exif payload: a bare `II`/`MM` header, or one after `Exif\0\0`.
    static func tiffBlock(_ data: ByteReader, what: String, warnings: inout [String]) -> ExifBlock? {
        let start = data.range.lowerBound
        if JPEG.isTIFFHeader(data, at: start) {
            return ExifBlock(tiff: data.allBytes, offset: start)
        }
        if data.matches(ExifDecoder.exifHeader, at: start), JPEG.isTIFFHeader(data, at: start + 6) {
            warnings.append("\(what) starts with 'Exif\\0\\0' before the TIFF header")
            return (try? data.bytes(at: start + 6, count: data.count - 6)).map { ExifBlock(tiff: $0, offset: start + 6) }
        }
        warnings.append("\(what) has no TIFF header: ignored")
        return nil
    }

    /// The keyword of a text chunk when it names a raw Exif profile or an XMP packet.
    static func textKeyword<S: ByteSource>(in source: inout S, at: Int, length: Int) throws -> String? {
        let head = try source.reader(at: at, count: min(length, maxKeyword), context: container)
        let bytes = head.allBytes
        guard let nul = bytes.firstIndex(of: 0) else { return nil }
        let keyword = String(decoding: bytes[..<nul], as: UTF8.self)
        return rawProfileKeywords.contains(keyword) || xmpKeywords.contains(keyword) ? keyword : nil
    }

    /// The (inflated) text of a `tEXt`, `zTXt` or `iTXt` chunk after its keyword.
    static func profileText(_ data: ByteReader, type: String, keywordLength: Int, warnings: inout [String]) throws -> [UInt8]? {
        var at = data.range.lowerBound + keywordLength + 1
        switch type {
        case "tEXt":
            return try data.bytes(at: at, count: data.endOffset - at)
        case "zTXt":
            let method = try data.u8(at: at)
            guard method == 0 else {
                warnings.append("zTXt compression method \(method) unknown")
                return nil
            }
            return try inflate(try data.bytes(at: at + 1, count: data.endOffset - at - 1), at: at + 1)
        default:  // iTXt: flag, method, language tag\0, translated keyword\0, text
            let compressed = try data.u8(at: at), method = try data.u8(at: at + 1)
            at += 2
            for _ in 0..<2 {
                while try data.u8(at: at) != 0 { at += 1 }
                at += 1
            }
            let text = try data.bytes(at: at, count: data.endOffset - at)
            guard compressed != 0 else { return text }
            guard method == 0 else {
                warnings.append("iTXt compression method \(method) unknown")
                return nil
            }
            return try inflate(text, at: at)
        }
    }

    /// Inflates a zlib stream, at most `maxInflatedText` bytes.
    static func inflate(_ input: [UInt8], at offset: Int) throws -> [UInt8] {
        var stream = z_stream()
        guard inflateInit_(&stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw MetadataError.malformed(container: container, offset: offset, reason: "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        try input.withUnsafeBufferPointer { inBuffer in
            stream.next_in = UnsafeMutablePointer(mutating: inBuffer.baseAddress)
            stream.avail_in = UInt32(inBuffer.count)
            while true {
                let (status, produced) = buffer.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, out.count - Int(stream.avail_out))
                }
                output += buffer[0..<produced]
                guard output.count <= MetadataLimits.maxInflatedText else {
                    throw MetadataError.limitExceeded(container: container, what: "inflated text at byte \(offset)",
                                                      limit: MetadataLimits.maxInflatedText)
                }
                if status == Z_STREAM_END { return }
                guard status == Z_OK || status == Z_BUF_ERROR, produced > 0 || stream.avail_in > 0 else {
                    throw MetadataError.malformed(container: container, offset: offset,
                                                  reason: status == Z_OK || status == Z_BUF_ERROR
                                                      ? "compressed text ends early" : "compressed text is corrupt (zlib \(status))")
                }
            }
        }
        return output
    }

    /// Decodes ImageMagick's raw profile text: "\n<name>\n<spaces><count>\n<hex, broken by
    /// newlines>" (section 4.1).
    static func rawProfile(_ text: [UInt8], warnings: inout [String]) -> [UInt8]? {
        var i = 0
        func skip(_ predicate: (UInt8) -> Bool) { while i < text.count, predicate(text[i]) { i += 1 } }
        skip { $0 == 0x0A || $0 == 0x0D }
        skip { $0 != 0x0A }  // profile name
        skip { $0 == 0x0A || $0 == 0x0D || $0 == 0x20 }
        var count = 0
        let digitsStart = i
        while i < text.count, (0x30...0x39).contains(text[i]), i - digitsStart < 10 {
            count = count * 10 + Int(text[i] - 0x30)
            i += 1
        }
        guard i > digitsStart, count > 0 else {
            warnings.append("raw profile has no byte count")
            return nil
        }
        guard count <= MetadataLimits.maxItemBytes else {
            warnings.append("raw profile announces \(count) bytes: ignored")
            return nil
        }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x41...0x46: c - 0x41 + 10
            case 0x61...0x66: c - 0x61 + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        var high: UInt8?
        while i < text.count, bytes.count < count {
            let c = text[i]
            i += 1
            guard let n = nibble(c) else {
                if c == 0x0A || c == 0x0D || c == 0x20 || c == 0x09 { continue }
                warnings.append("raw profile has a non-hex character: ignored")
                return nil
            }
            if let h = high {
                bytes.append(h << 4 | n)
                high = nil
            } else {
                high = n
            }
        }
        guard bytes.count == count else {
            warnings.append("raw profile announces \(count) bytes but holds \(bytes.count): ignored")
            return nil
        }
        return bytes
    }
}
