import EarshotCore
import EarshotRecognizer
import Foundation

/// The Speech to Text JSON of section 3.8: `{"Recognition":{"Status", "ResponseId", "Info",
/// "NBest":[…]}}`. `NBest` is omitted when nothing was recognized (`Status` "No Speech"), as the
/// seed's field rules require; no field is ever `null`.
public struct RecognitionDocument: Codable, Sendable, Equatable {
    public var recognition: Recognition

    enum CodingKeys: String, CodingKey { case recognition = "Recognition" }

    public struct Recognition: Codable, Sendable, Equatable {
        public var status: String
        public var responseID: String
        public var info: Info
        public var nBest: [NBest]?

        enum CodingKeys: String, CodingKey {
            case status = "Status", responseID = "ResponseId", info = "Info", nBest = "NBest"
        }
    }

    public struct Info: Codable, Sendable, Equatable {
        public var metrics: Metrics
    }

    /// How much audio the request carried: seconds decoded and bytes received.
    public struct Metrics: Codable, Sendable, Equatable {
        public var audioTime: Double
        public var audioBytes: Int
    }

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

        enum CodingKeys: String, CodingKey {
            case hypothesis = "Hypothesis", languageID = "LanguageId", confidence = "Confidence", grade = "Grade"
            case resultText = "ResultText", words = "Words", wordScores = "WordScores", wordTimes = "WordTimes"
        }
    }

    /// The grade of a confidence (section 3.8.3.3): `accept` from 0.6, `confirm` from 0.3, else `reject`.
    public static func grade(confidence: Double) -> String {
        confidence >= 0.6 ? "accept" : confidence >= 0.3 ? "confirm" : "reject"
    }

    /// The document for `result`, the final result of a request that carried `audioBytes` bytes
    /// holding `audioTime` seconds of audio; with `wordTimes`, the Earshot extension `WordTimes`.
    public init(
        result: RecognitionResult, responseID: String, audioTime: Double, audioBytes: Int, wordTimes: Bool = false
    ) {
        let nBest = result.hypotheses.filter { !$0.text.isEmpty }.map { hypothesis in
            let confidence = Self.rounded(hypothesis.confidence ?? 0)
            return NBest(
                hypothesis: hypothesis.text, languageID: "en-us", confidence: confidence,
                grade: Self.grade(confidence: confidence), resultText: hypothesis.text,
                words: hypothesis.words.map(\.word), wordScores: hypothesis.words.map { Self.rounded($0.confidence) },
                wordTimes: wordTimes
                    ? hypothesis.words.map { [Self.rounded($0.start.seconds), Self.rounded($0.end.seconds)] } : nil)
        }
        recognition = Recognition(
            status: nBest.isEmpty ? "No Speech" : "OK", responseID: responseID,
            info: Info(metrics: Metrics(audioTime: Self.rounded(audioTime), audioBytes: audioBytes)),
            nBest: nBest.isEmpty ? nil : nBest)
    }

    /// The document as JSON bytes, fields in the seed's order (example 3-6: `Status`, `ResponseId`,
    /// `Info`, `NBest`), so the bytes a `curl` user sees are the same from run to run.
    /// (`JSONEncoder` orders keys by hash, which Swift seeds per process.)
    public func encoded() throws -> Data {
        let r = recognition
        var out =
            #"{"Recognition":{"Status":"# + JSONText.quoted(r.status) + #","ResponseId":"#
            + JSONText.quoted(r.responseID)
        out += #","Info":{"metrics":{"audioTime":"# + "\(r.info.metrics.audioTime)"
        out += #","audioBytes":"# + "\(r.info.metrics.audioBytes)}}"
        if let nBest = r.nBest {
            let hypotheses = nBest.map { best -> String in
                var item = #"{"Confidence":"# + "\(best.confidence)"
                item += #","Grade":"# + JSONText.quoted(best.grade)
                item += #","LanguageId":"# + JSONText.quoted(best.languageID)
                item += #","Hypothesis":"# + JSONText.quoted(best.hypothesis)
                item += #","ResultText":"# + JSONText.quoted(best.resultText)
                item += #","Words":["# + best.words.map(JSONText.quoted).joined(separator: ",")
                item += #"],"WordScores":["# + best.wordScores.map { "\($0)" }.joined(separator: ",") + "]"
                if let times = best.wordTimes {
                    item += #","WordTimes":["# + times.map { "[\($0[0]),\($0[1])]" }.joined(separator: ",") + "]"
                }
                return item + "}"
            }
            out += #","NBest":["# + hypotheses.joined(separator: ",") + "]"
        }
        return Data((out + "}}").utf8)
    }

    /// Three decimals, as the seed's word scores: more would be noise.
    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}
