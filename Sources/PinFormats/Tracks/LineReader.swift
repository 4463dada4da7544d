#if canImport(Glibc)
import Glibc
import PinGrammar
#endif

/// Lines of a text file, one at a time, in bounded memory (CR, LF or CRLF ends a line).
final class LineReader {
    private let window: InputWindow
    private var pos = 0
    /// Input offset of the current line's first byte.
    private(set) var offset: Int64 = 0
    static let maxLineBytes = 1024 * 1024

    init(input: ByteInput, bufferSize: Int = 1 << 16) {
        window = InputWindow(input: input, initialCapacity: bufferSize, limit: LineReader.maxLineBytes, format: "text")
    }

    /// Calls `body` with the next line's bytes (without its end), valid only during the call;
    /// false at the end of the input.
    func next(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Bool {
        var start = pos
        var p = pos
        while true {
            if p == window.end {
                let r = try window.refill(keeping: start)
                start -= r.shift
                p -= r.shift
                if !r.more {
                    pos = p
                    guard p > start else { return false }
                    offset = window.baseOffset + Int64(start)
                    try body(UnsafeBufferPointer(start: window.base + start, count: p - start))
                    return true
                }
                continue
            }
            let c = window.base[p]
            if c == 0x0A || c == 0x0D {
                offset = window.baseOffset + Int64(start)
                try body(UnsafeBufferPointer(start: window.base + start, count: p - start))
                p += 1
                if c == 0x0D {
                    if p == window.end {
                        let r = try window.refill(keeping: p)
                        p -= r.shift
                    }
                    if p < window.end, window.base[p] == 0x0A { p += 1 }
                }
                pos = p
                return true
            }
            p += 1
        }
    }
}
