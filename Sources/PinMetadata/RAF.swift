/// Fujifilm RAF raw files (docs/formats.md section 9.1): a 16-byte magic, a big-endian
/// header, and at 0x54/0x58 the offset and length of an embedded JPEG whose APP1 carries the
/// Exif (with GPS). Only the header and the JPEG's marker segments are read.
enum RAF {
    static let container = "RAF"
    /// Header offsets of the embedded JPEG's offset and length (big-endian u32).
    static let jpegOffsetField = 0x54, jpegLengthField = 0x58

    static func findMetadata<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> EmbeddedMetadata {
        let size = source.size
        guard size >= jpegLengthField + 4 else {
            throw MetadataError.endOfFile(container: container, offset: size, expected: "the RAF header")
        }
        let header = try source.reader(at: jpegOffsetField, count: 8, context: container)
        let offset = Int(try header.u32(at: jpegOffsetField, .bigEndian))
        let length = Int(try header.u32(at: jpegLengthField, .bigEndian))
        guard offset >= jpegLengthField + 4, length >= 4 else {
            throw MetadataError.malformed(container: container, offset: jpegOffsetField,
                                          reason: "embedded JPEG at byte \(offset) with \(length) bytes")
        }
        guard offset <= size, length <= size - offset else {
            throw MetadataError.truncated(container: container, what: "embedded JPEG at byte \(offset)",
                                          endsAt: offset + length, fileSize: size)
        }
        var jpeg = SliceSource(base: source, start: offset, size: length)
        defer { source = jpeg.base }
        guard try jpeg.reader(at: 0, count: 3, context: container).matches([0xFF, 0xD8, 0xFF], at: 0) else {
            throw MetadataError.malformed(container: container, offset: offset, reason: "the embedded image is not a JPEG")
        }
        let exif = try JPEG.findExif(in: &jpeg, warnings: &warnings)
        let xmp = JPEG.findXMP(in: &jpeg, warnings: &warnings)
        return EmbeddedMetadata(exif: exif.map { ExifBlock(tiff: $0.tiff, offset: offset + $0.offset) }, xmp: xmp)
    }
}

/// A range of another source, seen as a source of its own (offsets from 0): an image embedded
/// in a container (RAF's JPEG, ...). Reads go to the base; each returned reader is a copy
/// rebased to the slice's offsets, so keep slices for metadata-sized reads.
struct SliceSource<Base: ByteSource>: ByteSource {
    var base: Base
    let start: Int
    let size: Int

    mutating func reader(at offset: Int, count: Int, context: String) throws -> ByteReader {
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else {
            throw MetadataError.outOfBounds(container: context, offset: offset, count: count, end: size)
        }
        let r = try base.reader(at: start + offset, count: count, context: context)
        return ByteReader(r.allBytes, baseOffset: offset, context: context)
    }
}
