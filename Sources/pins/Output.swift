import Foundation

/// Writes to stdout/stderr without buffering surprises between the two.
enum Out {
    static func print(_ text: String) {
        raw(text.hasSuffix("\n") ? text : text + "\n", to: 1)
    }

    static func error(_ text: String) {
        raw(text.hasSuffix("\n") ? text : text + "\n", to: 2)
    }

    /// write(2) in full. FileHandle.write traps on EPIPE (`pins inspect DIR | head`), and
    /// SIGPIPE is ignored so an import is never killed mid-run by a closed pipe: when the reader
    /// of stdout has gone, stop quietly, as a program killed by SIGPIPE would; a closed stderr is
    /// ignored.
    static func raw(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n >= 0 { offset += n; continue }
                if errno == EINTR { continue }
                if errno == EPIPE && fd == 1 { exit(ExitCode.success) }
                return
            }
        }
    }

    /// JSON with sorted keys: stable for diffs and tests.
    static func json(_ object: Any) -> String {
        var out = JSONText()
        out.write(object)
        return out.text
    }

    /// A text table: columns padded to their widest cell.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { c in all.map { $0[c].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { c, cell in c == row.count - 1 ? cell : cell.padding(toLength: widths[c], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

/// `NSNull` for nil, for JSONSerialization.
func orNull(_ value: Any?) -> Any { value ?? NSNull() }

/// A small JSON writer for what the commands print ([String: Any] trees of strings, numbers,
/// booleans, nulls, arrays). JSONSerialization bridges every value through NSObject and sorts
/// keys with ICU collation: on a 20,000-photo report it took half of the import's time.
struct JSONText {
    private(set) var text = ""

    mutating func write(_ value: Any?) {
        // Swift types first: testing `is NSNull` (a class) on a Swift dictionary bridges it to
        // NSDictionary first, which cost more than everything else here.
        switch value {
        case nil: text += "null"
        case let v as String: writeString(v)
        case let v as Bool: text += v ? "true" : "false"
        case let v as Int: text += String(v)
        case let v as Int64: text += String(v)
        case let v as Double: text += v.isFinite ? (v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)") : "null"
        case let v as [String: Any]:
            if v.isEmpty { text += "{}"; return }
            text += "{"
            for (i, key) in v.keys.sorted().enumerated() {
                if i > 0 { text += "," }
                writeString(key)
                text += ":"
                write(v[key]!)
            }
            text += "}"
        case let v as [Any]:
            if v.isEmpty { text += "[]"; return }
            text += "["
            for (i, element) in v.enumerated() {
                if i > 0 { text += "," }
                write(element)
            }
            text += "]"
        case is NSNull: text += "null"
        default:
            writeString("\(value!)")
        }
    }

    private mutating func writeString(_ s: String) {
        // Most strings (paths, codes, dates) need no escape: append them whole.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            text += "\""
            text += s
            text += "\""
            return
        }
        text += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                text += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

/// Collects output and writes it to a descriptor in 64 KiB pieces.
final class BufferedSink {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var failed = false

    init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(1 << 16)
    }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, !failed {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    // The reader of stdout has gone (`pins import --json | head`): stop quietly.
                    if errno == EPIPE && fd == 1 { exit(ExitCode.success) }
                    failed = true
                } else {
                    offset += n
                }
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
