import Foundation
import PinCore

/// The XMP packets of a JPEG: the APP1 segments that hold the main packet and Extended XMP.
extension JPEG {
    /// The APP1 identifier of the main XMP packet (section 6.1).
    static let xmpIdentifier: [UInt8] = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    /// Getty Images' non-standard identifier (section 9.13).
    static let gettyXMPIdentifier: [UInt8] = Array("XMP\0://ns.adobe.com/xap/1.0/\0".utf8)
    /// How far into an APP1 without a known identifier a packet start is looked for.
    static let xmpSniffLength = 1_024

    /// The main XMP packet of a JPEG, or nil: the first APP1 starting with `xmpIdentifier`, or
    /// (with a warning) with Getty's `XMP\0://...` identifier or another header followed by an
    /// `<?xpacket` or `<x:xmpmeta` start within its first KiB (ExifTool reads those too).
    /// Extended XMP is joined separately (`findExtendedXMP`), only when the main packet names it
    /// and lacks a position or a time.
    static func findXMP<S: ByteSource>(in source: inout S, warnings: inout [String]) -> [UInt8]? {
        var packet: [UInt8]?
        walkSegments(in: &source, warnings: &warnings) { source, code, at, payloadStart, payloadCount, warnings in
            guard code == 0xE1, let payload = try? source.reader(at: payloadStart, count: payloadCount, context: container),
                  let start = xmpStart(in: payload) else { return true }
            if start.nonStandard {
                note("APP1 XMP segment at byte \(at) has a non-standard header", in: &warnings)
            }
            packet = try? payload.bytes(at: start.offset, count: payload.endOffset - start.offset)
            return false
        }
        return packet
    }

    /// A second, lenient walk over the marker segments before SOS (the Exif walk in `findExif`
    /// stops at the Exif APP1, and XMP usually follows it): `visit` gets each segment's code,
    /// offset and payload range and returns false to stop. Junk between segments is skipped as
    /// there; anything else odd ends the walk, since `findExif` has already judged the file's
    /// structure.
    static func walkSegments<S: ByteSource>(
        in source: inout S, warnings: inout [String],
        _ visit: (inout S, _ code: UInt8, _ at: Int, _ payloadStart: Int, _ payloadCount: Int, inout [String]) -> Bool
    ) {
        let size = source.size
        var position = 2
        var segments = 0
        while position + 4 <= size, position < MetadataLimits.maxJPEGHeaderBytes,
              segments < MetadataLimits.maxJPEGSegments {
            segments += 1
            guard let header = try? source.reader(at: position, count: 4, context: container),
                  let first = try? header.u8(at: position),
                  let code = try? header.u8(at: position + 1) else { return }
            if first != 0xFF {
                guard let next = try? skipJunk(in: &source, from: position, warnings: &warnings) else { return }
                position = next
                continue
            }
            if code == 0xFF { position += 1; continue }  // fill byte
            switch code {
            case 0xD0...0xD7, 0x01: position += 2; continue
            case 0xDA, 0xD9, 0x00, 0xD8: return
            default: break
            }
            guard let length = try? Int(header.u16(at: position + 2, .bigEndian)), length >= 2,
                  position + 2 + length <= size else { return }
            guard visit(&source, code, position, position + 4, length - 2, &warnings) else { return }
            position += 2 + length
        }
    }

    /// The APP1 identifier of an Extended XMP chunk: then a 32-character GUID, the full
    /// length and this chunk's offset (both 32-bit big-endian), then the chunk's bytes
    /// (XMP specification part 3, 1.1.3.1).
    static let extendedXMPIdentifier: [UInt8] = Array("http://ns.adobe.com/xmp/extension/\0".utf8)

    /// The Extended XMP whose GUID the main packet names (`xmpNote:HasExtendedXMP`), joined
    /// from its APP1 chunks in any order, or nil (with a warning when chunks were there but do
    /// not make it whole). Chunks with another GUID are left out, as ExifTool does; the GUID is
    /// not checked against the MD5 of the joined bytes (ExifTool does not either). Bounded: the
    /// full length is at most `maxXMPPacketBytes`, chunks must agree on it and lie inside it.
    static func findExtendedXMP<S: ByteSource>(in source: inout S, guid: String, warnings: inout [String]) -> [UInt8]? {
        let id = extendedXMPIdentifier, guidBytes = Array(guid.utf8)
        guard guidBytes.count == 32 else { return nil }
        var joined: [UInt8] = []
        var fullLength: Int?
        var pieces: [Range<Int>] = []
        var problem: String?
        walkSegments(in: &source, warnings: &warnings) { source, code, at, payloadStart, payloadCount, _ in
            let headerLength = id.count + 32 + 8
            guard code == 0xE1, payloadCount >= headerLength,
                  let head = try? source.reader(at: payloadStart, count: headerLength, context: container),
                  head.matches(id, at: payloadStart), head.matches(guidBytes, at: payloadStart + id.count),
                  let full = try? Int(head.u32(at: payloadStart + id.count + 32, .bigEndian)),
                  let offset = try? Int(head.u32(at: payloadStart + id.count + 36, .bigEndian)) else { return true }
            let count = payloadCount - headerLength
            guard full <= MetadataLimits.maxXMPPacketBytes else {
                problem = "Extended XMP of \(full) bytes is over the limit: ignored"
                return false
            }
            guard fullLength == nil || fullLength == full else {
                problem = "Extended XMP chunk at byte \(at) gives another full length (\(full)): ignored"
                return false
            }
            guard offset <= full, count <= full - offset else {
                problem = "Extended XMP chunk at byte \(at) lies outside its \(full) bytes: ignored"
                return false
            }
            if fullLength == nil {
                fullLength = full
                joined = [UInt8](repeating: 0, count: full)
            }
            guard let data = try? source.reader(at: payloadStart + headerLength, count: count, context: container)
                .bytes(at: payloadStart + headerLength, count: count) else { return false }
            joined.replaceSubrange(offset..<(offset + count), with: data)
            pieces.append(offset..<(offset + count))
            return true
        }
        if let problem {
            warnings.append(problem)
            return nil
        }
        guard let fullLength else { return nil }
        var covered = 0
        for piece in pieces.sorted(by: { $0.lowerBound < $1.lowerBound }) where piece.lowerBound <= covered {
            covered = max(covered, piece.upperBound)
        }
        guard covered == fullLength else {
            warnings.append("Extended XMP \(guid) is incomplete (\(covered) of \(fullLength) bytes in order): ignored")
            return nil
        }
        return joined
    }

    /// Where the XMP packet starts inside an APP1 payload, if it holds one.
    static func xmpStart(in payload: ByteReader) -> (offset: Int, nonStandard: Bool)? {
        let base = payload.range.lowerBound
        if payload.matches(xmpIdentifier, at: base) { return (base + xmpIdentifier.count, false) }
        if payload.matches(gettyXMPIdentifier, at: base) { return (base + gettyXMPIdentifier.count, true) }
        // Exif, extended XMP and other APP1s are not the main packet.
        if payload.matches(Array("Exif".utf8), at: base) || payload.matches(Array("http://ns.adobe.com/xmp/extension/".utf8), at: base) {
            return nil
        }
        guard let head = try? payload.bytes(at: base, count: min(payload.count, xmpSniffLength)) else { return nil }
        for marker in ["<?xpacket", "<x:xmpmeta"] {
            let needle = Array(marker.utf8)
            if let i = firstIndex(of: needle, in: head) { return (base + i, true) }
        }
        return nil
    }

    /// The first index of `needle` in `haystack`.
    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
        }
        return nil
    }
}
