import Foundation
import PinApp
import PinCore
import PinFormats

/// Imports as `pins runs` lists them, and the undo of one (`pins runs undo N`, the same call).
extension AppBackend {
    /// GET /api/runs: the newest 50, newest first (none before the first import).
    func runs() throws -> HTTPResponse {
        guard app.databaseExists else { return .json(200, ["runs": [Any]()]) }
        return .json(200, ["runs": try app.runs(limit: 50).map { summary -> [String: Any] in
            let run = summary.record
            return ["id": run.id, "root": run.root, "startedAt": ISO8601.format(run.startedAt),
                    "finishedAt": orNull(run.finishedAt.map { ISO8601.format($0) }), "status": summary.status.rawValue,
                    "files": run.files, "photos": run.photos, "created": run.created,
                    "skipped": run.skipped.values.reduce(0, +)]
        }])
    }

    /// POST /api/runs/N/undo `{"dryRun": true}` first shows what would go; then without it.
    /// An import running meanwhile holds the run lock: 423, and nothing changes.
    func undoRun(_ id: Int, _ request: HTTPRequest) throws -> HTTPResponse {
        let dryRun = try APIRequest.undoDryRun(request.body)
        let result = try app.undoRun(Int64(id), dryRun: dryRun)
        return .json(200, ["run": id, "dryRun": dryRun, "removed": result.removed.count, "kept": result.kept.count,
                           "forgottenPhotos": result.forgottenPhotos,
                           "removedTitles": result.removed.prefix(20).map(\.title)] as [String: Any])
    }
}
