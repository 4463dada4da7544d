import Foundation

/// A request target split and decoded: the path's segments (each percent-decoded) and the
/// query's values. Pure, so it is fuzzed alone (Fuzz/Serve.swift).
public struct RequestTarget: Sendable, Equatable {
    public var segments: [String]
    public var query: [String: [String]]

    public func value(_ name: String) -> String? { query[name]?.first }

    /// Nil for a target that is no path ("*", "http://..."), bad percent escapes, or a segment
    /// that is "." or "..", empty inside the path, or holds a slash, a backslash or a NUL once
    /// decoded: no route takes a file path, and none of these names one.
    public static func parse(_ target: String) -> RequestTarget? {
        guard target.utf8.first == UInt8(ascii: "/"), target.utf8.count <= 4096 else { return nil }
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var segments: [String] = []
        let raw = parts[0].split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, piece) in raw.enumerated() {
            if piece.isEmpty {
                if index == raw.count - 1 { break }  // "/api/pins/": the same as without the slash
                return nil
            }
            guard let decoded = percentDecoded(piece, plusIsSpace: false), decoded != ".", decoded != "..",
                  !decoded.contains(where: { $0 == "/" || $0 == "\\" || $0 == "\0" }) else { return nil }
            segments.append(decoded)
        }
        var query: [String: [String]] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let key = percentDecoded(kv[0], plusIsSpace: true),
                      let value = kv.count == 2 ? percentDecoded(kv[1], plusIsSpace: true) : "" else { return nil }
                query[key, default: []].append(value)
            }
        }
        return RequestTarget(segments: segments, query: query)
    }

    /// `%XX` escapes decoded (and `+` as a space in a query); nil for a bad escape or bytes that
    /// are not UTF-8.
    static func percentDecoded(_ text: Substring, plusIsSpace: Bool) -> String? {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(text) }
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace: bytes.append(UInt8(ascii: " "))
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Everything the server answers: one case per page, asset and API call.
public enum Route: Sendable, Equatable {
    case page, loginPage, asset(String), health
    case session, login, logout, version, pageData
    case listPins, showPin(UUID), addPin, editPin(UUID), deletePin(UUID), bulk, restorePins
    case locate, stats, settings, changeSettings, trips, renameTrip(String), runs, undoRun(Int)
    case photo(UUID, Int)
    /// A photo record's preview (`/api/previews/ID`) and the photo as a browser opens it
    /// (`/api/previews/ID/full`: a HEIC's JPEG copy).
    case preview(Int64), openPhoto(Int64)
    /// The --basemap file: what it is (GET /api/basemap), and its tiles (/tiles/Z/X/Y, XYZ rows).
    case basemap, tile(Int, Int, Int)
    case imports, startImport, importPlaces, importPage(Int)

    /// Who may ask: `open` routes need no session (the sign-in and what it needs); all others
    /// need one, and the `writes` ones a session of the `full` role and its CSRF token.
    public enum Access: Sendable { case open, read, write }

    public var access: Access {
        switch self {
        case .loginPage, .asset, .session, .login, .health: .open
        case .logout: .write  // with the token: a foreign page cannot sign someone out
        case .addPin, .editPin, .deletePin, .bulk, .restorePins, .changeSettings, .renameTrip, .undoRun: .write
        case .startImport, .importPlaces: .write
        default: .read
        }
    }

    /// The largest body this route reads: JSON edits are small; nothing else takes a body.
    var bodyLimit: Int {
        switch self {
        case .bulk, .restorePins: 4 << 20  // a list of up to 100,000 ids, or the pins deleted
        case .importPlaces: Self.uploadLimit
        case .login, .logout, .addPin, .editPin, .deletePin, .changeSettings, .renameTrip, .undoRun, .startImport: 64 << 10
        default: 0
        }
    }

    /// The largest place file the browser may upload (`import-places`): a Google Takeout
    /// Saved Places or a list of some 50,000 places; under evhttp's own body limit, so the
    /// refusal says this number.
    static let uploadLimit = 8 << 20

