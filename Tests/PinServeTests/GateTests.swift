import Foundation
import XCTest
@testable import PinServe

/// The security checklist of `pins serve`, decision by decision, on requests made here: each
/// refusal with its status, each admission with what it grants. The same decisions are made
/// over a real socket in scripts/test-serve.
final class GateTests: XCTestCase {
    let sessions = SessionStore()

    func request(_ method: HTTPRequest.Method, _ target: String, _ headers: [(String, String)] = [], body: String = "") -> HTTPRequest {
        HTTPRequest(method: method, target: target, headers: headers.map { (name: $0.0, value: $0.1) }, body: Array(body.utf8))
    }

    func refusal(_ admission: Gate.Admission) -> (Int, String)? {
        if case .refuse(let response) = admission { return (response.status, String(decoding: response.body, as: UTF8.self)) }
        return nil
    }

    func testHostNamesOtherThanLocalhostAreRefusedAddressesAccepted() {
        let gate = Gate(passwordRequired: false, hostNames: ["localhost", "nas.local"])
        for host in ["127.0.0.1:8765", "localhost:8765", "LOCALHOST", "[::1]:8765", "192.168.1.20:8765", "nas.local:80"] {
            XCTAssertNil(refusal(gate.admit(request(.get, "/api/stats", [("Host", host)]), route: .stats, sessions: sessions)), host)
        }
        // A rebinding attacker's name, a name with a user part, a bad port, two Host headers, none.
        for headers in [[("Host", "evil.example:8765")], [("Host", "localhost@evil.example")], [("Host", "localhost:99999")],
                        [("Host", "127.0.0.1.evil.example")], [("Host", "localhost"), ("Host", "evil.example")], []] {
            XCTAssertEqual(refusal(gate.admit(request(.get, "/api/stats", headers), route: .stats, sessions: sessions))?.0, 403, "\(headers)")
        }
    }

    func testAWriteNeedsItsOwnOriginThenASessionThenTheToken() {
        let gate = Gate(passwordRequired: false)
        let session = sessions.create(role: .full)
        let own = [("Host", "127.0.0.1:8765"), ("Cookie", "x=1; pins_session=\(session.id)")]
        func status(_ extra: [(String, String)]) -> Int? {
            refusal(gate.admit(request(.post, "/api/pins", own + extra), route: .addPin, sessions: sessions))?.0
        }
        XCTAssertEqual(status([("X-CSRF-Token", session.csrf)]), 403, "no Origin, no Referer")
        XCTAssertEqual(status([("Origin", "http://evil.example"), ("X-CSRF-Token", session.csrf)]), 403)
        XCTAssertEqual(status([("Origin", "http://127.0.0.1:9999"), ("X-CSRF-Token", session.csrf)]), 403, "another port is another origin")
        XCTAssertEqual(status([("Origin", "https://127.0.0.1:8765"), ("X-CSRF-Token", session.csrf)]), 403, "https is not this server without --trust-proxy")
        XCTAssertEqual(status([("Referer", "http://127.0.0.1:8765.evil.example/"), ("X-CSRF-Token", session.csrf)]), 403)
        XCTAssertEqual(status([("Origin", "http://127.0.0.1:8765")]), 403, "no token")
        XCTAssertEqual(status([("Origin", "http://127.0.0.1:8765"), ("X-CSRF-Token", String(session.csrf.reversed()))]), 403)
        XCTAssertNil(status([("Origin", "http://127.0.0.1:8765"), ("X-CSRF-Token", session.csrf)]))
        XCTAssertNil(status([("Referer", "http://127.0.0.1:8765/"), ("X-CSRF-Token", session.csrf)]))
        let noSession = refusal(gate.admit(request(.post, "/api/pins", [("Host", "127.0.0.1:8765"), ("Origin", "http://127.0.0.1:8765"),
                                                                         ("X-CSRF-Token", session.csrf)]), route: .addPin, sessions: sessions))
        XCTAssertEqual(noSession?.0, 401)
    }

    func testAReadOnlySessionMayReadAndSignOutButNotWrite() {
        let gate = Gate(passwordRequired: true)
        let session = sessions.create(role: .read)
        let headers = [("Host", "localhost:8765"), ("Cookie", "pins_session=\(session.id)"), ("Origin", "http://localhost:8765"),
                       ("X-CSRF-Token", session.csrf)]
        XCTAssertNil(refusal(gate.admit(request(.get, "/api/pins", headers), route: .listPins, sessions: sessions)))
        XCTAssertNil(refusal(gate.admit(request(.post, "/api/logout", headers), route: .logout, sessions: sessions)))
        for (method, route) in [(HTTPRequest.Method.post, Route.addPin), (.patch, .changeSettings), (.post, .bulk), (.post, .undoRun(1))] {
            let answer = refusal(gate.admit(request(method, "/", headers), route: route, sessions: sessions))
            XCTAssertEqual(answer?.0, 403, "\(route)")
            XCTAssertTrue(answer?.1.contains("read-only") ?? false)
        }
    }

