import CSupport
import Dispatch
import Foundation

/// What an import does to its own process: the priority it runs at (`--nice`) and how it
/// answers SIGINT and SIGTERM.
public enum ImportProcess {
    /// Nice 10 and the idle I/O class: the NAS keeps serving files while pins runs. What
    /// cannot be lowered is said through `warn`, and the run goes on.
    public static func lowerPriority(warn: (String) -> Void) {
        if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) != 0 {
            warn("cannot lower the CPU priority: \(String(cString: strerror(errno)))")
        }
        if pins_set_idle_io_priority() != 0 {
            warn("cannot lower the I/O priority: \(String(cString: strerror(errno)))")
        }
    }

    /// SIGINT and SIGTERM end the run at the next file or batch: what was saved stays whole and
    /// the run is recorded as interrupted (exit 130 or 143). A second one while the run winds
    /// down (a batch being saved, a database held by another writer) ends the process at once:
    /// SQLite keeps only committed transactions (a batch without its commit is not replayed, as
    /// after kill -9), and the run lock goes with the process. `say` writes to the person's
    /// stderr. Cancel the sources when done.
    public static func stopOnSignals(_ stop: StopRequest, say: @escaping @Sendable (String) -> Void) -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let name = number == SIGINT ? "SIGINT" : "SIGTERM"
            source.setEventHandler {
                if stop.stop(signal: number) {
                    if isatty(2) != 0 { say("stopping after the batch being saved (\(name) again stops at once)") }
                } else {
                    say("stopped at once by a second \(name): only whole batches were saved; the next run does the rest")
                    _exit(128 + number)
                }
            }
            source.resume()
            return source
        }
    }
}
