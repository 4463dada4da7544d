import Foundation
import Glibc

/// The one way pins starts another program: posix_spawn(3) (no shell), its arguments given as
/// bytes (a photo's path is whatever bytes the file system holds; Foundation's `Process` takes
/// `String`s and would turn a name that is not UTF-8 into another name). The child starts with
/// no blocked signals and the default actions for the signals pins handles or ignores (pins
/// blocks SIGTERM on some threads for its own handling; a child must still die of it).
/// `ToolProcess` (the preview decoders) and `pins serve`'s nightly import use it.
public enum ChildProcess {
    /// Where the child's standard input, output and error go: nil keeps this process's.
    public struct Streams: Sendable {
        public var input: Stream?, output: Stream?, error: Stream?
        public init(input: Stream? = nil, output: Stream? = nil, error: Stream? = nil) {
            self.input = input
            self.output = output
            self.error = error
        }
    }

    public enum Stream: Sendable {
        case devNull
        /// This descriptor (a pipe's write end), duplicated onto the stream.
        case descriptor(Int32)
    }

    /// (the child's pid, 0), or (0, the error number posix_spawn gave). `program` is a path (no PATH search);
    /// `arguments` come after it (argv[0] is `program`). `ownGroup`: a process group of its own,
    /// so that a Ctrl-C at the terminal reaches this process only. The child's environment is
    /// this process's with `environment`'s variables set (replacing any of the same name).
    public static func spawn(_ program: [UInt8], _ arguments: [[UInt8]], streams: Streams = Streams(),
                             ownGroup: Bool = false, environment: [String: String] = [:]) -> (pid: pid_t, error: Int32) {
        var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { bytes in
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (i, b) in bytes.enumerated() { p[i] = CChar(bitPattern: b) }
            p[bytes.count] = 0
            return p
        }
        argv.append(nil)
        defer { for p in argv { p?.deallocate() } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, stream) in [(Int32(0), streams.input), (1, streams.output), (2, streams.error)] {
            switch stream {
            case nil: break
            case .devNull?: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            case .descriptor(let source)?: posix_spawn_file_actions_adddup2(&actions, source, fd)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if ownGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var pid: pid_t = 0
        guard !environment.isEmpty else {
            let result = posix_spawn(&pid, argv[0]!, &actions, &attributes, argv, environ)
            return result == 0 ? (pid, 0) : (0, result)
        }
        var envp = childEnvironment(environment).map { strdup($0) }
        envp.append(nil)
        defer { for p in envp { free(p) } }
        let result = posix_spawn(&pid, argv[0]!, &actions, &attributes, argv, envp)
        return result == 0 ? (pid, 0) : (0, result)
    }

    /// This process's environment ("NAME=value" each) with `set`'s variables put in place of any
    /// of the same name.
    static func childEnvironment(_ set: [String: String]) -> [String] {
        var entries: [String] = []
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
            if set[name] == nil { entries.append(text) }
            p += 1
        }
        return entries + set.keys.sorted().map { "\($0)=\(set[$0]!)" }
    }
}
