import Foundation
import PinCore

/// `pins serve` without its socket: a request in, a response out. It decodes the target,
/// finds the route, lets the `Gate` decide who may, then calls the one use case of the route
/// (API/*.swift) and encodes its result. It adds no rule of its own.
public final class Service: Sendable {
    public let gate: Gate
    public let sessions: SessionStore
    let throttle: LoginThrottle
    public let passwords: PasswordFile?
    public let backend: Backend

    public init(gate: Gate, passwords: PasswordFile?, backend: Backend, sessions: SessionStore = SessionStore(),
                throttle: LoginThrottle = LoginThrottle()) {
        self.gate = gate
        self.passwords = passwords
        self.backend = backend
        self.sessions = sessions
        self.throttle = throttle
    }

    /// The response to `request`, with the security headers every response carries.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        var response = respond(request)
        Self.secure(&response)
        if request.method == .head { response.body = [] }
        return response
    }

    func respond(_ request: HTTPRequest) -> HTTPResponse {
        guard let target = RequestTarget.parse(request.target) else {
            return .error(400, "the request target is not a path this server knows (no '..', no encoded slashes)")
        }
        let route: Route
        switch Route.match(request.method, target) {
        case .success(let found): route = found
        case .failure(.notFound): return .error(404, "nothing here")
        case .failure(.method): return .error(405, "\(request.method.rawValue) is not allowed here")
        }
        guard request.body.count <= route.bodyLimit else {
            if route == .importPlaces {
                return .error(413, "the file is \(request.body.count) bytes; at most \(route.bodyLimit) bytes (\(route.bodyLimit >> 20) MiB) may be uploaded")
            }
            return .error(413, "the body is \(request.body.count) bytes; at most \(route.bodyLimit) here")
        }
        switch gate.admit(request, route: route, sessions: sessions) {
        case .refuse(let refusal):
            // A person opening the page unsigned is shown the sign-in, not a JSON error.
            if route == .page, refusal.status == 401 { return HTTPResponse(status: 303, headers: [("Location", "/login")]) }
            return refusal
        case .admit(var caller):
            var setCookie: String?
            if caller.session == nil, !gate.passwordRequired, route == .page || route == .session {
                // Loopback without a password: the first visit gets its session (and its token).
                let session = sessions.create(role: .full)
                caller.session = session
                setCookie = Self.cookie(session, caller: caller, lifetime: sessions.lifetime)
            }
            var response = dispatch(route, target, request, caller)
            if let setCookie { response.headers.append(("Set-Cookie", setCookie)) }
            return response
        }
    }

    private func dispatch(_ route: Route, _ target: RequestTarget, _ request: HTTPRequest, _ caller: Gate.Caller) -> HTTPResponse {
        do {
            switch route {
            case .session: return sessionInfo(caller)
            case .login: return login(request, caller)
            case .logout: return logout(caller)
            case .loginPage: return .text(200, "text/html; charset=utf-8", ServeAssets.loginPage)
            case .asset(let name): return ServeAssets.response(name)
            // The container's HEALTHCHECK: the loop and a worker answer. Open, so it says nothing
            // beyond that (no version, no count, no path).
            case .health: return .text(200, "text/plain; charset=utf-8", "ok\n")
            default: return try backend.respond(route, target, request, caller)
            }
        } catch let error as RequestError {
            return .error(error.status, error.message)
        } catch {
            return .error(Self.status(of: error), "\(error)")
        }
    }

    /// A use case's error as a status: the database busy (an import holds it) is 423, a missing
    /// thing 404, a refused value 422, anything else 500; the message is the error's own words.
    static func status(of error: Error) -> Int {
        guard let status = (error as? ExitStatusError)?.exitStatus else { return 500 }
        switch status {
        case ExitCode.usage, ExitCode.dataError: return 422
        case ExitCode.noInput: return 404
        case ExitCode.busy: return 423
        default: return 500
        }
    }

    private func sessionInfo(_ caller: Gate.Caller) -> HTTPResponse {
        guard let session = caller.session else {
            return .json(200, ["signedIn": false, "passwordRequired": gate.passwordRequired] as [String: Any])
        }
        return .json(200, ["signedIn": true, "role": session.role.rawValue, "csrf": session.csrf,
                           "passwordRequired": gate.passwordRequired] as [String: Any])
    }

    /// POST /api/login `{"password": "..."}`: a new session (a new id, never one the browser
    /// brought) in an HttpOnly, SameSite=Strict cookie; a wrong password is answered late.
    private func login(_ request: HTTPRequest, _ caller: Gate.Caller) -> HTTPResponse {
        guard let passwords else { return .error(409, "this server has no password: nothing to sign in to") }
        if let wait = throttle.wait(caller.client) {
            var response = HTTPResponse.error(429, "too many failed sign-ins: wait \(wait) s")
            response.headers.append(("Retry-After", String(wait)))
            return response
        }
        guard let body = try? JSONBody(request.body), let password = try? body.string("password"), !password.isEmpty else {
            return .error(400, "expected {\"password\": \"...\"}")
        }
        guard let role = passwords.role(of: password) else {
            throttle.failed(caller.client)
            var response = HTTPResponse.error(401, "wrong password")
            response.delay = throttle.failureDelay
            return response
        }
        throttle.succeeded(caller.client)
        if let old = caller.session { sessions.remove(old.id) }
        let session = sessions.create(role: role)
        var response = HTTPResponse.json(200, ["signedIn": true, "role": role.rawValue, "csrf": session.csrf] as [String: Any])
        response.headers.append(("Set-Cookie", Self.cookie(session, caller: caller, lifetime: sessions.lifetime)))
        return response
    }

    private func logout(_ caller: Gate.Caller) -> HTTPResponse {
        if let session = caller.session { sessions.remove(session.id) }
        var response = HTTPResponse.json(200, ["signedIn": false])
        response.headers.append(("Set-Cookie", "\(SessionStore.cookieName)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"))
        return response
    }

    static func cookie(_ session: Session, caller: Gate.Caller, lifetime: TimeInterval) -> String {
        "\(SessionStore.cookieName)=\(session.id); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(Int(lifetime))" + (caller.secure ? "; Secure" : "")
    }

    /// Nothing loaded from elsewhere, no framing, no sniffing, no referrer, nothing cached.
    public static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        + "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static func secure(_ response: inout HTTPResponse) {
        // The page sends its own policy (its inline script and style sheet by their hashes).
        if response.header("Content-Security-Policy") == nil { response.headers.append(("Content-Security-Policy", contentSecurityPolicy)) }
        response.headers += [
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"), ("Cross-Origin-Resource-Policy", "same-origin"),
        ]
        if response.header("Cache-Control") == nil { response.headers.append(("Cache-Control", "no-store")) }
    }
}

/// What the routes beyond sign-in call: the app's use cases (`AppBackend`), or a stand-in in
/// the fuzz target.
public protocol Backend: Sendable {
    func respond(_ route: Route, _ target: RequestTarget, _ request: HTTPRequest, _ caller: Gate.Caller) throws -> HTTPResponse
}

/// A request the server refuses with a status and a reason (a bad body, an unknown id).
struct RequestError: Error, Sendable {
    let status: Int
    let message: String
    init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}
