// embed-files OUTPUT.swift FILE...: writes OUTPUT.swift with one `static let` per FILE holding
// its exact bytes (UTF-8 text) as a Swift string literal, in `enum EmbeddedFiles`. Run by the
// EmbedFiles build-tool plugin (Plugins/EmbedFiles), not by hand. `page.js` becomes `pageJS`.
import Foundation

func identifier(for path: String) -> String {
    let name = (path as NSString).lastPathComponent
    let dot = name.lastIndex(of: ".") ?? name.endIndex
    let stem = name[..<dot].split(whereSeparator: { !$0.isLetter && !$0.isNumber })
    let ext = dot < name.endIndex ? name[name.index(after: dot)...].uppercased() : ""
    let words = stem.enumerated().map { $0 == 0 ? $1.lowercased() : $1.prefix(1).uppercased() + $1.dropFirst() }
    return words.joined() + ext
}

/// `text` as a Swift string literal with the same value: quotes, backslashes and control
/// characters escaped, everything else as it is.
func literal(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            out += "\\u{" + String(scalar.value, radix: 16) + "}"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("embed-files: " + message + "\n").utf8))
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first, arguments.count >= 2 else { fail("usage: embed-files OUTPUT.swift FILE...") }
var source = "// Generated at build time by the EmbedFiles plugin (Plugins/EmbedFiles) from the files\n"
source += "// named below; edit those, not this.\n\n"
source += "enum EmbeddedFiles {\n"
var seen: Set<String> = []
for path in arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    guard let text = String(data: data, encoding: .utf8) else { fail("\(path) is not UTF-8 text") }
    let name = identifier(for: path)
    guard seen.insert(name).inserted else { fail("two files would both be EmbeddedFiles.\(name)") }
    source += "    /// The bytes of \((path as NSString).lastPathComponent).\n"
    source += "    static let \(name) = \(literal(text))\n"
}
source += "}\n"
do {
    try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch {
    fail("cannot write \(output): \(error)")
}
