import Foundation
import PinCore
import PinData
import PinGrammar

/// pins.conf: the settings of an installed pins, shared by every way it runs. `scripts/install
/// --library` writes it; the nightly service reads it (`EnvironmentFile=`), and pins reads it
/// itself, so that the crontab line and an interactive `pins list` use the same database as the
/// service without repeating it.
///
/// The file is `$PINS_CONFIG` when set, else `PREFIX/etc/pins.conf` beside the binary
/// (`BIN/../etc/pins.conf`, symbolic links resolved; `/etc/pins.conf` for a binary in `/usr/bin`
/// or `/bin`). It is parsed, never run: `KEY=VALUE` lines, blank lines and `#` comments, in the
/// form that systemd's `EnvironmentFile=` reads the same way (no quotes, no `$`, no backslash,
/// nothing around the `=`); anything else is an error naming the file and the line.
enum InstalledSettings {
    static let keys: [(name: String, help: String)] = [
        ("PINS_DB", "The database file when neither --db nor the environment's PINS_DB names one."),
        ("PINS_LIBRARY", "The folder 'pins import' imports when it is given none (the nightly run)."),
        ("PINS_PAGE", "The map page 'pins import' writes after importing PINS_LIBRARY (not for a dry run, not with --html)."),
        ("PINS_ESTIMATE", "yes: every 'pins import' places photos without a position from the photos around them, as --estimate-positions does."),
        ("PINS_ESTIMATE_MAX_GAP", "Estimates: minutes between two photos at most, to interpolate between them (--estimate-max-gap; default 30)."),
        ("PINS_ESTIMATE_MAX_SPEED", "Estimates: km/h their positions imply at most (--estimate-max-speed; default 250)."),
        ("PINS_ESTIMATE_MAX_NEAREST", "Estimates: minutes to the nearest photo at most, when not between two (--estimate-max-nearest; default 10)."),
    ]
    /// The settings whose value is a word, not a path, with the words allowed.
    static let words: [String: [String]] = ["PINS_ESTIMATE": ["yes", "no"]]
    /// The settings whose value is a number, with the values allowed and how the error says
    /// them: up to a day between photos (a wider gap is not one journey), a speed from walking
    /// to an airliner's.
    static let numbers: [String: (values: ClosedRange<Double>, words: String)] = [
        "PINS_ESTIMATE_MAX_GAP": (1...1_440, "a number of minutes from 1 to 1440"),
        "PINS_ESTIMATE_MAX_SPEED": (1...1_000, "a speed in km/h from 1 to 1000"),
        "PINS_ESTIMATE_MAX_NEAREST": (0...1_440, "a number of minutes from 0 to 1440"),
    ]
    static let largestFile = 64 * 1024

    /// Why `value` is not a value of the setting `key` (a number in its range, one of its words,
    /// else an absolute path); nil when it is. The one check, for a line of pins.conf and for a
    /// value the environment gives (`pins import`'s estimate settings).
    static func refusal(_ key: String, _ value: String) -> String? {
        if let range = numbers[key] {
            return DecimalNumber.parse(value, .plain).map(range.values.contains) == true ? nil : "\(key) is \(range.words), got '\(value)'"
        }
        if let allowed = words[key] {
            return allowed.contains(value) ? nil : "\(key) is \(allowed.joined(separator: " or ")), got '\(value)'"
        }
        return value.hasPrefix("/") ? nil : "\(key) must be an absolute path (starting with /), got '\(value)'"
    }

    /// The value of `key`: the environment's when set and not empty, else the file's (an empty
    /// value is no value). The file, when there is one, is read and checked whole even when the
    /// environment has the value: a broken line is found at once, not on the night it matters.
    static func value(_ key: String) throws -> String? {
        let file = try load()
        if let value = ProcessInfo.processInfo.environment[key], !value.isEmpty { return value }
        return file?.values[key]
    }

    /// The file in force: `$PINS_CONFIG` (which must exist), else the prefix's `etc/pins.conf`
    /// when there is one.
    static func location() -> (path: String, named: Bool)? {
        if let named = ProcessInfo.processInfo.environment["PINS_CONFIG"], !named.isEmpty { return (named, true) }
        guard let bin = DataFiles.executableDirectory() else { return nil }
        return (defaultPath(binaryFolder: bin), false)
    }

