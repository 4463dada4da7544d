import Foundation
import PinCore
import PinGrammar

/// A usage mistake: printed with a hint to --help, exit 64 (EX_USAGE).
struct UsageError: ExitStatusError {
    let message: String
    let command: String?
    init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }
    var description: String { message }
    var exitStatus: Int32 { ExitCode.usage }
}

/// A failure that stops the command: printed, exit `code` (1 unless said otherwise).
struct CommandFailure: ExitStatusError {
    let message: String
    let code: Int32
    init(_ message: String, code: Int32 = ExitCode.failure) {
        self.message = message
        self.code = code
    }
    var description: String { message }
    var exitStatus: Int32 { code }
}

struct OptionSpec {
    let name: String          // "--db"
    let value: String?        // "FILE", nil for a flag
    let help: String
    var repeatable = false
    /// The values it takes, when they are a fixed set: the shell completions offer them.
    var choices: [String] = []

    /// The one-letter form, the same in every command that has the long option (`-n` dry run
    /// as in rsync, `-q`, `-v`, `-j N` as in make).
    var short: String? { shortOptions[name] }
}

/// Short forms, by long name: kept in one table so that a command added later gets them too.
let shortOptions: [String: String] = ["--dry-run": "-n", "--quiet": "-q", "--verbose": "-v", "--jobs": "-j"]

struct CommandSpec {
    let name: String
    let summary: String
    let usage: String
    let options: [OptionSpec]
    let details: String
    /// Words that may come first after the command (`runs show N`): completed by the shells.
    var subcommands: [String] = []

    var helpText: String {
        var lines = ["Usage: pins \(usage)", "", summary]
        if !details.isEmpty { lines += ["", details] }
        if !options.isEmpty {
            lines += ["", "Options:"]
            var rows: [(String, String)] = []
            for option in options {
                let names = option.short.map { "\($0), \(option.name)" } ?? option.name
                rows.append((option.value.map { "\(names) \($0)" } ?? names, option.help))
            }
            rows.append(("-h, --help", "Show this help."))
            let width = rows.map(\.0.count).max() ?? 0
            for (left, right) in rows {
                lines.append("  " + left.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + right)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The bytes of the arguments, for file names that are not UTF-8 (`--out $'caf\xe9.kml'`):
/// `CommandLine.arguments` replaces such bytes with U+FFFD, and a file named with those is
/// another file. Arguments stay `String`s through parsing; a file option's value is turned
/// back into the bytes of the argument it came from.
enum ArgumentBytes {
    /// The arguments that are not UTF-8, by their repaired text; nil when two different byte
    /// strings repair to the same text (then which one was meant cannot be told).
    static let notUTF8: [String: [UInt8]?] = {
        var table: [String: [UInt8]?] = [:]
        for index in 0..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index] else { continue }
            let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
            guard String(validating: bytes, as: UTF8.self) == nil else { continue }
            let text = String(decoding: bytes, as: UTF8.self)
            if let known = table[text], known != bytes { table[text] = .some(nil) } else { table[text] = bytes }
        }
        return table
    }()

    /// The bytes of the argument `text` came from (its UTF-8 when it was valid UTF-8).
    static func path(_ text: String) -> RawPath {
        if text.unicodeScalars.contains("\u{FFFD}"), let bytes = notUTF8[text], let bytes { return RawPath(bytes: bytes) }
        return RawPath(text)
    }
}

/// The parsed arguments of one subcommand.
struct ParsedArguments {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    let command: String

    func value(_ name: String) -> String? { values[name]?.last }
    /// The value of a file option as the bytes that were typed (`ArgumentBytes`).
    func path(_ name: String) -> RawPath? { value(name).map(ArgumentBytes.path) }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { flags.contains(name) }

    /// A number as people write one: an optional sign, digits, an optional decimal point (48.8584,
    /// -0.5, .5). Not the other forms Double(String) takes: hexadecimal (`0x10` is 16), exponents,
    /// inf and nan. Coordinates are decimal degrees only.
    func double(_ name: String, range: ClosedRange<Double>? = nil) throws -> Double? {
        guard let text = value(name) else { return nil }
        guard let v = DecimalNumber.parse(text, .plain) else {
            throw UsageError("\(name) expects a decimal number such as 48.8584, got '\(text)'", command: command)
        }
        if let range, !range.contains(v) {
            throw UsageError("\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(text)", command: command)
        }
        return v
    }

    func int(_ name: String, range: ClosedRange<Int>) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let v = Int(text), range.contains(v) else {
            throw UsageError("\(name) expects a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'", command: command)
        }
        return v
    }
}

/// Parses `--name value`, `--name=value`, flags, short forms (`-n`, `-qn`, `-j 4`, `-j4`) and
/// positionals; `--` ends the options.
func parse(_ args: [String], spec: CommandSpec) throws -> ParsedArguments {
    var parser = ArgumentParser(args: args, spec: spec)
    var optionsDone = false
    while let arg = parser.next() {
        if optionsDone || !arg.hasPrefix("-") || arg == "-" {
            parser.parsed.positionals.append(arg)
        } else if arg == "--" {
            optionsDone = true
        } else if Double(arg) != nil {
            // Negative numbers are values, not options (pins add --lat -33.9 ...).
            parser.parsed.positionals.append(arg)
        } else if arg.hasPrefix("--") {
            try parser.longOption(arg)
        } else {
            try parser.shortGroup(arg)
        }
    }
    return parser.parsed
}

/// The arguments of one command, read left to right into `parsed`.
private struct ArgumentParser {
    let args: [String]
    let spec: CommandSpec
    var parsed: ParsedArguments
    var i = 0

