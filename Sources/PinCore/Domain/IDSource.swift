import Foundation

/// No randomness could be had for a new id: pins stops rather than make an id that may repeat.
public struct RandomnessUnavailable: Error, CustomStringConvertible, Equatable {
    let reason: String

    public init(reason: String) { self.reason = reason }

    public var description: String {
        "cannot make a new pin id: the system gives no randomness (\(reason)); nothing was written"
    }
}

/// Where new ids come from: random version-4 UUIDs made from 16 bytes of `bytes`.
///
/// Not Foundation's `UUID()`: on Linux it reads /dev/urandom and ignores a failure, so without
/// that file (a bare chroot, a container, a NAS jail) every id is the same and pins overwrite
/// each other. The system source (`IDSource.system`, in PinStore: PinCore does no I/O) is
/// getrandom(2); its failure is an error, never a fixed id. Tests inject their own bytes (a
/// constant, to provoke a collision; a failure).
public struct IDSource: Sendable {
    private let bytes: @Sendable () throws -> [UInt8]

    /// `bytes` returns at least 16 bytes per call.
    public init(bytes: @escaping @Sendable () throws -> [UInt8]) { self.bytes = bytes }

    /// A new random (version 4, RFC 9562) id.
    public func next() throws -> UUID {
        var b = try bytes()
        guard b.count >= 16 else { throw RandomnessUnavailable(reason: "got \(b.count) of 16 bytes") }
        b[6] = (b[6] & 0x0F) | 0x40 // version 4
        b[8] = (b[8] & 0x3F) | 0x80 // RFC variant
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}

extension UUID {
    /// The id as pins writes it everywhere (database, JSON, exports): 36 lower-case characters.
    /// Written from the bytes (`uuidString.lowercased()` made two strings, a tenth of printing
    /// 100,000 ids).
    public var lowercasedText: String {
        String(unsafeUninitializedCapacity: 36) { writeLowercased(into: $0) }
    }

    /// `lowercasedText` written into `out` (36 bytes at least; a JSON writer's, without a String
    /// made): 36.
    public func writeLowercased(into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        withUnsafeBytes(of: uuid) { raw in
            let hex: StaticString = "0123456789abcdef"
            var at = 0
            for (i, byte) in raw.enumerated() {
                if i == 4 || i == 6 || i == 8 || i == 10 { out[at] = UInt8(ascii: "-"); at += 1 }
                out[at] = hex.utf8Start[Int(byte >> 4)]
                out[at + 1] = hex.utf8Start[Int(byte & 0x0F)]
                at += 2
            }
            return at
        }
    }
}
