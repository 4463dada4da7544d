import Foundation
import PinApp
import PinCore
import PinImport

/// `pins`: the commands' table, and the dispatch; errors become exit codes here only
/// (`ExitStatusError`; LayerRulesTests fails on an `exit(` anywhere else that does not say why:
/// a closed stdout in `Out`, a signal's handler in `ImportProcess`). Each command parses its
/// arguments, calls its use case in PinApp and prints.
let version = "0.1.0"

struct Command {
    let spec: CommandSpec
    let run: (ParsedArguments) async throws -> Void
}

let commands: [Command] = [
    Command(spec: importSpec, run: runImport),
    Command(spec: importPlacesSpec, run: runImportPlaces),
    Command(spec: inspectSpec, run: runInspect),
    Command(spec: addSpec, run: runAdd),
    Command(spec: listSpec, run: runList),
    Command(spec: deleteSpec, run: runDelete),
    Command(spec: statsSpec, run: runStats),
    Command(spec: reportSpec, run: runReport),
    Command(spec: locateSpec, run: runLocate),
    Command(spec: runsSpec, run: runRuns),
    Command(spec: sidecarsSpec, run: runSidecars),
    Command(spec: editSpec, run: runEdit),
    Command(spec: showSpec, run: runShow),
] + sharedPlacesCommands + [
    Command(spec: settingsSpec, run: runSettings),
    Command(spec: exportSpec, run: runExport),
    Command(spec: checkSpec, run: runCheck),
    Command(spec: tripsSpec, run: runTrips),
    Command(spec: previewsSpec, run: runPreviews),
    Command(spec: serveSpec, run: runServe),
    Command(spec: completionsSpec, run: { try await runCompletions($0) }),
]

@MainActor
func runCompletions(_ args: ParsedArguments) throws {
    guard args.positionals.count == 1, let script = completionScript(shell: args.positionals[0], commands.map(\.spec)) else {
        throw UsageError("expects one shell: bash, zsh or fish", command: "completions")
    }
    Out.print(script)
}

let topHelp: String = {
    var lines = [
        "pins \(version): turns a folder of photos into a map of the places you have been.",
        "",
        "Usage: pins <command> [options]",
        "",
        "Commands:",
    ]
    let width = commands.map(\.spec.name.count).max() ?? 0
    for command in commands {
        lines.append("  " + command.spec.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + command.spec.summary)
    }
    lines += ["", "Run 'pins help <command>' for a command's options; they may also come before the command.",
              "Options: -h, --help, --version", "", "Environment (see 'man pins'):"]
    let nameWidth = ManText.environment.map(\.name.count).max() ?? 0
    for entry in ManText.environment {
        lines.append("  " + entry.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  " + entry.summary)
    }
    return lines.joined(separator: "\n") + "\n"
}()

/// "; did you mean import?" for a mistyped command, or nothing.
@MainActor
func didYouMean(_ typed: String) -> String {
    nearest(typed, among: commands.map(\.spec.name) + ["help"]).map { "; did you mean \($0)?" } ?? ""
}

@MainActor
func main() async -> Int32 {
    // A closed stdout (`pins list | head`) must not kill us with SIGPIPE mid-write.
    signal(SIGPIPE, SIG_IGN)
    // Large buffers in mmap for the whole run, so that memory does not grow with the files.
    MallocTuning.fixMmapThreshold()
    // In the container image, the user the NAS template names, before anything is opened.
    if let problem = ContainerImage.becomeConfiguredUser() {
        Out.error("pins: \(problem)")
        return ExitCode.failure
    }
    switch dispatch(Array(CommandLine.arguments.dropFirst())) {
    case .done(let code):
        return code
    case let .run(command, args):
        return await run(command, args)
    }
}

/// What the command line asks for: a command to run with its arguments, or an answer already
/// given (help, version, a usage mistake) with its exit code.
enum Dispatch {
    case run(Command, [String])
    case done(Int32)
}

/// Options before the command (`pins --db FILE list`, `pins -q import DIR`) go to the command;
/// `--help`, `--version`, `--generate-man` and `help [COMMAND]` are answered here.
@MainActor
func dispatch(_ arguments: [String]) -> Dispatch {
    var args = arguments
    var leading: [String] = []
    while let first = args.first, first.hasPrefix("-"), first != "-", first != "--" {
        switch first {
        case "--help", "-h":
            Out.print(topHelp)
            return .done(ExitCode.success)
        case "--version":
            Out.print("pins \(version)")
            return .done(ExitCode.success)
        case "--generate-man":
            Out.print(manPage(commands.map(\.spec)))
            return .done(ExitCode.success)
        default:
            args.removeFirst()
            leading.append(first)
            if takesSeparateValue(first, in: commands.map(\.spec)), let value = args.first {
                leading.append(value)
                args.removeFirst()
            }
        }
    }
    guard let first = args.first else {
        Out.error(leading.isEmpty ? topHelp : "pins: options given but no command\nRun 'pins --help' for the list of commands.")
        return .done(ExitCode.usage)
    }
    args.removeFirst()
    if first == "help" { return .done(help(args.first)) }
    guard let command = commands.first(where: { $0.spec.name == first }) else {
        Out.error("pins: unknown command '\(first)'\(didYouMean(first))\nRun 'pins --help' for the list of commands.")
        return .done(ExitCode.usage)
    }
    args = leading + args
    if args.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
        Out.print(command.spec.helpText)
        return .done(ExitCode.success)
    }
    return .run(command, args)
}

