import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// `earshot listen` and `earshot bench` through a Realtime session (`--service ws://…/v1/realtime`), as a
/// user runs them, against `earshot serve` on loopback with a static key: the client's own WebSocket
/// client, capture chain and endpointer, and the service's Realtime route.
@Suite(.serialized, .waiting) struct RealtimeListenTests {
    typealias Server = ServeCommandTests.Server

    static let clip = OpenAIServiceTests.clip
    static let sentence =
        "Had he married a more amiable woman, he might have been made still more respectable than he was."
    static let sampleCorpus = OpenAIServiceTests.root.appendingPathComponent("corpora/real/sample").path

    /// A service with one static key, the key, and the clip followed by 2 s of silence (so the client's
    /// endpointer ends on endingSilence), in `directory`.
    static func serve(in directory: TemporaryDirectory) throws -> (server: Server, key: String, clip: String) {
        let key = "sk-earshot-realtime-listen-0123456789"
        let keys = try directory.writeSecret(Array("\(key)\n".utf8), to: "keys.txt")
        let padded = directory.file("padded.wav")
        let sox = try ExternalTool.run(["sox", clip, padded, "pad", "0", "2"])
        try #require(sox.status == 0, "\(sox.standardError)")
        return (try Server(arguments: ["--api-keys", keys]), key, padded)
    }

    /// The client options for `server`'s Realtime route. The suite shares two cores with every other
    /// suite, so the answer may take far longer than on a quiet machine: these tests are about what is
    /// answered and in which order, not how fast.
    static func service(_ server: Server, key: String) -> [String] {
        ["--service", "ws://127.0.0.1:\(server.port)/v1/realtime", "--token", key, "--server-response-timeout", "240"]
    }

    static func earshot(_ arguments: [String]) throws -> ExternalTool.Result {
        try ExternalTool.run([ExternalTool.earshotPath] + arguments)
    }

