/// The containers PinMetadata recognises from a file's first bytes (never from its name): a
/// photo's format. The raw values are stored (`photos.format`) and printed (`inspect --json`,
/// the import report); PinMetadata's `FileKind.sniff` decides.
public enum FileKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case jpeg
    /// HEIF/HEIC/AVIF still images, and other ISOBMFF image brands (Canon CR3 `crx `).
    case heif
    case png
    case webp
    /// TIFF, DNG and TIFF-based raws (CR2, NEF, ARW, PEF; ORF and RW2 with their own magic).
    case tiff
    /// QuickTime MOV and ISO MP4 video.
    case quicktime
    /// Fujifilm RAF raw: the Exif sits in the embedded JPEG (docs/formats.md 9.1).
    case raf
    /// Photoshop PSD and PSB: image resources 1058 (Exif) and 1060 (XMP), section 9.3.
    case psd
    /// JPEG XL, bare codestream or container (section 9.2).
    case jxl
    /// GIF: XMP only, in an application extension (section 9.4).
    case gif
    /// Minolta MRW raw: a TIFF in its `\0TTW` block.
    case mrw
    /// Canon CRW raw (CIFF heaps): the capture time only.
    case crw
    /// Sigma X3F raw: the Exif of its embedded JpgFromRaw, else the `PROP` time.
    case x3f
    /// MPEG transport stream: AVCHD .MTS/.M2TS (192-byte packets) and .ts; time and GPS in the
    /// H.264 SEI's MDPM block (section 9.11).
    case mpegts
    /// AVI (RIFF `AVI `): `IDIT`, `LIST INFO`, `strd` Exif (section 9.9).
    case avi
    /// Matroska and WebM (EBML): Info `DateUTC`, Tags (section 9.10).
    case matroska
    /// JPEG 2000 (JP2 and JPX; a bare J2K codestream carries no metadata): Exif and XMP in
    /// `uuid` boxes, XMP in an `xml ` box.
    case jp2
    /// Anything else: the pipeline counts it as a plain file.
    case notMedia

    /// Video containers (`--no-videos` leaves them out).
    public var isVideo: Bool {
        switch self {
        case .quicktime, .mpegts, .avi, .matroska: return true
        default: return false
        }
    }

    public var description: String { rawValue }
}
