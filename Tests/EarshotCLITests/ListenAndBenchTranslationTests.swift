import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

private let whisperBase = OpenAIServiceTests.root.appendingPathComponent(".earshot/models/whisper-base").path

/// `earshot listen --task`, `earshot transcribe --service --task` and `earshot bench --language/--task`
/// (issue 49, items 2 and 3): the task reaches the service as it takes it (the Speech API's
/// `X-Arg: Task=translate`, OpenAI's `/v1/audio/translations`) or the embedded Whisper; a Realtime session, which cannot translate, is refused before connecting; a
/// model that cannot translate or speak the language is refused by name, never a transcript passed off as
/// a translation.
@Suite(.serialized, .waiting) struct ListenAndBenchTranslationTests {
    typealias Server = ServeCommandTests.Server

    static let sampleCorpus = OpenAIServiceTests.root.appendingPathComponent("corpora/real/sample").path

    static func earshot(_ arguments: [String]) throws -> ExternalTool.Result {
        try ExternalTool.run([ExternalTool.earshotPath] + arguments)
    }

    /// `earshot serve` recognizing with the Whisper `model`, and in `directory` the French sentence followed
    /// by 2 s of silence (so the client's endpointer ends on endingSilence).
    static func serve(_ model: String, clipIn directory: TemporaryDirectory) throws -> (server: Server, clip: String) {
        let padded = directory.file("fr-padded.wav")
        let sox = try ExternalTool.run(["sox", try TranslationTests.frenchClip(in: directory), padded, "pad", "0", "2"])
        try #require(sox.status == 0, "\(sox.standardError)")
        return (try Server(arguments: ["--whisper-model", model]), padded)
    }

    /// The Speech API's and the OpenAI-compatible route's options for `server`, which may answer slowly
    /// when every suite shares the two cores.
    static func services(_ server: Server) -> [(name: String, options: [String])] {
        let credentials = ["--app-key", server.appKey, "--secret", server.secret, "--server-response-timeout", "240"]
        return [
            ("Speech API", ["--service", "http://127.0.0.1:\(server.port)/speech/v3/speechToText"] + credentials),
            ("OpenAI", ["--service", "http://127.0.0.1:\(server.port)/v1"] + credentials),
        ]
    }