    /// `PREFIX/etc/pins.conf` for a binary in `PREFIX/bin`; `/etc/pins.conf` when PREFIX is `/usr`
    /// or `/` (scripts/install writes it to the same place).
    static func defaultPath(binaryFolder bin: String) -> String {
        let prefix = PathParts.folder(of: bin)
        return prefix == "/usr" || prefix == "/" ? "/etc/pins.conf" : prefix + "/etc/pins.conf"
    }

    static func load() throws -> ConfigFile? {
        guard let (path, named) = location() else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)  // a FIFO must not hang every command
        if fd < 0 {
            if errno == ENOENT && !named { return nil }
            throw CommandFailure("cannot read the settings file \(TerminalText.quoted(RawPath(path)))"
                                 + (named ? " (PINS_CONFIG)" : "") + ": \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw CommandFailure("the settings file \(TerminalText.quoted(RawPath(path))) is not a regular file")
        }
        // One read more than the limit tells a file that is too large without reading it all.
        var bytes = [UInt8](repeating: 0, count: largestFile + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw CommandFailure("cannot read the settings file \(TerminalText.quoted(RawPath(path))): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            count += n
        }
        guard count <= largestFile else {
            throw CommandFailure("the settings file \(TerminalText.quoted(RawPath(path))) is larger than \(largestFile / 1024) KiB: not a pins.conf")
        }
        return try ConfigFile(bytes: Array(bytes[..<count]), path: path)
    }
}

/// The parsed settings file. Every accepted line reads the same to pins, to systemd's
/// `EnvironmentFile=` and to a shell's `read`; nothing in it is ever evaluated.
struct ConfigFile {
    let path: String
    let values: [String: String]

    struct LineError: Error, Equatable {
        let line: Int
        let reason: String
    }

    init(bytes: [UInt8], path: String) throws {
        self.path = path
        do {
            values = try Self.parse(bytes)
        } catch let error as LineError {
            throw CommandFailure("\(TerminalText.quoted(RawPath(path))), line \(error.line): \(error.reason)")
        }
    }

    static func parse(_ bytes: [UInt8]) throws -> [String: String] {
        let known = InstalledSettings.keys.map(\.name)
        var values: [String: String] = [:], lineOf: [String: Int] = [:]
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            func fail(_ reason: String) -> LineError { LineError(line: number, reason: reason) }
            guard let line = String(validating: raw, as: UTF8.self) else { throw fail("not UTF-8 text") }
            if line.contains("\r") { throw fail("a carriage return (saved with Windows line ends? save it with Unix ones)") }
            if let control = line.unicodeScalars.first(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) {
                throw fail("a control character (U+\(String(format: "%04X", control.value)))")
            }
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard trimmed.count == line.count else { throw fail("a setting starts at the start of its line") }
            if line.hasPrefix("export ") { throw fail("no 'export': write KEY=VALUE") }
            guard let equals = line.firstIndex(of: "=") else { throw fail("expected KEY=VALUE, e.g. PINS_DB=/var/lib/pins/pins.sqlite") }
            let key = String(line[..<equals]), value = String(line[line.index(after: equals)...])
            if key.last == " " || key.last == "\t" || value.first == " " || value.first == "\t" {
                throw fail("no space around '=': write \(key.trimmingCharacters(in: .whitespaces))=\(value.trimmingCharacters(in: .whitespaces))")
            }
            guard known.contains(key) else {
                let hint = nearest(key, among: known).map { "; did you mean \($0)?" } ?? ""
                throw fail("unknown setting '\(key)'\(hint) (known: \(known.joined(separator: ", ")))")
            }
            if let earlier = lineOf[key] { throw fail("\(key) is set already on line \(earlier)") }
            if let special = value.first(where: { "\"'\\$`".contains($0) }) {
                throw fail("'\(special)' in the value of \(key): write the path as it is, without quotes or escapes (spaces are fine)")
            }
            if value.last == " " || value.last == "\t" { throw fail("spaces after the value of \(key)") }
            if !value.isEmpty, let refusal = InstalledSettings.refusal(key, value) { throw fail(refusal) }
            lineOf[key] = number
            if !value.isEmpty { values[key] = value }
        }
        return values
    }
}
