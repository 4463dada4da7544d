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

    /// Whether an `Accept-Encoding` header value accepts gzip: a `gzip` (or `x-gzip`) or `*`
    /// coding whose q is not 0 (RFC 9110 12.5.3), case-insensitively.
    static func accepted(by header: String?) -> Bool {
        guard let header else { return false }
        var star: Bool?
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first else { continue }
            let refused = parts.dropFirst().contains { parameter in
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                return pair.count == 2 && pair[0] == "q" && (Double(pair[1]).map { $0 == 0 } ?? false)
            }
            if coding == "gzip" || coding == "x-gzip" { return !refused }
            if coding == "*" { star = !refused }
        }
        return star ?? false
    }
}
