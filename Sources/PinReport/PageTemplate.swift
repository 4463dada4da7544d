/// A text with `{{name}}` holes (the page's `Page/page.html`), split once into its literal runs
/// and its holes; `render` writes the runs as they are and lets the caller fill each hole. What
/// a hole is filled with is never scanned for holes again.
struct PageTemplate: Sendable {
    enum Part: Equatable, Sendable {
        case text(String)
        case hole(String)
    }

    let parts: [Part]

    /// The page's template, compiled into the binary from `Page/page.html`.
    static let page = PageTemplate(EmbeddedFiles.pageHTML)

    init(_ text: String) {
        var parts: [Part] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{"), let close = rest.range(of: "}}", range: open.upperBound..<rest.endIndex) {
            if open.lowerBound > rest.startIndex { parts.append(.text(String(rest[..<open.lowerBound]))) }
            parts.append(.hole(String(rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        self.parts = parts
    }

    /// The names of the holes, in order (a name may come more than once).
    var holes: [String] {
        parts.compactMap { if case .hole(let name) = $0 { name } else { nil } }
    }

    /// Appends the template to `out`, each hole by `fill(name, &out)`.
    func render(into out: inout String, _ fill: (String, inout String) -> Void) {
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .hole(let name): fill(name, &out)
            }
        }
    }
}
