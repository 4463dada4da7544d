import Foundation
import PinCore
import PinFormats
import PinImport
import PinReport

/// Writes to stdout/stderr without buffering surprises between the two.
enum Out {
    static func print(_ text: String) {
        raw(text.hasSuffix("\n") ? text : text + "\n", to: 1)
    }

    /// A message on stderr: whatever user text it quotes (an option's value, a title) reaches
    /// the terminal escaped (`TerminalText.escapedLines`), its own line breaks kept.
    static func error(_ text: String) {
        let text = TerminalText.escapedLines(text)
        raw(text.hasSuffix("\n") ? text : text + "\n", to: 2)
    }

    /// write(2) in full. FileHandle.write traps on EPIPE (`pins inspect DIR | head`), and
    /// SIGPIPE is ignored so an import is never killed mid-run by a closed pipe: when the reader
    /// of stdout has gone, stop quietly, as a program killed by SIGPIPE would; a closed stderr is
    /// ignored.
    static func raw(_ text: String, to fd: Int32) {
        // exit allowed: stdout's reader has gone (`pins list | head`); ending quietly is what SIGPIPE would do.
        if !AtomicFile.writeAll(fd, text), errno == EPIPE, fd == 1 { exit(ExitCode.success) }
    }

    /// JSON with sorted keys: stable for diffs and tests.
    static func json(_ object: Any) -> String {
        JSONText.string(object)
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

/// Collects output and writes it to a descriptor in 64 KiB pieces.
final class BufferedSink: TextSink {
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
        if !failed, !buffer.withUnsafeBytes({ AtomicFile.writeAll(fd, $0) }) {
            // The reader of stdout has gone (`pins import --json | head`): stop quietly.
            if errno == EPIPE && fd == 1 { exit(ExitCode.success) } // exit allowed: as in `Out.raw`
            failed = true
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

extension BufferedSink: ExportSink {}

/// Writes an output file (`export --out`, `report --out`, `import --report`, `import --html`)
/// through `AtomicFile` (a reader never sees half of it, a failure leaves no temporary file, a
/// symbolic link is written through, a FIFO or device written in place) with a `BufferedSink`
/// over it; `-` is standard output.
func writeOutput(to path: RawPath, _ body: (BufferedSink) -> Void) throws {
    if path.isStandardOutput {
        let sink = BufferedSink(fd: 1)
        body(sink)
        sink.flush()
        if sink.failed { throw AtomicFile.WriteError(path: "standard output", reason: String(cString: strerror(errno))) }
        return
    }
    try AtomicFile.write(to: path) { fd in
        let sink = BufferedSink(fd: fd)
        body(sink)
        sink.flush()
        return !sink.failed
    }
}

extension RawPath {
    /// `-`: standard output, as file options take it.
    var isStandardOutput: Bool { bytes == [UInt8(ascii: "-")] }

    /// Writing here puts the bytes on this process's standard output: `-`, `/dev/stdout`, or the
    /// file or pipe stdout is. Then stdout carries nothing else (no "Wrote ..." line).
    var goesToStandardOutput: Bool {
        isStandardOutput || (try? AtomicFile.destination(self)) == .descriptor(1)
    }
}
