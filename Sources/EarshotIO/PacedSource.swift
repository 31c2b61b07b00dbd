public import EarshotCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Replays another source at the pace of a live capture, to simulate a microphone: each buffer is
/// released no earlier than the moment its last sample would have been captured.
///
/// The pace is measured on a monotonic clock (`ContinuousClock`) from the first `read()`: a buffer
/// ending `t` seconds of media time after the first buffer's start is returned no earlier than
/// `t / speed` seconds after that first read (`speed` 1 is real time; tests use e.g. 20). If the
/// consumer falls behind, buffers are released at once, without trying to catch up faster.
/// Buffers pass through unchanged — content, format and media time — so a paced run gives exactly the
/// events of an unpaced one; only the wall-clock moments differ.
///
/// `next()` suspends the task while it waits, so paced streams share the threads of
/// ``BlockingExecutor``; `read()` blocks the calling thread instead, for synchronous callers.
public struct PacedSource<Source: AudioSource>: AudioSource {
    /// The wrapped source.
    public private(set) var source: Source
    /// Media seconds per wall-clock second.
    public let speed: Double

    private let clock = ContinuousClock()
    private var started: ContinuousClock.Instant?
    private var originFrame: Int64?

    /// Wraps `source`; throws `.invalidParameter` naming `speed` unless it is finite and positive.
    public init(_ source: Source, speed: Double = 1) throws {
        guard speed.isFinite, speed > 0 else {
            throw EarshotError(.invalidParameter, "paced source speed: \(speed); expected a finite factor > 0")
        }
        self.source = source
        self.speed = speed
    }

    public var format: AudioFormat { source.format }

    /// Stops the wrapped source.
    public mutating func stop() { source.stop() }

    /// The next buffer, blocking the calling thread until it is due. Async code calls ``next()``.
    public mutating func read() throws -> AudioBuffer? {
        guard let (buffer, due) = try readWithDeadline() else { return nil }
        Self.sleep(until: due, on: clock)
        return buffer
    }

    /// The next buffer, suspending the task (not its thread) until it is due.
    public mutating func next() async throws -> AudioBuffer? {
        guard let (buffer, due) = try readWithDeadline() else { return nil }
        try await clock.sleep(until: due)
        return buffer
    }

    /// The next buffer of the wrapped source and the instant it is due.
    private mutating func readWithDeadline() throws -> (AudioBuffer, ContinuousClock.Instant)? {
        let now = clock.now
        if started == nil { started = now }
        guard let buffer = try source.read() else { return nil }
        if originFrame == nil { originFrame = buffer.startFrame }
        let mediaFrames = buffer.startFrame + Int64(buffer.frameCount) - (originFrame ?? 0)
        let seconds = Double(mediaFrames) / Double(buffer.format.sampleRate) / speed
        return (buffer, (started ?? now).advanced(by: .seconds(seconds)))
    }

    /// Blocks until `deadline` on `clock` (a monotonic clock, so wall-clock changes do not matter).
    private static func sleep(until deadline: ContinuousClock.Instant, on clock: ContinuousClock) {
        while true {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { return }
            let (seconds, attoseconds) = remaining.components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000) + 1)
            if request.tv_nsec >= 1_000_000_000 {
                request.tv_sec += 1
                request.tv_nsec -= 1_000_000_000
            }
            nanosleep(&request, nil)
        }
    }
}
