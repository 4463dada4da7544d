/// Bytes written into room set aside first, for a writer of many small pieces (a pin's JSON
/// object: about 40 of them): a piece is a copy into the room, where appending each to an array
/// checked the array's uniqueness and capacity every time (a third of writing a pin). When a piece
/// does not fit, `full` says so and the writing is done again in a room twice as large
/// (`append(to:)`): nothing is written past the room.
public struct ByteRoom {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var count = 0
    /// A piece did not fit: what was written is incomplete.
    private var full = false

    private init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        base = buffer.baseAddress!
        capacity = buffer.count
    }

    /// What `write` writes appended to `out`: written in 1 KiB on the stack (a larger one was allocated on the heap), or, when it does not
    /// fit, again in a room twice as large until it does. `write` must write the same each time.
    public static func append(to out: inout [UInt8], _ write: (inout ByteRoom) -> Void) {
        let written: Bool = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer in
            var room = ByteRoom(buffer)
            write(&room)
            guard !room.full else { return false }
            out.append(contentsOf: UnsafeBufferPointer(start: room.base, count: room.count))
            return true
        }
        var capacity = 4096
        while !written {
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: capacity)
            defer { buffer.deallocate() }
            var room = ByteRoom(buffer)
            write(&room)
            if !room.full {
                out.append(contentsOf: UnsafeBufferPointer(start: room.base, count: room.count))
                return
            }
            capacity *= 2
        }
    }

    @inline(__always)
    public mutating func put(_ byte: UInt8) {
        guard count < capacity else { full = true; return }
        base[count] = byte
        count += 1
    }

    public mutating func put(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= capacity - count else { full = true; return }
        if let source = bytes.baseAddress { (base + count).update(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count) }
        count += bytes.count
    }

    public mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { put($0) }
    }

    /// A text's UTF-8 bytes as they are.
    public mutating func put(_ text: String) {
        var text = text
        text.withUTF8 { put(UnsafeRawBufferPointer($0)) }
    }

    /// At most `most` bytes written by `body` into the room (it returns how many). False when
    /// `body` wrote none (it returned nil); true too when they did not fit (`full`).
    public mutating func write(atMost most: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Int?) -> Bool {
        guard most <= capacity - count else { full = true; return true }
        guard let written = body(UnsafeMutableBufferPointer(start: base + count, count: most)) else { return false }
        count += written
        return true
    }

    /// A string's JSON text (`JSONText.appendString`'s, which writes through this): `"` and `\`
    /// escaped, `\n` `\r` `\t` by name, other control characters as `\u00xx`, everything else as
    /// it is.
    public mutating func putJSONString(_ s: String) {
        put(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            if Self.isPlainJSON(bytes) {
                put(UnsafeRawBufferPointer(bytes))
                return
            }
            for byte in bytes { putEscaped(byte) }
        }
        put(UInt8(ascii: "\""))
    }

    /// Whether a string's UTF-8 bytes are its JSON text as they are: no `"`, `\` nor control
    /// character to escape.
    static func isPlainJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
    }

    private mutating func putEscaped(_ byte: UInt8) {
        let hex: StaticString = "0123456789abcdef"
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
            put(UInt8(ascii: "\\"))
            put(byte)
        case 0x0A: put(UInt8(ascii: "\\")); put(UInt8(ascii: "n"))
        case 0x0D: put(UInt8(ascii: "\\")); put(UInt8(ascii: "r"))
        case 0x09: put(UInt8(ascii: "\\")); put(UInt8(ascii: "t"))
        case ..<0x20:
            for b in [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")] { put(b) }
            put(hex.utf8Start[Int(byte >> 4)])
            put(hex.utf8Start[Int(byte & 0x0F)])
        default: put(byte)
        }
    }
}
