import EarshotCodecs
import EarshotCore
import EarshotIO
import EarshotRecognizer
import EarshotServer
import EarshotTestTraits
import EarshotWire
import Foundation
import FoundationXML
import HTTPTypes
import Testing

@Suite(.waiting)
struct AudioContentTypeTests {
    @Test(arguments: [
        ("audio/x-speex-with-header-byte;rate=16000", CodecFormat.speexWideband, nil as Int?),
        ("audio/x-speex-with-header-byte; rate=8000", .speexNarrowband, nil),
        ("audio/amr", .amr, nil), ("AUDIO/AMR", .amr, nil),
        ("audio/wav", .wav, nil), ("audio/x-wav", .wav, nil),
        ("audio/L16;rate=8000", .l16, 8_000), ("audio/l16; rate=44100", .l16, 44_100),
        ("audio/flac", .flac, nil), ("audio/ogg;codecs=opus", .opus, nil), ("audio/ogg; codecs=\"opus\"", .opus, nil),
    ])
    func acceptedTypes(header: String, format: CodecFormat, rate: Int?) throws {
        let type = try AudioContentType(header: header)
        #expect(type.format == format)
        #expect(type.sampleRate == rate)
    }

    /// Containers (Earshot additions), decoded once the body has arrived.
    @Test(arguments: [
        ("audio/mpeg", MediaContainer.mp3), ("audio/mp4", .mp4), ("audio/x-m4a", .mp4), ("video/mp4", .mp4),
        ("audio/webm", .matroska), ("video/webm; codecs=opus", .matroska), ("audio/aac", .adts),
        ("audio/ogg; codecs=vorbis", .ogg),
    ])
    func acceptedContainers(header: String, container: MediaContainer) throws {
        let type = try AudioContentType(header: header)
        #expect(type.container == container)
        #expect(type.format == nil)
    }

    @Test(arguments: [
        "text/plain", "audio/L16", "audio/L16;rate=abc", "audio/x-speex-with-header-byte;rate=11025",
        "audio/ogg", "",
    ])
    func refusedTypesSayWhatWasExpected(header: String) {
        #expect {
            try AudioContentType(header: header)
        } throws: { error in
            guard let error = error as? ServiceError else { return false }
            return error.status == .badRequest && error.messageID == "SVC0001" && error.text.contains("expected")
                || error.text.contains("rate")
        }
    }
}

@Suite(.waiting)
struct ExtraArgumentsTests {
    @Test func theSeedsExampleParses() {
        let arguments = ExtraArguments(headers: [
            "ClientSdk=ATTSpeechKit-Android-1.6.0, DeviceType=HTC%09HTC%20PH39100, DeviceOs=Android-2.3.4, "
                + "DeviceTime=2013-03-13%2020%3A05%3A51%20PDT, ClientApp=example.myapp, ClientVersion=1.0, "
                + "ClientScreen=main",
            "PartialResults=true",
        ])
        #expect(arguments.pairs.count == 8)
        #expect(arguments["DeviceType"] == "HTC\tHTC PH39100")
        #expect(arguments["devicetime"] == "2013-03-13 20:05:51 PDT")
        #expect(arguments.flag("PartialResults"))
        #expect(!arguments.flag("ClientApp"))
    }
}

@Suite(.waiting)
struct RecognitionDocumentTests {
    @Test func aResultBecomesTheSpeechToTextJSON() throws {
        let words = [
            TimedWord(word: "hello", start: 0, end: 0.5, confidence: 0.9),
            TimedWord(word: "world", start: 0.5, end: 1, confidence: 0.5),
        ]
        let result = RecognitionResult(
            hypotheses: [Hypothesis(text: "hello world", confidence: 0.7, words: words)],
            start: .zero(sampleRate: 16_000),
            end: .init(frame: 16_000, sampleRate: 16_000), isPartial: false)
        let document = RecognitionDocument(result: result, responseID: "abc", audioTime: 1.0, audioBytes: 32_044)
        let json = try #require(try JSONSerialization.jsonObject(with: document.encoded()) as? [String: Any])
        let recognition = try #require(json["Recognition"] as? [String: Any])
        #expect(recognition["Status"] as? String == "OK")
        #expect(recognition["ResponseId"] as? String == "abc")
        let metrics = try #require((recognition["Info"] as? [String: Any])?["metrics"] as? [String: Any])
        #expect(metrics["audioTime"] as? Double == 1.0 && metrics["audioBytes"] as? Int == 32_044)
        let best = try #require((recognition["NBest"] as? [[String: Any]])?.first)
        #expect(best["Hypothesis"] as? String == "hello world")
        #expect(best["ResultText"] as? String == "hello world")
        #expect(best["LanguageId"] as? String == "en-us")
        #expect(best["Confidence"] as? Double == 0.7)
        #expect(best["Grade"] as? String == "accept")
        #expect(best["Words"] as? [String] == ["hello", "world"])
        #expect(best["WordScores"] as? [Double] == [0.9, 0.5])
    }

