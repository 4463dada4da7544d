import Foundation

// The man page and the shell completions, made from the same CommandSpec tables that print
// `--help`, so that they cannot drift from it. scripts/package writes them with
// `pins --generate-man` and `pins completions bash|zsh|fish`.

/// What the man page says beyond the commands' own help.
enum ManText {
    static let description = """
    pins walks a folder of photos, reads each photo's position and capture time, applies the \
    import rules of the iOS app PinApp and stores one pin per visited place, with its country \
    resolved offline, in a SQLite database. It makes no network connection.
    """
    static let environment: [(name: String, summary: String, text: String)] = [
        ("PINS_DB", "the database: --db FILE, else $PINS_DB, else PINS_DB in pins.conf, else the default",
         "The database file when --db is not given. The database is --db FILE, else $PINS_DB, else PINS_DB in pins.conf, else the default below."),
        ("PINS_LIBRARY", "the folder 'pins import' imports when given none (else pins.conf's)",
         "The folder 'pins import' imports when it is given none; else PINS_LIBRARY in pins.conf."),
        ("PINS_PAGE", "the map page 'pins import' without a folder writes (else pins.conf's)",
         "The map page 'pins import' without a folder writes after the import (not for a dry run; --html FILE wins); else PINS_PAGE in pins.conf."),
        ("PINS_ESTIMATE", "yes: 'pins import' estimates positions, as --estimate-positions (else pins.conf's)",
         "yes: every 'pins import' gives photos without a position one from the photos around them, as --estimate-positions does (no: it does not unless asked); else PINS_ESTIMATE in pins.conf. PINS_ESTIMATE_MAX_GAP (minutes, default 30), PINS_ESTIMATE_MAX_SPEED (km/h, default 250) and PINS_ESTIMATE_MAX_NEAREST (minutes, default 10), here or in pins.conf, change the estimates' limits as --estimate-max-gap, --estimate-max-speed and --estimate-max-nearest do (the option wins)."),
        ("PINS_CONFIG", "the settings file (default: BIN/../etc/pins.conf; /etc/pins.conf for /usr/bin)",
         "The settings file, instead of PREFIX/etc/pins.conf beside the binary (BIN/../etc/pins.conf; /etc/pins.conf for /usr/bin). KEY=VALUE lines for PINS_DB, PINS_LIBRARY, PINS_PAGE, PINS_ESTIMATE and the PINS_ESTIMATE_MAX_* limits, # comments; no quotes, no $: a line pins cannot read is an error naming the file and the line. scripts/install --library writes it; the nightly service reads it too (EnvironmentFile=)."),
        ("PINS_LISTEN", "where 'pins serve' listens without --listen (else 127.0.0.1:8765)",
         "The address and port 'pins serve' listens on when --listen is not given (the container image sets 0.0.0.0:8765); else 127.0.0.1:8765. 'pins serve --health' asks the service there."),
        ("PINS_PASSWORD", "the password of 'pins serve' (PINS_READ_PASSWORD: the read-only one)",
         "The password 'pins serve' asks for, stored hashed at its start as --set-password stores it (it replaces a stored one while set) and removed from the environment; PINS_READ_PASSWORD likewise for the read-only password. Any address but loopback needs a password."),
        ("PINS_PASSWORD_FILE", "a file holding it (PINS_READ_PASSWORD_FILE: the read-only one's)",
         "A file whose first line is the password of PINS_PASSWORD (a Docker secret, systemd's LoadCredential=; in the container image /run/secrets/pins_password when present); PINS_READ_PASSWORD_FILE likewise for the read-only one."),
        ("XDG_DATA_HOME", "the default database is $XDG_DATA_HOME/pins/pins.sqlite (~/.local/share/pins)",
         "Without --db and PINS_DB, the database is $XDG_DATA_HOME/pins/pins.sqlite, else ~/.local/share/pins/pins.sqlite."),
        ("PINS_DATA_DIR", "the country data, when BIN/../share/pins has none",
         "The folder holding the data files (Countries.bin, Countries.json, Countries.geojson, Places.bin, TimeZones.bin), used when the share/pins folder beside the binary (BIN/../share/pins) has none."),
        ("TZ", "the zone for capture times that carry none",
         "The machine's time zone, used for capture times that carry none unless --timezone is given."),
    ]
    static let exitStatus: [(String, String)] = [
        ("0", "Done (an import with unreadable files still completed; its report lists them)."),
        ("1", "The command stopped; a message on standard error says why."),
        ("64", "Usage error (EX_USAGE)."),
        ("66", "import: the folder is missing, empty, or holds less than half the files an earlier run recorded there (a share that is not mounted); nothing was changed (EX_NOINPUT)."),
        ("73", "An output file (--out, --report, --html, PINS_PAGE) is the database or one of its files; nothing was written (EX_CANTCREAT). sidecars, runs undo: some sidecars could not be written or taken back (a read-only folder), each named on standard error."),
        ("74", "import: the run completed, but some folders or entries could not be read (EX_IOERR); each is named on standard error."),
        ("75", "import: another import is using the same database; nothing was changed, try later (EX_TEMPFAIL)."),
    ]
    static let files: [(String, String)] = [
        ("~/.local/share/pins/pins.sqlite", "The default database."),
        ("PREFIX/etc/pins.conf", "The settings (PINS_DB, PINS_LIBRARY, PINS_PAGE) of an installed pins and its nightly run; /etc/pins.conf for a binary in /usr/bin."),
        ("BIN/../share/pins", "Country outlines and the ISO 3166-1 list, beside the installed binary."),
    ]
    static let examples: [(String, String)] = [
        ("pins import ~/Pictures -n", "What would be created, and why every other photo is skipped."),
        ("pins import -q", "The nightly run, as cron or systemd starts it: PINS_LIBRARY into PINS_DB, then the page PINS_PAGE (pins.conf)."),
        ("pins --db /var/lib/pins/pins.sqlite import /volume1/photo -q", "The same, spelled out."),
        ("echo 48.85,2.35 | pins locate", "The country code of a position."),
    ]
}

