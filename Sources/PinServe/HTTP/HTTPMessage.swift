import Foundation
import PinCore
import PinFormats

/// A request as the server's own layers see it, decoded by libevent's evhttp (request line,
/// headers, body) and copied out of its buffers: plain values, so the gate, the router and the
/// body decoding run (and are fuzzed) without a socket.
public struct HTTPRequest: Sendable {
    public enum Method: String, Sendable, CaseIterable {
        case get = "GET", head = "HEAD", post = "POST", put = "PUT", patch = "PATCH", delete = "DELETE"

        /// Only these change anything stored; GET and HEAD never do (the gate asks for a
        /// session's CSRF token and a same-origin `Origin` on each of them).
        public var writes: Bool { self != .get && self != .head }
    }

    public var method: Method
    /// The request target as sent ("/api/pins?q=paris"), not decoded.
    public var target: String
    /// The headers in the order sent; names as sent (compare them case-insensitively).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The peer's address as text ("127.0.0.1", "::1"): the client, or a reverse proxy.
    public var peer: String

    public init(method: Method, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [], peer: String = "127.0.0.1") {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.peer = peer
    }

    /// The first header of that name (ASCII case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.utf8.count == name.utf8.count && $0.name.lowercased() == name.lowercased() }?.value
    }

    /// How many headers of that name: a second Host or Cookie is refused, not guessed between.
    public func count(of name: String) -> Int {
        headers.reduce(0) { $0 + ($1.name.lowercased() == name.lowercased() ? 1 : 0) }
    }
}

/// What the server sends back: a status, headers (the security headers are added by
/// `Service.secured`), a body and, for a failed login, a delay before it is sent.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    /// The bytes sent (for a `shared` body, a copy of them: the tests' and HEAD's way).
    public var body: [UInt8] {
        get { shared.map { Array($0.bytes.prefix($0.byteCount)) } ?? plain }
        set { plain = newValue; shared = nil }
    }
    private var plain: [UInt8]
    /// A body kept and sent again and again (the map data): each answer in flight references these
    /// bytes instead of holding its own copy (`EventServer.send`).
    var shared: SharedBody?
    /// Seconds the event loop waits before sending (a failed login), without holding a thread.
    var delay: Double = 0

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.plain = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// `{"error": message}` with the status: every refusal says why, in words a person reads.
    public static func error(_ status: Int, _ message: String) -> HTTPResponse {
        json(status, ["error": message])
    }

    /// `value` (dictionaries, arrays, strings, numbers, NSNull) written by PinFormats' JSONText.
    public static func json(_ status: Int, _ value: Any) -> HTTPResponse {
        json(status, text: JSONText.string(value))
    }

    /// `json(_:text:)` with its body `shared` (see `shared`).
    static func sharedJSON(_ status: Int, text: String) -> HTTPResponse {
        var response = HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")])
        response.shared = SharedBody(text)
        return response
    }

    public static func json(_ status: Int, text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: Array(text.utf8))
    }

    /// JSON text already written as UTF-8 bytes.
    static func json(_ status: Int, bytes: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: bytes)
    }

    public static func text(_ status: Int, _ type: String, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", type)], body: Array(text.utf8))
    }

    /// The reason phrase evhttp sends with each status.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 303: "See Other"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 423: "Locked"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 202: "Accepted"
        case 503: "Service Unavailable"
        case 507: "Insufficient Storage"
        default: "Status"
        }
    }
}

/// A failure of the server itself (a socket, the crypto library, the password file), said in words.
struct ServerError: Error, CustomStringConvertible {
    let description: String
}

/// Bytes that never change nor move while anything holds them: libevent sends them by reference.
final class SharedBody: Sendable {
    nonisolated(unsafe) let bytes: UnsafeMutableRawBufferPointer

    init(_ text: String) {
        var text = text
        let count = text.utf8.count
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, count), alignment: 1)
        text.withUTF8 { utf8 in
            if let base = utf8.baseAddress { bytes.baseAddress?.copyMemory(from: base, byteCount: utf8.count) }
        }
        self.bytes = bytes
        byteCount = count
        adopted = false
    }

    init(_ source: [UInt8]) {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, source.count), alignment: 1)
        source.withUnsafeBytes { if let base = $0.baseAddress { bytes.baseAddress?.copyMemory(from: base, byteCount: $0.count) } }
        self.bytes = bytes
        byteCount = source.count
        adopted = false
    }

    /// A block of malloc's, at least one byte, whose first `count` bytes are the body: its owner
    /// now (`GzipStream.finish`), freed with it.
    init(adopting block: UnsafeMutableRawPointer, count: Int) {
        bytes = UnsafeMutableRawBufferPointer(start: block, count: max(1, count))
        byteCount = count
        adopted = true
    }

    /// The body's length (`bytes` holds at least one byte, for an empty text too).
    let byteCount: Int
    /// Whether `bytes` is a block of malloc's (`init(adopting:count:)`), else Swift's allocation.
    private let adopted: Bool

    deinit {
        if adopted { free(bytes.baseAddress) } else { bytes.deallocate() }
    }
}
