import Foundation
import XCTest
@testable import PinServe

/// The passwords: Argon2id by libsodium (the hash is checked against the PHC string format
/// libsodium documents: `$argon2id$v=19$m=65536,t=2,p=1$<salt>$<hash>`), the file 0600.
final class PasswordFileTests: XCTestCase {
    func testAHashIsArgon2idSaltedAndVerifiedOnlyByItsPassword() throws {
        let a = try Crypto.hash(password: "correct horse battery staple")
        let b = try Crypto.hash(password: "correct horse battery staple")
        XCTAssertTrue(a.hasPrefix("$argon2id$v=19$m=65536,t=2,p=1$"), a)
        XCTAssertNotEqual(a, b, "each hash has its own salt")
        XCTAssertTrue(Crypto.verify(password: "correct horse battery staple", hash: b))
        XCTAssertFalse(Crypto.verify(password: "correct horse battery stapl", hash: a))
        XCTAssertFalse(Crypto.verify(password: "", hash: a))
        XCTAssertFalse(Crypto.verify(password: "x", hash: "$argon2id$garbage"))
    }

    func testTheFileIsTheServiceUsersAloneAndKeepsBothRoles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pins-pw-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("pins-passwords").path
        XCTAssertNil(try PasswordFile.load(path))
        let file = PasswordFile(hashes: [.full: try Crypto.hash(password: "family admin 1"), .read: try Crypto.hash(password: "grandma looks")])
        try file.save(path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        let loaded = try XCTUnwrap(try PasswordFile.load(path))
        XCTAssertEqual(loaded.role(of: "family admin 1"), .full)
        XCTAssertEqual(loaded.role(of: "grandma looks"), .read)
        XCTAssertNil(loaded.role(of: "grandma look"))
        chmod(path, 0o644)
        XCTAssertThrowsError(try PasswordFile.load(path)) { XCTAssertTrue("\($0)".contains("chmod 600"), "\($0)") }
        chmod(path, 0o600)
        try Data("full plaintext\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        XCTAssertThrowsError(try PasswordFile.load(path)) { XCTAssertTrue("\($0)".contains("line 1"), "\($0)") }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["pins-passwords"], "no .new file left")
    }

    func testTokensAreRandomHexAndComparedWhole() {
        let tokens = Set((0..<1000).map { _ in Crypto.token() })
        XCTAssertEqual(tokens.count, 1000)
        XCTAssertTrue(tokens.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
        XCTAssertTrue(Crypto.same("abc", "abc"))
        XCTAssertFalse(Crypto.same("abc", "abd"))
        XCTAssertFalse(Crypto.same("abc", "abcd"))
        XCTAssertFalse(Crypto.same("", ""), "an empty token matches nothing")
    }
}
