// Fuzz target: pins serve's own request layer (issue 37): the target's decoding (RequestTarget),
// the routes (Route.match), the gate (Host, Origin, session, CSRF token, role), every request
// decoder (APIRequest: each write's JSON body, the list's and locate's queries, an uploaded place
// file's query and first bytes through PlaceFiles' check), and Service.respond around them, on
// any bytes read as a request. HTTP itself is evhttp's (not fuzzed here); the use cases behind the
// gate are PinApp's, stood in for by a backend that runs AppBackend's decoders and calls nothing.
//
// Input: byte 0 picks the method (and bit 7 whether a password is required); then the target up
// to "\n"; then "Name: value" header lines up to an empty line; the rest is the body. The words
// SESSION and CSRF in a header are replaced by a live session's id and token, so the fuzzer
// reaches the routes behind the gate as well as the refusals before it.
import Foundation
@testable import PinCore

/// The assets stand-in: the real ones are compiled in by SwiftPM's EmbedFiles plugin.
enum ServeAssets {
    static let loginPage = "<!DOCTYPE html>"
    static func response(_ name: String) -> HTTPResponse { name == "serve.js" ? .text(200, "text/javascript", "") : .error(404, "no") }
}

/// Runs each route's request decoder (APIRequest, the ones AppBackend calls before any use
/// case) and stores nothing; an upload goes through the same place-file check (PlaceFiles).
struct DecodingBackend: Backend {
    func respond(_ route: Route, _ target: RequestTarget, _ request: HTTPRequest, _ caller: Gate.Caller) throws -> HTTPResponse {
        switch route {
        case .listPins: _ = try APIRequest.pinList(target)
        case .locate: _ = try APIRequest.position(target)
        case .addPin: _ = try APIRequest.newPin(JSONBody(request.body))
        case .editPin: _ = try APIRequest.pinEdit(JSONBody(request.body))
        case .bulk: _ = try APIRequest.bulk(JSONBody(request.body))
        case .restorePins: _ = try APIRequest.restore(JSONBody(request.body))
        case .changeSettings: _ = try APIRequest.settings(JSONBody(request.body))
        case .renameTrip: _ = try APIRequest.tripTitle(JSONBody(request.body))
        case .undoRun: _ = try APIRequest.undoDryRun(request.body)
        case .startImport: _ = try APIRequest.libraryImport(JSONBody(request.body), libraryCount: 2)
        case .pageData: _ = AcceptEncoding.acceptsGzip(request.header("Accept-Encoding"))
        case .importPlaces:
            _ = try APIRequest.placesUpload(target, request.body) { PlaceFiles.refusal($0, path: $0, head: $1) }
        default: break
        }
        return .json(200, ["ok": true])
    }
}

let sessions = SessionStore()
let live = sessions.create(role: .full)
let readOnly = sessions.create(role: .read)
let loopbackService = Service(gate: Gate(passwordRequired: false, hostNames: ["localhost", "nas.local"]), passwords: nil,
                   backend: DecodingBackend(), sessions: sessions)
let guardedService = Service(gate: Gate(passwordRequired: true, trustProxy: true), passwords: nil, backend: DecodingBackend(), sessions: sessions)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServe(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let methods = HTTPRequest.Method.allCases
    let method = methods[Int(first & 0x7F) % methods.count]
    var rest = bytes.dropFirst()
    func line() -> String? {
        guard !rest.isEmpty else { return nil }
        let end = rest.firstIndex(of: 10) ?? rest.endIndex
        let text = String(decoding: rest[rest.startIndex..<end], as: UTF8.self)
        rest = end == rest.endIndex ? [] : rest[(end + 1)...]
        return text
    }
    let target = line() ?? "/"
    var headers: [(name: String, value: String)] = []
    while let header = line(), !header.isEmpty, headers.count < 64 {
        let parts = header.split(separator: ":", maxSplits: 1)
        let value = parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        let session = first & 0x40 == 0 ? live : readOnly
        headers.append((String(parts.first ?? ""), value.replacingOccurrences(of: "SESSION", with: session.id)
            .replacingOccurrences(of: "CSRF", with: session.csrf)))
    }
    let request = HTTPRequest(method: method, target: target, headers: headers, body: Array(rest), peer: "127.0.0.1")
    let response = (first & 0x80 == 0 ? loopbackService : guardedService).handle(request)
    // Every answer is a status a browser knows, with the policy and a body that is what it says.
    guard (200...599).contains(response.status), response.header("Content-Security-Policy") != nil else { abort() }
    // (HEAD: the same headers, no body.)
    if method != .head, response.header("Content-Type")?.hasPrefix("application/json") == true,
       (try? JSONSerialization.jsonObject(with: Data(response.body))) == nil { abort() }
    // A write is only ever let through with the session's token and the full role.
    if method.writes, response.status == 200, let parsed = RequestTarget.parse(target), case .success(let route) = Route.match(method, parsed),
       route.access == .write, route != .logout {
        let token = headers.first { $0.name.lowercased() == "x-csrf-token" }?.value
        guard token == live.csrf else { abort() }
    }
    return 0
}
