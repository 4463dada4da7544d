import CSupport
import Foundation
import PinApp
import PinCore
import PinImport

/// An import the browser started: what it is, how far it got, and how it ended.
struct ImportJob: Sendable {
    let id: Int
    /// `photos` (a --library folder) or `places` (an uploaded file).
    let kind: String
    /// The folder, or the uploaded file's name.
    let source: String
    let dryRun: Bool
    let startedAt = Date()
    var phase = "starting"
    var done = 0
    var total = 0
    var finishedAt: Date?
    var outcome: ImportOutcome?
    var error: String?
    /// What the run did without (the first 20), as `pins import` says them on stderr.
    var warnings: [String] = []
}

/// The imports of this server: one at a time, each on a thread of its own (never a request's:
/// those stay free for the people editing meanwhile), the last one kept for the page to show.
///
/// One at a time is also what keeps the scratch storage's per-process state right: a failed
/// read-back of a run's scratch records (photos or places) is kept for the process
/// (`ScratchFile.checkReadBack`, in PinStore), not per run, so two runs of one process at once
/// could take each other's failure. A dry run counts too.
/// Against another process (the nightly `pins import`), the run lock decides: while it is
/// held no import starts here ("busy").
final class ImportJobs: @unchecked Sendable {
    private let lock = NSLock()
    /// Guarded by `lock`: the running job, else the last one that ran.
    private var job: ImportJob?
    private var stop = StopRequest()
    private var thread: Thread?

    /// The running or last job.
    var current: ImportJob? {
        lock.lock()
        defer { lock.unlock() }
        return job
    }

    /// Starts `work` on its own thread as job `kind` of `source`, unless an import runs here or
    /// holds the run lock elsewhere (423, "busy: ..."). `work` gets the job's stop request and
    /// a way to say its progress and warnings.
    func start(kind: String, source: String, dryRun: Bool, app: PinApp,
               work: @escaping @Sendable (StopRequest, Reporter) throws -> ImportOutcome) throws -> ImportJob {
        lock.lock()
        defer { lock.unlock() }
        if let job, job.finishedAt == nil { throw RequestError(423, Self.busy(job)) }
        if let other = app.runningImport() { throw RequestError(423, Self.busy(other)) }
        let new = ImportJob(id: (job?.id ?? 0) + 1, kind: kind, source: source, dryRun: dryRun)
        job = new
        let stop = StopRequest()
        self.stop = stop
        let reporter = Reporter(jobs: self, id: new.id)
        let thread = Thread { [self] in
            var result: Result<ImportOutcome, Error>
            do { result = .success(try work(stop, reporter)) } catch { result = .failure(error) }
            update(new.id) { job in
                job.finishedAt = Date()
                switch result {
                case .success(let outcome): job.outcome = outcome
                case .failure(let error): job.error = "\(error)"
                }
            }
        }
        thread.name = "pins-serve-import"
        thread.stackSize = 8 << 20
        self.thread = thread
        thread.start()
        return new
    }

    /// Asks the running import to stop (the server is stopping) and waits up to `seconds` for
    /// it to finish the batch it is saving.
    func stopAndWait(seconds: Double) {
        lock.lock()
        let running = job?.finishedAt == nil && job != nil
        let stop = self.stop
        lock.unlock()
        guard running else { return }
        stop.stop(signal: 0)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, current?.finishedAt == nil { usleep(50_000) }
    }

    fileprivate func update(_ id: Int, _ change: (inout ImportJob) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        if job?.id == id { change(&job!) }
    }

    /// What a job's work says while it runs, from any thread.
    struct Reporter: Sendable {
        fileprivate let jobs: ImportJobs
        let id: Int

        func progress(_ p: ImportProgress) {
            jobs.update(id) { job in
                job.phase = p.phase.rawValue
                job.done = p.done
                job.total = p.total
            }
        }

        func warning(_ text: String) {
            jobs.update(id) { job in if job.warnings.count < 20 { job.warnings.append(text) } }
        }
    }

    static func busy(_ job: ImportJob) -> String {
        "busy: an import is running (the \(job.dryRun ? "dry run" : "import") of \(job.source) from this page, started "
            + "\(ISO8601.format(job.startedAt))); try again when it is done"
    }

    static func busy(_ other: RunningImport) -> String {
        guard let started = other.startedAt else {
            return "busy: another pins holds the database's run lock (an import, an undo or a repair); try again when it is done"
        }
        return "busy: an import is running (started \(ISO8601.format(started))\(other.root.map { ", \($0)" } ?? "")); "
            + "the page shows its result when it is done"
    }
}

/// An uploaded file, kept while an import reads it in a file with no name (O_TMPFILE in
/// `$TMPDIR`, else /tmp, as the import's own scratch files): nothing is left behind on any path,
/// a crash or a kill included, and it is never written near the --library folders. The import
/// opens it again by `/proc/self/fd/N`. Closed (and gone) when released.
final class Upload: @unchecked Sendable {
    let fd: Int32
    var path: String { "/proc/self/fd/\(fd)" }

    init(_ bytes: [UInt8]) throws {
        let env = ProcessInfo.processInfo.environment["TMPDIR"]
        let folder = env.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        fd = pins_open_scratch(folder)
        guard fd >= 0 else {
            throw RequestError(507, "cannot keep the upload in \(folder): \(String(cString: strerror(errno))) (TMPDIR chooses the folder)")
        }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let why = String(cString: strerror(errno))
                close(fd)
                throw RequestError(507, "cannot keep the upload in \(folder): \(why) (TMPDIR chooses the folder)")
            }
            done += n
        }
    }

    deinit { close(fd) }
}
