import Foundation
import PinApp
import PinCore
import PinFormats
import PinImport
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
        let (index, dryRun) = try APIRequest.libraryImport(body, libraryCount: libraries.count)
        let root = libraries[index], app = app, settings = estimateSettings
        let job = try jobs.start(kind: "photos", source: root, dryRun: dryRun, app: app) { stop, reporter in
            // Read now, as `pins import` reads them when it starts: pins.conf as it is today.
            let setting = try settings()
            return try Self.waitFor {
                try await app.importPhotosForPage(root: root, dryRun: dryRun, estimates: setting.estimates,
                                                  estimateLimits: setting.limits, stop: stop, progress: reporter.progress,
                                                  warning: reporter.warning)
            }
        }
        return .json(202, ["job": Self.jobJSON(job)])
    }

    /// POST /api/imports/places?name=FILE&dryRun=true&wanted=false, the file as the body (at most
    /// `Route.uploadLimit`): checked to be a place file before anything runs, then kept in an
    /// unnamed scratch file while the import reads it.
    func importPlaces(_ target: RequestTarget, _ request: HTTPRequest) throws -> HTTPResponse {
        let (name, dryRun, wanted) = try APIRequest.placesUpload(target, request.body, refusal: PinApp.placeFileRefusal)
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
