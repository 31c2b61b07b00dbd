import EarshotCore
import EarshotRecognizer
import EarshotTestTraits
import EarshotWire
import Foundation
import HTTPTypes
import HummingbirdCore
import Testing

@testable import EarshotServer

/// The pieces of the OpenAI-compatible route that need no server: form fields, the five response
/// formats, and the error shape.
@Suite(.waiting) struct OpenAITranscriptionTests {
    static let models = ["pocketsphinx-en-us"]

    static func refusal(_ body: () throws(ServiceError) -> Void) -> ServiceError? {
        do { try body() } catch { return error }
        return nil
    }

    @Test func fieldsAreCheckedAsTheyArriveAndUnknownOnesIgnored() throws {
        var options = TranscriptionOptions()
        try options.set("model", to: "pocketsphinx-en-us", modelIDs: Self.models)
        try options.set("language", to: "EN", modelIDs: Self.models)
        try options.set("response_format", to: "verbose_json", modelIDs: Self.models)
        try options.set("timestamp_granularities[]", to: "word", modelIDs: Self.models)
        try options.set("temperature", to: "0.2", modelIDs: Self.models)
        try options.set("chunking_strategy", to: "auto", modelIDs: Self.models)
        #expect(options.model == "pocketsphinx-en-us")
        #expect(options.language == "en")
        #expect(options.responseFormat == .verboseJSON)
        #expect(options.granularities == [.word])
        #expect(options.temperature == 0.2)
    }

    @Test(arguments: [
        ("model", "whisper-1", "expected one of pocketsphinx-en-us"), ("language", "de", "expected en"),
        ("response_format", "docx", "not one of json, text, srt, verbose_json, vtt"),
        ("temperature", "hot", "not a number from 0 to 1"),
        ("timestamp_granularities[]", "sentence", "not word or segment"),
    ])
    func aBadFieldIsA400NamingIt(field: String, value: String, expected: String) {
        var options = TranscriptionOptions()
        let error = Self.refusal { () throws(ServiceError) in try options.set(field, to: value, modelIDs: Self.models) }
        #expect(error?.status == .badRequest)
        #expect(error?.variables == field)
        #expect(error?.text.contains(expected) == true, "\(error?.text ?? "")")
    }

    /// Three words, a 1.5 s pause, two words: two segments.
    static let result: RecognitionResult = {
        func word(_ text: String, _ start: Double, _ end: Double, _ confidence: Double = 0.5) -> TimedWord {
            TimedWord(word: text, start: start, end: end, confidence: confidence)
        }
        let words = [
            word("one", 0.2, 0.5), word("two", 0.5, 0.9), word("three", 0.9, 1.4), word("four", 2.9, 3.3),
            word("five", 3.3, 3.8, 1),
        ]
        return RecognitionResult(
            hypotheses: [Hypothesis(text: "one two three four five", confidence: 0.6, words: words)],
            start: .zero(sampleRate: 16_000), end: MediaTime(frame: 64_000, sampleRate: 16_000),
            isPartial: false)
    }()

    static func render(
        _ format: TranscriptionOptions.ResponseFormat, granularities: Set<TranscriptionOptions.Granularity> = []
    )
        throws -> (String, String)
    {
        var options = TranscriptionOptions()
        options.responseFormat = format
        options.granularities = granularities
        let (body, type) = try TranscriptionResponse(result: result, duration: 4, options: options).rendered()
        return (String(decoding: body, as: UTF8.self), type)
    }

    @Test func everyResponseFormatRendersTheSameWordsAndTimes() throws {
        #expect(try Self.render(.json) == (#"{"text":"one two three four five"}"#, "application/json"))
        #expect(try Self.render(.text).0 == "one two three four five\n")
        #expect(
            try Self.render(.srt).0
                == "1\n00:00:00,200 --> 00:00:01,400\none two three\n\n2\n00:00:02,900 --> 00:00:03,800\nfour five\n\n")
        #expect(try Self.render(.vtt).0.hasPrefix("WEBVTT\n\n00:00:00.200 --> 00:00:01.400\none two three\n\n"))

        let (verbose, _) = try Self.render(.verboseJSON, granularities: [.word, .segment])
        let document = try JSONDecoder().decode(TranscriptionResponse.Verbose.self, from: Data(verbose.utf8))
        #expect(document.duration == 4)
        #expect(document.words?.map(\.word) == ["one", "two", "three", "four", "five"])
        #expect(document.words?.first == .init(word: "one", start: 0.2, end: 0.5))
        let segments = try #require(document.segments)
        #expect(segments.map(\.text) == [" one two three", " four five"])
        #expect(segments.map(\.start) == [0.2, 2.9])
        #expect(segments.map(\.seek) == [20, 290])
        #expect(abs((segments[0].avgLogprob ?? 0) - log(0.5)) < 0.001)
        #expect(segments[1].avgLogprob == (log(0.5) / 2 * 1000).rounded() / 1000)

        // Segments by default; words only when asked for.
        let (plain, _) = try Self.render(.verboseJSON)
        let defaults = try JSONDecoder().decode(TranscriptionResponse.Verbose.self, from: Data(plain.utf8))
        #expect(defaults.segments?.count == 2)
        #expect(defaults.words == nil)
    }

    @Test func errorsTakeOpenAIsShapeWithTheStatusAndHeaders() throws {
        let busy = OpenAIError.response(for: .busy(retryAfter: 3))
        #expect(busy.status == .serviceUnavailable)
        #expect(busy.headers[.retryAfter] == "3")
        let body = OpenAIError.body(for: .badRequest("model \"x\" does not exist here", variables: "model"))
        #expect(
            body.error
                == .init(
                    message: "model \"x\" does not exist here", type: "invalid_request_error", param: "model", code: nil
                ))
        let json = String(decoding: try JSONEncoder().encode(body), as: UTF8.self)
        #expect(json.contains(#""code":null"#), "absent fields are written as null: \(json)")
        let unauthorized = OpenAIError.body(for: .unauthorized(realm: "earshot", reason: "the token is not valid"))
        #expect(unauthorized.error.code == "invalid_api_key")
    }
}
