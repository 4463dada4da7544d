import Synchronization

/// The one lazy loader (issue 35 item 5): a value made on first use, once, from any thread, and
/// then shared. The data files (the country outlines, the gazetteer, the zone outlines) are
/// loaded through it, so a run that needs none of them reads none.
///
/// A failure is kept like a value: every later call throws the same error without trying the
/// load again, so a damaged file is read once, not once per photo. Two threads that ask at the
/// same time wait for one load (the lock is held while loading: a load is short and never calls
/// back into its own loader).
public final class LoadOnce<Value: Sendable>: Sendable {
    private let state: Mutex<Result<Value, any Error>?>
    private let load: @Sendable () throws -> Value

    public init(_ load: @escaping @Sendable () throws -> Value) {
        self.load = load
        state = Mutex(nil)
    }

    /// The value or error of the load made, nil while none was.
    public var made: Result<Value, any Error>? { state.withLock { $0 } }

    /// The value, loaded first if needed; the load's error, as often as asked.
    public func get() throws -> Value {
        try state.withLock { loaded in
            if let loaded { return loaded }
            let made = Result { try load() }
            loaded = made
            return made
        }.get()
    }
}
