/// One ISO base media file format box header (ISO/IEC 14496-12 §4.2; metadata-formats.md 3.1),
/// the structure shared by HEIF/AVIF, Canon CR3, QuickTime/MP4 and the JPEG XL container.
/// Offsets are absolute. Each container walks its own boxes (what to read, what a bad size
/// costs) but parses every header here.
struct ISOBox: Sendable, Hashable {
    /// The four-character type as a big-endian integer (`©xyz` is 0xA978797A).
    var type: UInt32
    /// Offset of the size field.
    var start: Int
    /// 8, 16 with a 64-bit size, plus 16 for a `uuid` box's user type.
    var headerSize: Int
    /// Offset one past the box.
    var end: Int

    var payloadStart: Int { start + headerSize }
    var payloadCount: Int { end - payloadStart }
    var size: Int { end - start }
    /// The type as text (`©` for 0xA9, `\xNN` for other bytes outside printable ASCII).
    var name: String { ISOBox.name(type) }

    /// A four-character code as a big-endian integer.
    static func code(_ text: String) -> UInt32 {
        text.unicodeScalars.reduce(0) { $0 << 8 | UInt32($1.value & 0xFF) }
    }

    static let uuid = code("uuid")

    /// Why a header does not fit.
    enum Problem: Error {
        /// The size (in bytes) is smaller than the header it needs.
        case tooSmall(size: Int, header: Int)
        /// The box ends past its parent (or the file); the box as read.
        case pastParent(ISOBox)
        /// Fewer bytes than a header before the parent's end (or in the reader).
        case truncatedHeader
    }

    /// Parses the header at `at` from `r` (which must hold the header's bytes). Size 0 means
    /// "to `parentEnd`" (callers that treat a nested size 0 as a terminator check first);
    /// size 1 a 64-bit size. A `uuid` box too small for its 16-byte user type is `tooSmall`,
    /// or with `lenientUUID` a plain 8-byte-header box (a renamed 20-byte `ftyp`, which
    /// ExifTool reads past).
    static func header(_ r: ByteReader, at: Int, parentEnd: Int, lenientUUID: Bool = false) throws(Problem) -> ISOBox {
        guard parentEnd - at >= 8, (try? r.check(at, 8)) != nil,
              let size32 = try? r.u32(at: at, .bigEndian), let type = try? r.u32(at: at + 4, .bigEndian) else {
            throw .truncatedHeader
        }
        var headerSize = 8
        let size: Int
        switch size32 {
        case 0:
            size = parentEnd - at
        case 1:
            guard parentEnd - at >= 16, let large = try? r.u64(at: at + 8, .bigEndian) else { throw .truncatedHeader }
            headerSize = 16
            guard large >= 16 else { throw .tooSmall(size: Int(large), header: 16) }
            guard large <= UInt64(Int.max - at) else {
                throw .pastParent(ISOBox(type: type, start: at, headerSize: 16, end: Int.max))
            }
            size = Int(large)
        default:
            guard size32 >= 8 else { throw .tooSmall(size: Int(size32), header: 8) }
            size = Int(size32)
        }
        if type == uuid {
            if size >= headerSize + 16 {
                headerSize += 16
            } else if !lenientUUID {
                throw .tooSmall(size: size, header: headerSize + 16)
            }
        }
        let box = ISOBox(type: type, start: at, headerSize: headerSize, end: at + size)
        guard box.end <= parentEnd else { throw .pastParent(box) }
        return box
    }

    static func name(_ type: UInt32) -> String {
        var out = ""
        for shift in stride(from: 24, through: 0, by: -8) {
            let byte = UInt8(truncatingIfNeeded: type >> UInt32(shift))
            if byte == 0xA9 {
                out += "©"
            } else if (0x20..<0x7F).contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "\\x" + JPEG.hex(byte).dropFirst(2)
            }
        }
        return out
    }
}
