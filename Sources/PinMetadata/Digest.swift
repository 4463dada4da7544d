/// FNV-1a, 64 bits: a fast, dependency-free fingerprint of a metadata block, used to recognise a
/// moved or renamed photo (not a cryptographic hash).
enum FNV1a64 {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    static func hash<C: Sequence>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        // Runs for every photo: over contiguous storage when there is some (no iterator).
        if let h = bytes.withContiguousStorageIfAvailable({ hash(buffer: $0) }) { return h }
        var h = offsetBasis
        for byte in bytes {
            h ^= UInt64(byte)
            h = h &* prime
        }
        return h
    }

    private static func hash(buffer: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h = offsetBasis
        for byte in buffer {
            h ^= UInt64(byte)
            h = h &* prime
        }
        return h
    }

    /// 16 lowercase hex digits, written in place (one allocation, no padding strings).
    static func hexDigest<C: Sequence>(_ bytes: C) -> String where C.Element == UInt8 {
        let value = hash(bytes)
        return String(unsafeUninitializedCapacity: 16) { out in
            for i in 0..<16 {
                let digit = UInt8(truncatingIfNeeded: value >> (60 - 4 * UInt64(i))) & 0xF
                out[i] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
            }
            return 16
        }
    }
}
