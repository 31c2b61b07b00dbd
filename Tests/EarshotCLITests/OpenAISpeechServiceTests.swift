import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// `earshot serve`'s `POST /v1/audio/speech` as its users reach it: with the official `openai` Python
/// client (whole answers and `with_streaming_response`), checked by ffmpeg and by the recognizer.
@Suite(.serialized, .waiting) struct OpenAISpeechServiceTests {
    typealias Server = ServeCommandTests.Server

    @Test func theOfficialClientSpeaksStreamsAndIsRefusedClearly() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: OpenAIServiceTests.python),
            "\(OpenAIServiceTests.python) is missing: `make openai-client` installs the openai package there")
        let server = try Server()
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server, scope: "TTS")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = try ExternalTool.run([
            OpenAIServiceTests.python,
            OpenAIServiceTests.root.appendingPathComponent("Tests/Python/openai_speech_client.py").path,
            "http://127.0.0.1:\(server.port)/v1", token, directory.path,
        ])
        try #require(run.status == 0, "the openai client failed: \(run.standardError)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: run.standardOutput) as? [String: Any], "\(run.output)")

        // The whole WAV: ffmpeg reads 24 kHz mono, and the recognizer reads the sentence back.
        let wav = try #require(report["wav"] as? String)
        let probe = try ExternalTool.run([
            "ffprobe", "-v", "error", "-show_entries", "stream=sample_rate,channels", "-of", "csv=p=0", wav,
        ])
        #expect(probe.output.trimmingCharacters(in: .whitespacesAndNewlines) == "24000,1", "\(probe.output)")
        let heard = try ExternalTool.run([ExternalTool.earshotPath, "transcribe", wav])
        #expect(heard.output.lowercased().contains("dark blue background"), "\(heard.output)")

        // The streamed PCM: chunked, no length, 16-bit little-endian at 24 kHz that reads back.
        let headers = try #require(report["stream_headers"] as? [String: Any])
        #expect(headers["transfer-encoding"] as? String == "chunked")
        #expect(headers["content-length"] is NSNull)
        #expect(headers["content-type"] as? String == "audio/pcm")
        let pcm = try #require(report["pcm"] as? String)
        let pcmHeard = try ExternalTool.run([
            ExternalTool.earshotPath, "transcribe", "--rate", "24000", "--encoding", "s16le", pcm,
        ])
        #expect(pcmHeard.output.lowercased().contains("dark blue background"), "\(pcmHeard.output)")
        let seconds = Double((try FileManager.default.attributesOfItem(atPath: pcm)[.size] as? Int) ?? 0) / 48_000
        #expect(seconds > 2 && seconds < 7, "two sentences at speed 1.25: \(seconds) s")

        // Refusals in OpenAI's shape, naming the field.
        func refusal(_ key: String) -> (Int, String)? {
            guard let document = report[key] as? [String: Any] else { return nil }
            return (document["status"] as? Int ?? 0, document["message"] as? String ?? "")
        }
        let mp3 = try #require(refusal("mp3"), "mp3 was accepted")
        #expect(mp3.0 == 400 && mp3.1.contains("response_format 'mp3'"))
        let voice = try #require(refusal("voice"), "an unknown voice was accepted")
        #expect(voice.0 == 400 && voice.1.contains("voice: no voice 'nobody'"))
        let long = try #require(refusal("too_long"), "4097 characters were accepted")
        #expect(long.0 == 400 && long.1.contains("the limit is 4096"))
        let speed = try #require(refusal("speed"), "speed 9 was accepted")
        #expect(speed.0 == 400 && speed.1.contains("speed"))
        let wrongKey = try #require(refusal("wrong_key"), "a wrong key was accepted")
        #expect(wrongKey.0 == 401)
    }

    /// A token of scope SPEECH (Speech to Text) does not open Text to Speech.
    @Test func aTokenWithoutTheTTSScopeIsRefused() throws {
        let server = try Server()
        defer { _ = server.stop() }
        let speechOnly = try ServeHardeningTests.token(server, scope: "SPEECH")
        let both = try ServeHardeningTests.token(server, scope: "SPEECH,TTS")
        func post(_ token: String) throws -> String {
            try ExternalTool.run([
                "curl", "--silent", "--output", "/dev/null", "--write-out", "%{http_code}",
                "--header", "Authorization: Bearer \(token)", "--header", "Content-Type: application/json",
                "--data", #"{"model":"tts-1","voice":"nova","input":"Hello there."}"#,
                "http://127.0.0.1:\(server.port)/v1/audio/speech",
            ]).output
        }
        #expect(try post(speechOnly) == "401")
        #expect(try post(both) == "200")
    }
}
