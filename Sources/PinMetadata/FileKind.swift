import PinCore

/// Recognising a file's `FileKind` from its first bytes.
extension FileKind {
    /// Bytes `sniff` needs to decide for every kind (an ISOBMFF `ftyp` box with its brands);
    /// the MPEG-TS test needs two packets.
    static let sniffLength = 400

    /// Decides from the first bytes of a file (`sniffLength` are enough; fewer are fine for a
    /// short file).
    static func sniff(_ firstBytes: [UInt8]) -> FileKind {
        firstBytes.withUnsafeBytes { sniff($0) }
    }

    /// Same, on a raw buffer (the reader's window: no copy for the common kinds).
    static func sniff(_ firstBytes: UnsafeRawBufferPointer) -> FileKind {
        let b = UnsafeRawBufferPointer(rebasing: firstBytes.prefix(sniffLength))
        func at<Signature: Collection<UInt8>>(_ i: Int, _ sig: Signature) -> Bool {
            i + sig.count <= b.count && b[i..<(i + sig.count)].elementsEqual(sig)
        }
        func ascii(_ s: StaticString) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)
        }
        // The tests that need an array get one copy, made only when reached.
        var copy: [UInt8]?
        func array() -> [UInt8] {
            if copy == nil { copy = Array(b) }
            return copy!
        }

        // JPEG: SOI followed by a marker (section 1.1).
        if at(0, [0xFF, 0xD8, 0xFF]) { return .jpeg }
        // PNG signature (section 4.1).
        if at(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        // Fujifilm RAF (section 9.1), Photoshop PSD/PSB (9.3).
        if at(0, ascii("FUJIFILMCCD-RAW ")) { return .raf }
        if at(0, ascii("8BPS")) && (at(4, [0, 1]) || at(4, [0, 2])) { return .psd }
        if at(0, ascii("GIF87a")) || at(0, ascii("GIF89a")) { return .gif }
        // Minolta MRW, Canon CRW (CIFF), Sigma X3F.
        if at(0, [0x00]) && at(1, ascii("MRM")) { return .mrw }
        if (at(0, ascii("II")) || at(0, ascii("MM"))) && at(6, ascii("HEAPCCDR")) { return .crw }
        if at(0, ascii("FOVb")) { return .x3f }
        // JPEG 2000: the JP2 signature box (JP2, JPX), or a bare codestream (SOC, SIZ).
        if at(0, JP2.signature) || at(0, JP2.codestream) { return .jp2 }
        // JPEG XL (section 9.2).
        if at(0, [0xFF, 0x0A]) || at(0, [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        // RIFF....WEBP (section 4.2).
        if at(0, ascii("RIFF")) && at(8, ascii("WEBP")) { return .webp }
        if at(0, ascii("RIFF")) && at(8, ascii("AVI ")) { return .avi }
        if at(0, [0x1A, 0x45, 0xDF, 0xA3]) { return .matroska }
        // MPEG transport stream: AVCHD .MTS/.M2TS (192-byte packets) or .ts (188), two syncs.
        if TransportStream.packetLayout(array()) != nil { return .mpegts }
        // TIFF and TIFF-like raws (section 4.3): classic 42, BigTIFF 43, ORF "RO"/"RS", RW2 "U".
        for magic in [[0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00],
                      [0x4D, 0x4D, 0x00, 0x2B], [0x49, 0x49, 0x52, 0x4F], [0x49, 0x49, 0x52, 0x53], [0x4D, 0x4D, 0x4F, 0x52], // IIRO IIRS MMOR
                      [0x49, 0x49, 0x55, 0x00]] as [[UInt8]] where at(0, magic) {
            return .tiff
        }
        // ISOBMFF (sections 3.2, 5.1).
        if at(4, ascii("ftyp")) { return isoKind(array()) }
        // Old QuickTime files start with another top-level atom; camera and editor files with
        // padding (`free`, `skip`, `junk`, `wide`) or a `uuid` box (ExifTool's list, section
        // 9.12). The box size must at least hold its header.
        let firstSize = b.count >= 4 ? Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3]) : 0
        for atom: StaticString in ["moov", "mdat", "wide", "pnot", "free", "skip", "junk", "uuid", "PICT", "pict"]
        where at(4, ascii(atom)) && (firstSize == 0 || firstSize == 1 || firstSize >= 8) {
            return .quicktime
        }
        return .notMedia
    }

    /// HEIF image brands (section 3.2): a still or sequence of HEVC/AV1 images, or CR3.
    static let imageBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm",
                                            "hevs", "mif1", "mif2", "msf1", "avif", "avis", "avio",
                                            "crx "]
    /// Audio-only brands: not a photo or video.
    static let audioBrands: Set<String> = ["M4A ", "M4B ", "M4P ", "F4A ", "F4B "]
    /// Brands of video files that may list an image brand among their compatibles.
    static let videoBrands: Set<String> = ["qt  ", "isom", "iso2", "iso3", "iso4", "iso5", "iso6",
                                            "mp41", "mp42", "M4V ", "M4VH", "M4VP", "avc1", "3gp4",
                                            "3gp5", "3gp6", "3g2a", "MSNV", "XAVC", "dash", "f4v "]

    private static func isoKind(_ b: [UInt8]) -> FileKind {
        guard b.count >= 12 else { return .notMedia }
        func brand(_ i: Int) -> String { String(decoding: b[i..<(i + 4)], as: UTF8.self) }
        let major = brand(8)
        // Box size bounds the compatible-brand list (section 3.1); 0 or 1 mean "large", so stop
        // at what we have.
        let boxSize = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
        let end = boxSize >= 16 ? min(boxSize, b.count) : min(16, b.count)
        var compatible: [String] = []
        var i = 16
        while i + 4 <= end {
            compatible.append(brand(i))
            i += 4
        }
        if imageBrands.contains(major) { return .heif }
        if audioBrands.contains(major) { return .notMedia }
        if videoBrands.contains(major) { return .quicktime }
        if compatible.contains(where: imageBrands.contains) { return .heif }
        if compatible.contains(where: audioBrands.contains), !compatible.contains(where: videoBrands.contains) {
            return .notMedia
        }
        return .quicktime
    }
}
