import Foundation

/// Who may come in, decided before any use case is called (README, "Who may come
/// in"): the Host, the Origin of a write, the session, its role and its
/// CSRF token. Pure: the same answers in the tests and the fuzz target as behind evhttp.
public struct Gate: Sendable {
    /// A password is set: every route but the sign-in needs a session. Without one (loopback
    /// only) a browser gets a full session at its first visit.
    public var passwordRequired: Bool
    /// The names (not addresses) this server answers to, lowercased: localhost and those of
    /// `--allow-host`. An address literal is always accepted: DNS rebinding needs a name.
    public var hostNames: Set<String>
    /// `X-Forwarded-Host`, `-Proto` and `-For` are believed (a reverse proxy in front, `--trust-proxy`).
    public var trustProxy: Bool

    public init(passwordRequired: Bool, hostNames: Set<String> = ["localhost"], trustProxy: Bool = false) {
        self.passwordRequired = passwordRequired
        self.hostNames = Set(hostNames.map { $0.lowercased() })
        self.trustProxy = trustProxy
    }

    /// A request let through: its session (nil before sign-in), its own origin
    /// ("http://127.0.0.1:8765") and the client's address (for the sign-in throttle).
    public struct Caller: Sendable {
        public var session: Session?
        public var origin: String
        var client: String
        var secure: Bool
    }

    /// The caller, or the refusal to send (status and reason), for a request to `route`.
    public func admit(_ request: HTTPRequest, route: Route, sessions: SessionStore, now: Date = Date()) -> Admission {
        guard request.count(of: "Host") == 1, let host = forwarded(request, "X-Forwarded-Host") ?? request.header("Host"),
              acceptedHost(host) else {
            return .refuse(.error(403, "this server does not answer to the Host '\(Self.printable(request.header("Host") ?? ""))' "
                + "(a name must be localhost or one given with --allow-host: DNS rebinding)"))
        }
        let secure = forwarded(request, "X-Forwarded-Proto")?.lowercased() == "https"
        let origin = (secure ? "https://" : "http://") + host.lowercased()
        // The proxy appends the address it saw: the last entry, the only one not the client's own say.
        let client = (trustProxy ? request.header("X-Forwarded-For") : nil).flatMap { $0.split(separator: ",").last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? request.peer
        if request.method.writes, let refusal = foreignOrigin(request, origin) { return .refuse(refusal) }
        let session = request.count(of: "Cookie") <= 1 ? Self.cookie(SessionStore.cookieName, in: request.header("Cookie")).flatMap { sessions.find($0, now: now) } : nil
        let caller = Caller(session: session, origin: origin, client: client, secure: secure)
        switch route.access {
        case .open: return .admit(caller)
        case .read:
            guard session != nil || !passwordRequired else { return .refuse(.error(401, "sign in first")) }
            return .admit(caller)
        case .write:
            guard let session else { return .refuse(.error(401, passwordRequired ? "sign in first" : "no session: reload the page")) }
            guard let token = request.header("X-CSRF-Token"), Crypto.same(token, session.csrf) else {
                return .refuse(.error(403, "the request lacks this session's CSRF token (X-CSRF-Token): reload the page"))
            }
            guard session.role == .full || route == .logout else {
                return .refuse(.error(403, "signed in with the read-only password: this session may look, not change"))
            }
            return .admit(caller)
        }
    }

    public enum Admission: Sendable {
        case admit(Caller)
        case refuse(HTTPResponse)
    }

    private func forwarded(_ request: HTTPRequest, _ name: String) -> String? {
        trustProxy ? request.header(name).map { String($0.split(separator: ",").first ?? "").trimmingCharacters(in: .whitespaces) } : nil
    }

    /// `name[:port]` or `[v6]:port`: an address literal, or a name this server answers to.
    func acceptedHost(_ host: String) -> Bool {
        let lower = host.lowercased()
        guard !lower.isEmpty, lower.utf8.count <= 255,
              lower.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "@") }) else { return false }
        if lower.hasPrefix("[") {
            guard let close = lower.firstIndex(of: "]") else { return false }
            let rest = lower[lower.index(after: close)...]
            return (rest.isEmpty || Self.port(rest.dropFirst()) && rest.hasPrefix(":")) && lower[lower.index(after: lower.startIndex)..<close].allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        let parts = lower.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.count == 1 || Self.port(parts[1]) else { return false }
        let name = String(parts[0])
        return Self.ipv4(name) || hostNames.contains(name)
    }

    static func port(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 5 && text.allSatisfy { $0.isASCII && $0.isNumber } && Int(text)! <= 65535
    }

    static func ipv4(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy { $0.isASCII && $0.isNumber } && Int($0)! <= 255 }
    }

    /// A write must come from this server's own page: its `Origin` (else its `Referer`) is this
    /// server's origin. Neither sent: refused too (browsers send Origin with every write).
    private func foreignOrigin(_ request: HTTPRequest, _ origin: String) -> HTTPResponse? {
        if let sent = request.header("Origin") {
            return sent.lowercased() == origin ? nil : .error(403, "a write from another site (Origin '\(Self.printable(sent))') is refused")
        }
        if let referer = request.header("Referer") {
            let lower = referer.lowercased()
            return lower == origin || lower.hasPrefix(origin + "/") ? nil : .error(403, "a write from another site (Referer) is refused")
        }
        return .error(403, "a write needs the Origin header of this server's page")
    }

    /// The value of one cookie in a Cookie header (`a=1; pins_session=...`).
    static func cookie(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces) == name { return kv[1].trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    /// A header value for a message: printable ASCII, at most 80 characters.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(80).map { $0.value >= 0x20 && $0.value < 0x7F ? $0 : "?" }))
    }
}
