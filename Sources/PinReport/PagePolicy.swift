import Foundation
import PinCore

/// The map page's Content-Security-Policy, for its `<meta>` and for a server that sends the
/// same page with the policy as a header. The page runs one inline script and one inline style
/// sheet, and the policy allows exactly those two texts by their SHA-256, not every inline
/// script: should a title ever get past the escaping into markup, the browser still refuses
/// to run it (a second line of defence). A hash, not a nonce: the page is a file made once
/// and opened offline, where a nonce would be the same at every load and so no secret.
/// Nothing is loaded from outside: only data: images (the thumbnails).
public enum PagePolicy {
    /// The `Content-Security-Policy` value for a page made with `settings` (the style sheet
    /// holds the settings' colours, so its hash depends on them).
    /// `served`: the page `pins serve` sends, which also runs its own script and style sheet
    /// from the server (`'self'`), asks the server for data (`connect-src 'self'`) and shows
    /// photos from it; still nothing from anywhere else (the server adds frame-ancestors, which a
    /// <meta> cannot carry).
    public static func contentSecurityPolicy(settings: Settings, served: Bool = false) -> String {
        guard served else {
            return "default-src 'none'; img-src data:; style-src '\(source(styleText(settings)))'; script-src '\(scriptSource)'; "
                + "base-uri 'none'; form-action 'none'"
        }
        return "default-src 'none'; img-src 'self' data:; style-src 'self' '\(source(styleText(settings)))'; "
            + "script-src 'self' '\(scriptSource)'; connect-src 'self'; base-uri 'none'; form-action 'none'"
    }

    /// The exact text of the page's `<script>` element (what its hash is of): page.js with the
    /// pin types' lists of the one registry (`LocationTypeSelection`) where it names them.
    static let scriptText = "\n" + registryLists.reduce(EmbeddedFiles.pageJS) { $0.replacingOccurrences(of: $1.name, with: $1.text) }

    /// What page.js says in place of a list of the pin types, and the JavaScript the script has
    /// there: the filter's names `["point", "city", "mountain"]`, the statistics' counts
    /// `s.points + " \u00b7 " + s.cities + …` and their caption; the name of a pin's shared
    /// object (`placeName`: `p.city ? p.city.name : …`), and the popup's line and rows of each
    /// shared type (its visit's fields by their `VisitField.shown`). A new type is in the
    /// page's type filter, numbers, search and popup by the registry alone.
    static let registryLists: [(name: String, text: String)] = {
        let types = LocationTypeSelection.allCases
        return [("REGISTRY_PIN_TYPES", "[" + types.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") + "]"),
                ("REGISTRY_PIN_TYPE_COUNTS", types.map { "s.\($0.plural)" }.joined(separator: " + \" \\u00b7 \" + ")),
                ("REGISTRY_PIN_TYPE_PLURALS", "\"" + types.map(\.plural).joined(separator: " \\u00b7 ") + "\""),
                ("REGISTRY_SHARED_NAME", sharedTypes.map { "p.\($0.rawValue) ? p.\($0.rawValue).name : " }.joined() + "\"\""),
                ("REGISTRY_POPUP_TYPE_LINES", sharedTypes.map(popupTypeLine).joined(separator: "\n    ")),
                ("REGISTRY_POPUP_ROWS", sharedTypes.flatMap(popupRows).joined(separator: "\n    "))]
    }()

    private static var sharedTypes: [LocationTypeSelection] { LocationTypeSelection.sharedTypes }

    /// The popup's type line of a pin of `type` (pins-data's object under the type's name):
    /// `if (p.mountain) type = "Mountain: " + p.mountain.name + (…height…);`, each field shown
    /// `afterName` after the name.
    static func popupTypeLine(_ type: LocationTypeSelection) -> String {
        let object = "p.\(type.rawValue)"
        let after = type.visitFields.compactMap { field -> String? in
            guard case let .afterName(unit) = field.shown else { return nil }
            let value = "\(object).\(field.key)"
            let shown = #"" (" + "# + shownValue(value, field.kind) + " + " + javaScriptString(unit + ")")
            return " + (" + given(value, field.kind) + " ? " + shown + #" : "")"#
        }
        return "if (\(object)) type = " + javaScriptString(type.label + ": ") + " + \(object).name" + after.joined() + ";"
    }

    /// The popup's rows of the fields of `type` shown on a `row` of their own:
    /// `if (p.city && p.city.address) row(dl, "Address", p.city.address);`.
    static func popupRows(_ type: LocationTypeSelection) -> [String] {
        let object = "p.\(type.rawValue)"
        return type.visitFields.compactMap { field in
            guard case let .row(label, unit) = field.shown else { return nil }
            let value = "\(object).\(field.key)"
            let shown = shownValue(value, field.kind) + (unit.isEmpty ? "" : " + " + javaScriptString(unit))
            return "if (\(object) && \(given(value, field.kind))) row(dl, \(javaScriptString(label)), \(shown));"
        }
    }

    /// The test that a field's value is there: a number, or a text not empty.
    private static func given(_ value: String, _ kind: VisitField.Kind) -> String {
        kind == .number ? #"typeof \#(value) === "number""# : value
    }

    /// A field's value as the popup writes it: a number rounded.
    private static func shownValue(_ value: String, _ kind: VisitField.Kind) -> String {
        kind == .number ? "Math.round(\(value))" : value
    }

    /// `text` as a JavaScript string literal.
    private static func javaScriptString(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// The exact text of the page's `<style>` element: the settings' colours, then page.css.
    static func styleText(_ settings: Settings) -> String {
        let pin = PageText.color(settings.defaultPinColor, fallback: Settings.defaultPinColor)
        let fill = PageText.color(settings.mapFillColor, fallback: Settings().mapFillColor)
        return "\n:root { --pin: \(pin); --fill: \(fill); }\n" + EmbeddedFiles.pageCSS
    }

    /// The script's source expression, computed once: the script is the same on every page.
    private static let scriptSource = source(scriptText)

    /// `sha256-` and the base64 of the SHA-256 of the text's UTF-8 (what CSP Level 2 hashes).
    static func source(_ text: String) -> String {
        "sha256-" + Data(SHA256.digest(Array(text.utf8))).base64EncodedString()
    }
}
