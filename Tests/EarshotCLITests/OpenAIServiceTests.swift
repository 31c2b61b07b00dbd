import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// `earshot serve`'s OpenAI-compatible `/v1` as its users reach it: with the official `openai` Python
/// client (PyPI, installed by `make test` into `.earshot/venv`) and with curl.
@Suite(.serialized, .waiting) struct OpenAIServiceTests {
    typealias Server = ServeCommandTests.Server

    static let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav"
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The venv's Python, which has the `openai` package.
    static var python: String { root.appendingPathComponent(".earshot/venv/bin/python").path }

    @Test func theOfficialClientListsModelsTranscribesAndRefusesAWrongKey() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.python),
            "\(Self.python) is missing: `make openai-client` installs the openai package there")
        let server = try Server()
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        let run = try ExternalTool.run([
            Self.python, Self.root.appendingPathComponent("Tests/Python/openai_client.py").path,
            "http://127.0.0.1:\(server.port)/v1", token, Self.clip,
        ])
        try #require(run.status == 0, "the openai client failed: \(run.standardError)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: run.standardOutput) as? [String: Any], "\(run.output)")
        // Whisper is the default model; PocketSphinx is served beside it (and takes grammars).
        #expect(report["models"] as? [String] == ["whisper-tiny.en", "pocketsphinx-en-us"])
        let text = try #require(report["json"] as? String)
        #expect(text == "Had he married a more amiable woman, he might have been made still more respectable than he was.")

        let verbose = try #require(report["verbose"] as? [String: Any])
        #expect(verbose["text"] as? String == text)
        #expect(verbose["language"] as? String == "english")
        #expect(abs((verbose["duration"] as? Double ?? 0) - 6.05) < 0.01)
        let words = try #require(verbose["words"] as? [[Any]])
        #expect(words.map { $0[0] as? String ?? "" }.joined(separator: " ") == text)
        let times: [Double] = words.flatMap { word -> [Double] in [word[1] as? Double ?? -1, word[2] as? Double ?? -1] }
        #expect(times == times.sorted() && times.first! >= 0 && times.last! <= 6.05, "word times in order: \(times)")
        let segments = try #require(verbose["segments"] as? [[Any]])
        #expect(!segments.isEmpty)
        #expect(
            segments.map { ($0[2] as? String ?? "").trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
                == text)

        let srt = try #require(report["srt"] as? String)
        #expect(srt.hasPrefix("1\n00:00:00,"), "\(srt)")
        #expect(srt.contains(" --> "))

        let wrongKey = try #require(report["wrong_key"] as? [String: Any], "a wrong key was accepted")
        #expect(wrongKey["status"] as? Int == 401)
        #expect((wrongKey["message"] as? String)?.contains("Incorrect API key") == true)
    }

    /// curl, as the README shows it: plain text and WebVTT, and errors in OpenAI's shape naming the field.
    @Test func curlGetsEveryFormatAndErrorsNamingTheField() throws {
        let server = try Server()
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        func post(_ fields: [String]) throws -> (status: Int, body: String) {
            let result = try ExternalTool.run(
                ["curl", "--silent", "--write-out", "\n%{http_code}", "--header", "Authorization: Bearer \(token)"]
                    + fields.flatMap { ["--form", $0] } + ["http://127.0.0.1:\(server.port)/v1/audio/transcriptions"])
            let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
        }
        let text = try post(["model=pocketsphinx-en-us", "file=@\(Self.clip)", "response_format=text"])
        #expect(text.status == 200)
        #expect(text.body.hasPrefix("had he married"), "\(text.body)")
        let vtt = try post(["model=pocketsphinx-en-us", "file=@\(Self.clip)", "response_format=vtt"])
        #expect(vtt.body.hasPrefix("WEBVTT\n\n00:00:00."), "\(vtt.body)")

        func error(_ body: String) -> [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["error"] as? [String: Any]
        }
        let unknownModel = try post(["model=gpt-4o-transcribe", "file=@\(Self.clip)"])
        #expect(unknownModel.status == 400)
        #expect(error(unknownModel.body)?["param"] as? String == "model", "\(unknownModel.body)")
        #expect(
            (error(unknownModel.body)?["message"] as? String)?.contains("whisper-tiny.en, pocketsphinx-en-us, whisper-1")
                == true, "\(unknownModel.body)")
        // OpenAI's own model name is the default model here, so programs written for OpenAI work unchanged.
        let openAIName = try post(["model=whisper-1", "file=@\(Self.clip)", "response_format=text"])
        #expect(openAIName.status == 200 && openAIName.body.hasPrefix("Had he married"), "\(openAIName.body)")
        let badFormat = try post(["model=pocketsphinx-en-us", "response_format=docx", "file=@\(Self.clip)"])
        #expect(badFormat.status == 400)
        #expect(error(badFormat.body)?["param"] as? String == "response_format", "\(badFormat.body)")
        let notAudio = try post(["model=pocketsphinx-en-us", "file=@/etc/hostname"])
        #expect(notAudio.status == 400)
        #expect(error(notAudio.body)?["param"] as? String == "file", "\(notAudio.body)")
        let noModel = try post(["file=@\(Self.clip)"])
        #expect(noModel.status == 400)
        #expect(error(noModel.body)?["param"] as? String == "model", "\(noModel.body)")
        #expect(error(noModel.body)?.keys.contains("code") == true, "code is written, as null")
    }

    /// `--api-keys`: a fixed key, as most OpenAI-compatible clients take one, works on both APIs for
    /// its scopes; a key file with a short key is refused at start, naming the line but not the key.
    @Test func aStaticAPIKeyWorksOnBothAPIsWithinItsScopes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = "sk-earshot-test-0123456789abcdef"
        let keys = try directory.writeSecret(Array("# keys for the test\n\n\(key)\n".utf8), to: "keys.txt")
        let server = try Server(arguments: ["--api-keys", keys])
        defer { _ = server.stop() }
        func request(_ arguments: [String], path: String, key: String) throws -> (status: Int, body: String) {
            let result = try ExternalTool.run(
                ["curl", "--silent", "--write-out", "\n%{http_code}", "--header", "Authorization: Bearer \(key)"]
                    + arguments + ["http://127.0.0.1:\(server.port)\(path)"])
            let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
        }
        let models = try request([], path: "/v1/models", key: key)
        #expect(models.status == 200 && models.body.contains("pocketsphinx-en-us"), "\(models)")
        let openAI = try request(
            ["--form", "model=pocketsphinx-en-us", "--form", "file=@\(Self.clip)", "--form", "response_format=text"],
            path: "/v1/audio/transcriptions", key: key)
        #expect(openAI.status == 200 && openAI.body.hasPrefix("had he married"), "\(openAI)")
        let speech = try request(
            [
                "--header", "Content-Type: audio/wav", "--header", "X-SpeechContext: Generic", "--data-binary",
                "@\(Self.clip)",
            ],
            path: "/speech/v3/speechToText", key: key)
        #expect(speech.status == 200 && speech.body.contains("Had he married"), "\(speech)")
        // SPEECH only (no scope given): Speech to Text Custom needs STTC.
        let custom = try request(
            [
                "--header", "Content-Type: audio/wav", "--header", "X-SpeechContext: Generic", "--data-binary",
                "@\(Self.clip)",
            ],
            path: "/speech/v3/speechToTextCustom", key: key)
        #expect(custom.status == 401, "\(custom)")
        let wrong = try request([], path: "/v1/models", key: key + "x")
        #expect(wrong.status == 401, "\(wrong)")

        let short = try directory.writeSecret(Array("sk-short\n".utf8), to: "short.txt")
        let refused = try ExternalTool.run([ExternalTool.earshotPath, "serve", "--port", "0", "--api-keys", short])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("\(short), line 1: a key must be 16 to 256"), "\(refused.standardError)")
        #expect(!refused.standardError.contains("sk-short"))
    }
}
