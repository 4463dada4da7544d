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

    /// The exact text of the page's `<script>` element (what its hash is of).
    static let scriptText = "\n" + EmbeddedFiles.pageJS

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
