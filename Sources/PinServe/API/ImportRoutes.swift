import Foundation
import PinApp
import PinCore
import PinReport

/// Imports from the browser: a --library folder (by the id this server gave it, never a path
/// from the request) or an uploaded place file, a dry run first, then the import itself; each
/// runs on the import thread (`ImportJobs`), and the page asks how it goes.
extension AppBackend {
    /// GET /api/imports: the folders this server imports, the running or last import, and an
    /// import another process runs (the nightly one).
    func imports() throws -> HTTPResponse {
        var object: [String: Any] = [
            "libraries": libraries.enumerated().map { ["id": $0.offset, "path": $0.element] as [String: Any] },
            "uploadLimit": Route.uploadLimit,
        ]
        let job = jobs.current
        object["job"] = orNull(job.map(Self.jobJSON))
        var elsewhere: Any = NSNull()
        if job?.finishedAt != nil || job == nil, let other = app.runningImport() {
            var value: [String: Any] = ["message": ImportJobs.busy(other)]
            value["startedAt"] = other.startedAt.map { ISO8601.format($0) }
            elsewhere = value
        }
        object["elsewhere"] = elsewhere
        return .json(200, object)
    }

    /// POST /api/imports `{"library": ID, "dryRun": true|false}`: 202 and the job; 423 when an
    /// import runs (here or elsewhere).
    func startImport(_ body: JSONBody) throws -> HTTPResponse {
        guard !libraries.isEmpty else {
            throw RequestError(409, "this server was started without --library: there is no folder to import (start it with --library DIR)")
        }
        guard let number = try body.number("library", in: -1e9...1e9) else {
            throw RequestError(422, "'library' is required: the id of a --library folder (GET /api/imports lists them)")
        }
        guard let index = Int(exactly: number) else { throw RequestError(422, "'library' must be a whole number (an id of GET /api/imports)") }
        guard libraries.indices.contains(index) else {
            throw RequestError(404, "no library \(index): this server imports \(libraries.count) folder(s), ids 0 to \(libraries.count - 1)")
        }
        let dryRun = try body.bool("dryRun") ?? true
        let root = libraries[index], app = app
        let job = try jobs.start(kind: "photos", source: root, dryRun: dryRun, app: app) { stop, reporter in
            try Self.waitFor {
                try await app.importPhotosForPage(root: root, dryRun: dryRun, stop: stop, progress: reporter.progress,
                                                  warning: reporter.warning)
            }
        }
        return .json(202, ["job": Self.jobJSON(job)])
    }

    /// POST /api/imports/places?name=FILE&dryRun=true&wanted=false, the file as the body (at most
    /// `Route.uploadLimit`): checked to be a place file before anything runs, then kept in an
    /// unnamed scratch file while the import reads it.
    func importPlaces(_ target: RequestTarget, _ request: HTTPRequest) throws -> HTTPResponse {
        let name = Self.uploadName(target.value("name"))
        let dryRun = try Self.flag(target, "dryRun") ?? true
        let wanted = try Self.flag(target, "wanted") ?? false
        guard !request.body.isEmpty else {
            throw RequestError(400, "the upload is empty: send a place file (GeoJSON, KML, KMZ, GPX, CSV, Google's Saved Places or timeline)")
        }
        if let refusal = PinApp.placeFileRefusal(name: name, head: Array(request.body.prefix(64 << 10))) {
            throw RequestError(415, refusal)
        }
        let upload = try Upload(request.body)
        let app = app
        let job = try jobs.start(kind: "places", source: name, dryRun: dryRun, app: app) { _, reporter in
            try withExtendedLifetime(upload) {
                try app.importPlacesForPage(path: upload.path, name: name, wanted: wanted, dryRun: dryRun, warning: reporter.warning)
            }
        }
        return .json(202, ["job": Self.jobJSON(job)])
    }

    /// GET /api/imports/N/page-data: the page's islands with job N's run drawn over them, as
    /// `pins import --html` draws it (run-data), for the page to show its report.
    func importPage(_ id: Int) throws -> HTTPResponse {
        guard let job = jobs.current, job.id == id else { throw RequestError(404, "no import \(id) here (only the last one is kept)") }
        guard let outcome = job.outcome else {
            throw RequestError(409, job.finishedAt == nil ? "import \(id) is still running" : "import \(id) failed: \(job.error ?? "")")
        }
        let version = ChangeCounter.version(of: app.databasePath)
        var response = HTTPResponse.json(200, text: PageRenderer.islandsJSON(try app.pageInput(outcome: outcome)))
        response.headers.append(("X-Pins-Version", version))
        return response
    }

    static func jobJSON(_ job: ImportJob) -> [String: Any] {
        var object: [String: Any] = [
            "id": job.id, "kind": job.kind, "source": job.source, "dryRun": job.dryRun, "startedAt": ISO8601.format(job.startedAt),
            "state": job.finishedAt == nil ? "running" : job.outcome != nil ? "done" : "failed",
            "phase": job.phase, "done": job.done, "total": job.total, "warnings": job.warnings,
        ]
        object["finishedAt"] = orNull(job.finishedAt.map { ISO8601.format($0) })
        object["error"] = orNull(job.error)
        if let outcome = job.outcome {
            object["created"] = outcome.overlay.created.count
            object["skipped"] = outcome.overlay.counts.values.reduce(0, +)
            object["unreadable"] = outcome.overlay.unreadable.count
            object["run"] = orNull(outcome.runID.map { Int($0) })
        }
        return object
    }

    /// A query flag: true/false (or 1/0); nil when absent.
    static func flag(_ target: RequestTarget, _ name: String) throws -> Bool? {
        guard let text = target.value(name) else { return nil }
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default: throw RequestError(400, "\(name) is true or false, not '\(Gate.printable(text))'")
        }
    }

    /// The uploaded file's name as the report and the run record say it: its last component,
    /// printable, at most 100 characters ("upload" when none was given).
    static func uploadName(_ given: String?) -> String {
        let last = (given ?? "").split(separator: "/").last.map(String.init) ?? ""
        let clean = String(String.UnicodeScalarView(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(100)))
        return clean.trimmingCharacters(in: .whitespaces).isEmpty ? "upload" : clean
    }

    /// Runs an async use case to its end on the calling thread (the import thread, which has
    /// nothing else to do meanwhile).
    static func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }
}

/// A result handed from a task to the thread that waits for it (the semaphore orders the two).
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, Error>?
}
