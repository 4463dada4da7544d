import Foundation
import PinCore
import PinReport
import PinImport

/// Where the report of `import` and `import-places` goes: `--report FILE` (its JSON), `--html
/// FILE` (the map page of the run), and standard output (`--json`, else the text, nothing with
/// `--quiet`). One set of rules for both commands:
/// - the files are checked before the work, so a report that cannot be written is found now,
///   not after the whole library was read;
/// - `-` (or /dev/stdout) as `--report` or `--html` is standard output, which then carries
///   nothing else (so not both, and not with `--json`).
struct ReportOutputs {
    let reportPath: RawPath?
    let htmlPath: RawPath?
    /// `--report -` or `--html -`: standard output is taken.
    let toStandardOutput: Bool
    let json: Bool
    let quiet: Bool

    /// `page`: where the page goes without --html (the nightly import's PINS_PAGE).
    init(_ args: ParsedArguments, command: String, page: RawPath? = nil) throws {
        reportPath = args.path("--report")
        htmlPath = args.path("--html") ?? page
        json = args.has("--json")
        quiet = args.has("--quiet")
        // The database is known before it is opened: neither output may be it (issue 40).
        if let database = try? resolveDatabasePath(args.value("--db")) { GuardedFiles.guardDatabase(at: database) }
        for (path, what) in [(reportPath, "the report"), (htmlPath, "the page")] {
            if let path, !path.isStandardOutput, let refusal = AtomicFile.databaseRefusal(path) { throw refusal }
            if let path, !path.isStandardOutput, let reason = AtomicFile.problem(writing: path) {
                throw CommandFailure("cannot write \(what) to \(TerminalText.quoted(path)): \(reason)")
            }
        }
        let reportToStdout = reportPath?.goesToStandardOutput == true, htmlToStdout = htmlPath?.goesToStandardOutput == true
        toStandardOutput = reportToStdout || htmlToStdout
        if reportToStdout, htmlToStdout {
            throw UsageError("--report and --html cannot both go to standard output", command: command)
        }
        if toStandardOutput, json {
            throw UsageError("--json prints the report on standard output, where --\(reportToStdout ? "report" : "html") writes; leave one out",
                             command: command)
        }
    }

    /// Writes the report file, the page, then standard output's part.
    func write(json writeJSON: (TextSink) -> Void, text writeText: (TextSink) throws -> Void,
               page writePage: (RawPath) throws -> Void) throws {
        if let path = reportPath {
            do {
                try writeOutput(to: path) { writeJSON($0) }
            } catch let error as AtomicFile.WriteError {
                throw CommandFailure("cannot write the report to \(error.path): \(error.reason)", code: error.exitStatus)
            }
        }
        if let path = htmlPath { try writePage(path) }
        guard !toStandardOutput, json || !quiet else { return }
        let sink = BufferedSink(fd: 1)
        if json { writeJSON(sink) } else { try writeText(sink) }
        sink.flush()
    }
}
