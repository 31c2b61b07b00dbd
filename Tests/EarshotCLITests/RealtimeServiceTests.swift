import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// `earshot serve`'s Realtime transcription sessions as their users reach them: the official `openai`
/// Python package's realtime client (with `websockets`), and the page at `/` in Debian's chromium driven
/// headless by Playwright, with a LibriVox clip for a microphone. Both from `.earshot/venv` (`make
/// realtime-clients`, which `make test` runs).
@Suite(.serialized, .waiting) struct RealtimeServiceTests {
    typealias Server = ServeCommandTests.Server

    static let clip = OpenAIServiceTests.clip
    static let sentence =
        "Had he married a more amiable woman, he might have been made still more respectable than he was."

    static func python(_ script: String, _ arguments: [String]) throws -> [String: Any] {
        try #require(
            FileManager.default.isExecutableFile(atPath: OpenAIServiceTests.python),
            "\(OpenAIServiceTests.python) is missing: `make realtime-clients` installs the packages there")
        let run = try ExternalTool.run(
            [OpenAIServiceTests.python, OpenAIServiceTests.root.appendingPathComponent("Tests/Python/\(script)").path]
                + arguments)
        try #require(run.status == 0, "\(script) failed: \(run.standardError)")
        return try #require(
            try JSONSerialization.jsonObject(with: run.standardOutput) as? [String: Any], "\(run.output)")
    }

    /// A key file for the service, with one key.
    static func keys(in directory: TemporaryDirectory) throws -> (path: String, key: String) {
        let key = "sk-earshot-realtime-0123456789abcdef"
        return (try directory.writeSecret(Array("\(key)\n".utf8), to: "keys.txt"), key)
    }

    @Test func theOfficialClientStreamsAClipAtRealTimeAndGetsItsWords() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (keys, key) = try Self.keys(in: directory)
        // The API's own format: 24 kHz PCM16, then 1.5 s of silence for the endpoint.
        let raw = directory.file("clip24.raw")
        let sox = try ExternalTool.run(
            [
                "sox", Self.clip, "-r", "24000", "-b", "16", "-e", "signed", "-c", "1", "-t", "raw", raw, "pad", "0",
                "1.5",
            ])
        try #require(sox.status == 0, "\(sox.standardError)")
        let server = try Server(arguments: ["--api-keys", keys])
        defer { _ = server.stop() }
        let report = try Self.python(
            "openai_realtime_client.py", ["http://127.0.0.1:\(server.port)/v1", key, raw])
        let events = try #require(report["events"] as? [[String: Any]])
        let types = events.compactMap { $0["type"] as? String }
        #expect(types.first == "session.created" && types.dropFirst().first == "session.updated", "\(types)")
        let turn = types.filter { !$0.hasSuffix(".delta") && !$0.hasPrefix("session.") }
        let errors = events.filter { $0["type"] as? String == "error" }
        #expect(
            turn == [
                "input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped",
                "input_audio_buffer.committed", "conversation.item.input_audio_transcription.completed",
            ], "\(types); errors: \(errors)")
        let completed = try #require(events.last)
        #expect(completed["transcript"] as? String == Self.sentence, "\(completed)")
        // Deltas only add to the text: each brings something, and what they build grows.
        var built = ""
        for delta in events.filter({ $0["type"] as? String == "conversation.item.input_audio_transcription.delta" }) {
            let piece = try #require(delta["delta"] as? String)
            #expect(!piece.isEmpty)
            #expect(delta["item_id"] as? String == completed["item_id"] as? String)
            built += piece
        }
        // Whether deltas come at all depends on the machine: a service behind its client skips partial
        // decodes so that the turn's end is seen on time. RealtimeListenTests requires them at a
        // microphone's pace; here the ones that came must only add.
        let stopped = try #require(events.first { $0["type"] as? String == "input_audio_buffer.speech_stopped" })
        #expect((6_300...7_200).contains(stopped["audio_end_ms"] as? Int ?? 0), "\(stopped)")
    }

    /// While a turn decodes, the session answers its socket's pings and is not idle. A client's
    /// keep-alive (the `openai` client's `websockets` pings every 20 s and gives up 20 s later) and the
    /// idle timeout are about the client, and must not depend on how long a decode takes on a loaded
    /// machine. Here the turn is three LibriVox sentences, the clip first (about 20 s, sent at once; not
    /// one sentence repeated, whose compressible text sends Whisper through every fallback temperature)
    /// and the idle timeout 0.3 s, far less than its decode. The session's settings go with the audio, so
    /// the client never keeps the service waiting. Round trips are sequential, so had the pings waited
    /// for the decode, at most one could end between the commit and the completed event.
    @Test func aDecodingTurnAnswersPingsAndIsNotIdle() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (keys, key) = try Self.keys(in: directory)
        let raw = directory.file("three24.raw")
        let others = ["0870", "0930"].map {
            "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-\($0).wav"
        }
        let sox = try ExternalTool.run(
            ["sox", Self.clip] + others + ["-r", "24000", "-b", "16", "-e", "signed", "-c", "1", "-t", "raw", raw])
        try #require(sox.status == 0, "\(sox.standardError)")
        let server = try Server(arguments: [
            "--api-keys", keys, "--realtime-idle-timeout", "0.3", "--realtime-max-audio-ahead", "60",
        ])
        defer { _ = server.stop() }
        let report = try Self.python(
            "realtime_manual_turn.py", ["ws://127.0.0.1:\(server.port)/v1/realtime?intent=transcription", key, raw])
        #expect(report["errors"] == nil, "\(report)")
        #expect(
            (report["events"] as? [String])?.last == "conversation.item.input_audio_transcription.completed",
            "\(report)")
        #expect((report["transcript"] as? String)?.hasPrefix(Self.sentence) == true, "\(report)")
        #expect((report["round_trips_before_completed"] as? Int ?? 0) >= 3, "\(report)")
    }

    @Test func thePageShowsTheClipsWordsAsAFinal() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            "Debian's chromium is missing: `make realtime-clients` installs it")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (keys, key) = try Self.keys(in: directory)
        // The microphone: the clip, then silence for the endpoint (chromium loops the file).
        let wav = directory.file("microphone.wav")
        let sox = try ExternalTool.run(["sox", Self.clip, wav, "pad", "0.5", "2"])
        try #require(sox.status == 0, "\(sox.standardError)")
        let server = try Server(arguments: ["--api-keys", keys])
        defer { _ = server.stop() }
        let report = try Self.python("realtime_page.py", ["http://127.0.0.1:\(server.port)/#key=\(key)", wav])
        guard let first = (report["finals"] as? [String])?.first else {
            // Why the session ended is in the service's log.
            Issue.record(
                "no final on the page: \(report)\nthe service's log:\n\(server.stop().standardError.suffix(6000))")
            return
        }
        #expect(first.hasPrefix(Self.sentence), "\(first)")
        #expect(first.contains("ms after the end of speech"), "\(first)")
        #expect((report["states"] as? [String])?.contains("speech") == true, "\(report)")
        #expect(report["url_after_start"] as? String == "http://127.0.0.1:\(server.port)/", "the key leaves the URL")
        #expect(report["key_field"] as? String == "", "the page forgets the key once it holds a secret")
    }
}
