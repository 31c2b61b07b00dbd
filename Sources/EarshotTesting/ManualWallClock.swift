public import EarshotCore
public import Foundation

/// A ``WallClock`` that stands still until the test moves it: a token's expiry is then an
/// ``advance(by:)``, not a sleep.
public final class ManualWallClock: Sendable {
    private let time: Locked<Date>

    /// A clock showing `start` (now, by default).
    public init(start: Date = Date()) { time = Locked(start) }

    /// The clock to give the code under test.
    public var clock: WallClock { WallClock { [time] in time.withLock { $0 } } }

    /// Moves the time on by `seconds`.
    public func advance(by seconds: Double) { time.withLock { $0 += seconds } }
}
