public import Foundation

/// The time of day, for what expires by it (access tokens, client secrets, their renewal): the
/// system's, or one a test sets and moves (`EarshotTesting.ManualWallClock`), so that no test waits
/// out a real expiry.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Date

    /// A clock that reads the time from `read`.
    public init(_ read: @escaping @Sendable () -> Date) { self.read = read }

    /// The time now.
    public var now: Date { read() }

    /// The system's clock.
    public static let system = WallClock { Date() }
}
