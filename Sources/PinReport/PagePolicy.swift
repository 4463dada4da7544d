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
    /// `s.points + " \u00b7 " + s.cities + …` and their caption. A new type is in the page's
    /// type filter and numbers by the registry alone.
    static let registryLists: [(name: String, text: String)] = {
        let types = LocationTypeSelection.allCases
        return [("REGISTRY_PIN_TYPES", "[" + types.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") + "]"),
                ("REGISTRY_PIN_TYPE_COUNTS", types.map { "s.\($0.plural)" }.joined(separator: " + \" \\u00b7 \" + ")),
                ("REGISTRY_PIN_TYPE_PLURALS", "\"" + types.map(\.plural).joined(separator: " \\u00b7 ") + "\"")]
    }()

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
