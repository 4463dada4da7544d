import Foundation
import PinCore
import PinServe

/// What `pins serve` takes from its environment when it runs as a service (a container, a
/// systemd unit): where to listen and the passwords.
enum ServeEnvironment {
    /// `PINS_LISTEN`: the --listen default (the image sets 0.0.0.0:8765, so that its
    /// HEALTHCHECK, `pins serve --health`, knocks where the service listens).
    static var listen: String? {
        ProcessInfo.processInfo.environment["PINS_LISTEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A password given by `PINS_PASSWORD` (or `PINS_READ_PASSWORD`), or by the file that
    /// `PINS_PASSWORD_FILE` names (in the image, /run/secrets/pins_password when that exists),
    /// stored hashed in the password file as --set-password stores it: kept when the stored hash
    /// is of the same password, replaced when not. The variables are then removed from the
    /// environment (the nightly import's child never sees them).
    static func storePasswords(file: String) throws {
        for (role, name, secret) in [(Role.full, "PINS_PASSWORD", "pins_password"), (.read, "PINS_READ_PASSWORD", "pins_read_password")] {
            guard let password = try given(name, secret: secret) else { continue }
            guard password.count >= 8 else {
                throw CommandFailure("the password in \(name) is shorter than 8 characters; set a longer one", code: ExitCode.usage)
            }
            var passwords = try PasswordFile.load(file) ?? PasswordFile()
            if let stored = passwords.hashes[role], Crypto.verify(password: password, hash: stored) { continue }
            passwords.hashes[role] = try Crypto.hash(password: password)
            try passwords.save(file)
            Out.error("pins serve: the \(role == .full ? "" : "read-only ")password from \(name) is stored hashed in \(file)")
        }
    }

    private static func given(_ name: String, secret: String) throws -> String? {
        let environment = ProcessInfo.processInfo.environment
        defer {
            unsetenv(name)
            unsetenv(name + "_FILE")
        }
        if let value = environment[name], !value.isEmpty { return value }
        var path = environment[name + "_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        if path == nil, ContainerImage.isActive, FileManager.default.fileExists(atPath: "/run/secrets/" + secret) {
            path = "/run/secrets/" + secret
        }
        guard let path else { return nil }
        guard let data = FileManager.default.contents(atPath: path), data.count <= 4096 else {
            throw CommandFailure("\(name)_FILE: cannot read the password file \(path)", code: ExitCode.noInput)
        }
        // The first line, as a secret file written by `echo` ends with a newline.
        let text = String(decoding: data, as: UTF8.self)
        return String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
    }
}

/// `pins serve --health`: 0 when the service at ADDR:PORT answers GET /healthz with 200.
func healthCheck(_ address: String, _ port: UInt16) throws {
    guard let status = HealthCheck.status(address: address, port: port) else {
        throw CommandFailure("no answer from http://\(Listen.text(HealthCheck.target(address), port))/healthz within 5 s")
    }
    guard status == 200 else {
        throw CommandFailure("http://\(Listen.text(HealthCheck.target(address), port))/healthz answered \(status)")
    }
    Out.print("ok")
}

/// The most previews a nightly run makes: at 0.2-1 s each on a NAS's CPU (a HEIC's decoding is
/// the slow one), 10-30 minutes; a first night with a whole library makes these, the next
/// nights the rest.
let nightlyPreviewLimit = 2_000

/// The nightly import of `--import-at`: this very binary, `import DIR --db FILE --quiet --nice`
/// per library, at that time of TZ's day.
func nightlyImport(at time: DailyTime, libraries: [String], database: String) -> NightlyImport {
    var program = CommandLine.arguments[0]
    if let real = realpath("/proc/self/exe", nil) {
        program = String(cString: real)
        free(real)
    }
    let commands = libraries.map { [program, "import", $0, "--db", database, "--quiet", "--nice"] }
    // The previews the new photos lack, after the import (NightlyImport says why and when).
    let previews = [program, "previews", "--db", database, "--max", String(nightlyPreviewLimit), "--nice", "--quiet"]
    return NightlyImport(at: time, zone: TimeZone.current, commands: commands, previews: previews) { Out.error("pins serve: \($0)") }
}
