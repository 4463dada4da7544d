import CExif
import PinCore

/// The small JPEG a camera or phone stores in a photo's EXIF IFD1 (JPEGInterchangeFormat,
/// TIFF 6.0 section 22 / Exif 2.3 section 4.5.8): the map page shows it in the pin's popup.
/// Read from JPEG files (the Exif APP1 segment carries it whole), TIFF files and the TIFF-based
/// raws the metadata reader opens as TIFF (DNG, NEF, ARW, CR2, ORF, RW2, PEF: IFD1 of the file
/// itself, its JPEGInterchangeFormat pointing anywhere in the file), and the containers whose
/// Exif block is stored as the camera wrote it (HEIF, PNG eXIf, WebP, JPEG XL, JPEG 2000, PSD, RAF's JPEG).
/// Only a JPEG is returned: the browser decodes it, and pins has no image library.
public enum ExifThumbnail {
    /// Largest thumbnail returned (bytes). Exif's 64 KiB APP1 limit bounds it anyway; a page
    /// caps what it embeds further.
    public static let maxBytes = 60 * 1024

    /// The thumbnail of the file at `path`, or nil when it has none (or it is not a JPEG). Reads
    /// only the file's metadata and the thumbnail's own bytes, as the importer does.
    public static func read(path: RawPath) throws -> [UInt8]? {
        try withOpenFile(path) { fd, size in
            var source = try FileSource(fd: fd, size: size)
            let head = try source.reader(at: 0, count: min(FileKind.sniffLength, source.size), context: "file")
            var warnings: [String] = []
            let exif: ExifBlock?
            switch FileKind.sniff(head.allBytes) {
            case .jpeg: exif = try JPEG.findExif(in: &source, warnings: &warnings)
            case .tiff: return try tiffIFD1(in: &source)
            case .heif: exif = try HEIF.findMetadata(in: &source, warnings: &warnings).exif
            case .png: exif = try PNG.findMetadata(in: &source, warnings: &warnings).exif
            case .webp: exif = try WebP.findMetadata(in: &source, warnings: &warnings).exif
            case .jxl: exif = try JXL.findMetadata(in: &source, warnings: &warnings).exif
            case .jp2: exif = try JP2.findMetadata(in: &source, warnings: &warnings).exif
            case .psd: exif = try PSD.findMetadata(in: &source, warnings: &warnings).exif
            case .raf: exif = try RAF.findMetadata(in: &source, warnings: &warnings).exif
            default: return nil
            }
            return exif.flatMap { ExifDecoder.thumbnail(tiff: $0.tiff) }
        }
    }

    /// IFD1's JPEGInterchangeFormat (0x201) and its length (0x202) in a TIFF file: IFD0's
    /// next-IFD offset gives IFD1; the thumbnail is read from the file where it lies (in a raw,
    /// often past the first 64 KiB that libexif would see) when it is at most `maxBytes` and
    /// starts as a JPEG does. nil when there is no IFD1 or it holds no JPEG thumbnail.
    static func tiffIFD1<S: ByteSource>(in source: inout S) throws -> [UInt8]? {
        let (order, ifd0, layout) = try TIFF.header(in: &source)
        let size = source.size, context = TIFF.container
        guard ifd0 <= size - layout.countSize else { return nil }
        let countReader = try source.reader(at: ifd0, count: layout.countSize, context: context)
        let count = layout.isBig ? Int(clamping: try countReader.u64(at: ifd0, order)) : Int(try countReader.u16(at: ifd0, order))
        guard count <= MetadataLimits.maxIFDEntries else { return nil }
        let next = ifd0 + layout.countSize + layout.entrySize * count
        guard next <= size - layout.fieldSize,
              let ifd1 = try layout.offset(try source.reader(at: next, count: layout.fieldSize, context: context), at: next, order),
              ifd1 >= 8, ifd1 != ifd0, ifd1 <= size - layout.countSize else { return nil }
        var warnings: [String] = []
        let entries = try TIFF.readIFD(in: &source, at: ifd1, order: order, name: "IFD1", layout: layout, warnings: &warnings,
                                       keep: { $0 == 0x201 || $0 == 0x202 }, resolveValues: false)
        func long(_ tag: UInt16) throws -> Int? {
            // One LONG (some writers use SHORT; BigTIFF may say LONG8), inline in the entry.
            guard let entry = entries.first(where: { $0.tag == tag }), entry.count == 1 else { return nil }
            let reader = ByteReader(entry.value, context: context)
            switch entry.type {
            case 4: return Int(try reader.u32(at: 0, order))
            case 3: return Int(try reader.u16(at: 0, order))
            case 16 where layout.isBig: return Int(clamping: try reader.u64(at: 0, order))
            default: return nil
            }
        }
        guard let offset = try long(0x201), let length = try long(0x202), length >= 4, length <= maxBytes,
              offset >= 8, offset <= size, length <= size - offset else { return nil }
        let jpeg = try source.reader(at: offset, count: length, context: context).allBytes
        guard jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        return jpeg
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