    @Test func listenTranslateIsRefusedNamingAModelThatCannotTranslate() throws {
        let directory = try TemporaryDirectory("earshot-listen-translate-tiny")
        defer { directory.remove() }
        let (server, clip) = try Self.serve("whisper-tiny.en", clipIn: directory)
        defer { _ = server.stop() }
        for (name, service) in Self.services(server) {
            let result = try Self.earshot(["listen", "--file", clip, "--task", "translate"] + service)
            #expect(result.status == 3 && result.output.isEmpty, "\(name): \(result.output) \(result.standardError)")
            #expect(
                result.standardError.contains("task translate: the Whisper model tiny.en ("),
                "\(name): \(result.standardError)")
        }
    }

    @Test func listenTranslateIsRefusedBeforeConnectingToARealtimeSession() throws {
        let realtime = ["--service", "ws://127.0.0.1:1/v1/realtime", "--token", "sk-x", "--connection-timeout", "5"]
        let clip = OpenAIServiceTests.clip
        let refused = try Self.earshot(["listen", "--file", clip, "--task", "translate"] + realtime)
        #expect(refused.status == 1, "\(refused.standardError)")
        #expect(refused.standardError.contains("--task translate: "), "\(refused.standardError)")
        #expect(refused.standardError.contains("no translation"), "\(refused.standardError)")
        #expect(!refused.standardError.contains("ConnectionFailure"), "\(refused.standardError)")
        // Transcribing, the same command gets as far as connecting (nothing listens on port 1).
        let transcribing = try Self.earshot(["listen", "--file", clip] + realtime)
        #expect(transcribing.status == 3, "\(transcribing.standardError)")
        #expect(transcribing.standardError.contains("ConnectionFailure"), "\(transcribing.standardError)")

        let bench = try Self.earshot(
            ["bench", "--corpus", Self.sampleCorpus, "--duration", "1", "--task", "translate"] + realtime)
        #expect(bench.status == 1 && bench.standardError.contains("--task translate: "), "\(bench.standardError)")
    }

    @Test func benchEmbeddedRefusesALanguageOrATranslationTheModelCannotGive() throws {
        let embedded = [
            "bench", "--embedded", "--whisper-model", "whisper-tiny.en", "--corpus", Self.sampleCorpus, "--duration",
            "1",
        ]
        let french = try Self.earshot(embedded + ["--language", "fr"])
        #expect(french.status == 1 && french.output.isEmpty, "\(french.output)")
        #expect(
            french.standardError.contains("language 'fr': the Whisper model tiny.en (")
                && french.standardError.contains("transcribes English only (en)"), "\(french.standardError)")
        let translate = try Self.earshot(embedded + ["--task", "translate"])
        #expect(translate.status == 1 && translate.output.isEmpty, "\(translate.output)")
        #expect(
            translate.standardError.contains("task translate: the Whisper model tiny.en ("),
            "\(translate.standardError)")
    }

    @Test func benchSendsTheTaskToEveryStream() throws {
        let server = try Server(arguments: ["--whisper-model", "whisper-tiny.en"])
        defer { _ = server.stop() }
        let service = try #require(Self.services(server).first).options
        let result = try Self.earshot(
            [
                "bench", "--corpus", Self.sampleCorpus, "--duration", "2", "--speed", "4", "--json", "--task",
                "translate", "--language", "en",
            ]
                + service)
        #expect(result.status == 0, "\(result.standardError)")
        let document = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        #expect(document["task"] as? String == "translate" && document["language"] as? String == "en")
        let level = try #require((document["levels"] as? [[String: Any]])?.first)
        // tiny.en cannot translate: every utterance is refused, none transcribed instead.
        let failed = try #require(level["failed"] as? Int)
        #expect(failed >= 1 && level["completed"] as? Int == 0, "\(level)")
        #expect(level["failures"] as? [String: Int] == ["HTTP 400": failed], "\(level)")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: whisperBase), "whisper-base: `make models` installs it"))
    func listenTranslatesFrenchThroughAServiceWithAMultilingualModel() throws {
        let directory = try TemporaryDirectory("earshot-listen-translate-base")
        defer { directory.remove() }
        let (server, clip) = try Self.serve("whisper-base", clipIn: directory)
        defer { _ = server.stop() }
        for (name, service) in Self.services(server) {
            let translated = try Self.earshot(["listen", "--file", clip, "--task", "translate"] + service)
            #expect(translated.status == 0, "\(name): \(translated.standardError)")
            let english = translated.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(
                !english.isEmpty && !english.contains("appelle") && !english.contains("Bonjour"),
                "\(name), English: \(english)")
            // A file through the service, translated there, says so in its parameters.
            let file = try Self.earshot(["transcribe", "--format", "json", "--task", "translate", clip] + service)
            #expect(file.status == 0, "\(name): \(file.standardError)")
            let document = try JSONSerialization.jsonObject(with: Data(file.output.utf8)) as? [String: Any]
            let parameters = document?["parameters"] as? [String: Any]
            #expect(parameters?["task"] as? String == "translate", "\(name): \(file.output)")
            let text = (document?["text"] as? String) ?? ""
            #expect(!text.isEmpty && !text.contains("appelle"), "\(name), transcribe: \(text)")
        }
        // Without --task, the same service answers in French.
        let service = try #require(Self.services(server).first).options
        let transcribed = try Self.earshot(["listen", "--file", clip] + service)
        #expect(transcribed.status == 0 && transcribed.output.contains("appelle"), "French: \(transcribed.output)")
    }
}
