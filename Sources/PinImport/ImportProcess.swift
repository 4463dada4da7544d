import CSupport
import Dispatch
import Foundation

/// What an import does to its own process: the priority it runs at (`--nice`) and how it
/// answers SIGINT and SIGTERM.
public enum ImportProcess {
    /// Nice 10 and the idle I/O class: the NAS keeps serving files while pins runs. What
    /// cannot be lowered is said through `warn`, and the run goes on. A process started nicer
    /// than 10 already (`nice -n 15 pins import --nice`) stays as it is: setting 10 would raise
    /// its priority (refused without CAP_SYS_NICE, with a warning that said the opposite).
    public static func lowerPriority(warn: (String) -> Void) {
        errno = 0
        let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let nicer = errno == 0 && current >= 10
        if !nicer, setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) != 0 {
            warn("cannot lower the CPU priority: \(String(cString: strerror(errno)))")
        }
        if pins_set_idle_io_priority() != 0 {
            warn("cannot lower the I/O priority: \(String(cString: strerror(errno)))")
        }
    }

    /// How long the run has, after the first SIGINT or SIGTERM, to end on its own before the
    /// process ends at once as after a second one (issue 40, item 8: a run blocked in a read
    /// of a file that never comes, a hung network share, never reached its next file, ignored
    /// SIGTERM and held the run lock for nights). Long enough for a batch to be saved; well
    /// under systemd's 90 s before SIGKILL. PINS_STOP_GRACE (seconds) shortens it for the tests
    /// (SecondSignalTests), which have no read that never returns to wait 10 s on.
    public static let stopGrace: Double = ProcessInfo.processInfo.environment["PINS_STOP_GRACE"].flatMap(Double.init)
        .map { min(max($0, 0.1), 60) } ?? 10

    /// SIGINT and SIGTERM end the run at the next file or batch: what was saved stays whole and
    /// the run is recorded as interrupted (exit 130 or 143). A second one while the run winds
    /// down (a batch being saved, a database held by another writer) ends the process at once,
    /// and so does the first one when the run has not ended `grace` seconds later (a read that
    /// blocks): SQLite keeps only committed transactions (a batch without its commit is not
    /// replayed, as after kill -9), and the run lock goes with the process. `say` writes to the
    /// person's stderr; `end` ends the process (tests give their own). Cancel the sources when done.
    public static func stopOnSignals(_ stop: StopRequest, grace: Double = stopGrace,
                                     // exit allowed: a signal's handler ends a run that does not stop (a read that
                                     // never returns): no error can be thrown to main from here; _exit skips
                                     // atexit handlers that could block as the run is (the kernel drops the locks).
                                     end: @escaping @Sendable (Int32) -> Void = { _exit($0) },
                                     say: @escaping @Sendable (String) -> Void) -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let name = number == SIGINT ? "SIGINT" : "SIGTERM"
            source.setEventHandler {
                if stop.stop(signal: number) {
                    if isatty(2) != 0 { say("stopping after the batch being saved (\(name) again stops at once)") }
                    DispatchQueue.global().asyncAfter(deadline: .now() + grace) {
                        let seconds = grace == grace.rounded() ? "\(Int(grace))" : "\(grace)"
                        say("not stopped \(seconds) s after \(name) (a read that does not return?): stopped at once; "
                            + "only whole batches were saved; the next run does the rest")
                        end(128 + number)
                    }
                } else {
                    say("stopped at once by a second \(name): only whole batches were saved; the next run does the rest")
                    end(128 + number)
                }
            }
            source.resume()
            return source
        }
    }
}
