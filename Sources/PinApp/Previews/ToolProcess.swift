import Foundation
import Glibc

/// Runs a decoder tool (ImageMagick, libheif, ffmpeg) as its own process, its arguments given
/// as bytes: a photo's path is whatever bytes the file system holds, and Foundation's `Process`
/// takes `String`s, which would turn a name that is not UTF-8 (`caf\xE9.jpg` from an old
/// camera card) into another name with U+FFFD in it, and the tool would not find the file.
/// posix_spawn(3) with NUL-terminated byte strings passes them as they are.
///
/// No shell; standard input and error are /dev/null; standard output is read from a pipe. The
/// child starts with no blocked signals and the default actions for the ones pins handles
/// (pins blocks SIGTERM on some threads for its own handling; a tool must still die of it).
/// A tool still running at the time limit, or writing more than `maxOutput`, is killed.
enum ToolProcess {
    /// Why a tool gave no output: it failed (a file it cannot read: the same next time), or it
    /// was still running at the time limit (a NAS busy with its own work: maybe not next time).
    enum Failure: Error, Equatable {
        case failed, timedOut
    }

    /// Most bytes read from a tool's standard output (a 256 px preview is under 100 KB).
    static let maxOutput = 64 << 20

    /// The tool's standard output when it exits 0 within `timeLimit` seconds.
    static func run(_ tool: String, _ arguments: [[UInt8]], timeLimit: TimeInterval) -> Result<[UInt8], Failure> {
        var argv: [UnsafeMutablePointer<CChar>?] = ([Array(tool.utf8)] + arguments).map { bytes in
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (i, b) in bytes.enumerated() { p[i] = CChar(bitPattern: b) }
            p[bytes.count] = 0
            return p
        }
        argv.append(nil)
        defer { for p in argv { p?.deallocate() } }
        var fds: [Int32] = [-1, -1]
        // Close-on-exec at once (pipe2 is not in Glibc's Swift module): another thread's tool
        // must not hold the write end, or this read would wait for that tool's end.
        guard pipe(&fds) == 0 else { return .failure(.failed) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        guard let pid = spawn(tool, argv, stdout: fds[1]) else {
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

    /// posix_spawn with stdin and stderr on /dev/null and stdout on `stdout`.
    private static func spawn(_ tool: String, _ argv: [UnsafeMutablePointer<CChar>?], stdout: Int32) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        guard posix_spawn(&pid, tool, &actions, &attributes, argv, environ) == 0 else { return nil }
        return pid
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
