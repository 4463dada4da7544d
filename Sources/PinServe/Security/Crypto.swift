import CSodium
import Foundation

/// libsodium (Debian's libsodium 1.0.18): Argon2id password hashes, random tokens, and
/// comparisons in constant time. Nothing here is written by hand.
public enum Crypto {
    /// sodium_init, once per process (thread-safe and idempotent in libsodium itself).
    private static let ready: Bool = sodium_init() >= 0

    /// Argon2id with libsodium's "interactive" limits (2 passes over 64 MiB, about 0.1 s here):
    /// a guess costs an attacker that much; the server checks one password at a time
    /// (`PasswordFile.verify`), so logins never take more than 64 MiB together.
    public static func hash(password: String) throws -> String {
        guard ready else { throw ServerError(description: "libsodium could not start") }
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_strbytes()))
        let length = UInt64(password.utf8.count)
        let result = password.withCString {
            crypto_pwhash_str_alg(&out, $0, length, UInt64(crypto_pwhash_opslimit_interactive()),
                                  crypto_pwhash_memlimit_interactive(), crypto_pwhash_alg_argon2id13())
        }
        guard result == 0 else { throw ServerError(description: "libsodium could not hash the password (out of memory?)") }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The password against a stored `$argon2id$...` hash, in libsodium's constant time.
    public static func verify(password: String, hash: String) -> Bool {
        guard ready, hash.utf8.count < Int(crypto_pwhash_strbytes()) else { return false }
        let length = UInt64(password.utf8.count)
        return password.withCString { crypto_pwhash_str_verify(hash, $0, length) == 0 }
    }

    /// `count` random bytes from libsodium (the kernel's getrandom), as lowercase hex: session
    /// ids and CSRF tokens (16 bytes = 128 bits, as OWASP asks).
    public static func token(bytes count: Int = 16) -> String {
        precondition(ready, "libsodium could not start")
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Equal texts, in time that depends on the length only (sodium_memcmp): a token guessed
    /// byte by byte learns nothing from the timing.
    public static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard ready, x.count == y.count, !x.isEmpty else { return false }
        return sodium_memcmp(x, y, x.count) == 0
    }
}
