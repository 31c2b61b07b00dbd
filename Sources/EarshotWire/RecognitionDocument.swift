import EarshotCore
public import Foundation

/// The Speech to Text JSON of section 3.8: `{"Recognition":{"Status", "ResponseId", "Info",
/// "NBest":[…]}}`, written by Earshot's service and read by its client. `NBest` is omitted when
/// nothing was recognized (`Status` "No Speech"), as the seed's field rules require; no field is ever
/// `null`. Reading is lenient where another service may be terse: `Info` and every `NBest` field but
/// `Hypothesis` may be missing.
public struct RecognitionDocument: Codable, Sendable, Equatable {
    public var recognition: Recognition

    public init(recognition: Recognition) { self.recognition = recognition }

    enum CodingKeys: String, CodingKey { case recognition = "Recognition" }

    public struct Recognition: Codable, Sendable, Equatable {
        public var status: String
        public var responseID: String
        public var info: Info
        public var nBest: [NBest]?

        public init(status: String, responseID: String, info: Info, nBest: [NBest]?) {
            self.status = status
            self.responseID = responseID
            self.info = info
            self.nBest = nBest
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            status = try container.decode(String.self, forKey: .status)
            responseID = try container.decodeIfPresent(String.self, forKey: .responseID) ?? ""
            info =
                try container.decodeIfPresent(Info.self, forKey: .info)
                ?? Info(metrics: Metrics(audioTime: 0, audioBytes: 0))
            nBest = try container.decodeIfPresent([NBest].self, forKey: .nBest)
        }

        enum CodingKeys: String, CodingKey {
            case status = "Status", responseID = "ResponseId", info = "Info", nBest = "NBest"
        }
    }

    public struct Info: Codable, Sendable, Equatable {
        public var metrics: Metrics

        public init(metrics: Metrics) { self.metrics = metrics }
    }

    /// How much audio the request carried: seconds decoded and bytes received.
    public struct Metrics: Codable, Sendable, Equatable {
        public var audioTime: Double
        public var audioBytes: Int

        public init(audioTime: Double, audioBytes: Int) {
            self.audioTime = audioTime
            self.audioBytes = audioBytes
        }
    }

    /// One hypothesis, best first.
    public struct NBest: Codable, Sendable, Equatable {
        public var hypothesis: String
        public var languageID: String
        public var confidence: Double
        public var grade: String
        public var resultText: String
        public var words: [String]
        public var wordScores: [Double]
        /// Earshot extension, only when the request sent `X-Arg: WordTimes=true`: each word's start
        /// and end in seconds from the start of the request's audio.
        public var wordTimes: [[Double]]?

        public init(
            hypothesis: String, languageID: String, confidence: Double, grade: String, resultText: String,
            words: [String], wordScores: [Double], wordTimes: [[Double]]? = nil
        ) {
            self.hypothesis = hypothesis
            self.languageID = languageID
            self.confidence = confidence
            self.grade = grade
            self.resultText = resultText
            self.words = words
            self.wordScores = wordScores
            self.wordTimes = wordTimes
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            hypothesis = try container.decode(String.self, forKey: .hypothesis)
            languageID = try container.decodeIfPresent(String.self, forKey: .languageID) ?? ""
            confidence = try container.decodeIfPresent(Double.self, forKey: .confidence) ?? 0
            grade = try container.decodeIfPresent(String.self, forKey: .grade) ?? ""
            resultText = try container.decodeIfPresent(String.self, forKey: .resultText) ?? hypothesis
            words = try container.decodeIfPresent([String].self, forKey: .words) ?? []
            wordScores = try container.decodeIfPresent([Double].self, forKey: .wordScores) ?? []
            wordTimes = try container.decodeIfPresent([[Double]].self, forKey: .wordTimes)
        }

        /// The seed's order (example 3-6): `Confidence`, `Grade`, `LanguageId`, `Hypothesis`, `ResultText`,
        /// `Words`, `WordScores`, then Earshot's `WordTimes` when there are any.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(confidence, forKey: .confidence)
            try container.encode(grade, forKey: .grade)
            try container.encode(languageID, forKey: .languageID)
            try container.encode(hypothesis, forKey: .hypothesis)
            try container.encode(resultText, forKey: .resultText)
            try container.encode(words, forKey: .words)
            try container.encode(wordScores, forKey: .wordScores)
            try container.encodeIfPresent(wordTimes, forKey: .wordTimes)
        }

        enum CodingKeys: String, CodingKey {
            case hypothesis = "Hypothesis", languageID = "LanguageId", confidence = "Confidence", grade = "Grade"
            case resultText = "ResultText", words = "Words", wordScores = "WordScores", wordTimes = "WordTimes"
        }
    }

    /// The grade of a confidence (section 3.8.3.3): `accept` from 0.6, `confirm` from 0.3, else `reject`.
    public static func grade(confidence: Double) -> String {
        confidence >= 0.6 ? "accept" : confidence >= 0.3 ? "confirm" : "reject"
    }

    /// The document as JSON bytes, fields in the seed's order (example 3-6: `Status`, `ResponseId`,
    /// `Info`, `NBest`; each hypothesis as ``NBest/encode(to:)`` writes it), so the bytes a `curl` user
    /// sees are the same from run to run.
    public func encoded() throws -> Data { try OrderedJSONEncoder().encode(self) }

    /// Three decimals, as the seed's word scores: more would be noise.
    public static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}

/// One line of the Earshot partial-results stream (`X-Arg: PartialResults=true`, `application/x-ndjson`):
/// `{"PartialResult":{"Hypothesis":…,"ResponseId":…,"audioTime":…}}`, the hypothesis so far after
/// `audioTime` seconds of audio. The last line of the stream is the final ``RecognitionDocument``.
public struct PartialResultLine: Codable, Sendable, Equatable {
    public var partialResult: PartialResult

    public init(responseID: String, hypothesis: String, audioTime: Double) {
        partialResult = PartialResult(responseID: responseID, hypothesis: hypothesis, audioTime: audioTime)
    }

    enum CodingKeys: String, CodingKey { case partialResult = "PartialResult" }

    public struct PartialResult: Codable, Sendable, Equatable {
        public var responseID: String
        public var hypothesis: String
        public var audioTime: Double

        enum CodingKeys: String, CodingKey {
            case responseID = "ResponseId", hypothesis = "Hypothesis", audioTime
        }
    }

    /// The line as JSON, keys sorted, without the newline.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }
}
