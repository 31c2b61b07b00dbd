import EarshotCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The simplest useful detector: a frame is speech when its energy stands far enough above a tracked
/// noise floor.
///
/// Contract: any rate from 8 to 48 kHz; hop 10 ms; frame 20 ms (the hop and the 10 ms before it);
/// causal (`lookAhead` 0). Decisions depend only on level *relative to the floor*, so the same audio at
/// any gain gives the same probabilities (down to levels near −120 dBFS, where the energy is clamped).
///
/// Noise floor: an asymmetric tracker on frame log-energy, in dB. When a frame is quieter than the
/// floor, the floor falls towards it quickly (`fallRate`, a fraction per frame); otherwise it rises by at
/// most `riseRate` dB per second, so speech, which comes and goes, barely lifts it, while a noise that
/// really grows is followed within seconds. It starts at the first frame's energy.
///
/// Probability: a logistic of how far the frame is above the floor, `1 / (1 + exp(−(e − floor − margin) / slope))`,
/// so a frame exactly `margin` dB above the floor has probability ½.
public struct EnergyDetector: VoiceActivityDetector, Sendable {
    /// Energy-detector settings.
    public struct Configuration: Sendable, Hashable {
        /// dB above the noise floor at which the probability is ½.
        public var margin: Float
        /// dB per unit of the logistic's argument: smaller is a harder decision.
        public var slope: Float
        /// How fast the floor may rise, in dB per second.
        public var riseRate: Float
        /// Fraction of the gap the floor closes per frame when the frame is below it, in (0, 1].
        public var fallRate: Float

        public init(margin: Float = 9, slope: Float = 2, riseRate: Float = 3, fallRate: Float = 0.3) {
            self.margin = margin
            self.slope = slope
            self.riseRate = riseRate
            self.fallRate = fallRate
        }
    }

    /// Sample rates the detector accepts, in Hz.
    public static let sampleRates: ClosedRange<Int> = 8_000...48_000

    public var name: String { "energy" }
    public let sampleRate: Int
    public let frameLength: Int
    public let hopLength: Int
    public var lookAhead: Int { 0 }
    public let configuration: Configuration

    /// The tracked noise floor in dBFS (mean-square energy), or `nil` before the first frame.
    public private(set) var noiseFloor: Float?

    /// Energy below this (−120 dBFS) is treated as this, so digital silence has a finite level.
    private static let minimumEnergy: Float = 1e-12
    /// Below this level (dBFS) a frame holds no signal: 16-bit quantisation noise is about −101 dBFS.
    static let digitalSilence: Float = -90
    private let risePerFrame: Float

    /// Creates a detector for `sampleRate`; throws `.unsupportedFormat` for rates outside 8–48 kHz and
    /// `.invalidParameter` naming the configuration field that is out of range.
    public init(sampleRate: Int, configuration: Configuration = Configuration()) throws {
        guard Self.sampleRates.contains(sampleRate), sampleRate % 100 == 0 else {
            throw EarshotError(
                .unsupportedFormat,
                "energy VAD sampleRate: \(sampleRate) Hz; expected a multiple of 100 Hz in 8000–48000 Hz")
        }
        guard configuration.margin.isFinite, configuration.slope > 0, configuration.slope.isFinite else {
            throw EarshotError(
                .invalidParameter,
                "energy VAD margin/slope: \(configuration.margin) dB / \(configuration.slope) dB; expected a finite margin and a positive slope"
            )
        }
        guard configuration.riseRate >= 0, configuration.riseRate.isFinite else {
            throw EarshotError(
                .invalidParameter, "energy VAD riseRate: \(configuration.riseRate) dB/s; expected ≥ 0")
        }
        guard configuration.fallRate > 0, configuration.fallRate <= 1 else {
            throw EarshotError(
                .invalidParameter, "energy VAD fallRate: \(configuration.fallRate); expected a fraction in (0, 1]")
        }
        self.sampleRate = sampleRate
        self.configuration = configuration
        hopLength = sampleRate / 100
        frameLength = 2 * hopLength
        risePerFrame = configuration.riseRate / 100
    }

    public mutating func probability(of frame: UnsafeBufferPointer<Float>) -> Float {
        let energy = Self.decibels(meanSquare: Self.meanSquare(frame))
        // Digital silence (edited gaps, muted input) is no evidence about the noise: letting the floor
        // fall into it would make the room tone that follows look like speech for many seconds.
        if energy < Self.digitalSilence { return 0 }
        var floor = noiseFloor ?? energy
        if energy < floor {
            floor += configuration.fallRate * (energy - floor)
        } else {
            floor = min(energy, floor + risePerFrame)
        }
        noiseFloor = floor
        let excess = energy - floor - configuration.margin
        return 1 / (1 + expf(-excess / configuration.slope))
    }

    public mutating func reset() {
        noiseFloor = nil
    }

    /// The frame's mean square, accumulated in four lanes so the loop vectorises.
    @inline(__always)
    static func meanSquare(_ frame: UnsafeBufferPointer<Float>) -> Float {
        var lanes = SIMD4<Float>()
        let whole = frame.count & ~3
        var index = 0
        while index < whole {
            let lane = SIMD4(frame[index], frame[index + 1], frame[index + 2], frame[index + 3])
            lanes += lane * lane
            index += 4
        }
        var sum = lanes.sum()
        while index < frame.count {
            sum += frame[index] * frame[index]
            index += 1
        }
        return frame.isEmpty ? 0 : sum / Float(frame.count)
    }

    @inline(__always)
    static func decibels(meanSquare: Float) -> Float {
        10 * log10f(max(meanSquare, minimumEnergy))
    }
}
