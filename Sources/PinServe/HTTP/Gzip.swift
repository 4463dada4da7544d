import Foundation
import CZlib

/// gzip (RFC 1952) through zlib, for the map data a browser asks for again at each change: the
/// 23 MB of 100,000 pins are sent as a few MB to a browser that accepts it (every browser does),
/// made once per version of the data, not per request (`GzipStream`). Only the gzipped bytes
/// are kept; the rare client that does not accept gzip gets them unpacked (`decompress`) when
/// it asks.
enum Gzip {
    /// Unpacked output is made this many bytes at a time.
    private static let chunk = 256 * 1024

    /// The bytes of the gzip member `packed` (as `GzipStream` makes it), or nil when they are not one.
    static func decompress(_ packed: UnsafeRawBufferPointer) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        stream.next_in = UnsafeMutablePointer(mutating: packed.bindMemory(to: Bytef.self).baseAddress)
        stream.avail_in = uInt(packed.count)
        return drain(&stream, expected: packed.count * 4) { inflate(&$0, Z_FINISH) }
    }

    /// Runs `step` (inflate with Z_FINISH) into `chunk`-sized pieces until the stream ends: the
    /// output, or nil when zlib stopped short of the end.
    private static func drain(_ stream: inout z_stream, expected: Int, _ step: (inout z_stream) -> Int32) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(expected + chunk)
        var piece = [UInt8](repeating: 0, count: chunk)
        while true {
            let (status, made) = piece.withUnsafeMutableBytes { target -> (Int32, Int) in
                stream.next_out = target.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(target.count)
                let status = step(&stream)
                return (status, target.count - Int(stream.avail_out))
            }
            out.append(contentsOf: piece.prefix(made))
            if status == Z_STREAM_END { return out }
            // Z_BUF_ERROR with output made: the piece was full, go on; anything else is a failure.
            guard status == Z_OK || (status == Z_BUF_ERROR && made > 0) else { return nil }
        }
    }
}

/// gzip made as the text comes (`append`), for the map data: the 23 MB text of 100,000 pins is
/// never whole in memory, only its pieces and the gzipped bytes, which zlib writes straight into
/// the block the answer then holds (`finish`: no copy of the 6.5 MB into a body of its own, and
/// none of each piece of output into them). Used by one thread.
final class GzipStream {
    /// At an address of its own: zlib's state points back at it.
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    /// malloc's block of `capacity` bytes, the first `count` made; nil once handed on.
    private var block: UnsafeMutableRawPointer?
    private var count = 0
    private var capacity: Int
    private var failed = false

    /// nil when zlib cannot start. `expected`: about how many gzipped bytes, taken at once.
    init?(expected: Int, level: Int32 = 1) {
        stream.initialize(to: z_stream())
        capacity = max(expected, 64 * 1024)
        block = malloc(capacity)
        // windowBits 15 + 16: a gzip header and trailer, not zlib's.
        guard block != nil, deflateInit2_(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                                          Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }  // deinit frees them
    }

    /// The gzipped bytes of what `write` hands on, as a body that owns them; nil when zlib
    /// failed (the caller sends the bytes as they are). `expected`: as `init`'s.
    static func packed(expected: Int, _ write: ((UnsafeBufferPointer<UInt8>) -> Void) -> Void) -> SharedBody? {
        guard let stream = GzipStream(expected: expected) else { return nil }
        write { stream.append($0) }
        return stream.finish()
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        free(block)
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !failed, bytes.count > 0 else { return }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress)
        stream.pointee.avail_in = uInt(bytes.count)
        while stream.pointee.avail_in > 0, !failed { step(Z_NO_FLUSH) }
    }

    /// The gzipped bytes of everything appended, as a body that owns them, or nil when zlib failed.
    func finish() -> SharedBody? {
        guard !failed else { return nil }
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        while !failed {
            guard step(Z_FINISH) == Z_STREAM_END else { continue }
            // The block cut to its size (malloc gives the rest back), handed to the body.
            guard let kept = realloc(block, max(1, count)) else { return nil }
            block = nil
            return SharedBody(adopting: kept, count: count)
        }
        return nil
    }

    /// One deflate call into the block's free end (grown by half when less than 64 KiB is left).
    @discardableResult
    private func step(_ flush: Int32) -> Int32 {
        if capacity - count < 64 * 1024 {
            guard let grown = realloc(block, capacity + capacity / 2) else {
                failed = true
                return Z_MEM_ERROR
            }
            block = grown
            capacity += capacity / 2
        }
        let free = capacity - count
        stream.pointee.next_out = block!.advanced(by: count).assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(free)
        let status = deflate(stream, flush)
        let made = free - Int(stream.pointee.avail_out)
        count += made
        // Z_BUF_ERROR with output made: the space was full, go on; anything else is a failure.
        if !(status == Z_OK || status == Z_STREAM_END || (status == Z_BUF_ERROR && made > 0)) { failed = true }
        return status
    }
}
