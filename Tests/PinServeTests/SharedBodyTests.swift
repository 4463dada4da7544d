import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import PinServe

/// The map data's answer is sent by reference to bytes shared by every answer in flight
/// (`SharedBody`, evbuffer_add_reference), not copied into each: the bytes each client gets are
/// still the whole body, also when several read it at once.
final class SharedBodyTests: XCTestCase {
    func testABodySharedByAnswersInFlightArrivesWholeAtEachClient() throws {
        // 5 MB: libevent sends it in many pieces, the reads of three clients interleaved.
        let text = "[" + (0..<500_000).map { _ in "\"pin\"" }.joined(separator: ",") + "]"
        let shared = HTTPResponse.sharedJSON(200, text: text)
        XCTAssertEqual(shared.body, Array(text.utf8), "the body as the tests and HEAD read it")
        var head = shared
        head.body = []
        XCTAssertNil(head.shared, "HEAD's empty body is no longer the shared one")
        let server = try EventServer(address: "127.0.0.1", port: 0, limits: ServerLimits()) { _ in shared }
        let loop = Thread { server.run() }
        loop.start()
        defer { server.stop() }
        final class Answers: @unchecked Sendable {
            let lock = NSLock()
            var all: [[UInt8]] = []
        }
        let answers = Answers()
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            let answer = Self.get(port: server.port)
            answers.lock.lock()
            answers.all.append(answer)
            answers.lock.unlock()
        }
        XCTAssertEqual(answers.all.count, 3)
        for answer in answers.all {
            let text = String(decoding: answer, as: UTF8.self)
            XCTAssertTrue(text.hasPrefix("HTTP/1.1 200"), String(text.prefix(80)))
            XCTAssertTrue(text.hasSuffix("\r\n\r\n" + String(decoding: shared.body, as: UTF8.self)), "the whole body, after the headers")
        }
    }

    /// One GET / on a fresh connection, read until the server closes it.
    static func get(port: UInt16) -> [UInt8] {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return [] }
        let request = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return received
    }
}
