import EarshotTestTraits
import EarshotTesting
import Foundation
import Synchronization
import Testing

/// What a Text to Speech answer may cost `earshot serve`, against the real service on loopback with
/// curl and raw sockets: long text spoken in flat memory and in turns with other answers, a client
/// that reads nothing dropped after `--write-timeout`, answers held to `--max-speech-duration`, and
/// oversized requests refused with 413 or 400 naming the limit or the field.
@Suite(.serialized, .waiting) struct TextToSpeechLimitsTests {
    typealias Server = ServeCommandTests.Server

    /// One `POST /v1/audio/speech` with curl: the status, curl's exit status, and the answer's body.
    static func speech(_ server: Server, token: String, body: Data, in directory: TemporaryDirectory) throws
        -> (status: Int, exit: Int32, body: Data)
    {
        let request = directory.file("request.json")
        let answer = directory.file("answer")
        try body.write(to: URL(fileURLWithPath: request))
        let result = try ExternalTool.run([
            "curl", "--silent", "--output", answer, "--write-out", "%{http_code}",
            "--header", "Authorization: Bearer \(token)", "--header", "Content-Type: application/json",
            "--data-binary", "@\(request)", "http://127.0.0.1:\(server.port)/v1/audio/speech",
        ])
        let data = (try? Data(contentsOf: URL(fileURLWithPath: answer))) ?? Data()
        return (Int(result.output) ?? 0, result.status, data)
    }

    static func json(_ fields: [String: Any]) throws -> Data { try JSONSerialization.data(withJSONObject: fields) }

    /// A raw request for `/v1/audio/speech`, for a client that reads at its own pace (or not at all).
    static func rawSpeech(token: String, json: Data) -> [UInt8] {
        Array(
            ("POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(json.count)\r\n\r\n").utf8) + Array(json)
    }

    /// Whether a chunked answer has ended with its last chunk.
    static func isComplete(_ received: [UInt8]) -> Bool { received.suffix(5) == Array("0\r\n\r\n".utf8) }

    /// Issue 51, item 12: 4 096 nines at speed 0.25 were one Flite utterance of nearly two hours, built
    /// whole before the first byte (345 s, a 6.0 GB peak), and a "Hello there." waited 29 s behind it.
    /// Now the text is spoken in pieces of at most 200 characters as the client reads: the first audio
    /// comes after the first piece, the service's memory stays within a few hundred MiB of where it
    /// started, and a short request sent meanwhile is answered while the long one is still speaking.
    @Test func longUnpunctuatedTextStreamsInFlatMemoryBesideAShortRequest() throws {
        // The write timeout has a test of its own: here a reader starved by a loaded machine (a whole
        // suite's run) must not be taken for one that stopped reading.
        let server = try Server(arguments: ["--log-level", "warning", "--write-timeout", "600"])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server, scope: "TTS")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pid = server.process.processIdentifier
        let hello = try Self.json([
            "model": "tts-1", "voice": "alloy", "input": "Hello there.", "response_format": "pcm",
        ])
        #expect(try Self.speech(server, token: token, body: hello, in: directory).status == 200)
        let before = try #require(ServeHardeningTests.residentMiB(pid))

