public import EarshotCore

/// What the endpointer did with one utterance of a corpus, in seconds from the start of the file.
public struct UtteranceResult: Sendable, Equatable, Codable {
    /// The audio file, relative to the corpus.
    public var path: String
    /// The labelled speech (empty for a file with none).
    public var labelled: [LabeledSegment]
    /// The first speech start the endpointer reported, if any.
    public var firstSpeechStart: Double?
    /// When the endpointer stopped listening, and why.
    public var endpoint: Double?
    public var reason: EndpointReason?
    /// How the interaction ended.
    public var outcome: InteractionOutcome
    /// When the same endpointer, driven by the labels instead of the detector, stopped listening, and
    /// why (``LabelOracle``); nil when not computed.
    public var oracleEndpoint: Double?
    public var oracleReason: EndpointReason?

    public init(
        path: String, labelled: [LabeledSegment], firstSpeechStart: Double?, endpoint: Double?,
        reason: EndpointReason?, outcome: InteractionOutcome, oracleEndpoint: Double? = nil,
        oracleReason: EndpointReason? = nil
    ) {
        self.path = path
        self.labelled = labelled
        self.firstSpeechStart = firstSpeechStart
        self.endpoint = endpoint
        self.reason = reason
        self.outcome = outcome
        self.oracleEndpoint = oracleEndpoint
        self.oracleReason = oracleReason
    }

    public var hasSpeech: Bool { !labelled.isEmpty }

    /// The endpoint came while labelled speech was still to come: the user was cut off. Counted for
    /// endpoints on silence (the endpointer's own decision), not for `maxRecordingTime`, which cuts
    /// by design.
    public var isTruncated: Bool {
        guard let end = labelled.last?.end, let endpoint, reason == .endingSilence else { return false }
        return endpoint < end
    }

    /// Endpoint time − labelled end of speech, for an utterance ended on silence after its speech;
    /// rounded to 1 µs (far below the 10 ms decision grid) so reports carry no float noise.
    public var latency: Double? {
        guard let end = labelled.last?.end, let endpoint, reason == .endingSilence, endpoint >= end else {
            return nil
        }
        return ((endpoint - end) * 1e6).rounded() / 1e6
    }

    /// Speech was reported where there is none: in a file without speech, or more than `tolerance`
    /// before the labelled speech begins.
    public func isFalseStart(tolerance: Double) -> Bool {
        guard let start = firstSpeechStart else { return false }
        guard let labelledStart = labelled.first?.start else { return true }
        return start < labelledStart - tolerance
    }

    /// The interaction reported `NoAudio` although the file holds speech.
    public var isWrongNoAudio: Bool { hasSpeech && outcome == .noAudio }

    /// The input ended before the endpointer fired on an utterance with speech: no endpoint at all.
    public var isMissedEndpoint: Bool { hasSpeech && reason == .endOfInput }

    enum CodingKeys: String, CodingKey {
        case path, labelled, reason, outcome
        case firstSpeechStart = "first_speech_start_s"
        case endpoint = "endpoint_s"
        case oracleEndpoint = "oracle_endpoint_s"
        case oracleReason = "oracle_reason"
    }
}

/// Endpointing scores over a corpus: what users feel as "it answers late" and "it cut me off".
public struct EndpointMetrics: Sendable, Equatable, Codable {
    /// Utterances scored, and how many hold speech.
    public var utterances: Int
    public var speechUtterances: Int
    /// Endpoint − labelled end of speech over utterances ended on silence after their speech, seconds.
    public var latency: Summary
    /// Share of speech utterances cut off by a silence endpoint inside the labelled speech.
    public var truncationRate: Double?
    /// Share of utterances where speech was reported before any was labelled (or in one with none).
    public var falseStartRate: Double?
    /// Share of speech utterances that ended `NoAudio`.
    public var wrongNoAudioRate: Double?
    /// Share of speech utterances whose input ended with no endpoint.
    public var missedEndpointRate: Double?
    /// The endpoints against the label oracle's: on time, early, late, missed, and the delay.
    public var oracle: OracleTiming

    /// How early a reported speech start may be before labelled speech and still not be false, seconds.
    public static let falseStartTolerance = 0.25

    /// Scores `results`; an endpoint within `onTimeTolerance` seconds of the oracle's is on time.
    public init(_ results: [UtteranceResult], onTimeTolerance: Double = OracleTiming.defaultTolerance) {
        let speech = results.filter(\.hasSpeech)
        utterances = results.count
        speechUtterances = speech.count
        latency = Summary(results.compactMap(\.latency))
        truncationRate = Self.share(speech.filter(\.isTruncated).count, of: speech.count)
        falseStartRate = Self.share(
            results.filter { $0.isFalseStart(tolerance: Self.falseStartTolerance) }.count, of: results.count)
        wrongNoAudioRate = Self.share(speech.filter(\.isWrongNoAudio).count, of: speech.count)
        missedEndpointRate = Self.share(speech.filter(\.isMissedEndpoint).count, of: speech.count)
        oracle = OracleTiming(results, tolerance: onTimeTolerance)
    }

    static func share(_ count: Int, of total: Int) -> Double? {
        total == 0 ? nil : Double(count) / Double(total)
    }

    enum CodingKeys: String, CodingKey {
        case utterances
        case speechUtterances = "speech_utterances"
        case latency = "latency_s"
        case truncationRate = "truncation_rate"
        case falseStartRate = "false_start_rate"
        case wrongNoAudioRate = "wrong_no_audio_rate"
        case missedEndpointRate = "missed_endpoint_rate"
        case oracle
    }

    /// Absent rates are written as `null`, so every document has the same keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(utterances, forKey: .utterances)
        try container.encode(speechUtterances, forKey: .speechUtterances)
        try container.encode(latency, forKey: .latency)
        try container.encode(truncationRate, forKey: .truncationRate)
        try container.encode(falseStartRate, forKey: .falseStartRate)
        try container.encode(wrongNoAudioRate, forKey: .wrongNoAudioRate)
        try container.encode(missedEndpointRate, forKey: .missedEndpointRate)
        try container.encode(oracle, forKey: .oracle)
    }

    /// Documents written before the oracle was scored have no `oracle` object: it reads as unscored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        utterances = try container.decode(Int.self, forKey: .utterances)
        speechUtterances = try container.decode(Int.self, forKey: .speechUtterances)
        latency = try container.decode(Summary.self, forKey: .latency)
        truncationRate = try container.decodeIfPresent(Double.self, forKey: .truncationRate)
        falseStartRate = try container.decodeIfPresent(Double.self, forKey: .falseStartRate)
        wrongNoAudioRate = try container.decodeIfPresent(Double.self, forKey: .wrongNoAudioRate)
        missedEndpointRate = try container.decodeIfPresent(Double.self, forKey: .missedEndpointRate)
        oracle =
            try container.decodeIfPresent(OracleTiming.self, forKey: .oracle)
            ?? OracleTiming([], tolerance: OracleTiming.defaultTolerance)
    }
}
