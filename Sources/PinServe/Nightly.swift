import Foundation
import PinApp
#if canImport(Glibc)
import Glibc
#endif

/// `pins serve --import-at HH:MM`: a time of day, in the zone of `TZ`.
public struct DailyTime: Sendable, Equatable {
    public let hour: Int, minute: Int, second: Int

    public init(hour: Int, minute: Int, second: Int = 0) {
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// `HH:MM` (and `HH:MM:SS`, which the tests use to schedule a run seconds ahead).
    public static func parse(_ text: String) -> DailyTime? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
              parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return nil }
        let numbers = parts.compactMap { Int($0) }
        guard numbers[0] < 24, numbers[1] < 60, numbers.count < 3 || numbers[2] < 60 else { return nil }
        return DailyTime(hour: numbers[0], minute: numbers[1], second: numbers.count == 3 ? numbers[2] : 0)
    }

    /// The first instant strictly after `date` when the clocks of `zone` show this time. On the
    /// night the clocks skip it (02:30 when they go from 02:00 to 03:00) the run is at the end of
    /// the gap; on the night they show it twice, at the first: one run per day either way.
    public func next(after date: Date, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let wanted = DateComponents(hour: hour, minute: minute, second: second)
        return calendar.nextDate(after: date, matching: wanted, matchingPolicy: .nextTime, repeatedTimePolicy: .first,
                                 direction: .forward) ?? date.addingTimeInterval(86_400)
    }
}

/// The nightly import inside the service: at the `DailyTime`, each command (`pins import DIR
/// --db FILE --quiet --nice`, one per --library folder) runs as a child process, one after the
/// other. Being the CLI, it takes the run lock as the CLI does (another import running: it
/// exits 75 and the next night catches up) and stops as the CLI does: `stop()` sends the
/// running child one SIGTERM (it finishes the batch being saved and records the run as
/// interrupted) and waits for it. The child is in a process group of its own, so a Ctrl-C at
/// the terminal reaches the service only, which then sends that one SIGTERM (a second signal
/// would roll the batch back).
///
/// After the imports, when at least one ran (exit 0 or 74), `previews` (`pins previews --max N
/// --nice --quiet`) makes the previews the new photos lack: after the import, so the pins and
/// the page never wait for a decoder; bounded by its --max, so a night of 50,000 new photos
/// does not run into the day (the next nights do the rest); and a night with nothing new makes
/// none, as every photo's preview or reason is in the preview folder already.
public final class NightlyImport: @unchecked Sendable {
    private let time: DailyTime
    private let zone: TimeZone
    private let commands: [[String]]
    private let previews: [String]?
    private let log: @Sendable (String) -> Void
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var stopped = false
    private var child: pid_t = 0
    private let finished = DispatchSemaphore(value: 0)

    /// `commands`: argv of each child, the program first (an absolute path); `previews`: argv
    /// of the child run after them.
    public init(at time: DailyTime, zone: TimeZone, commands: [[String]], previews: [String]? = nil,
                log: @escaping @Sendable (String) -> Void) {
        self.time = time
        self.zone = zone
        self.commands = commands
        self.previews = previews
        self.log = log
    }

    public func start() {
        let thread = Thread { [self] in
            loop()
            finished.signal()
        }
        thread.name = "pins-nightly"
        thread.start()
    }

    /// No new run; a running child gets one SIGTERM; returns once it has ended.
    public func stop() {
        condition.lock()
        stopped = true
        if child > 0 {
            log("stopping the nightly run's child (pid \(child)): an import saves the batch in hand and records the run as interrupted")
            kill(child, SIGTERM)
        }
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }

    private func loop() {
        var due = time.next(after: Date(), in: zone)
        log("the nightly import runs at \(Self.describe(due, zone))")
        while waitUntil(due) {
            var imported = false
            for command in commands {
                let folder = command.count > 2 ? command[2] : "?"  // pins import FOLDER …
                guard let status = runChild(command, what: "import of \(folder)") else { break }
                log(Self.outcome(status, folder: folder))
                imported = imported || status == 0 || status == 74
            }
            if imported, let previews, let status = runChild(previews, what: "previews") {
                log(status == 0 ? "the nightly previews are done" : "the nightly previews ended with exit \(status) (their message is above)")
            }
            // One run per day: the next is the first one after this one and after now (a run
            // that went on past the next day's time does not start again at once).
            due = time.next(after: max(due, Date()), in: zone)
        }
    }

    /// Sleeps until `due` by the wall clock (in steps of a minute at most, so that a clock
    /// set or a machine woken from sleep is noticed); false once stopped.
    private func waitUntil(_ due: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !stopped, Date() < due {
            _ = condition.wait(until: min(due, Date().addingTimeInterval(60)))
        }
        return !stopped
    }

    /// Runs argv to its end; its exit status (128 + N for a signal), or nil when stopped first
    /// or it could not start (said in the log).
    private func runChild(_ argv: [String], what: String) -> Int32? {
        condition.lock()
        guard !stopped else {
            condition.unlock()
            return nil
        }
        // Its own process group; standard input, output and error are the service's (its log).
        let (pid, error) = ChildProcess.spawn(Array(argv[0].utf8), argv.dropFirst().map { Array($0.utf8) }, ownGroup: true)
        child = pid
        condition.unlock()
        guard pid > 0 else {
            log("the nightly \(what) could not start \(argv[0]): \(String(cString: strerror(error)))")
            return nil
        }
        log("the nightly \(what) started (pid \(pid))")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        condition.lock()
        child = 0
        condition.unlock()
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    static func outcome(_ status: Int32, folder: String) -> String {
        switch status {
        case 0: return "the nightly import of \(folder) is done"
        case 74: return "the nightly import of \(folder) completed, but some files could not be read (named above; exit 74)"
        case 75: return "the nightly import of \(folder) did not run: another import holds the database (exit 75); the next night catches up"
        case 66: return "the nightly import of \(folder) changed nothing: the folder is missing, empty or lost most of its files (exit 66)"
        case 130, 143: return "the nightly import of \(folder) was stopped; what it saved is whole, the next run does the rest"
        default: return "the nightly import of \(folder) failed (exit \(status); its message is above)"
        }
    }

    static func describe(_ date: Date, _ zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss ZZZZZ"
        return formatter.string(from: date) + " (\(zone.identifier))"
    }
}
