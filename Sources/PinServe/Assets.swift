import Foundation
import PinCore

/// The files the browser loads from `/app/NAME`, compiled in from Assets/ by EmbedFiles.
enum ServeAssets {
    static var loginPage: String { EmbeddedFiles.loginHTML }

    /// serve.js with the pin types (`LocationTypeSelection`, the one registry) where it says
    /// `REGISTRY_PIN_TYPE_LABELS`: `[["point", "Point"], ["city", "City"], …]`, name and label.
    static let serveJS = EmbeddedFiles.serveJS.replacingOccurrences(
        of: "REGISTRY_PIN_TYPE_LABELS",
        with: "[" + LocationTypeSelection.allCases.map { "[\"\($0.rawValue)\", \"\($0.label)\"]" }.joined(separator: ", ") + "]")

    static func response(_ name: String) -> HTTPResponse {
        let type: String, text: String
        switch name {
        case "serve.js": (type, text) = ("text/javascript; charset=utf-8", serveJS)
        case "imports.js": (type, text) = ("text/javascript; charset=utf-8", EmbeddedFiles.importsJS)
        case "login.js": (type, text) = ("text/javascript; charset=utf-8", EmbeddedFiles.loginJS)
        case "serve.css": (type, text) = ("text/css; charset=utf-8", EmbeddedFiles.serveCSS)
        case "favicon.ico": return HTTPResponse(status: 204)  // none: the browser asks anyway
        default: return .error(404, "no such file")
        }
        return .text(200, type, text)
    }
}
