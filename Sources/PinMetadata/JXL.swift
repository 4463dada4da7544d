import CBrotli

/// JPEG XL (docs/formats.md section 9.2). A bare codestream (`FF 0A`) carries no metadata.
/// The container (`JXL ` signature box, `ftyp`) holds an `Exif` box (u32 offset, then the TIFF
/// stream), an `xml ` box (the XMP packet), or either Brotli-compressed in a `brob` box (4-byte
/// inner type, then the stream; cjxl's lossless JPEG transcode writes them so). Every top-level
/// box header is read (metadata may sit between or after `jxlp` codestream parts); only the
/// payloads of the metadata boxes.
enum JXL {
    static let container = "JPEG XL"
    static let containerSignature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    static let bareCodestream: [UInt8] = [0xFF, 0x0A]
    static let exif = ISOBox.code("Exif"), xml = ISOBox.code("xml "), brob = ISOBox.code("brob")

    static func findMetadata<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> EmbeddedMetadata {
        let size = source.size
        var found = EmbeddedMetadata()
        if size >= 2, try source.reader(at: 0, count: 2, context: container).matches(bareCodestream, at: 0) {
            return found
        }
        var walk = ISOBoxWalker(from: 0, to: size, sizeZeroEnds: false, limit: MetadataLimits.maxBoxes)
        while found.exif == nil || found.xmp == nil, let box = try walk.nextWholeBox(in: &source, container: container) {
            var type = box.type
            var payload: [UInt8]?
            if box.type == exif || box.type == xml || box.type == brob {
                guard box.payloadCount <= MetadataLimits.maxItemBytes else {
                    throw MetadataError.limitExceeded(container: container, what: "'\(box.name)' box of \(box.payloadCount) bytes",
                                                      limit: MetadataLimits.maxItemBytes)
                }
                payload = try source.reader(at: box.payloadStart, count: box.payloadCount, context: container).allBytes
            }
            if box.type == brob, let compressed = payload, compressed.count >= 4 {
                type = UInt32(compressed[0]) << 24 | UInt32(compressed[1]) << 16 | UInt32(compressed[2]) << 8 | UInt32(compressed[3])
                if type == exif || type == xml {
                    payload = try brotliDecompress(Array(compressed.dropFirst(4)), at: box.payloadStart + 4, warnings: &warnings)
                } else {
                    payload = nil
                }
            }
            if let data = payload {
                if type == exif, found.exif == nil {
                    found.exif = exifBlock(data, at: box.payloadStart, warnings: &warnings)
                } else if type == xml, found.xmp == nil {
                    found.xmp = data
                }
            }
        }
        return found
    }

    /// An `Exif` box payload: u32 offset to the TIFF header (usually 0), then the TIFF stream.
    static func exifBlock(_ data: [UInt8], at offset: Int, warnings: inout [String]) -> ExifBlock? {
        let r = ByteReader(data, baseOffset: offset, context: container)
        guard let skip = try? Int(r.u32(at: offset, .bigEndian)), skip <= data.count - 4,
              let tiff = try? r.child(at: offset + 4 + skip, count: data.count - 4 - skip) else {
            warnings.append("'Exif' box at byte \(offset) has no TIFF header: ignored")
            return nil
        }
        return PNG.tiffBlock(tiff, what: "'Exif' box", warnings: &warnings)
    }

    /// Decompresses a Brotli stream, at most `maxItemBytes`. A corrupt stream is a warning
    /// (the image is still readable without its metadata).
    static func brotliDecompress(_ input: [UInt8], at offset: Int, warnings: inout [String]) throws -> [UInt8]? {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else {
            throw MetadataError.malformed(container: container, offset: offset, reason: "Brotli could not start")
        }
        defer { BrotliDecoderDestroyInstance(state) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        return try input.withUnsafeBufferPointer { inBuffer -> [UInt8]? in
            var availableIn = inBuffer.count
            var nextIn = inBuffer.baseAddress
            while true {
                var availableOut = buffer.count
                let result = buffer.withUnsafeMutableBufferPointer { out -> BrotliDecoderResult in
                    var nextOut = out.baseAddress
                    return BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                }
                output += buffer[0..<(buffer.count - availableOut)]
                guard output.count <= MetadataLimits.maxItemBytes else {
                    throw MetadataError.limitExceeded(container: container, what: "Brotli output at byte \(offset)",
                                                      limit: MetadataLimits.maxItemBytes)
                }
                switch result {
                case BROTLI_DECODER_RESULT_SUCCESS:
                    return output
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
                    continue
                default:
                    warnings.append("'brob' box at byte \(offset - 12): the Brotli stream is cut or corrupt: ignored")
                    return nil
                }
            }
        }
    }
}
