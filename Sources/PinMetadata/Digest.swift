/// FNV-1a, 64 bits: a fast, dependency-free fingerprint of a metadata block, used to recognise a
/// moved or renamed photo (not a cryptographic hash).
enum FNV1a64 {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    static func hash<C: Sequence>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        var h = offsetBasis
        for byte in bytes {
            h ^= UInt64(byte)
            h = h &* prime
        }
        return h
    }

    /// 16 lowercase hex digits.
    static func hexDigest<C: Sequence>(_ bytes: C) -> String where C.Element == UInt8 {
        let text = String(hash(bytes), radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
