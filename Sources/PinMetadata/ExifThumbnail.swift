import CExif
import PinCore

/// The small JPEG a camera or phone stores in a photo's EXIF IFD1 (JPEGInterchangeFormat,
/// TIFF 6.0 section 22 / Exif 2.3 section 4.5.8): the map page shows it in the pin's popup.
/// Only JPEG files for now: their Exif APP1 segment carries the thumbnail whole.
public enum ExifThumbnail {
    /// Largest thumbnail returned (bytes). Exif's 64 KiB APP1 limit bounds it anyway; a page
    /// caps what it embeds further.
    public static let maxBytes = 60 * 1024

    /// The thumbnail of the file at `path`, or nil when it has none (or is not a JPEG). Reads
    /// only the file's header segments, as the importer does.
    public static func read(path: RawPath) throws -> [UInt8]? {
        try withOpenFile(path) { fd, size in
            var source = try FileSource(fd: fd, size: size)
            let head = try source.reader(at: 0, count: min(FileKind.sniffLength, source.size), context: "file")
            guard FileKind.sniff(head.allBytes) == .jpeg else { return nil }
            var warnings: [String] = []
            guard let exif = try JPEG.findExif(in: &source, warnings: &warnings) else { return nil }
            return ExifDecoder.thumbnail(tiff: exif.tiff)
        }
    }
}

extension ExifDecoder {
    /// The IFD1 JPEG thumbnail libexif found in `tiff`, when it is a JPEG (SOI ... EOI) of at
    /// most `ExifThumbnail.maxBytes`; nil otherwise. Same rules as `decode`: one ExifData per
    /// call, freed before returning; the bytes are copied out.
    static func thumbnail(tiff: [UInt8]) -> [UInt8]? {
        guard let data = exif_data_new() else { return nil }
        defer { exif_data_unref(data) }
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        var buffer = exifHeader
        buffer.append(contentsOf: tiff)
        buffer.withUnsafeBufferPointer { raw in
            exif_data_load_data(data, raw.baseAddress, UInt32(clamping: raw.count))
        }
        let size = Int(data.pointee.size)
        guard let bytes = data.pointee.data, size >= 4, size <= ExifThumbnail.maxBytes else { return nil }
        let thumbnail = Array(UnsafeBufferPointer(start: bytes, count: size))
        guard thumbnail[0] == 0xFF, thumbnail[1] == 0xD8 else { return nil }
        return thumbnail
    }
}
