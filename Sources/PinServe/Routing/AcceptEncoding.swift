import Foundation

/// A request's `Accept-Encoding` (RFC 9110 12.5.3), read without zlib: the request layer (and
/// its fuzz target) decides, Gzip.swift compresses.
enum AcceptEncoding {
    /// Whether an `Accept-Encoding` header value accepts gzip: a `gzip` (or `x-gzip`) or `*`
    /// coding whose q is not 0 (RFC 9110 12.5.3), case-insensitively.
    static func acceptsGzip(_ header: String?) -> Bool {
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