/// Text for roff: backslashes escaped, every '-' a real minus (so options copy and paste),
/// a line starting with '.' or '\'' kept as text.
private func roff(_ text: String) -> String {
    let escaped = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
    return escaped.split(separator: "\n", omittingEmptySubsequences: false).map { line in
        line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
    }.joined(separator: "\n")
}

/// Paragraphs of a help text (blank-line separated) as roff paragraphs.
private func roffParagraphs(_ text: String) -> [String] {
    text.components(separatedBy: "\n\n").filter { !$0.isEmpty }.flatMap { [".PP", roff($0)] }
}

private func roffOption(_ option: OptionSpec) -> String {
    var names = option.short.map { "\\fB\(roff($0))\\fR, " } ?? ""
    names += "\\fB\(roff(option.name))\\fR"
    if let value = option.value { names += " \\fI\(roff(value))\\fR" }
    return names
}

/// The man page pins(1), in roff (man macros).
func manPage(_ specs: [CommandSpec]) -> String {
    var lines = [
        ".\\\" Generated by `pins --generate-man` from the option tables of `pins --help`; do not edit.",
        ".TH PINS 1 \"\" \"pins \(version)\" \"User Commands\"",
        ".nh",
        ".SH NAME",
        "pins \\- turn a folder of photos into a map of the places you have been",
        ".SH SYNOPSIS",
        ".B pins",
        "[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fB\\-\\-\\fR] [\\fIARGUMENTS\\fR]",
        ".br",
        ".B pins help",
        "\\fICOMMAND\\fR",
        ".SH DESCRIPTION",
        roff(ManText.description),
        ".PP",
        roff("A command's options may also come before the command (pins --db FILE list). Short flags group (-qn); "
            + "a short option's value follows it or the next argument (-j4, -j 4); a long option's value follows "
            + "'=' or the next argument. '--' ends the options: what follows is an argument even if it starts with '-'."),
        ".SH COMMANDS",
    ]
    for spec in specs {
        lines.append(".SS \"\(roff(spec.name))\"")
        lines.append(".B pins")
        lines.append(roff(String(spec.usage)))
        lines.append(".PP")
        lines.append(roff(spec.summary))
        if !spec.details.isEmpty { lines += roffParagraphs(spec.details) }
        for option in spec.options {
            lines += [".TP", roffOption(option), roff(option.help)]
        }
    }
    lines += [".SH OPTIONS", ".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR", "Show the help of pins, or of the command it follows.",
              ".TP", "\\fB\\-\\-version\\fR", "Print the version."]
    lines.append(".SH ENVIRONMENT")
    for (name, _, text) in ManText.environment { lines += [".TP", ".B \(roff(name))", roff(text)] }
    lines.append(".SH FILES")
    for (name, text) in ManText.files { lines += [".TP", ".I \(roff(name))", roff(text)] }
    lines.append(".SH EXIT STATUS")
    for (code, text) in ManText.exitStatus { lines += [".TP", ".B \(code)", roff(text)] }
    lines.append(".SH EXAMPLES")
    for (command, text) in ManText.examples { lines += [".TP", ".B \(roff(command))", roff(text)] }
    lines += [".SH SEE ALSO", "The README shipped in the package (share/doc/pins/README.md)."]
    return lines.joined(separator: "\n") + "\n"
}

