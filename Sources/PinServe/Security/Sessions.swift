import Foundation

/// A signed-in browser: a random 128-bit id (its cookie), its CSRF token, its role.
public struct Session: Sendable {
    public let id: String
    let csrf: String
    public let role: Role
    let created: Date
    var lastSeen: Date
}

/// The sessions, in memory only: a restart signs everyone out. Bounded in count (the oldest
/// goes first), each ending after `idle` without a request or `lifetime` after sign-in.
public final class SessionStore: @unchecked Sendable {
    static let cookieName = "pins_session"
    public let idle: TimeInterval
    public let lifetime: TimeInterval
    private let capacity: Int
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var sessions: [String: Session] = [:]

    public init(idle: TimeInterval = 12 * 3600, lifetime: TimeInterval = 7 * 86400, capacity: Int = 1000) {
        self.idle = idle
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// A new session with new random id and token (a sign-in never keeps an id it was given).
    public func create(role: Role, now: Date = Date()) -> Session {
        let session = Session(id: Crypto.token(), csrf: Crypto.token(), role: role, created: now, lastSeen: now)
        lock.lock()
        defer { lock.unlock() }
        if sessions.count >= capacity, let oldest = sessions.values.min(by: { $0.lastSeen < $1.lastSeen }) {
            sessions[oldest.id] = nil
        }
        sessions[session.id] = session
        return session
    }

    /// The live session of that id (its idle time restarts), or nil: unknown, idle too long, or
    /// too old.
    public func find(_ id: String, now: Date = Date()) -> Session? {
        guard id.utf8.count == 32 else { return nil }
        lock.lock()
        defer { lock.unlock() }
        guard var session = sessions[id] else { return nil }
        guard now.timeIntervalSince(session.lastSeen) < idle, now.timeIntervalSince(session.created) < lifetime else {
            sessions[id] = nil
            return nil
        }
        session.lastSeen = now
        sessions[id] = session
        return session
    }

    /// Signs out: the id is forgotten here, whatever the browser keeps.
    public func remove(_ id: String) {
        lock.lock()
        sessions[id] = nil
        lock.unlock()
    }

    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return sessions.count
    }
}

/// Failed sign-ins, slowed: each failed reply waits `failureDelay`; from the `freeFailures`th
/// failure in a row a client waits 2, 4, 8, ... seconds (at most `maxWait`) before it may try
/// again (429 with Retry-After, no hash computed); over `globalLimit` failures in 10 minutes from
/// all clients together, everyone waits a minute (a guesser with many addresses).
public final class LoginThrottle: @unchecked Sendable {
    var failureDelay: Double = 1
    let freeFailures = 3
    let maxWait: TimeInterval = 300
    let globalLimit = 100
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var clients: [String: (failures: Int, until: Date)] = [:]
    private var recent: [Date] = []

    public init() {}

    /// Seconds the client must still wait before a sign-in is even checked; nil: it may try.
    public func wait(_ client: String, now: Date = Date()) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        recent.removeAll { now.timeIntervalSince($0) > 600 }
        if recent.count >= globalLimit, let last = recent.last, now.timeIntervalSince(last) < 60 {
            return max(1, Int((60 - now.timeIntervalSince(last)).rounded(.up)))
        }
        guard let entry = clients[client], entry.until > now else { return nil }
        return max(1, Int(entry.until.timeIntervalSince(now).rounded(.up)))
    }

    public func failed(_ client: String, now: Date = Date()) {
        lock.lock()
        defer { lock.unlock() }
        if clients.count > 10_000 { clients = clients.filter { $0.value.until > now } }
        let failures = (clients[client]?.failures ?? 0) + 1
        let wait = failures < freeFailures ? 0 : min(maxWait, pow(2, Double(failures - freeFailures + 1)))
        clients[client] = (failures, now.addingTimeInterval(wait))
        recent.append(now)
    }

    func succeeded(_ client: String) {
        lock.lock()
        clients[client] = nil
        lock.unlock()
    }
}