    func testWithAPasswordReadingNeedsASessionTooButSignInDoesNot() {
        let gate = Gate(passwordRequired: true)
        let host = [("Host", "localhost:8765")]
        XCTAssertEqual(refusal(gate.admit(request(.get, "/api/pins", host), route: .listPins, sessions: sessions))?.0, 401)
        XCTAssertEqual(refusal(gate.admit(request(.get, "/api/pins", host + [("Cookie", "pins_session=0123456789abcdef0123456789abcdef")]),
                                          route: .listPins, sessions: sessions))?.0, 401, "an id the server did not make")
        XCTAssertNil(refusal(gate.admit(request(.get, "/login", host), route: .loginPage, sessions: sessions)))
        XCTAssertNil(refusal(gate.admit(request(.post, "/api/login", host + [("Origin", "http://localhost:8765")]), route: .login, sessions: sessions)))
        XCTAssertEqual(refusal(gate.admit(request(.post, "/api/login", host + [("Origin", "http://evil.example")]), route: .login, sessions: sessions))?.0,
                       403, "a sign-in from another site (login CSRF)")
    }

    func testForwardedHeadersCountOnlyBehindATrustedProxy() {
        let headers = [("Host", "127.0.0.1:8765"), ("X-Forwarded-Host", "evil.example"), ("X-Forwarded-Proto", "https"), ("X-Forwarded-For", "10.0.0.9")]
        guard case .admit(let direct) = Gate(passwordRequired: false).admit(request(.get, "/api/stats", headers), route: .stats, sessions: sessions) else {
            return XCTFail("refused without --trust-proxy")
        }
        XCTAssertEqual(direct.origin, "http://127.0.0.1:8765")
        XCTAssertEqual(direct.client, "127.0.0.1")
        XCTAssertFalse(direct.secure)
        XCTAssertEqual(refusal(Gate(passwordRequired: false, trustProxy: true).admit(request(.get, "/api/stats", headers), route: .stats, sessions: sessions))?.0, 403)
        let proxied = Gate(passwordRequired: false, hostNames: ["localhost", "pins.example.org"], trustProxy: true)
        let through = [("Host", "127.0.0.1:8765"), ("X-Forwarded-Host", "pins.example.org"), ("X-Forwarded-Proto", "https"), ("X-Forwarded-For", "203.0.113.5, 10.0.0.9")]
        guard case .admit(let caller) = proxied.admit(request(.get, "/api/stats", through), route: .stats, sessions: sessions) else {
            return XCTFail("refused behind the proxy")
        }
        XCTAssertEqual(caller.origin, "https://pins.example.org")
        XCTAssertEqual(caller.client, "10.0.0.9", "the address the proxy itself appended")
        XCTAssertTrue(caller.secure)
    }

    func testSessionsExpireAndAreBounded() {
        let store = SessionStore(idle: 60, lifetime: 600, capacity: 3)
        let start = Date(timeIntervalSince1970: 1_000_000)
        let a = store.create(role: .full, now: start)
        XCTAssertEqual(a.id.count, 32)
        XCTAssertNotEqual(a.id, a.csrf)
        XCTAssertNotNil(store.find(a.id, now: start.addingTimeInterval(59)))
        XCTAssertNil(store.find(a.id, now: start.addingTimeInterval(59 + 61)), "idle over a minute")
        let b = store.create(role: .full, now: start)
        for minute in 1...11 { _ = store.find(b.id, now: start.addingTimeInterval(Double(minute) * 55)) }
        XCTAssertNil(store.find(b.id, now: start.addingTimeInterval(601)), "older than its lifetime though never idle")
        let kept = (0..<5).map { store.create(role: .read, now: start.addingTimeInterval(Double($0))) }
        XCTAssertEqual(store.count, 3)
        XCTAssertNil(store.find(kept[0].id, now: start.addingTimeInterval(10)))
        XCTAssertNotNil(store.find(kept[4].id, now: start.addingTimeInterval(10)))
    }

