import CServe
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the HTTP layer bounds, each against an abuse: a client that sends endless headers, a
/// huge body, or trickles bytes to hold a connection (slowloris); a flood that would queue
/// without end.
public struct ServerLimits: Sendable {
    /// Request line and headers together (evhttp answers 400 beyond; browsers send 1-2 KB).
    var headerBytes = 16 * 1024
    /// The largest body evhttp reads (413 beyond): an uploaded place file; each route has its own,
    /// smaller limit on top (`Router.bodyLimit`).
    var bodyBytes = 16 * 1024 * 1024
    /// Seconds a connection may take to send its request or read the reply (evhttp's timeout).
    var timeoutSeconds = 20
    /// Threads that run the use cases.
    public var workers = 4
    /// Requests waiting for a thread; more are answered 503 at once.
    public var queue = 512
    /// malloc's arenas (glibc: up to 8 per core, one per thread that meets a busy one, each keeping
    /// what was freed in it; with 4 workers and the map data's thread the service's RSS stayed
    /// near its peak, scripts/bench-serve) and the size from which a block is mapped apart and
    /// given back when freed (`pins_memory_limit`).
    var mallocArenas: Int32 = 2
    var mappedBlockBytes = 1 << 20

    public init() {}
}


/// HTTP/1.1 through libevent's evhttp (Debian's libevent 2.1, through CServe's narrow C face):
/// evhttp parses the request line, headers and body, keeps connections alive, enforces the
/// header and body sizes and the timeouts, and refuses methods other than GET, HEAD, POST, PUT,
/// PATCH and DELETE. One thread runs the event loop and is the only one that touches libevent;
/// each request is copied into an `HTTPRequest`, handed to the `WorkerPool`, and its
/// `HTTPResponse` handed back through a pipe that wakes the loop, which sends it (after its
/// `delay`, for a failed login). SIGINT and SIGTERM end the loop.
public final class EventServer: @unchecked Sendable {
    private var server: OpaquePointer?
    private let handler: @Sendable (HTTPRequest) -> HTTPResponse
    private let pool: WorkerPool
    private let lock = NSLock()
    /// Guarded by `lock`: replies made by the workers, waiting for the loop.
    private var finished: [(request: OpaquePointer, response: HTTPResponse)] = []
    private var stopping = false
    /// The port bound (the one asked for, or the kernel's choice for port 0).
    public private(set) var port: UInt16 = 0

    public init(address: String, port: UInt16, limits: ServerLimits, handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws {
        self.handler = handler
        // Before the workers start: their heaps are among the arenas allowed.
        pins_memory_limit(limits.mallocArenas, limits.mappedBlockBytes)
        self.pool = WorkerPool(threads: limits.workers, capacity: limits.queue)
        var bound: UInt16 = 0
        errno = 0
        server = pins_server_new(address, port, limits.headerBytes, limits.bodyBytes, Int32(limits.timeoutSeconds), { request, context in
            guard let request, let context else { return }
            Unmanaged<EventServer>.fromOpaque(context).takeUnretainedValue().accept(request)
        }, { context in
            guard let context else { return }
            Unmanaged<EventServer>.fromOpaque(context).takeUnretainedValue().drain()
        }, Unmanaged.passUnretained(self).toOpaque(), &bound)
        guard server != nil else {
            pool.stop()
            let why = errno == 0 ? "the address is not one this machine has" : String(cString: strerror(errno))
            throw ServerError(description: "cannot listen on \(Listen.text(address, port)): \(why)")
        }
        self.port = bound
    }

    deinit {
        pins_server_free(server)
    }

    /// Runs the event loop on the calling thread until `stop()`, SIGINT or SIGTERM.
    public func run() {
        pins_server_run(server)
        pool.stop()
    }

    /// From any thread: the loop ends after sending the replies already made.
    public func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        pins_server_wake(server)
    }

    /// On the loop: copy the request out of libevent, queue it for a worker.
    private func accept(_ request: OpaquePointer) {
        guard let value = Self.decode(request) else {
            send(request, HTTPResponse.error(400, "the request could not be read"))
            return
        }
        let handle = RequestHandle(pointer: request)
        let accepted = pool.submit { [self, handler] in
            let response = handler(value)
            lock.lock()
            finished.append((handle.pointer, response))
            lock.unlock()
            pins_server_wake(server)
        }
        if !accepted { send(request, HTTPResponse.error(503, "the server is busy: try again in a moment")) }
    }

    /// On the loop: send what the workers made; end the loop when asked to.
    private func drain() {
        lock.lock()
        let ready = finished
        finished.removeAll()
        let stop = stopping
        lock.unlock()
        for (request, response) in ready {
            if response.delay > 0 { sendLater(request, response) } else { send(request, response) }
        }
        if stop { pins_server_exit(server) }
    }