    /// The display's plain lines without their wall-clock stamp (`[  1.234] `).
    static func lines(_ standardError: String) -> [String] {
        standardError.split(separator: "\n").map { line in
            guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return String(line) }
            return String(line[line.index(after: close)...].drop { $0 == " " })
        }
    }

    @Test func listenStreamsAClipIntoARealtimeSessionWithPartialResults() throws {
        let directory = try TemporaryDirectory("earshot-realtime-listen")
        defer { directory.remove() }
        let (server, key, padded) = try Self.serve(in: directory)
        defer { _ = server.stop() }
        // At the pace of a microphone, with the service's PocketSphinx model: its partial hypotheses cost
        // next to nothing, so the service stays caught up and sends deltas however loaded the machine is
        // (Whisper's partial decodes are skipped by design when the service falls behind, which a machine
        // running every suite at once makes it).
        let result = try Self.earshot(
            [
                "listen", "--file", padded, "--realtime", "--partial-results", "--model", "pocketsphinx-en-us",
                // Taking the model's recognizer for the session: seconds when every suite runs at once.
                "--connection-timeout", "90",
            ] + Self.service(server, key: key))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.output.lowercased().hasPrefix("had he married"), "\(result.standardError)")
        let lines = Self.lines(result.standardError)
        // The SDK's states and events, in order.
        let expected = [
            "state Idle → Connecting", "state Connecting → Recording", "listening",
            "stopped listening (endingSilence)", "state Recording → SendingAudioData",
            "state SendingAudioData → Processing", "state Processing → Idle", "recognized: ",
        ]
        var position = lines.startIndex
        for step in expected {
            let found = lines[position...].firstIndex { $0.contains(step) }
            #expect(found != nil, "missing \(step) after line \(position): \(result.standardError)")
            position = found.map { $0 + 1 } ?? position
        }
        // Partial results while the clip plays: each grows the text before it, all before the final.
        let partials = lines.enumerated().filter { $0.element.hasPrefix("partial (") }
        #expect(!partials.isEmpty, "no partial result: \(result.standardError)")
        let texts = partials.map { $0.element.split(separator: ":", maxSplits: 1).last.map(String.init) ?? "" }
        for (before, after) in zip(texts, texts.dropFirst()) {
            #expect(after.hasPrefix(before) && after.count > before.count, "\(before) → \(after)")
        }
        let recognized = try #require(lines.firstIndex { $0.hasPrefix("recognized: ") })
        #expect(partials.allSatisfy { $0.offset < recognized })
    }

    @Test func listenPrintsTheRepliesJSONAndAWrongKeyIsRefusedByName() throws {
        let directory = try TemporaryDirectory("earshot-realtime-json")
        defer { directory.remove() }
        let (server, key, padded) = try Self.serve(in: directory)
        defer { _ = server.stop() }
        let result = try Self.earshot(["listen", "--file", padded, "--json"] + Self.service(server, key: key))
        #expect(result.status == 0, "\(result.standardError)")
        let reply = try #require(
            try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any], "\(result.output)")
        #expect(reply["text"] as? String == Self.sentence, "\(reply)")
        // The service refuses the key on the socket (an error event, then close 1008): a 401, exit 3.
        let wrong = try Self.earshot(
            ["listen", "--file", padded] + Self.service(server, key: "sk-not-a-key-of-this-service-000"))
        #expect(wrong.status == 3, "\(wrong.standardError)")
        #expect(wrong.output.isEmpty)
        #expect(wrong.standardError.contains("HTTP 401"), "\(wrong.standardError)")
        #expect(wrong.standardError.contains("invalid_api_key"), "\(wrong.standardError)")
        #expect(wrong.standardError.contains("Incorrect API key"), "\(wrong.standardError)")
    }

    @Test func benchReportsLatencyOverOneSessionPerStream() throws {
        let directory = try TemporaryDirectory("earshot-realtime-bench")
        defer { directory.remove() }
        let (server, key, _) = try Self.serve(in: directory)
        let result = try Self.earshot(
            [
                "bench", "--corpus", Self.sampleCorpus, "--streams", "1", "--duration", "20", "--speed", "4", "--json",
                "--partial-results",
            ] + Self.service(server, key: key))
        let log = server.stop().standardError
        #expect(result.status == 0, "\(result.standardError)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any], "\(result.output)")
        #expect(document["url"] as? String == "ws://127.0.0.1:\(server.port)/v1/realtime?intent=transcription")
        let level = try #require((document["levels"] as? [[String: Any]])?.first)
        #expect(level["failed"] as? Int == 0, "\(level)")
        // How many utterances fit in the level's time depends on the machine (every suite runs beside
        // this one); with two or more, the session check below shows them sharing one session.
        let completed = level["completed"] as? Int ?? 0
        #expect(completed >= 1, "\(level)")
        let p50 = try #require(level["p50_s"] as? Double, "\(level)")
        let endpoint = try #require(level["endpoint_p50_s"] as? Double, "\(level)")
        #expect(endpoint > 0 && endpoint < p50)
        let utterances = try #require(level["utterances"] as? [[String: Any]])
        #expect(utterances.allSatisfy { ($0["transcript"] as? String)?.isEmpty == false }, "\(utterances)")
        #expect((level["wer"] as? Double ?? 1) < 0.5, "\(utterances)")
        // Every utterance of the stream went over the one session it opened.
        let opened = log.components(separatedBy: "realtime session opened").count - 1
        #expect(opened == 1, "\(opened) sessions for \(completed) utterances: \(log)")
    }

    @Test func aRealtimeURLIsCheckedBeforeAnythingIsCaptured() throws {
        let wrongPath = try Self.earshot(
            ["listen", "--file", Self.clip, "--service", "ws://127.0.0.1:9/wrong/path", "--token", "x"])
        #expect(wrongPath.status == 1, "\(wrongPath.standardError)")
        #expect(wrongPath.standardError.contains("--service"), "\(wrongPath.standardError)")
        #expect(wrongPath.standardError.contains("/v1/realtime"), "\(wrongPath.standardError)")
        let http = try Self.earshot(
            ["listen", "--file", Self.clip, "--service", "http://127.0.0.1:9", "--api", "realtime", "--token", "x"])
        #expect(http.status == 1, "\(http.standardError)")
        #expect(http.standardError.contains("--api realtime"), "\(http.standardError)")
        // A Realtime session transcribes live audio; transcribe says so rather than failing later.
        let transcribe = try Self.earshot(
            ["transcribe", Self.clip, "--service", "ws://127.0.0.1:9/v1/realtime", "--token", "x"])
        #expect(transcribe.status == 1, "\(transcribe.standardError)")
        #expect(transcribe.standardError.contains("--service"), "\(transcribe.standardError)")
        #expect(transcribe.standardError.contains("live"), "\(transcribe.standardError)")
        // Nothing listens there: a connection failure, exit 3.
        let unreachable = try Self.earshot(
            [
                "listen", "--file", Self.clip, "--service", "ws://127.0.0.1:9/v1/realtime", "--token", "x",
                "--connection-timeout", "2",
            ])
        #expect(unreachable.status == 3, "\(unreachable.standardError)")
        #expect(unreachable.standardError.contains("ConnectionFailure"), "\(unreachable.standardError)")
    }
}