    @Test func silenceIsNoSpeechWithoutNBest() throws {
        let result = RecognitionResult(
            hypotheses: [], start: .zero(sampleRate: 16_000), end: .zero(sampleRate: 16_000), isPartial: false)
        let document = RecognitionDocument(result: result, responseID: "r", audioTime: 2, audioBytes: 64_044)
        let text = String(decoding: try document.encoded(), as: UTF8.self)
        #expect(text.contains("\"Status\":\"No Speech\""))
        #expect(!text.contains("NBest") && !text.contains("null"))
    }

    @Test func gradesFollowConfidence() {
        #expect(RecognitionDocument.grade(confidence: 0.95) == "accept")
        #expect(RecognitionDocument.grade(confidence: 0.45) == "confirm")
        #expect(RecognitionDocument.grade(confidence: 0.1) == "reject")
    }
}

@Suite(.waiting)
struct RenderingTests {
    static let document: RecognitionDocument = {
        let words = [
            TimedWord(word: "fish", start: 0, end: 0.5, confidence: 0.8),
            TimedWord(word: "&chips", start: 0.5, end: 1, confidence: 0.4),
        ]
        let result = RecognitionResult(
            hypotheses: [Hypothesis(text: "fish &chips", confidence: 0.6, words: words)],
            start: .zero(sampleRate: 16_000), end: .init(frame: 16_000, sampleRate: 16_000), isPartial: false)
        return RecognitionDocument(result: result, responseID: "id1", audioTime: 1, audioBytes: 100)
    }()

    @Test func acceptChoosesTheRendering() {
        #expect(RecognitionDocument.Rendering(accept: []) == .json)
        #expect(RecognitionDocument.Rendering(accept: ["*/*"]) == .json)
        #expect(RecognitionDocument.Rendering(accept: ["text/html, application/xml;q=0.9"]) == .xml)
        #expect(RecognitionDocument.Rendering(accept: ["application/emma+xml"]) == .emma)
    }

    @Test func xmlCarriesTheJSONsFields() throws {
        let xml = try XMLDocument(data: Data(Self.document.xml.utf8))
        func value(_ path: String) throws -> [String] { try xml.nodes(forXPath: path).compactMap(\.stringValue) }
        #expect(try value("/Recognition/Status") == ["OK"])
        #expect(try value("/Recognition/ResponseId") == ["id1"])
        #expect(try value("/Recognition/Info/metrics/audioBytes") == ["100"])
        #expect(try value("/Recognition/NBest/Hypothesis") == ["fish &chips"])
        #expect(try value("/Recognition/NBest/Grade") == ["accept"])
        #expect(try value("/Recognition/NBest/Words/Word") == ["fish", "&chips"])
        #expect(try value("/Recognition/NBest/WordScores/WordScore") == ["0.8", "0.4"])
    }

    @Test func emmaIsWellFormedWithConfidenceAndTokens() throws {
        let emma = try XMLDocument(data: Data(Self.document.emma.utf8))
        let root = try #require(emma.rootElement())
        #expect(root.name == "emma:emma" && root.attribute(forName: "version")?.stringValue == "1.0")
        let interpretation = try #require(
            root.elements(forName: "emma:one-of").first?.elements(forName: "emma:interpretation").first)
        #expect(interpretation.attribute(forName: "emma:confidence")?.stringValue == "0.6")
        #expect(interpretation.attribute(forName: "emma:tokens")?.stringValue == "fish &chips")
        let silent = RecognitionDocument(
            result: RecognitionResult(
                hypotheses: [], start: .zero(sampleRate: 16_000), end: .zero(sampleRate: 16_000), isPartial: false),
            responseID: "id2", audioTime: 2, audioBytes: 10)
        let noInput = try XMLDocument(data: Data(silent.emma.utf8))
        let only = try #require(noInput.rootElement()?.elements(forName: "emma:interpretation").first)
        #expect(only.attribute(forName: "emma:no-input")?.stringValue == "true")
    }
}

@Suite(.waiting)
struct RecognitionJSONBytesTests {
    @Test func fieldsComeInTheSeedsOrderAndStringsAreEscaped() throws {
        let word = TimedWord(word: "say \"hi\"\\\n", start: 0, end: 0.01, confidence: 0.25)
        let result = RecognitionResult(
            hypotheses: [Hypothesis(text: "say \"hi\"\\\n", confidence: 0.25, words: [word])],
            start: .zero(sampleRate: 16_000), end: .init(frame: 160, sampleRate: 16_000), isPartial: false)
        let data = try RecognitionDocument(result: result, responseID: "r1", audioTime: 0.01, audioBytes: 20)
            .encoded()
        let text = String(decoding: data, as: UTF8.self)
        #expect(
            text.hasPrefix(
                #"{"Recognition":{"Status":"OK","ResponseId":"r1","Info":{"metrics":{"audioTime":0.01,"audioBytes":20}},"NBest":[{"Confidence":0.25,"Grade":"reject","LanguageId":"en-us","Hypothesis":"say \"hi\"\\\n""#
            ))
        let decoded = try JSONDecoder().decode(RecognitionDocument.self, from: data)
        #expect(decoded.recognition.nBest?.first?.words == ["say \"hi\"\\\n"])
        #expect(decoded == RecognitionDocument(result: result, responseID: "r1", audioTime: 0.01, audioBytes: 20))
    }
}
