import Foundation
import CZlib

/// gzip (RFC 1952) through zlib, for the map data a browser asks for again at each change: the
/// 23 MB of 100,000 pins are sent as a few MB to a browser that accepts it (every browser does),
/// made once per version of the data, not per request.
enum Gzip {
    /// `bytes` compressed at `level` (1: fastest), or nil when zlib fails (then the bytes are
    /// sent as they are).
    static func compress(_ bytes: UnsafeRawBufferPointer, level: Int32 = 1) -> [UInt8]? {
        var stream = z_stream()
        // windowBits 15 + 16: a gzip header and trailer, not zlib's.
        guard deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                             Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        let status = out.withUnsafeMutableBytes { target -> Int32 in
            stream.next_in = UnsafeMutablePointer(mutating: bytes.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(bytes.count)
            stream.next_out = target.bindMemory(to: Bytef.self).baseAddress
            stream.avail_out = uInt(target.count)
            return deflate(&stream, Z_FINISH)
        }
        guard status == Z_STREAM_END else { return nil }
        out.removeSubrange(Int(stream.total_out)...)
        return out
    }
}

extension HTTPResponse {
    /// This response with its shared body gzipped (`Content-Encoding: gzip`), or nil when it
    /// has no shared body or zlib failed.
    func gzipped() -> HTTPResponse? {
        guard let shared, let packed = Gzip.compress(UnsafeRawBufferPointer(start: shared.bytes.baseAddress, count: shared.byteCount)) else {
            return nil
        }
        var response = self
        response.shared = SharedBody(packed)
        response.headers.append(("Content-Encoding", "gzip"))
        return response
    }
}
