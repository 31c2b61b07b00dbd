import EarshotTesting
import Foundation
import Testing

/// `earshot serve`'s OpenAI-compatible `/v1` as its users reach it: with the official `openai` Python
/// client (PyPI, installed by `make test` into `.earshot/venv`) and with curl.
@Suite(.serialized) struct OpenAIServiceTests {
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
        #expect(report["models"] as? [String] == ["pocketsphinx-en-us"])
        let text = try #require(report["json"] as? String)
        #expect(text.hasPrefix("had he married a more amiable woman"), "\(text)")

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
        let unknownModel = try post(["model=whisper-1", "file=@\(Self.clip)"])
        #expect(unknownModel.status == 400)
        #expect(error(unknownModel.body)?["param"] as? String == "model", "\(unknownModel.body)")
        #expect((error(unknownModel.body)?["message"] as? String)?.contains("pocketsphinx-en-us") == true)
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
}