    init(args: [String], spec: CommandSpec) {
        self.args = args
        self.spec = spec
        parsed = ParsedArguments(command: spec.name)
    }

    mutating func next() -> String? {
        guard i < args.count else { return nil }
        i += 1
        return args[i - 1]
    }

    mutating func add(_ option: OptionSpec, _ value: String) throws {
        if !option.repeatable, parsed.values[option.name] != nil {
            throw UsageError("\(option.name) given twice", command: spec.name)
        }
        parsed.values[option.name, default: []].append(value)
    }

    /// The value of `option` as the next argument.
    mutating func separateValue(of option: OptionSpec, as written: String) throws {
        guard let value = next() else { throw UsageError("\(written) needs a value (\(option.value!))", command: spec.name) }
        try add(option, value)
    }

    /// One or more short flags (`-qn`); a short option that takes a value ends the group
    /// (`-j4`, `-j=4`, `-j 4`).
    mutating func shortGroup(_ arg: String) throws {
        var rest = Substring(arg.dropFirst())
        while let letter = rest.first {
            rest = rest.dropFirst()
            guard let option = spec.options.first(where: { $0.short == "-\(letter)" }) else {
                throw UsageError("unknown option '-\(letter)'", command: spec.name)
            }
            if option.value == nil {
                parsed.flags.insert(option.name)
                continue
            }
            if rest.isEmpty {
                try separateValue(of: option, as: "-\(letter)")
            } else {
                try add(option, String(rest.hasPrefix("=") ? rest.dropFirst() : rest))
            }
            return
        }
    }

    /// `--name`, `--name value` or `--name=value`; an unknown name gets a suggestion.
    mutating func longOption(_ arg: String) throws {
        var name = arg
        var inline: String?
        if let eq = arg.firstIndex(of: "=") {
            name = String(arg[..<eq])
            inline = String(arg[arg.index(after: eq)...])
        }
        guard let option = spec.options.first(where: { $0.name == name }) else {
            let suggestion = nearest(name, among: spec.options.map(\.name) + ["--help"])
            throw UsageError("unknown option '\(name)'" + (suggestion.map { "; did you mean \($0)?" } ?? ""), command: spec.name)
        }
        if option.value == nil {
            if inline != nil { throw UsageError("\(name) takes no value", command: spec.name) }
            parsed.flags.insert(name)
        } else if let inline {
            try add(option, inline)
        } else {
            try separateValue(of: option, as: name)
        }
    }
}

/// Whether `arg`, seen before the command, is an option whose value is the next argument
/// (`--db FILE`, `-j 4`): then that value is not the command's name.
func takesSeparateValue(_ arg: String, in specs: [CommandSpec]) -> Bool {
    let options = specs.flatMap(\.options)
    if arg.hasPrefix("--") {
        return !arg.contains("=") && options.contains { $0.name == arg && $0.value != nil }
    }
    // A group of short flags: only its last letter may take the next argument.
    guard let last = arg.last, arg.count >= 2 else { return false }
    let lastIsValue = options.contains { $0.short == "-\(last)" && $0.value != nil }
    let earlier = arg.dropFirst().dropLast()
    return lastIsValue && !earlier.contains { letter in options.contains { $0.short == "-\(letter)" && $0.value != nil } }
}

/// The candidate a mistyped word most likely meant (`--dryrun`, `--dry`, `imprt`, `lsit`): the
/// one it is a unique prefix of, else the closest within a few edits (adjacent letters swapped
/// count as one), for typing slips rather than other words; nil when none is close.
func nearest(_ typed: String, among candidates: [String]) -> String? {
    let word = typed.drop(while: { $0 == "-" })
    let prefixed = candidates.filter { $0.hasPrefix(typed) && $0 != typed }
    if word.count >= 3, prefixed.count == 1 { return prefixed[0] }
    let limit = min(3, max(1, word.count / 3))
    let scored = candidates.map { ($0, editDistance(Array(typed), Array($0))) }.filter { $0.1 <= limit }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    // Two candidates equally close: no guess.
    return scored.filter({ $0.1 == best.1 }).count == 1 ? best.0 : nil
}

/// Edits (insert, delete, replace, swap of two adjacent characters) from `a` to `b`.
func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { rows[i][0] = i }
    for j in 0...b.count { rows[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1) }
        }
    }
    return rows[a.count][b.count]
}