    private func sendLater(_ request: OpaquePointer, _ response: HTTPResponse) {
        let box = Unmanaged.passRetained(Delayed(server: self, request: request, response: response)).toOpaque()
        let scheduled = pins_server_later(server, response.delay, { argument in
            guard let argument else { return }
            let delayed = Unmanaged<Delayed>.fromOpaque(argument).takeRetainedValue()
            delayed.server.send(delayed.request, delayed.response)
        }, box)
        if scheduled != 0 {
            Unmanaged<Delayed>.fromOpaque(box).release()
            send(request, response)
        }
    }

    private func send(_ request: OpaquePointer, _ response: HTTPResponse) {
        for (name, value) in response.headers where Self.safeHeader(name, value) {
            pins_reply_header(request, name, value)
        }
        if let shared = response.shared {
            // Retained until libevent lets the bytes go (on this loop thread).
            let context = Unmanaged.passRetained(shared).toOpaque()
            pins_reply_body_shared(request, shared.bytes.baseAddress, shared.byteCount, { _, _, context in
                guard let context else { return }
                Unmanaged<SharedBody>.fromOpaque(context).release()
            }, context)
        } else if !response.body.isEmpty {
            response.body.withUnsafeBytes { pins_reply_body(request, $0.baseAddress, $0.count) }
        }
        pins_reply_send(request, Int32(response.status), HTTPResponse.reason(response.status))
    }

    /// A header line never carries a line break (response splitting): such a header is dropped.
    static func safeHeader(_ name: String, _ value: String) -> Bool {
        !name.isEmpty && !name.utf8.contains { $0 < 0x21 || $0 == UInt8(ascii: ":") } && !value.utf8.contains { $0 == 10 || $0 == 13 || $0 == 0 }
    }

    /// The request as values: method, target, headers, body, peer address.
    static func decode(_ request: OpaquePointer) -> HTTPRequest? {
        guard let method = method(pins_request_method(request)), let uri = pins_request_uri(request) else { return nil }
        var headers: [(name: String, value: String)] = []
        var key: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?
        var cursor = pins_request_header(request, nil, &key, &value)
        while cursor != nil {
            if let key, let value { headers.append((text(key), text(value))) }
            cursor = pins_request_header(request, cursor, &key, &value)
        }
        let length = pins_request_body_length(request)
        var body = [UInt8](repeating: 0, count: length)
        if length > 0 {
            let copied = body.withUnsafeMutableBytes { pins_request_body_copy(request, $0.baseAddress, length) }
            guard copied == length else { return nil }
        }
        return HTTPRequest(method: method, target: text(uri), headers: headers, body: body, peer: text(pins_request_peer(request)))
    }

    /// C text as Swift text; bytes that are not UTF-8 become U+FFFD (the gate then refuses them).
    private static func text(_ pointer: UnsafePointer<CChar>) -> String {
        String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
    }

    private static func method(_ value: Int32) -> HTTPRequest.Method? {
        switch Int(value) {
        case Int(PINS_GET): .get
        case Int(PINS_HEAD): .head
        case Int(PINS_POST): .post
        case Int(PINS_PUT): .put
        case Int(PINS_PATCH): .patch
        case Int(PINS_DELETE): .delete
        default: nil
        }
    }
}

/// A libevent request crosses to a worker and back only as this handle; only the loop uses it.
private struct RequestHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

private final class Delayed {
    let server: EventServer
    let request: OpaquePointer
    let response: HTTPResponse
    init(server: EventServer, request: OpaquePointer, response: HTTPResponse) {
        self.server = server
        self.request = request
        self.response = response
    }
}

/// `--listen ADDR:PORT`: parsed, and whether it is loopback.
public enum Listen {
    public static func text(_ address: String, _ port: UInt16) -> String {
        address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
    }
}

/// Which listen addresses are loopback: 127.0.0.0/8, ::1 and localhost.
public enum ServeAddress {
    public static func isLoopback(_ address: String) -> Bool {
        let lower = address.lowercased()
        if lower == "localhost" || lower == "::1" || lower == "0:0:0:0:0:0:0:1" { return true }
        let parts = lower.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}

/// `pins serve --health`: one GET /healthz to the service on this machine, by evhttp's client.
public enum HealthCheck {
    /// Where to knock for a service listening on `address`: the loopback of its family for a
    /// wildcard address (0.0.0.0, ::), else the address itself.
    public static func target(_ address: String) -> String {
        switch address {
        case "0.0.0.0", "": "127.0.0.1"
        case "::", "[::]": "::1"
        default: address
        }
    }

    /// The reply's status, or nil when none came within `seconds`.
    public static func status(address: String, port: UInt16, seconds: Int = 5) -> Int? {
        let host = target(address)
        let status = pins_health_check(host, port, Listen.text(host, port), Int32(seconds))
        return status > 0 ? Int(status) : nil
    }
}