        let long = try LoopbackConnection(port: server.port)
        defer { long.hangUp() }
        let nines = try Self.json([
            "model": "tts-1", "voice": "alloy", "response_format": "pcm", "speed": 0.25,
            "input": String(repeating: "9", count: 4_096),
        ])
        #expect(long.send(Self.rawSpeech(token: token, json: nines)))
        var peak = before
        /// Reads the long answer until `done` says so, it ends, or `bound` seconds pass (a starved machine's
        /// bound; idle, each wait here is seconds), noting the service's resident memory as it goes.
        func readLong(bound: Double, until done: () -> Bool) {
            let started = Date()
            while !done(), !long.isClosedByPeer, Date().timeIntervalSince(started) < bound {
                long.read(for: 0.5)
                peak = max(peak, ServeHardeningTests.residentMiB(pid) ?? 0)
            }
        }
        readLong(bound: 300) { long.read(for: 0).count > 1_000_000 }
        try #require(
            long.read(for: 0).count > 1_000_000,
            "no audio came: \(String(decoding: long.read(for: 0).prefix(300), as: UTF8.self))")
        #expect(long.statuses == [200])

        // A short request beside it, from another client.
        let short = ShortAnswer()
        let port = server.port
        let shortThread = Thread {
            let status = try? ExternalTool.run([
                "curl", "--silent", "--output", "/dev/null", "--write-out", "%{http_code}",
                "--header", "Authorization: Bearer \(token)", "--header", "Content-Type: application/json",
                "--data-binary", String(decoding: hello, as: UTF8.self), "http://127.0.0.1:\(port)/v1/audio/speech",
            ]).output
            short.status.withLock { $0 = Int(status ?? "") ?? -1 }
        }
        shortThread.start()
        readLong(bound: 300) { short.status.withLock { $0 } != nil }
        #expect(short.status.withLock { $0 } == 200)
        #expect(!long.isClosedByPeer && !Self.isComplete(long.read(for: 0)), "the long answer ended first")

        // Past the first two pieces (a piece of 200 nines at speed 0.25 is some 210 s, 10 MB of pcm).
        readLong(bound: 600) { long.read(for: 0).count > 24_000_000 }
        #expect(long.read(for: 0).count > 24_000_000 && !long.isClosedByPeer)
        let growth = peak - before
        #expect(growth < 400, "resident memory grew by \(Int(growth)) MiB from \(Int(before)) MiB")
    }

    /// Issue 51, item 13: an answer whose client reads nothing held its synthesis place and the whole
    /// answer in memory for good. Now the synthesis waits for the client, and after `--write-timeout`
    /// without a byte read the connection is closed: with `--max-syntheses 1`, the next request is
    /// answered, and the held answer ends incomplete.
    @Test func aClientThatReadsNothingIsDroppedAndItsPlaceReturned() throws {
        let server = try Server(arguments: ["--max-syntheses", "1", "--write-timeout", "3", "--log-level", "warning"])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server, scope: "TTS")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pid = server.process.processIdentifier
        let hello = try Self.json(["voice": "kal16", "input": "Hello.", "response_format": "pcm"])
        #expect(try Self.speech(server, token: token, body: hello, in: directory).status == 200)
        let before = try #require(ServeHardeningTests.residentMiB(pid))

        // Some ten minutes of speech, 29 MB of pcm: more than the connection's buffers hold.
        let holding = try LoopbackConnection(port: server.port)
        defer { holding.hangUp() }
        let nines = try Self.json([
            "voice": "kal16", "response_format": "pcm", "input": String(repeating: "9 ", count: 2_000),
        ])
        #expect(holding.send(Self.rawSpeech(token: token, json: nines)))
        let started = Date()
        while holding.statuses.isEmpty, !holding.isClosedByPeer, Date().timeIntervalSince(started) < 120 {
            holding.read(for: 0.2)
        }
        try #require(holding.statuses == [200], "\(holding.text.prefix(300))")

        // It reads nothing more. Its place comes back once it is dropped: until then, 503.
        var statuses: [Int] = []
        let asking = Date()
        while statuses.last != 200, Date().timeIntervalSince(asking) < 240 {
            statuses.append(try Self.speech(server, token: token, body: hello, in: directory).status)
            if statuses.last != 200 { Thread.sleep(forTimeInterval: 0.2) }
        }
        #expect(statuses.last == 200 && statuses.dropLast().allSatisfy { $0 == 503 }, "\(statuses)")
        // The held answer was cut off, not finished.
        holding.read(for: 120)
        #expect(holding.isClosedByPeer && !Self.isComplete(holding.read(for: 0)))
        #expect(holding.read(for: 0).count < 29_000_000)
        let after = try #require(ServeHardeningTests.residentMiB(pid))
        #expect(after - before < 150, "resident memory \(Int(before)) → \(Int(after)) MiB")
    }

    /// Issue 51, item 14: 16 KB of SSML made 2.2 hours of audio. An answer sure to run past
    /// `--max-speech-duration` is refused before synthesis, naming the option; one that runs past it
    /// anyway is cut at the limit and ends incomplete (curl: exit status 18, a partial file).
    @Test func answersAreHeldToTheLongestSpeech() throws {
        let server = try Server(arguments: ["--max-speech-duration", "20", "--log-level", "warning"])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server, scope: "TTS")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("speech.wav")

        let breaks = "<speak>hi" + String(repeating: #"<break time="10s"/>"#, count: 800) + "</speak>"
        let ssml = try TextToSpeechServiceTests.post(
            server, token: token, contentType: "application/ssml+xml", body: breaks, output: output)
        #expect(ssml.status == 413 && ssml.body.contains("--max-speech-duration"), "\(ssml.body)")
        #expect(ssml.body.contains("8000 s of it pauses"), "\(ssml.body)")

        let words = try Self.json(["voice": "kal16", "input": String(repeating: "word ", count: 800)])
        let openAI = try Self.speech(server, token: token, body: words, in: directory)
        let message = String(decoding: openAI.body, as: UTF8.self)
        #expect(openAI.status == 413 && message.contains("--max-speech-duration"), "\(message)")

        // 150 digits: at least 5 s by the bound, some 45 s spoken.
        let digits = String(repeating: "9 ", count: 150)
        let cut = try ExternalTool.run([
            "curl", "--silent", "--output", output, "--write-out", "%{http_code}",
            "--header", "Authorization: Bearer \(token)", "--header", "Content-Type: text/plain",
            "--header", "X-Arg: VoiceName=kal16", "--data-binary", digits,
            "http://127.0.0.1:\(server.port)/speech/v3/textToSpeech",
        ])
        #expect(cut.output == "200" && cut.status == 18, "curl: \(cut.status) \(cut.output)")
        let bytes = (try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        // 16 kHz 16-bit mono after a 44-byte header: 20 s is 640 044 bytes.
        #expect(bytes > 44 + 16 * 32_000 && bytes <= 44 + 20 * 32_000, "\(bytes) bytes")
    }

    /// Issue 51, item 16: 5 MB of text, 20 MB of JSON, 100 000-deep nesting and a 100 KB voice name
    /// were all answered `500 NIOTooManyBytesError`. Now a body over the limit is a 413 naming it, and
    /// a bad one within the limit a 400 naming the field, quoting the input cut short.
    @Test func oversizedRequestsAreRefusedNamingTheLimitOrTheField() throws {
        let server = try Server(arguments: ["--log-level", "warning"])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server, scope: "TTS")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func refusal(_ body: Data) throws -> (status: Int, message: String, param: String) {
            let answer = try Self.speech(server, token: token, body: body, in: directory)
            let document = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            let error = document?["error"] as? [String: Any]
            return (answer.status, error?["message"] as? String ?? "", error?["param"] as? String ?? "")
        }
        let tooLarge: [(String, Data)] = [
            ("5 MB of text", try Self.json(["voice": "alloy", "input": String(repeating: "a", count: 5_000_000)])),
            (
                "20 MB of JSON",
                try Self.json(["voice": "alloy", "input": "hi", "pad": [Int](repeating: 1, count: 10_000_000)])
            ),
            (
                "100 000-deep nesting",
                Data(
                    (#"{"input":"# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
                        + "}").utf8)
            ),
            ("a 100 KB voice name", try Self.json(["voice": String(repeating: "v", count: 100_000), "input": "hi"])),
        ]
        for (name, body) in tooLarge {
            let answer = try refusal(body)
            #expect(answer.status == 413 && answer.message.contains("--max-speech-characters"), "\(name): \(answer)")
        }
        // Within the size limit: 400 naming the field, the input quoted short.
        let deep = try refusal(
            Data(
                (#"{"input":"# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}")
                    .utf8))
        #expect(deep.status == 400 && deep.param == "body", "\(deep)")
        let voice = try refusal(try Self.json(["voice": String(repeating: "v", count: 20_000), "input": "hi"]))
        #expect(voice.status == 400 && voice.param == "voice" && voice.message.count < 400, "\(voice)")
        let format = try refusal(
            try Self.json(["voice": "alloy", "input": "hi", "response_format": String(repeating: "f", count: 20_000)]))
        #expect(format.status == 400 && format.param == "response_format" && format.message.count < 400, "\(format)")
    }
}

/// The status of the short request sent from another thread; nil until it is answered.
private final class ShortAnswer: Sendable {
    let status = Mutex<Int?>(nil)
}
