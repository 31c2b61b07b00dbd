import EarshotCore
/// Where a detector-driven endpoint fell against the label oracle's (``LabelOracle``), given a
/// tolerance.
public enum EndpointTiming: String, Sendable, Codable, CaseIterable {
    /// Within the tolerance of the oracle's endpoint, either side.
    case onTime = "on_time"
    /// More than the tolerance before it: the detector heard the end of speech too soon.
    case early
    /// More than the tolerance after it.
    case late
    /// The oracle fired and the detector never did: the input ended first.
    case missed
}

extension UtteranceResult {
    /// The oracle reached an endpoint (any reason but the end of the input): only then is there a
    /// time to be on.
    public var oracleFired: Bool {
        oracleEndpoint != nil && oracleReason != nil && oracleReason != .endOfInput
    }

    /// Endpoint − oracle endpoint, seconds, when both fired (positive is late); rounded to 1 µs so that
    /// a delay of exactly the tolerance is not pushed over it by float noise.
    public var oracleDelay: Double? {
        guard oracleFired, let oracleEndpoint, let endpoint, let reason, reason != .endOfInput else { return nil }
        return ((endpoint - oracleEndpoint) * 1e6).rounded() / 1e6
    }

    /// How this utterance's endpoint compares with the oracle's, for an utterance with labelled speech
    /// on which the oracle fired; nil otherwise.
    public func timing(tolerance: Double) -> EndpointTiming? {
        guard hasSpeech, oracleFired else { return nil }
        guard let delay = oracleDelay else { return .missed }
        if delay < -tolerance { return .early }
        if delay > tolerance { return .late }
        return .onTime
    }
}

/// Endpoints scored against the label oracle over a corpus: how many are on time, early, late or
/// missed, and by how much they differ.
///
/// The oracle is the same endpointer with the same configuration and rules, driven by the labels: what
/// the detector would give if it never erred. Scored utterances are those with labelled speech on
/// which the oracle reached an endpoint; the rates are shares of them.
public struct OracleTiming: Sendable, Equatable, Codable {
    /// How far from the oracle's endpoint, either side, an endpoint is still on time, seconds.
    public var tolerance: Double
    /// Utterances scored.
    public var utterances: Int
    public var onTimeRate: Double?
    public var earlyRate: Double?
    public var lateRate: Double?
    public var missedRate: Double?
    /// Endpoint − oracle endpoint over utterances where both fired, seconds; + is late.
    public var delay: Summary
    /// |endpoint − oracle endpoint| over the same utterances.
    public var absoluteDelay: Summary

    /// ±100 ms: about one syllable, and under the 200 ms at which people start to notice a turn is
    /// late (the gap between turns in conversation averages ~200 ms).
    public static let defaultTolerance = 0.1

    public init(_ results: [UtteranceResult], tolerance: Double) {
        self.tolerance = tolerance
        let timings = results.compactMap { $0.timing(tolerance: tolerance) }
        utterances = timings.count
        func rate(_ timing: EndpointTiming) -> Double? {
            EndpointMetrics.share(timings.filter { $0 == timing }.count, of: timings.count)
        }
        onTimeRate = rate(.onTime)
        earlyRate = rate(.early)
        lateRate = rate(.late)
        missedRate = rate(.missed)
        let delays = results.filter { $0.hasSpeech }.compactMap(\.oracleDelay)
        delay = Summary(delays)
        absoluteDelay = Summary(delays.map(abs))
    }

    enum CodingKeys: String, CodingKey {
        case utterances
        case tolerance = "tolerance_s"
        case onTimeRate = "on_time_rate"
        case earlyRate = "early_rate"
        case lateRate = "late_rate"
        case missedRate = "missed_rate"
        case delay = "delay_s"
        case absoluteDelay = "abs_delay_s"
    }

    /// Absent rates are written as `null`, so every document has the same keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tolerance, forKey: .tolerance)
        try container.encode(utterances, forKey: .utterances)
        try container.encode(onTimeRate, forKey: .onTimeRate)
        try container.encode(earlyRate, forKey: .earlyRate)
        try container.encode(lateRate, forKey: .lateRate)
        try container.encode(missedRate, forKey: .missedRate)
        try container.encode(delay, forKey: .delay)
        try container.encode(absoluteDelay, forKey: .absoluteDelay)
    }
}
