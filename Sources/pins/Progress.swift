import Foundation
import PinImport

/// Progress on stderr. On a terminal: one line redrawn in place. Otherwise (cron, systemd, a
/// log file): a plain line every `logInterval` seconds, no control characters.
final class ProgressPrinter: @unchecked Sendable {
    enum Mode { case terminal, log, quiet }

    static let logInterval: TimeInterval = 5
    private let mode: Mode
    private let lock = NSLock()
    private let started = Date()
    private var lastPrint = Date.distantPast
    private var phaseStarted: [ImportProgress.Phase: Date] = [:]
    private var drewLine = false

    init(quiet: Bool) {
        if quiet { mode = .quiet } else { mode = isatty(2) != 0 && ProcessInfo.processInfo.environment["TERM"] != "dumb" ? .terminal : .log }
    }

    func update(_ p: ImportProgress) {
        guard mode != .quiet else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        let phaseStart = phaseStarted[p.phase] ?? { phaseStarted[p.phase] = now; return now }()
        let interval = mode == .terminal ? 0.1 : Self.logInterval
        guard now.timeIntervalSince(lastPrint) >= interval || (mode == .terminal && p.done == p.total && p.total > 0) else { return }
        lastPrint = now
        var text: String
        switch p.phase {
        case .scanning: text = "scanning the folder..."
        case .deciding: text = "deciding \(p.total) files..."
        case .reading, .saving:
            let elapsed = now.timeIntervalSince(phaseStart)
            let rate = elapsed > 0 ? Double(p.done) / elapsed : 0
            text = "\(p.phase == .reading ? "read" : "saved") \(p.done)/\(p.total) files"
            if rate > 0 { text += String(format: ", %.0f/s", rate) }
            if rate > 0, p.done < p.total { text += ", about \(Self.duration(Double(p.total - p.done) / rate)) left" }
        }
        if mode == .terminal {
            // \r and erase-line: the line is redrawn in place.
            Out.raw("\r\u{1B}[K" + text, to: 2)
            drewLine = true
        } else {
            Out.raw("pins: " + text + "\n", to: 2)
        }
    }

    /// Clears the terminal line before the summary is printed.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if mode == .terminal && drewLine { Out.raw("\r\u{1B}[K", to: 2) }
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(saturating: seconds.rounded())
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3600) h \((s % 3600) / 60) min"
    }
}
