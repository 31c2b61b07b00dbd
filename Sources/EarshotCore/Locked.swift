import Synchronization

/// A value behind a `Mutex`, shared by reference between the closures and tasks that hold it.
///
/// `Mutex` is Earshot's one lock: a stored `let` property of a final class uses it directly, and
/// this box serves where the lock itself must be captured or passed along (a `Mutex` cannot be
/// copied). Hold it only for short, non-blocking critical sections; anything longer is a task.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) { mutex = Mutex(value) }

    /// Runs `body` with the value, locked.
    public func withLock<Result: Sendable, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result)
        throws(Failure) -> Result
    {
        try mutex.withLock { (value: inout sending Value) throws(Failure) -> sending Result in try body(&value) }
    }

    /// The value now.
    public var value: Value { withLock { $0 } }
}
