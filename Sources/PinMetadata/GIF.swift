/// Resource limits of the GIF reader.
extension MetadataLimits {
    /// Most GIF blocks and data sub-blocks walked (an animation's frames are sub-blocks of at
    /// most 255 bytes: a 50 MB GIF has about 200,000). Stops a file of millions of empty
    /// blocks from keeping a reader busy.
    static let maxGIFBlocks = 1_000_000
    /// Furthest offset past the first image's start at which a GIF is still walked for an XMP
    /// extension written after the image data (by Photoshop-style writers; ExifTool writes it
    /// before). The walk reads every sub-block header, so this bounds what a large animation
    /// without XMP costs: a still photo GIF is walked to its trailer.
    static let maxGIFBytesPastFirstImage = 4 * 1024 * 1024
}

/// GIF (docs/formats.md section 9.4): no Exif; XMP in an application extension
/// `21 FF 0B "XMP DataXMP"` whose data is the raw packet followed by a 258-byte "magic
/// trailer" that makes it walk as sub-blocks. Walks the blocks (headers and sub-block sizes
/// only) up to the XMP extension, the trailer, or `maxGIFBytesPastFirstImage` past the first
/// image (the XMP may follow the image data: ExifTool looks there too); reads the packet up
/// to `<?xpacket end=…?>`.
enum GIF {
    static let container = "GIF"
    static let xmpApplication: [UInt8] = Array("XMP DataXMP".utf8)

    static func findMetadata<S: ByteSource>(in source: inout S, warnings: inout [String]) throws -> EmbeddedMetadata {
        let size = source.size
        guard size >= 13 else {
            throw MetadataError.endOfFile(container: container, offset: size, expected: "the 13-byte GIF header")
        }
        let packed = try source.byte(at: 10, context: container)
        var position = 13
        if packed & 0x80 != 0 { position += 3 << ((Int(packed) & 7) + 1) }
        var walk = BlockWalk(size: size)
        while position < size {
            try walk.count()
            let introducer = try source.byte(at: position, context: container)
            let step: Step
            switch introducer {
            case 0x3B:
                return EmbeddedMetadata()  // trailer
            case 0x2C:
                step = try walk.image(at: position, in: &source, warnings: &warnings)
            case 0x21:
                step = try walk.extensionBlock(at: position, in: &source)
            default:
                warnings.append("unknown GIF block 0x\(String(introducer, radix: 16)) at byte \(position): rest skipped")
                return EmbeddedMetadata()
            }
            switch step {
            case .next(let offset): position = offset
            case .done(let found): return found
            }
        }
        warnings.append("GIF ends at byte \(size) without its trailer")
        return EmbeddedMetadata()
    }

    /// After a block: the offset of the next one, or what the walk ends with.
    enum Step {
        case next(Int)
        case done(EmbeddedMetadata)
    }

    /// The walk's bounds: the blocks counted, where the first image was.
    struct BlockWalk {
        let size: Int
        var blocks = 0
        var firstImage: Int?

        mutating func count() throws {
            blocks += 1
            guard blocks <= MetadataLimits.maxGIFBlocks else {
                throw MetadataError.limitExceeded(container: container, what: "blocks", limit: MetadataLimits.maxGIFBlocks)
            }
        }

        /// Skips a chain of sub-blocks starting at `at`; returns the offset after its 0 terminator.
        mutating func skipSubBlocks<S: ByteSource>(_ at: Int, in source: inout S) throws -> Int {
            var p = at
            while true {
                try count()
                guard p < size else {
                    throw MetadataError.endOfFile(container: container, offset: size, expected: "a data sub-block")
                }
                let n = Int(try source.byte(at: p, context: container))
                p += 1 + n
                if n == 0 { return p }
            }
        }

        /// An image: descriptor (9 bytes after the introducer), local colour table, LZW code
        /// size, then its data sub-blocks, skipped by their sizes.
        mutating func image<S: ByteSource>(at position: Int, in source: inout S, warnings: inout [String]) throws -> Step {
            let first = firstImage ?? position
            firstImage = first
            guard position - first <= MetadataLimits.maxGIFBytesPastFirstImage else {
                // A long animation with no XMP this far: not walked further, and said so.
                let limit = MetadataLimits.maxGIFBytesPastFirstImage / (1024 * 1024)
                warnings.append("GIF walked to byte \(position) only (\(limit) MiB past its first image): an XMP packet after that is not read")
                return .done(EmbeddedMetadata(unreadPart: "no position in the first \(limit) MiB past the GIF's first image (an XMP packet after that is not read)"))
            }
            // A GIF cut inside its image data still gives what came before (a warning, as for a
            // missing trailer), not an error.
            var p = position + 10
            if position + 11 <= size {
                let local = try source.byte(at: position + 9, context: container)
                if local & 0x80 != 0 { p += 3 << ((Int(local) & 7) + 1) }
            }
            do {
                return .next(try skipSubBlocks(p + 1, in: &source))
            } catch MetadataError.endOfFile {
                warnings.append("GIF ends at byte \(size) inside the image at byte \(position)")
                return .done(EmbeddedMetadata())
            }
        }

        /// An extension: the XMP application extension ends the walk with its packet; any
        /// other is skipped.
        mutating func extensionBlock<S: ByteSource>(at position: Int, in source: inout S) throws -> Step {
            guard position + 2 <= size else {
                throw MetadataError.endOfFile(container: container, offset: size, expected: "an extension label")
            }
            let label = try source.byte(at: position + 1, context: container)
            if label == 0xFF, position + 3 + 11 <= size,
               try source.reader(at: position + 2, count: 12, context: container).matches([0x0B] + xmpApplication, at: position + 2) {
                let start = position + 3 + 11
                let end = try skipSubBlocks(start, in: &source)
                let count = min(end - start, MetadataLimits.maxXMPPacketBytes)
                let raw = try source.reader(at: start, count: count, context: container).allBytes
                return .done(EmbeddedMetadata(xmp: packet(raw)))
            }
            return .next(try skipSubBlocks(position + 2, in: &source))
        }
    }

    /// The packet: the raw bytes up to the end of `<?xpacket end=…?>` (the magic trailer
    /// follows), or up to `</x:xmpmeta>`.
    static func packet(_ raw: [UInt8]) -> [UInt8] {
        if let end = JPEG.firstIndex(of: Array("<?xpacket end".utf8), in: raw),
           let close = JPEG.firstIndex(of: Array("?>".utf8), in: Array(raw[end...])) {
            return Array(raw[..<(end + close + 2)])
        }
        if let end = JPEG.firstIndex(of: Array("</x:xmpmeta>".utf8), in: raw) {
            return Array(raw[..<(end + 12)])
        }
        return raw
    }
}
