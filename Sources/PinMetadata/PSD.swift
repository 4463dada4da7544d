/// Resource limits of the Photoshop reader.
extension MetadataLimits {
    /// Most image resource blocks walked. Photoshop writes a few dozen; stops a section of
    /// millions of empty blocks from keeping a reader busy.
    static let maxPSDResources = 10_000
}

/// Photoshop PSD and PSB (docs/formats.md section 9.3): the image resources section holds
/// resource 1058 (0x0422, a bare TIFF stream with the Exif) and 1060 (0x0424, the XMP packet).
/// Reads the 26-byte header, the two section lengths and the resource block headers; only the
/// data of those two resources. The layers and pixels are never read.
enum PSD {
    static let container = "PSD"
    static let exifResource: UInt16 = 1058, xmpResource: UInt16 = 1060
    /// Block signatures (Photoshop's own, and those of ImageReady and other writers).
    static let signatures: Set<String> = ["8BIM", "MeSa", "PHUT", "AgHg", "DCSR"]

    static func findMetadata<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> EmbeddedMetadata {
        let size = source.size
        func u32(_ at: Int, _ what: String) throws -> Int {
            guard at + 4 <= size else { throw MetadataError.truncated(container: container, what: what, endsAt: at + 4, fileSize: size) }
            return Int(try source.reader(at: at, count: 4, context: container).u32(at: at, .bigEndian))
        }
        // Header (26 bytes), then the colour mode data (u32 length + data).
        let colourModeLength = try u32(26, "header")
        let resourcesAt = 30 + colourModeLength
        let resourcesLength = try u32(resourcesAt, "image resources length")
        let start = resourcesAt + 4
        guard resourcesLength <= size - start else {
            throw MetadataError.truncated(container: container, what: "image resources at byte \(start)",
                                          endsAt: start + resourcesLength, fileSize: size)
        }
        let end = start + resourcesLength
        var found = EmbeddedMetadata()
        var position = start, blocks = 0
        while position + 12 <= end, found.exif == nil || found.xmp == nil {
            blocks += 1
            guard blocks <= MetadataLimits.maxPSDResources else {
                throw MetadataError.limitExceeded(container: container, what: "image resources", limit: MetadataLimits.maxPSDResources)
            }
            let head = try source.reader(at: position, count: 7, context: container)
            let signature = String(decoding: try head.bytes(at: position, count: 4), as: UTF8.self)
            guard signatures.contains(signature) else {
                warnings.append("image resource at byte \(position) has signature '\(CaptureTime.printable(signature))': rest skipped")
                break
            }
            let id = try head.u16(at: position + 4, .bigEndian)
            // Pascal name: length byte + name, padded to an even total.
            let nameLength = Int(try head.u8(at: position + 6))
            let sizeAt = position + 6 + ((nameLength + 1 + 1) & ~1)
            guard sizeAt + 4 <= end else { break }
            let dataLength = try u32(sizeAt, "image resource at byte \(position)")
            let dataAt = sizeAt + 4
            guard dataLength <= end - dataAt else {
                warnings.append("image resource \(id) at byte \(position) runs past its section: rest skipped")
                break
            }
            if id == exifResource, found.exif == nil {
                guard dataLength <= MetadataLimits.maxItemBytes else {
                    throw MetadataError.limitExceeded(container: container, what: "Exif resource of \(dataLength) bytes",
                                                      limit: MetadataLimits.maxItemBytes)
                }
                let data = try source.reader(at: dataAt, count: dataLength, context: container)
                found.exif = PNG.tiffBlock(data, what: "Exif resource 1058", warnings: &warnings)
            } else if id == xmpResource, found.xmp == nil {
                if dataLength <= MetadataLimits.maxXMPPacketBytes {
                    found.xmp = try source.reader(at: dataAt, count: dataLength, context: container).allBytes
                } else {
                    warnings.append("XMP resource 1060 of \(dataLength) bytes is over the limit: skipped")
                }
            }
            position = dataAt + dataLength + (dataLength & 1)
        }
        return found
    }
}
