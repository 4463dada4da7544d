import Foundation
import XCTest
@testable import PinServe

final class RouterTests: XCTestCase {
    func testTargetsAreDecodedAndPathTricksRefused() {
        XCTAssertEqual(RequestTarget.parse("/api/pins?q=Caf%C3%A9+de+Flore&tag=a&tag=b"),
                       RequestTarget(segments: ["api", "pins"], query: ["q": ["Café de Flore"], "tag": ["a", "b"]]))
        XCTAssertEqual(RequestTarget.parse("/api/pins/")?.segments, ["api", "pins"])
        XCTAssertEqual(RequestTarget.parse("/")?.segments, [])
        for bad in ["api/pins", "*", "http://evil/", "/api/../etc/passwd", "/api/%2e%2e/x", "/api/photos/%2Fetc%2Fpasswd/0", "/a//b",
                    "/api/%ZZ", "/api/%C3", "/api/a%00b", "/api/..%5c..%5cwin.ini", "/api/./pins"] {
            XCTAssertNil(RequestTarget.parse(bad), bad)
        }
    }

    func testRoutesAndTheirMethods() {
        func route(_ method: HTTPRequest.Method, _ target: String) -> Route? {
            guard let parsed = RequestTarget.parse(target), case .success(let found) = Route.match(method, parsed) else { return nil }
            return found
        }
        let id = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!
        XCTAssertEqual(route(.get, "/"), .page)
        XCTAssertEqual(route(.get, "/api/pins/6f9619ff-8b86-d011-b42d-00c04fc964ff"), .showPin(id))
        XCTAssertEqual(route(.patch, "/api/pins/6F9619FF-8B86-D011-B42D-00C04FC964FF"), .editPin(id))
        XCTAssertEqual(route(.delete, "/api/pins/6F9619FF-8B86-D011-B42D-00C04FC964FF"), .deletePin(id))
        XCTAssertEqual(route(.post, "/api/runs/12/undo"), .undoRun(12))
        XCTAssertEqual(route(.get, "/api/photos/6F9619FF-8B86-D011-B42D-00C04FC964FF/0"), .photo(id, 0))
        XCTAssertNil(route(.get, "/api/photos/..%2F..%2Fetc%2Fpasswd/0"))
        XCTAssertNil(route(.get, "/api/photos/6F9619FF-8B86-D011-B42D-00C04FC964FF/-1"))
        XCTAssertNil(route(.post, "/api/runs/-1/undo"))
        XCTAssertNil(route(.post, "/api/runs/١/undo"), "Arabic-Indic digits are not a run number")
        // Base map tiles: z 0 to 30, x and y inside 2^z, plain ASCII digits; read access.
        XCTAssertEqual(route(.get, "/tiles/7/65/44"), .tile(7, 65, 44))
        XCTAssertEqual(route(.get, "/tiles/0/0/0"), .tile(0, 0, 0))
        XCTAssertEqual(route(.get, "/tiles/7/65/44")?.access, .read)
        XCTAssertEqual(route(.get, "/api/basemap"), .basemap)
        for bad in ["/tiles/7/128/0", "/tiles/7/0/128", "/tiles/31/0/0", "/tiles/0/1/0", "/tiles/7/-1/0", "/tiles/7/+1/0", "/tiles/7/1e1/0",
                    "/tiles/7/١/0", "/tiles/7/65", "/tiles/7/65/44/1", "/tiles/7/65/44.png", "/tiles/99999999999999999999/0/0"] {
            XCTAssertNil(route(.get, bad), bad)
        }
        XCTAssertEqual(route(.get, "/api/imports"), .imports)
        XCTAssertEqual(route(.post, "/api/imports"), .startImport)
        XCTAssertEqual(route(.post, "/api/imports/places?name=a.csv&dryRun=true"), .importPlaces)
        XCTAssertEqual(route(.get, "/api/imports/3/page-data"), .importPage(3))
        XCTAssertNil(route(.get, "/api/imports/0/page-data"))
        XCTAssertNil(route(.get, "/api/imports/places"), "an upload is a POST")
        XCTAssertEqual(Route.startImport.access, .write)
        XCTAssertEqual(Route.importPlaces.access, .write)
        XCTAssertEqual(Route.importPlaces.bodyLimit, 8 << 20)
        guard case .failure(.method) = Route.match(.delete, RequestTarget.parse("/api/settings")!) else { return XCTFail("DELETE settings") }
        guard case .failure(.method) = Route.match(.post, RequestTarget.parse("/")!) else { return XCTFail("POST /") }
        guard case .failure(.notFound) = Route.match(.get, RequestTarget.parse("/api/nothing")!) else { return XCTFail("unknown") }
        // GET never changes anything: no route that writes is reached by GET or HEAD.
        for target in ["/api/pins", "/api/pins/bulk", "/api/settings", "/api/runs/1/undo", "/api/logout", "/api/login", "/api/trips/x",
                       "/api/imports", "/api/imports/places"] {
            for method in [HTTPRequest.Method.get, .head] {
                if let found = route(method, target) { XCTAssertNotEqual(found.access, .write, "\(method) \(target)") }
            }
        }
    }

    func testBodiesAreCheckedFieldByField() throws {
        XCTAssertThrowsError(try JSONBody(Array("[1]".utf8)))
        XCTAssertThrowsError(try JSONBody(Array("{".utf8)))
        XCTAssertThrowsError(try JSONBody([]))
        XCTAssertThrowsError(try JSONBody(Array(#"{"n": 1e400}"#.utf8)), "a number no Double holds")
        let body = try JSONBody(Array(#"{"title": 5, "lat": true, "lon": 200, "ok": false, "ids": ["x"]}"#.utf8))
        XCTAssertThrowsError(try body.string("title")) { XCTAssertEqual(($0 as? RequestError)?.message, "'title' must be a string") }
        XCTAssertThrowsError(try body.number("lat", in: -90...90), "true is not a number")
        XCTAssertThrowsError(try body.number("lon", in: -180...180))
        XCTAssertEqual(try body.bool("ok"), false)
        XCTAssertThrowsError(try body.ids("ids"))
        XCTAssertNil(try body.string("missing"))
    }

    /// serve.js's form offers the pin types of the registry (LocationTypeSelection), name and
    /// label, as serve.js had them typed before it; no placeholder is left.
    func testTheServedScriptOffersThePinTypesOfTheRegistry() {
        let script = String(decoding: ServeAssets.response("serve.js").body, as: UTF8.self)
        XCTAssertTrue(script.contains(#"const TYPES = [["point", "Point"], ["city", "City"], ["mountain", "Mountain"]];"#))
        XCTAssertFalse(script.contains("REGISTRY_"))
    }
}
