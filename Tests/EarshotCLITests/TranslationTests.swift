import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// Translation into English (issue 49, item 3): `earshot transcribe --task translate` with a
/// multilingual Whisper, and `POST /v1/audio/translations` as the official `openai` client calls it.
/// A model that cannot translate (tiny.en, PocketSphinx) is refused naming it, never a transcript
/// passed off as a translation.
@Suite(.serialized, .waiting) struct TranslationTests {
    private static let sentence = "Bonjour, je m'appelle Marie et j'habite à Paris depuis dix ans."

    private func earshot(_ arguments: String...) throws -> ExternalTool.Result {
        try ExternalTool.run([ExternalTool.earshotPath] + arguments)
    }

    /// The French sentence spoken by eSpeak NG, at 16 kHz (the service takes any rate; 16 kHz keeps
    /// the bytes the parity fixture's). `ListenAndBenchTranslationTests` speaks it too.
    static func frenchClip(in directory: TemporaryDirectory) throws -> String {
        let raw = directory.file("fr-22050.wav"), path = directory.file("fr.wav")
        #expect(try ExternalTool.run(["espeak-ng", "-v", "fr", "-w", raw, Self.sentence]).status == 0)
        #expect(try ExternalTool.run(["sox", "-D", raw, "-r", "16000", "-b", "16", path]).status == 0)
        return path
    }

    @Test func transcribeTranslatesWithAMultilingualModelAndRefusesWithoutOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clip = try Self.frenchClip(in: directory)
        let translated = try earshot(
            "transcribe", "--whisper-model", "whisper-base", "--task", "translate", "--format", "json", clip)
        #expect(translated.status == 0, "\(translated.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: translated.standardOutput) as? [String: Any])
        let text = try #require(json["text"] as? String)
        #expect(!text.isEmpty && !text.contains("appelle") && !text.contains("Bonjour"), "English: \(text)")
        #expect(json["language"] as? String == "fr", "the language spoken: \(json)")
        #expect((json["parameters"] as? [String: Any])?["task"] as? String == "translate")
        let transcribed = try earshot("transcribe", "--whisper-model", "whisper-base", clip)
        #expect(transcribed.output.contains("appelle"), "the transcription stays French: \(transcribed.output)")

        let tiny = try earshot("transcribe", "--task", "translate", clip)
        #expect(tiny.status == 1 && tiny.output.isEmpty, "\(tiny.output)")
        #expect(tiny.standardError.contains("task translate: the Whisper model tiny.en ("), "\(tiny.standardError)")
        let pocketSphinx = try earshot("transcribe", "--recognizer", "pocketsphinx", "--task", "translate", clip)
        #expect(pocketSphinx.status == 1 && pocketSphinx.output.isEmpty)
        #expect(pocketSphinx.standardError.contains("task translate: PocketSphinx ("), "\(pocketSphinx.standardError)")
    }

    @Test func theOfficialClientTranslatesThroughTheService() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: OpenAIServiceTests.python),
            "\(OpenAIServiceTests.python) is missing: `make openai-client` installs the openai package there")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clip = try Self.frenchClip(in: directory)
        let server = try ServeCommandTests.Server(arguments: ["--whisper-model", "whisper-base"])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        let run = try ExternalTool.run([
            OpenAIServiceTests.python,
            OpenAIServiceTests.root.appendingPathComponent("Tests/Python/openai_translate.py").path,
            "http://127.0.0.1:\(server.port)/v1", token, clip, "whisper-base", "pocketsphinx-en-us",
        ])
        try #require(run.status == 0, "the openai client failed: \(run.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: run.standardOutput) as? [String: Any])
        let text = try #require(report["text"] as? String)
        #expect(!text.isEmpty && !text.contains("appelle"), "English: \(text)")
        // `/v1/models` says what each model speaks.
        let models = try #require(report["models"] as? [String: Any], "\(report)")
        let base = try #require(models["whisper-base"] as? [String], "\(models)")
        #expect(base.count == 99 && base.contains("fr") && base.contains("sq"), "\(base)")
        #expect(models["pocketsphinx-en-us"] as? [String] == ["en"], "\(models)")
        #expect((report["transcription"] as? String)?.contains("appelle") == true, "\(report)")
        let verbose = try #require(report["verbose"] as? [String: Any])
        #expect(verbose["text"] as? String == text)
        #expect(verbose["language"] as? String == "french", "the language spoken, by name: \(verbose)")
        let refused = try #require(report["refused"] as? [String: Any], "PocketSphinx translated: \(report)")
        #expect(refused["status"] as? Int == 400 && refused["param"] as? String == "model", "\(refused)")
        #expect((refused["message"] as? String)?.contains("translate") == true, "\(refused)")

        // The Speech API: the language by Content-Language, the task by X-Arg, with curl.
        func speech(_ headers: String...) throws -> String {
            let reply = try ExternalTool.run(
                [
                    "curl", "--silent", "--header", "Authorization: Bearer \(token)", "--header",
                    "Content-Type: audio/wav",
                    "--header", "X-SpeechContext: Generic", "--data-binary", "@\(clip)",
                ] + headers.flatMap { ["--header", $0] } + ["http://127.0.0.1:\(server.port)/speech/v3/speechToText"])
            let document = try JSONSerialization.jsonObject(with: reply.standardOutput) as? [String: Any]
            let best = ((document?["Recognition"] as? [String: Any])?["NBest"] as? [[String: Any]])?.first
            return try #require(best?["Hypothesis"] as? String, "\(reply.output)")
        }
        #expect(try speech("Content-Language: fr-FR").contains("appelle"))
        let english = try speech("Content-Language: fr-FR", "X-Arg: Task=translate")
        #expect(!english.isEmpty && !english.contains("appelle"), "English: \(english)")
    }
}
