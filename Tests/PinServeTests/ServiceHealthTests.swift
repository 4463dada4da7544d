import Foundation
import XCTest
@testable import PinServe

/// The container's HEALTHCHECK and the in-service nightly import (issue 37 step 6): /healthz
/// and the times `--import-at` runs at, against values worked out by hand (Python's zoneinfo
/// agrees: `datetime(2026, 3, 29, 3, 0, tzinfo=ZoneInfo("Europe/Zurich"))` is 01:00 UTC).
final class ServiceHealthTests: XCTestCase {
    struct NoBackend: Backend {
        func respond(_ route: Route, _ target: RequestTarget, _ request: HTTPRequest, _ caller: Gate.Caller) throws -> HTTPResponse {
            .error(418, "the backend was reached")
        }
    }

    func get(_ service: Service, _ target: String, host: String = "127.0.0.1:8765") -> (Int, String) {
        let response = service.handle(HTTPRequest(method: .get, target: target, headers: [(name: "Host", value: host)], body: []))
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    /// Open without a session, even with a password set; says "ok" and nothing else; the Host
    /// check still applies; only GET and HEAD.
    func testHealthzIsOpenAndSaysNothing() {
        let service = Service(gate: Gate(passwordRequired: true), passwords: nil, backend: NoBackend())
        XCTAssertEqual(get(service, "/healthz").0, 200)
        XCTAssertEqual(get(service, "/healthz").1, "ok\n")
        XCTAssertEqual(get(service, "/api/pins").0, 401, "the rest still needs a session")
        XCTAssertEqual(get(service, "/healthz", host: "evil.example:8765").0, 403)
        guard case .failure(.method) = Route.match(.post, RequestTarget.parse("/healthz")!) else { return XCTFail("POST /healthz") }
        XCTAssertEqual(Route.health.access, .open)
    }

    func testHealthCheckKnocksOnLoopbackForAWildcardAddress() {
        XCTAssertEqual(HealthCheck.target("0.0.0.0"), "127.0.0.1")
        XCTAssertEqual(HealthCheck.target("::"), "::1")
        XCTAssertEqual(HealthCheck.target("192.168.1.5"), "192.168.1.5")
        // Nothing listens on port 1: no answer, not a crash or a hang.
        XCTAssertNil(HealthCheck.status(address: "127.0.0.1", port: 1, seconds: 2))
    }

    func testImportAtParsesHoursAndMinutes() {
        XCTAssertEqual(DailyTime.parse("03:00"), DailyTime(hour: 3, minute: 0))
        XCTAssertEqual(DailyTime.parse("23:59:30"), DailyTime(hour: 23, minute: 59, second: 30))
        for bad in ["3:00", "24:00", "03:60", "03", "03:00:60", "", "０３:００", "03:00:00:00", "-1:00"] {
            XCTAssertNil(DailyTime.parse(bad), bad)
        }
    }

    func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    /// 03:00 in Zurich is 02:00 UTC in winter, 01:00 in summer; one run per day; on the night of
    /// the spring change 02:30 does not exist (02:00 becomes 03:00): the run is at 03:00 CEST; on
    /// the autumn night 02:30 comes twice (00:30 and 01:30 UTC): the run is at the first only.
    func testNextRunIsTheLocalTimeOncePerDayAcrossClockChanges() {
        let zurich = TimeZone(identifier: "Europe/Zurich")!
        let three = DailyTime(hour: 3, minute: 0)
        XCTAssertEqual(three.next(after: utc("2026-12-03T01:00:00Z"), in: zurich), utc("2026-12-03T02:00:00Z"))
        XCTAssertEqual(three.next(after: utc("2026-12-03T02:00:00Z"), in: zurich), utc("2026-12-04T02:00:00Z"), "strictly after: not twice")
        XCTAssertEqual(three.next(after: utc("2026-12-03T14:00:00Z"), in: zurich), utc("2026-12-04T02:00:00Z"))
        XCTAssertEqual(three.next(after: utc("2026-06-01T00:00:00Z"), in: zurich), utc("2026-06-01T01:00:00Z"))
        let halfPastTwo = DailyTime(hour: 2, minute: 30)
        XCTAssertEqual(halfPastTwo.next(after: utc("2026-03-28T12:00:00Z"), in: zurich), utc("2026-03-29T01:00:00Z"))
        XCTAssertEqual(halfPastTwo.next(after: utc("2026-10-24T12:00:00Z"), in: zurich), utc("2026-10-25T00:30:00Z"))
        XCTAssertEqual(halfPastTwo.next(after: utc("2026-10-25T00:30:00Z"), in: zurich), utc("2026-10-26T01:30:00Z"),
                       "not again at the second 02:30 (01:30 UTC) of that night")
        XCTAssertEqual(three.next(after: utc("2026-12-03T01:00:00Z"), in: TimeZone(identifier: "Asia/Tokyo")!), utc("2026-12-03T18:00:00Z"))
    }
}