/// `pins help [COMMAND]`.
@MainActor
func help(_ name: String?) -> Int32 {
    guard let name else {
        Out.print(topHelp)
        return ExitCode.success
    }
    guard let command = commands.first(where: { $0.spec.name == name }) else {
        Out.error("pins help: unknown command '\(name)'\(didYouMean(name))\nRun 'pins --help' for the list of commands.")
        return ExitCode.usage
    }
    Out.print(command.spec.helpText)
    return ExitCode.success
}

/// Runs the command; the one place errors become exit codes: each error says its own
/// (`ExitStatusError`: a database held by another writer or a repair is 75, try later; a
/// missing folder 66; ...), any other is 1.
@MainActor
func run(_ command: Command, _ args: [String]) async -> Int32 {
    // Foundation reads a TZ it does not know as UTC, silently: every time without an offset would
    // then be off by the machine's offset. Said once, naming the variable (issue 22 item 11).
    if let unknown = MachineZone.unknownTZ(environment: ProcessInfo.processInfo.environment) {
        Out.error("pins \(command.spec.name): warning: the TZ environment variable names '\(unknown)', a time zone this "
                  + "machine's zone data does not know: this machine's zone is taken as UTC (set TZ to a zone such as "
                  + "Europe/Paris, or give --timezone)")
    }
    AppDependencies.commandName = command.spec.name
    do {
        try await command.run(try parse(args, spec: command.spec))
        return ExitCode.success
    } catch let error as UsageError {
        Out.error("pins \(command.spec.name): \(error.message)\nRun 'pins \(command.spec.name) --help' for usage.")
        return ExitCode.usage
    } catch let error as InvalidRequest {
        // A use case's "wrong in itself" is, on the command line, a usage mistake.
        Out.error("pins \(command.spec.name): \(error)\nRun 'pins \(command.spec.name) --help' for usage.")
        return ExitCode.usage
    } catch let error as ExitStatusError {
        Out.error("pins \(command.spec.name): \(error)")
        return error.exitStatus
    } catch {
        Out.error("pins \(command.spec.name): \(error)")
        return ExitCode.failure
    }
}

exit(await main())

/// The machine's zone as Foundation sees it.
enum MachineZone {
    /// The value of `TZ` when it names a zone that Foundation does not know (it then uses UTC
    /// without a word); nil when TZ is unset, empty (UTC, as POSIX says), or a zone it knows,
    /// also in the forms `:Europe/Paris` and `/usr/share/zoneinfo/Europe/Paris`.
    static func unknownTZ(environment: [String: String]) -> String? {
        guard let value = environment["TZ"], !value.isEmpty else { return nil }
        var name = Substring(value)
        if name.hasPrefix(":") { name = name.dropFirst() }
        if name.isEmpty { return nil }
        if name.hasPrefix("/"), let range = name.range(of: "/zoneinfo/") { name = name[range.upperBound...] }
        return TimeZone(identifier: String(name)) == nil ? value : nil
    }
}