    /// The route of a method and target; `.failure` says 404 (no such thing) or 405 (not with
    /// that method).
    public static func match(_ method: HTTPRequest.Method, _ target: RequestTarget) -> Result<Route, RouteError> {
        let s = target.segments
        let get = method == .get || method == .head
        func only(_ allowed: Bool, _ route: Route) -> Result<Route, RouteError> { allowed ? .success(route) : .failure(.method) }
        switch s.count {
        case 0: return only(get, .page)
        case 1 where s[0] == "login": return only(get, .loginPage)
        case 1 where s[0] == "favicon.ico": return only(get, .asset("favicon.ico"))
        case 1 where s[0] == "healthz": return only(get, .health)
        case 2 where s[0] == "app": return only(get, .asset(s[1]))
        case 4 where s[0] == "tiles":
            // Plain decimal numbers, the column and row inside the zoom's 2^z: else nothing here.
            let numbers = s.dropFirst().map { $0.count <= 10 && $0.allSatisfy { $0 >= "0" && $0 <= "9" } ? Int($0) : nil }
            guard let z = numbers[0], let x = numbers[1], let y = numbers[2], z <= 30, x < 1 << z, y < 1 << z else { return .failure(.notFound) }
            return only(get, .tile(z, x, y))
        default: break
        }
        guard s.first == "api", s.count >= 2 else { return .failure(.notFound) }
        return apiRoute(method, Array(s.dropFirst()), get: get)
    }

    private static func apiRoute(_ method: HTTPRequest.Method, _ s: [String], get: Bool) -> Result<Route, RouteError> {
        func only(_ allowed: Bool, _ route: Route) -> Result<Route, RouteError> { allowed ? .success(route) : .failure(.method) }
        switch (s[0], s.count) {
        case ("session", 1): return only(get, .session)
        case ("login", 1): return only(method == .post, .login)
        case ("logout", 1): return only(method == .post, .logout)
        case ("version", 1): return only(get, .version)
        case ("page-data", 1): return only(get, .pageData)
        case ("locate", 1): return only(get, .locate)
        case ("stats", 1): return only(get, .stats)
        case ("basemap", 1): return only(get, .basemap)
        case ("settings", 1): return get ? .success(.settings) : only(method == .patch, .changeSettings)
        case ("trips", 1): return only(get, .trips)
        case ("trips", 2): return only(method == .patch, .renameTrip(s[1]))
        case ("runs", 1): return only(get, .runs)
        case ("runs", 3) where s[2] == "undo":
            guard let number = Int(s[1]), number > 0, s[1].allSatisfy(\.isASCII) else { return .failure(.notFound) }
            return only(method == .post, .undoRun(number))
        case ("imports", 1): return get ? .success(.imports) : only(method == .post, .startImport)
        case ("imports", 2) where s[1] == "places": return only(method == .post, .importPlaces)
        case ("imports", 3) where s[2] == "page-data":
            guard let number = Int(s[1]), number > 0, s[1].allSatisfy(\.isASCII) else { return .failure(.notFound) }
            return only(get, .importPage(number))
        case ("pins", 1): return get ? .success(.listPins) : only(method == .post, .addPin)
        case ("pins", 2) where s[1] == "bulk": return only(method == .post, .bulk)
        case ("pins", 2) where s[1] == "restore": return only(method == .post, .restorePins)
        case ("pins", 2):
            guard let id = UUID(uuidString: s[1]) else { return .failure(.notFound) }
            switch method {
            case .get, .head: return .success(.showPin(id))
            case .patch: return .success(.editPin(id))
            case .delete: return .success(.deletePin(id))
            default: return .failure(.method)
            }
        case ("photos", 3):
            guard let id = UUID(uuidString: s[1]), let index = Int(s[2]), (0..<10_000).contains(index), s[2].allSatisfy(\.isASCII) else {
                return .failure(.notFound)
            }
            return only(get, .photo(id, index))
        case ("previews", 2), ("previews", 3):
            guard s[1].utf8.allSatisfy({ (48...57).contains($0) }), s[1].utf8.count <= 18, let id = Int64(s[1]), id > 0,
                  s.count == 2 || s[2] == "full" else { return .failure(.notFound) }
            return only(get, s.count == 2 ? .preview(id) : .openPhoto(id))
        default: return .failure(.notFound)
        }
    }
}

public enum RouteError: Error, Sendable {
    case notFound, method
}