let completionsSpec = CommandSpec(
    name: "completions", summary: "Print the shell completion script for bash, zsh or fish.",
    usage: "completions bash|zsh|fish", options: [],
    details: """
        The script completes commands, options, the values of --format, --type, --map-style,
        --sort and --source, and the runs actions (show, undo); file names elsewhere.

        Examples:
          pins completions bash > /etc/bash_completion.d/pins
          pins completions zsh > "${fpath[1]}/_pins"
          pins completions fish > ~/.config/fish/completions/pins.fish
        """)

/// The completion script for `shell` (bash, zsh or fish), or nil for another shell.
func completionScript(shell: String, _ specs: [CommandSpec]) -> String? {
    switch shell {
    case "bash": return bashCompletion(specs)
    case "zsh": return zshCompletion(specs)
    case "fish": return fishCompletion(specs)
    default: return nil
    }
}

/// Metavariables whose value is a path: the shell completes file names for them.
private let pathValues: Set<String> = ["FILE", "DIR", "PATH", "FOLDER"]

private func singleQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

private func bashCompletion(_ specs: [CommandSpec]) -> String {
    let allOptions = specs.flatMap(\.options)
    let valueOptions = Set(allOptions.filter { $0.value != nil }.flatMap { [$0.name] + ($0.short.map { [$0] } ?? []) }).sorted()
    let names = specs.map(\.name).joined(separator: " ")
    // The values of options that take one of a fixed set (the same set wherever the name is).
    var choices: [(String, [String])] = []
    for option in allOptions where !option.choices.isEmpty && !choices.contains(where: { $0.0 == option.name }) {
        choices.append((option.name, option.choices))
    }
    var lines = [
        "# bash completion for pins; generated by `pins completions bash`, do not edit.",
        "_pins() {",
        "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" command=\"\" i",
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        "        case \"${COMP_WORDS[i]}\" in",
        "            --) break ;;",
        "            \(valueOptions.joined(separator: "|"))) ((i++)) ;;",
        "            -*) ;;",
        "            *) command=\"${COMP_WORDS[i]}\"; break ;;",
        "        esac",
        "    done",
        "    case \"$prev\" in",
    ] + choices.map { name, values in
        "        \(name)) COMPREPLY=($(compgen -W \(singleQuoted(values.joined(separator: " "))) -- \"$cur\")); return ;;"
    } + [
        "        \(valueOptions.joined(separator: "|"))) return ;;",
        "    esac",
        "    local options",
        "    case \"$command\" in",
        "        \"\")",
        "            if [[ $cur == -* ]]; then",
        "                options=\"--help --version\"",
        "            else",
        "                COMPREPLY=($(compgen -W \(singleQuoted("help " + names)) -- \"$cur\"))",
        "                return",
        "            fi ;;",
        "        help) COMPREPLY=($(compgen -W \(singleQuoted(names)) -- \"$cur\")); return ;;",
        "        completions) [[ $cur == -* ]] || { COMPREPLY=($(compgen -W 'bash zsh fish' -- \"$cur\")); return; }; options='--help' ;;",
    ]
    for spec in specs where spec.name != "completions" {
        let words = spec.options.flatMap { ($0.short.map { [$0] } ?? []) + [$0.name] } + ["--help"]
        lines.append("        \(spec.name)) options=\(singleQuoted(words.joined(separator: " "))) ;;")
        if !spec.subcommands.isEmpty {
            // `runs sh<TAB>`: the actions, right after the command.
            lines[lines.count - 1] = "        \(spec.name)) options=\(singleQuoted(words.joined(separator: " ")))"
                + "; if [[ $cur != -* ]] && ((COMP_CWORD == i + 1)); then COMPREPLY=($(compgen -W \(singleQuoted(spec.subcommands.joined(separator: " "))) -- \"$cur\")); return; fi ;;"
        }
    }
    lines += [
        "        *) return ;;",
        "    esac",
        "    if [[ $cur == -* ]]; then",
        "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))",
        "    fi",
        "}",
        // Without matches (an argument, a FILE value), bash completes file names.
        "complete -o default -F _pins pins",
    ]
    return lines.joined(separator: "\n") + "\n"
}

/// Text for a zsh `_arguments` description in single quotes: brackets and colons escaped.
private func zshDescription(_ text: String) -> String {
    text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "[", with: "\\[")
        .replacingOccurrences(of: "]", with: "\\]").replacingOccurrences(of: ":", with: "\\:")
}

