/// JPEG 2000 (ISO/IEC 15444-1 annex I, JP2; 15444-2 annex M, JPX; docs/metadata-formats-notes.md).
/// The file is a sequence of boxes (the ISOBMFF header of section 3.1) opened by the signature
/// box `00 00 00 0C 'jP  ' 0D 0A 87 0A`, then `ftyp` (brand `jp2 ` or `jpx `), `jp2h`, the
/// codestream `jp2c` and, anywhere at the top level (ExifTool writes them after `jp2c`):
/// - Exif: a `uuid` box with the user type `JpgTiffExif->JP2` (ASCII), then the TIFF stream,
///   or `Exif\0\0` and the TIFF stream (Photoshop's JPEG 2000 plug-in), as ExifTool reads them;
/// - XMP: a `uuid` box BE7ACFCB-97A9-42E8-9C71-999491E3AFAC (the one MP4 uses), or an `xml `
///   box whose root element is `x:xmpmeta` or `rdf:RDF` (GDAL writes one so). Other `xml `
///   boxes (GDAL's own metadata, GML) are passed over.
/// A bare codestream (`FF 4F FF 51`) carries no metadata. Every top-level box header is read;
/// only the payloads of the metadata boxes (an `xml ` box's first KiB first, to see what it is).
enum JP2 {
    static let container = "JPEG 2000"
    static let signature: [UInt8] = [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    /// SOC then SIZ: the first two markers of a J2K codestream.
    static let codestream: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51]
    /// `JpgTiffExif->JP2`: 4A706754-6966-6645-7869-662D3E4A5032.
    static let exifUUID: [UInt8] = Array("JpgTiffExif->JP2".utf8)
    static let xml = ISOBox.code("xml ")
    /// How much of an `xml ` box is read to see whether it holds XMP.
    static let xmlSniffLength = 1_024

    static func findMetadata<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> EmbeddedMetadata {
        let size = source.size
        var found = EmbeddedMetadata()
        if size >= codestream.count, try source.reader(at: 0, count: codestream.count, context: container).matches(codestream, at: 0) {
            return found
        }
        var walk = ISOBoxWalker(from: 0, to: size, sizeZeroEnds: false, limit: MetadataLimits.maxBoxes)
        while found.exif == nil || found.xmp == nil, let box = try walk.nextWholeBox(in: &source, container: container) {
            if box.type == ISOBox.uuid, box.headerSize >= 24 {
                let user = try source.reader(at: box.payloadStart - 16, count: 16, context: container)
                if found.exif == nil, user.matches(exifUUID, at: user.range.lowerBound) {
                    guard let payload = try payload(of: box, what: "Exif 'uuid'", limit: MetadataLimits.maxItemBytes,
                                                    in: &source, warnings: &warnings) else { continue }
                    found.exif = exifBlock(payload, at: box.start, warnings: &warnings)
                } else if found.xmp == nil, user.matches(QuickTime.xmpUUID, at: user.range.lowerBound) {
                    found.xmp = try payload(of: box, what: "XMP 'uuid'", limit: MetadataLimits.maxXMPPacketBytes,
                                            in: &source, warnings: &warnings)?.allBytes
                }
            } else if box.type == xml, found.xmp == nil {
                let head = try source.reader(at: box.payloadStart, count: min(box.payloadCount, xmlSniffLength), context: container)
                guard isXMP(head.allBytes) else { continue }
                found.xmp = try payload(of: box, what: "XMP 'xml '", limit: MetadataLimits.maxXMPPacketBytes,
                                        in: &source, warnings: &warnings)?.allBytes
            }
        }
        return found
    }

    /// The payload of `box`, or nil with a warning when it is over `limit` bytes (the rest of
    /// the file may still say where and when).
    private static func payload<S: ByteSource>(of box: ISOBox, what: String, limit: Int, in source: inout S,
                                               warnings: inout [String]) throws -> ByteReader? {
        guard box.payloadCount <= limit else {
            warnings.append("\(what) box at byte \(box.start) is \(box.payloadCount) bytes, over the \(limit)-byte limit: ignored")
            return nil
        }
        return try source.reader(at: box.payloadStart, count: box.payloadCount, context: container)
    }

    /// The Exif `uuid` payload after its user type: the TIFF stream, or 6 bytes (`Exif\0\0`
    /// from Photoshop; anything else with a warning) and the TIFF stream.
    static func exifBlock(_ data: ByteReader, at boxStart: Int, warnings: inout [String]) -> ExifBlock? {
        let start = data.range.lowerBound
        if JPEG.isTIFFHeader(data, at: start) { return ExifBlock(tiff: data.allBytes, offset: start) }
        if data.count > 6, JPEG.isTIFFHeader(data, at: start + 6),
           let tiff = try? data.bytes(at: start + 6, count: data.count - 6) {
            if !data.matches(ExifDecoder.exifHeader, at: start) {
                warnings.append("Exif 'uuid' box at byte \(boxStart) has 6 unknown bytes before its TIFF header")
            }
            return ExifBlock(tiff: tiff, offset: start + 6)
        }
        warnings.append("Exif 'uuid' box at byte \(boxStart) has no TIFF header: ignored")
        return nil
    }

    /// Whether an `xml ` box (its first bytes) holds an XMP packet: past a byte-order mark,
    /// white space, the XML declaration and comments, an `<?xpacket` or a root element named
    /// `xmpmeta`/`xapmeta` (any prefix) or `rdf:RDF`.
    static func isXMP(_ head: [UInt8]) -> Bool {
        var i = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func starts(_ text: String) -> Bool {
            let t = Array(text.utf8)
            return i + t.count <= head.count && head[i..<(i + t.count)].elementsEqual(t)
        }
        func skip(past terminator: String) -> Bool {
            let t = Array(terminator.utf8)
            guard let at = JPEG.firstIndex(of: t, in: Array(head[i...])) else { return false }
            i += at + t.count
            return true
        }
        while true {
            while i < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[i]) { i += 1 }
            if starts("<?xpacket") { return true }
            if starts("<?") {
                guard skip(past: "?>") else { return false }
            } else if starts("<!--") {
                guard skip(past: "-->") else { return false }
            } else {
                break
            }
        }
        guard starts("<") else { return false }
        i += 1
        let nameStart = i
        while i < head.count, ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(head[i]) { i += 1 }
        let name = String(decoding: head[nameStart..<i], as: UTF8.self)
        let local = name.split(separator: ":").last.map(String.init) ?? name
        return local == "xmpmeta" || local == "xapmeta" || name == "rdf:RDF"
    }
}
