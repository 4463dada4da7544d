import Dispatch
import Foundation
@testable import PinImport
import XCTest

/// Issue 40, item 8: the first SIGTERM always ends the run. A real SIGTERM to this process goes
/// through `ImportProcess.stopOnSignals`; the run (here: nothing, as a run blocked in a read
/// does nothing) does not end on its own, so the process is ended `grace` seconds later, with
/// 143, as after a second signal. Only the `_exit` is the test's, so the test process lives on.
final class StopSignalTests: XCTestCase {
    func testAFirstSIGTERMEndsARunThatDoesNotEndOnItsOwn() throws {
        final class Ended: @unchecked Sendable {
            let lock = NSLock()
            var status: Int32?
            var said: [String] = []
        }
        let ended = Ended(), done = DispatchSemaphore(value: 0)
        let stop = StopRequest()
        let sources = ImportProcess.stopOnSignals(stop, grace: 0.5, end: { status in
            ended.lock.lock(); ended.status = status; ended.lock.unlock()
            done.signal()
        }, say: { text in ended.lock.lock(); ended.said.append(text); ended.lock.unlock() })
        defer {
            sources.forEach { $0.cancel() }
            signal(SIGTERM, SIG_DFL)
            signal(SIGINT, SIG_DFL)
        }
        // The signal is process-directed; the kernel discards a signal whose action is SIG_IGN
        // unless the thread group's first thread (this one: XCTest runs tests on the main
        // thread) blocks it; so the main thread blocks it for the test, and the signal stays
        // pending for libdispatch's source.
        var mask = sigset_t(), old = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &mask, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        let sent = Date()
        XCTAssertEqual(kill(getpid(), SIGTERM), 0)
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "the first SIGTERM must end the process")
        let waited = Date().timeIntervalSince(sent)
        XCTAssertGreaterThanOrEqual(waited, 0.5, "the run had its grace to end on its own")
        XCTAssertEqual(stop.signal, SIGTERM, "the run was asked to stop at once")
        ended.lock.lock(); defer { ended.lock.unlock() }
        XCTAssertEqual(ended.status, 143)
        XCTAssertTrue(ended.said.last?.hasPrefix("not stopped 0.5 s after SIGTERM") == true, "\(ended.said)")
    }
}
