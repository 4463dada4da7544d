import Foundation
import Glibc

/// Runs a decoder tool (ImageMagick, libheif, ffmpeg) as its own process (`ChildProcess`), its
/// arguments given as bytes: a photo's path is whatever bytes the file system holds
/// (`caf\xE9.jpg` from an old camera card must reach the tool as it is).
///
/// Standard input and error are /dev/null; standard output is read from a pipe. A tool still
/// running at the time limit, or writing more than `maxOutput`, is killed. Given a scratch
/// folder, the tool's temporary files go to a folder of its own there, removed once it ended:
/// ImageMagick killed at the time limit left its pixel cache in /tmp (a 6000 × 6000 photo:
/// 288 MB at each killed run).
enum ToolProcess {
    /// Why a tool gave no output: it failed (a file it cannot read: the same next time), or it
    /// was still running at the time limit (a NAS busy with its own work: maybe not next time).
    enum Failure: Error, Equatable {
        case failed, timedOut
    }

    /// Most bytes read from a tool's standard output (a 256 px preview is under 100 KB).
    static let maxOutput = 64 << 20

    /// The tool's standard output when it exits 0 within `timeLimit` seconds. `scratch`: where
    /// its folder for temporary files is made (`MAGICK_TEMPORARY_PATH` and `TMPDIR` name it).
    static func run(_ tool: String, _ arguments: [[UInt8]], timeLimit: TimeInterval, scratch: String? = nil) -> Result<[UInt8], Failure> {
        let temporary = scratch.flatMap(privateFolder)
        defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
        let environment = temporary.map { ["MAGICK_TEMPORARY_PATH": $0, "TMPDIR": $0] } ?? [:]
        var fds: [Int32] = [-1, -1]
        // Close-on-exec at once (pipe2 is not in Glibc's Swift module): another thread's tool
        // must not hold the write end, or this read would wait for that tool's end.
        guard pipe(&fds) == 0 else { return .failure(.failed) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let (pid, _) = ChildProcess.spawn(Array(tool.utf8), arguments,
                                          streams: .init(input: .devNull, output: .descriptor(fds[1]), error: .devNull),
                                          environment: environment)
        guard pid > 0 else {
            close(fds[0]); close(fds[1])
            return .failure(.failed)
        }
        close(fds[1])
        defer { close(fds[0]) }
        let deadline = Date().addingTimeInterval(timeLimit)
        let output = readAll(fds[0], until: deadline)
        if case .failure = output { kill(pid, SIGKILL) }
        let status = wait(pid, until: deadline)
        if status == nil || output == .failure(.timedOut) { return .failure(.timedOut) }
        guard case let .success(bytes) = output, status == 0 else { return .failure(.failed) }
        return .success(bytes)
    }

    /// A new folder of this process's only (mode 0700) in `parent`; nil when none can be made
    /// (the tool then uses the system's).
    static func privateFolder(in parent: String) -> String? {
        var template = Array((parent + "/.tool-XXXXXX").utf8CString)
        return template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) }
    }

    /// Everything `fd` gives until its end; `.timedOut` at the deadline, `.failed` past
    /// `maxOutput` or on an error.
    private static func readAll(_ fd: Int32, until deadline: Date) -> Result<[UInt8], Failure> {
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return .failure(.timedOut) }
            var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, Int32(min(left * 1000, 1000).rounded(.up)))
            if ready < 0 && errno != EINTR { return .failure(.failed) }
            guard ready > 0 else { continue }
            let n = read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(.failed)
            }
            if n == 0 { return .success(output) }
            output += buffer[0..<n]
            guard output.count <= maxOutput else { return .failure(.failed) }
        }
    }

    /// The child's wait status; nil when it was still running at the deadline and was killed
    /// (a tool that closed its output and hangs must not hold the run).
    private static func wait(_ pid: pid_t, until deadline: Date) -> Int32? {
        var status: Int32 = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { return status }
            if done < 0 && errno != EINTR { return -1 }
            if deadline.timeIntervalSinceNow <= 0 {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                return nil
            }
            usleep(5_000)
        }
    }
}