    func testFailedSignInsWaitLongerEachTime() {
        let throttle = LoginThrottle()
        let t = Date(timeIntervalSince1970: 2_000_000)
        throttle.failed("a", now: t)
        throttle.failed("a", now: t)
        XCTAssertNil(throttle.wait("a", now: t), "two failures: only each reply is slowed")
        throttle.failed("a", now: t)
        XCTAssertEqual(throttle.wait("a", now: t), 2)
        throttle.failed("a", now: t.addingTimeInterval(3))
        XCTAssertEqual(throttle.wait("a", now: t.addingTimeInterval(3)), 4)
        XCTAssertNil(throttle.wait("b", now: t), "another client is not held")
        throttle.succeeded("a")
        XCTAssertNil(throttle.wait("a", now: t.addingTimeInterval(3)))
    }

    /// Every write of the API (each route of `.write` access but the sign-out), as a browser
    /// sends it, through `Service.handle`: refused without a session (401), without the CSRF
    /// token, from a foreign Origin, for a foreign Host and from a read-only session (403),
    /// and then the use case behind it never ran (a backend that records its calls), so
    /// nothing changed. With every proof the same request reaches it: the refusals are the gate's.
    func testEveryWriteIsRefusedWithoutEachProofAndReachesNoUseCase() {
        final class Recording: Backend, @unchecked Sendable {
            private let lock = NSLock()
            private var routes: [Route] = []
            func respond(_ route: Route, _ target: RequestTarget, _ request: HTTPRequest, _ caller: Gate.Caller) throws -> HTTPResponse {
                lock.lock()
                routes.append(route)
                lock.unlock()
                return .json(200, ["ok": true])
            }
            /// The routes called since the last look.
            func taken() -> [Route] {
                lock.lock()
                defer { routes = []; lock.unlock() }
                return routes
            }
        }
        let backend = Recording()
        let service = Service(gate: Gate(passwordRequired: true), passwords: nil, backend: backend, sessions: sessions)
        let full = sessions.create(role: .full), read = sessions.create(role: .read)
        let id = "6f9619ff-8b86-d011-b42d-00c04fc964ff"
        let writes: [(HTTPRequest.Method, String, String)] = [
            (.post, "/api/pins", #"{"latitude": 48, "longitude": 2}"#), (.patch, "/api/pins/\(id)", #"{"title": "x"}"#),
            (.delete, "/api/pins/\(id)", ""), (.post, "/api/pins/bulk", #"{"ids": ["\#(id)"], "action": "delete"}"#),
            (.post, "/api/pins/restore", #"{"ids": ["\#(id)"]}"#), (.patch, "/api/settings", ##"{"pinColor": "#112233"}"##),
            (.patch, "/api/trips/2024-06-08", #"{"title": "x"}"#), (.post, "/api/runs/1/undo", ""),
            (.post, "/api/imports", #"{"library": 0}"#), (.post, "/api/imports/places?name=p.csv", "name,latitude,longitude\nA,48,2\n"),
        ]
        let host = ("Host", "localhost:8765"), origin = ("Origin", "http://localhost:8765")
        func cookie(_ session: Session) -> (String, String) { ("Cookie", "pins_session=\(session.id)") }
        let refusals: [(String, Int, [(String, String)])] = [
            ("no session", 401, [host, origin, ("X-CSRF-Token", full.csrf)]),
            ("no CSRF token", 403, [host, origin, cookie(full)]),
            ("a foreign Origin", 403, [host, ("Origin", "http://evil.example"), cookie(full), ("X-CSRF-Token", full.csrf)]),
            ("a foreign Host", 403, [("Host", "evil.example:8765"), ("Origin", "http://evil.example:8765"), cookie(full), ("X-CSRF-Token", full.csrf)]),
            ("a read-only session", 403, [host, origin, cookie(read), ("X-CSRF-Token", read.csrf)]),
        ]
        var seen: [Route] = []
        for (method, target, body) in writes {
            guard case .success(let route) = Route.match(method, RequestTarget.parse(target)!) else { XCTFail(target); continue }
            XCTAssertEqual(route.access, .write, target)
            seen.append(route)
            for (name, status, headers) in refusals {
                let answer = service.handle(request(method, target, headers, body: body))
                XCTAssertEqual(answer.status, status, "\(method) \(target) with \(name)")
            }
            XCTAssertEqual(backend.taken(), [], "\(method) \(target): no refused request reached its use case")
            let admitted = service.handle(request(method, target, [host, origin, cookie(full), ("X-CSRF-Token", full.csrf)], body: body))
            XCTAssertEqual(admitted.status, 200, "\(method) \(target) with every proof")
            XCTAssertEqual(backend.taken(), [route])
        }
        // All ten writes (every `.write` route of the Router but .logout), none twice.
        XCTAssertEqual(Set(seen.map { "\($0)".prefix(while: { $0 != "(" }) }).count, 10)
    }
}
