import Foundation
import PinCore
import PinGrammar
import PinImport

/// The track options of `import` and `inspect` (issue 29).
let trackOptionSpecs: [OptionSpec] = [
    OptionSpec(name: "--track", value: "PATH", help: "Position photos that have none from this track (GPX, KML, KMZ, TCX, NMEA, OwnTracks .rec, GeoJSON, CSV, Google), or a folder of them; repeat.", repeatable: true),
    OptionSpec(name: "--camera-timezone", value: "ZONE", help: "Zone of the camera's clock, for photos without an offset (default: --timezone); with --track or --estimate-positions."),
    OptionSpec(name: "--camera-clock-offset", value: "OFFSET", help: "±[[HH:]MM:]SS added to the times of photos without a position: -12 if the camera was 12 s fast."),
    OptionSpec(name: "--track-max-gap", value: "SECONDS", help: "Widest gap between two fixes to interpolate across (default: 1800)."),
    OptionSpec(name: "--track-max-extrapolation", value: "SECONDS", help: "Furthest the nearest fix may be to be used alone (default: 1800)."),
]

/// `±[[HH:]MM:]SS[.ss]` as seconds; nil when it is not that.
func parseClockOffset(_ text: String) -> Double? {
    var rest = Substring(text)
    var sign = 1.0
    if rest.first == "-" { sign = -1; rest = rest.dropFirst() } else if rest.first == "+" { rest = rest.dropFirst() }
    let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
    guard (1...3).contains(parts.count) else { return nil }
    var total = 0.0
    for (i, part) in parts.enumerated() {
        let last = i == parts.count - 1
        // Digits, and a decimal point in the last part only.
        guard last || !part.contains("."), let v = DecimalNumber.parse(part, unsignedPlain) else { return nil }
        if i > 0 && v >= 60 { return nil }
        total = total * 60 + v
    }
    return sign * total
}

private let unsignedPlain = DecimalNumber.Grammar(sign: false, exponent: false)

/// The largest `--camera-clock-offset`: 100 years of 365.25 days, in seconds.
let maxClockOffset = 36_525.0 * 86_400

/// The tracks the arguments name, read; nil without `--track`. Each track file that cannot be
/// read is named on stderr with its reason and the run goes on without it. `estimating`: the
/// run estimates positions (the camera options are allowed without `--track` then).
func loadTracks(_ args: ParsedArguments, command: String, timeZone: TimeZone, estimating: Bool) throws -> TrackSet? {
    guard let options = try trackOptions(args, command: command, estimating: estimating) else { return nil }
    let tracks = TrackSet.load(options)
    reportTrackProblems(tracks.files, paths: options.paths, command: command)
    return tracks
}

/// What the track options of the arguments ask for; nil without `--track`. The camera's zone
/// and clock offset need `--track` or the estimates (`estimating`: `--estimate-positions`, or
/// PINS_ESTIMATE=yes for `import`): a camera beside a phone has no track.
func trackOptions(_ args: ParsedArguments, command: String, estimating: Bool) throws -> TrackOptions? {
    let paths = args.all("--track")
    let camera = ["--camera-timezone", "--camera-clock-offset"]
    guard !paths.isEmpty else {
        if let given = ["--track-max-gap", "--track-max-extrapolation"].first(where: { args.value($0) != nil }) {
            throw UsageError("\(given) needs --track", command: command)
        }
        if !estimating, let given = camera.first(where: { args.value($0) != nil }) {
            throw UsageError("\(given) needs --track or --estimate-positions", command: command)
        }
        return nil
    }
    // A path that names nothing is a mistyped argument, not a track that could not be read:
    // said before anything runs (issue 36 item 7), as a missing photo folder would be.
    // (A path that cannot be looked at for another reason, a folder without permission, is
    // named by the track reader and the run goes on.)
    for path in paths where access(path, F_OK) != 0 && (errno == ENOENT || errno == ENOTDIR) {
        throw UsageError("--track \(TerminalText.quoted(RawPath(path))): no such file or folder", command: command)
    }
    var options = TrackOptions()
    options.paths = paths
    // Without --camera-timezone the photo's time was read in --timezone already (nil).
    (options.cameraTimeZone, options.clockOffset) = try cameraClock(args, command: command)
    options.limits.maxGap = try args.double("--track-max-gap", range: 0...(86_400 * 366)) ?? options.limits.maxGap
    options.limits.maxExtrapolation = try args.double("--track-max-extrapolation", range: 0...(86_400 * 366)) ?? options.limits.maxExtrapolation
    return options
}

/// `--camera-timezone` (nil when not given) and `--camera-clock-offset` (0), checked.
func cameraClock(_ args: ParsedArguments, command: String) throws -> (zone: TimeZone?, offset: Double) {
    var zone: TimeZone?
    if let name = args.value("--camera-timezone") {
        guard let tz = TimeZone(identifier: name) else {
            throw UsageError("--camera-timezone expects a zone name such as UTC or Europe/Paris, got '\(name)'", command: command)
        }
        zone = tz
    }
    guard let text = args.value("--camera-clock-offset") else { return (zone, 0) }
    guard let seconds = parseClockOffset(text) else {
        throw UsageError("--camera-clock-offset expects ±[[HH:]MM:]SS such as -12 or +1:02:03, got '\(text)'", command: command)
    }
    // A camera clock wrong by more than a century is a typo (`99999999999999999999999`
    // once reached the matching as 1e23 s); within it, every sum of times stays exact.
    guard abs(seconds) <= maxClockOffset else {
        throw UsageError("--camera-clock-offset must be within ±\(Int(maxClockOffset)) s (100 years), got '\(text)'", command: command)
    }
    return (zone, seconds)
}

/// Names on stderr each track file read that could not be read, or only in part, with the
/// reason; and says so when no file gave a fix. Files not read (unchanged since an earlier
/// import) were named when they were read.
func reportTrackProblems(_ files: [TrackFileReport], paths: [String], command: String) {
    for file in files where file.state.wasRead {
        if let error = file.error {
            Out.error("pins \(command): track \(TerminalText.quoted(RawPath(file.path))): \(TerminalText.escaped(error))"
                      + (file.points > 0 ? " (the \(file.points) fixes before it are used)" : ""))
        }
        if let notes = file.notes {
            Out.error("pins \(command): track \(TerminalText.quoted(RawPath(file.path))): \(TerminalText.escaped(notes))")
        }
    }
    if files.allSatisfy({ $0.points == 0 }) {
        Out.error("pins \(command): no track fix was read from \(paths.map { TerminalText.quoted(RawPath($0)) }.joined(separator: ", ")): photos without a position stay without one")
    }
}