private func zshCompletion(_ specs: [CommandSpec]) -> String {
    var lines = [
        "#compdef pins",
        "# zsh completion for pins; generated by `pins completions zsh`, do not edit.",
        "_pins() {",
        "    local context state state_descr line",
        "    typeset -A opt_args",
        "    local -a commands",
        "    commands=(",
        "        'help:Show the help of a command.'",
    ]
    for spec in specs {
        lines.append("        " + singleQuoted(spec.name + ":" + spec.summary.replacingOccurrences(of: ":", with: "\\:")))
    }
    lines += [
        "    )",
        "    _arguments -C '(- *)'{-h,--help}'[Show help.]' '(- *)--version[Print the version.]' \\",
        "        '1:command:->command' '*::argument:->argument' && return",
        "    case $state in",
        "        command) _describe -t commands 'pins command' commands ;;",
        "        argument)",
        "            case $line[1] in",
        "                help) _describe -t commands 'pins command' commands ;;",
        "                completions) _values 'shell' bash zsh fish ;;",
    ]
    for spec in specs where spec.name != "completions" {
        var arguments = spec.options.flatMap(zshArguments)
        arguments.append(singleQuoted("(- *)" + "--help[Show this help.]"))
        if !spec.subcommands.isEmpty {
            arguments.append(singleQuoted("1:action:(" + spec.subcommands.joined(separator: " ") + ")"))
        }
        arguments.append(singleQuoted("*:argument:_files"))
        lines.append("                \(spec.name)) _arguments -S \\")
        for argument in arguments { lines.append("                    \(argument) \\") }
        lines.append("                    ;;")
    }
    lines += [
        "            esac ;;",
        "    esac",
        "}",
        "_pins \"$@\"",
    ]
    return lines.joined(separator: "\n") + "\n"
}

/// An option's `_arguments` specs: the long form, and the short one when it has one (the two
/// exclude each other unless the option repeats).
private func zshArguments(_ option: OptionSpec) -> [String] {
    let description = "[" + zshDescription(option.help) + "]"
    var value = ""
    if let metavar = option.value {
        value = ":" + zshDescription(metavar) + ":"
            + (!option.choices.isEmpty ? "(" + option.choices.joined(separator: " ") + ")" : pathValues.contains(metavar) ? "_files" : " ")
    }
    let many = option.repeatable ? "*" : ""
    let long = "\(option.name)\(option.value == nil ? "" : "=")\(description)\(value)"
    guard let short = option.short else { return [singleQuoted(many + long)] }
    let exclusion = option.repeatable ? "" : "(\(short) \(option.name))"
    let separator = option.value == nil ? "" : "+"
    return [singleQuoted("\(exclusion)\(many)\(short)\(separator)\(description)\(value)"), singleQuoted(exclusion + many + long)]
}

private func fishCompletion(_ specs: [CommandSpec]) -> String {
    let names = specs.map(\.name)
    var lines = [
        "# fish completion for pins; generated by `pins completions fish`, do not edit.",
        "complete -c pins -f",
        "complete -c pins -n '__fish_use_subcommand' -s h -l help -d 'Show help'",
        "complete -c pins -n '__fish_use_subcommand' -l version -d 'Print the version'",
        "complete -c pins -n '__fish_use_subcommand' -a help -d 'Show the help of a command'",
        "complete -c pins -n '__fish_seen_subcommand_from help' -a \(singleQuotedFish(names.joined(separator: " ")))",
        "complete -c pins -n '__fish_seen_subcommand_from completions' -a 'bash zsh fish'",
    ]
    for spec in specs {
        lines.append("complete -c pins -n '__fish_use_subcommand' -a \(spec.name) -d \(singleQuotedFish(spec.summary))")
        let condition = singleQuotedFish("__fish_seen_subcommand_from \(spec.name); and not __fish_seen_subcommand_from help")
        // Arguments are files and folders (the actions of `runs` first).
        lines.append("complete -c pins -n \(condition) -F")
        if !spec.subcommands.isEmpty {
            lines.append("complete -c pins -n \(condition) -a \(singleQuotedFish(spec.subcommands.joined(separator: " ")))")
        }
        for option in spec.options {
            var line = "complete -c pins -n \(condition)"
            if let short = option.short { line += " -s \(short.dropFirst())" }
            line += " -l \(option.name.dropFirst(2))"
            if let metavar = option.value {
                line += !option.choices.isEmpty ? " -x -a " + singleQuotedFish(option.choices.joined(separator: " "))
                    : pathValues.contains(metavar) ? " -r -F" : " -x"
            }
            line += " -d \(singleQuotedFish(option.help))"
            lines.append(line)
        }
        lines.append("complete -c pins -n \(condition) -s h -l help -d 'Show this help'")
    }
    return lines.joined(separator: "\n") + "\n"
}

/// fish single quotes: only \\ and \' are escapes inside them.
private func singleQuotedFish(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
}
