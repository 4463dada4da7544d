import PinCore

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

    /// As text: 16 lowercase hex digits (`StoredDigest.text` of the value).
    static func hexDigest<C: Sequence>(_ bytes: C) -> String where C.Element == UInt8 {
        StoredDigest.hexText(hash(bytes))
    }
}
