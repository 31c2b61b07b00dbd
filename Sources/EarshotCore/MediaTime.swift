import Foundation

/// A position in a stream, counted in sample frames since the stream began, at a given sample rate.
///
/// Every event in Earshot is stamped with a `MediaTime` rather than a wall-clock reading, so a file
/// processed offline and the same audio captured live produce identical events. Times at different
/// rates compare exactly (by cross-multiplication), so a 44.1 kHz source position and a 16 kHz
/// resampled position can be ordered without rounding.
public struct MediaTime: Sendable, Comparable, Hashable, CustomStringConvertible {
    /// Frames since the start of the stream.
    public var frame: Int64
    /// Frames per second of the clock `frame` counts in.
    public var sampleRate: Int

    @inlinable
    public init(frame: Int64, sampleRate: Int) {
        precondition(sampleRate > 0, "MediaTime needs a positive sample rate")
        self.frame = frame
        self.sampleRate = sampleRate
    }

    /// The start of a stream at `sampleRate`.
    @inlinable
    public static func zero(sampleRate: Int) -> MediaTime { MediaTime(frame: 0, sampleRate: sampleRate) }

    /// The time in seconds (for display and JSON; computation stays in frames).
    @inlinable
    public var seconds: Double { Double(frame) / Double(sampleRate) }

    /// The same instant on another clock, rounded to the nearest frame (halves round up).
    @inlinable
    public func converted(to rate: Int) -> MediaTime {
        if rate == sampleRate { return self }
        let scaled = (frame * Int64(rate) * 2 + Int64(sampleRate)) / (Int64(sampleRate) * 2)
        return MediaTime(frame: scaled, sampleRate: rate)
    }

    /// This time moved by `frames` frames of its own clock.
    @inlinable
    public func advanced(by frames: Int64) -> MediaTime { MediaTime(frame: frame + frames, sampleRate: sampleRate) }

    @inlinable
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        lhs.frame * Int64(rhs.sampleRate) < rhs.frame * Int64(lhs.sampleRate)
    }

    @inlinable
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        lhs.frame * Int64(rhs.sampleRate) == rhs.frame * Int64(lhs.sampleRate)
    }

    public func hash(into hasher: inout Hasher) {
        // Equal instants on different clocks must hash alike: hash the reduced fraction.
        let divisor = Self.gcd(Swift.abs(frame), Int64(sampleRate))
        hasher.combine(frame / divisor)
        hasher.combine(Int64(sampleRate) / divisor)
    }

    public var description: String {
        let s = seconds
        return s.isFinite ? "\((s * 1000).rounded() / 1000)s" : "\(frame)@\(sampleRate)Hz"
    }

    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return Swift.max(a, 1)
    }
}

extension Range where Bound == MediaTime {
    /// The span as people read it, to the hundredth of a second: `12.30–25.70 s`.
    public var readable: String {
        String(format: "%.2f–%.2f s", lowerBound.seconds, upperBound.seconds)
    }
}
