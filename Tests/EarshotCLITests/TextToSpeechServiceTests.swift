import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// `POST /speech/v3/textToSpeech`, the Speech API's Text to Speech, driven with curl against a real
/// `earshot serve`: audio that ffmpeg reads and the recognizer reads back, streamed (chunked), SSML
/// refusals naming the element, the `TTS` scope, and the `X-Arg` and `Accept` checks.
@Suite(.serialized, .waiting) struct TextToSpeechServiceTests {
    typealias Server = ServeCommandTests.Server

    /// One request with curl: status, headers, and the body saved to `output`.
    static func post(
        _ server: Server, token: String, contentType: String, accept: String? = nil, xArg: String? = nil,
        body: String, output: String
    ) throws -> (status: Int, headers: String, body: String) {
        let headersFile = output + ".headers"
        var arguments = [
            "curl", "--silent", "--dump-header", headersFile, "--output", output, "--write-out", "%{http_code}",
            "--header", "Authorization: Bearer \(token)", "--header", "Content-Type: \(contentType)",
            "--data-binary", body,
        ]
        if let accept { arguments += ["--header", "Accept: \(accept)"] }
        if let xArg { arguments += ["--header", "X-Arg: \(xArg)"] }
        let result = try ExternalTool.run(arguments + ["http://127.0.0.1:\(server.port)/speech/v3/textToSpeech"])
        let headers = (try? String(contentsOfFile: headersFile, encoding: .utf8)) ?? ""
        // JSON escapes "/" as "\/"; the checks read the text as a person would.
        let text = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data(), as: UTF8.self)
            .replacingOccurrences(of: "\\/", with: "/")
        return (Int(result.output) ?? 0, headers.lowercased(), text)
    }

    @Test func textAndSSMLAreSpokenStreamedAndReadBack() throws {
        let server = try Server()
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server, scope: "TTS")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }

        let wav = directory.file("speech.wav")
        let spoken = try Self.post(
            server, token: token, contentType: "text/plain", accept: "audio/x-wav", xArg: "VoiceName=crystal,Tempo=1.1",
            body: "Glue the sheet to the dark blue background.", output: wav)
        #expect(spoken.status == 200, "\(spoken.body)")
        #expect(spoken.headers.contains("transfer-encoding: chunked") && spoken.headers.contains("audio/x-wav"))
        let probe = try ExternalTool.run([
            "ffprobe", "-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels", "-of", "csv=p=0", wav,
        ])
        #expect(probe.output.trimmingCharacters(in: .whitespacesAndNewlines) == "pcm_s16le,16000,1", "\(probe.output)")
        let heard = try ExternalTool.run([ExternalTool.earshotPath, "transcribe", wav])
        #expect(heard.output.lowercased().contains("dark blue background"), "\(heard.output)")

        // SSML, as AMR-NB.
        let amr = directory.file("speech.amr")
        let ssml = try Self.post(
            server, token: token, contentType: "application/ssml+xml", accept: "audio/amr",
            body:
                #"<speak version="1.0" xml:lang="en-US">The birch canoe <break time="300ms"/> slid on the smooth planks.</speak>"#,
            output: amr)
        #expect(ssml.status == 200, "\(ssml.body)")
        let amrProbe = try ExternalTool.run([
            "ffprobe", "-v", "error", "-show_entries", "stream=codec_name,sample_rate", "-of", "csv=p=0", amr,
        ])
        #expect(amrProbe.output.trimmingCharacters(in: .whitespacesAndNewlines) == "amr_nb,8000", "\(amrProbe.output)")

        // Refusals, in the Speech API's shape, naming what was wrong.
        let error = directory.file("error.json")
        let element = try Self.post(
            server, token: token, contentType: "application/ssml+xml", body: "<speak>Hello <audio src=\"x\"/></speak>",
            output: error)
        #expect(
            element.status == 400 && element.body.contains("<audio>") && element.body.contains("SVC0001"), "\(element)")
        let accept = try Self.post(
            server, token: token, contentType: "text/plain", accept: "audio/mpeg", body: "Hello.", output: error)
        #expect(accept.status == 400 && accept.body.contains("Accept audio/mpeg"), "\(accept)")
        let tempo = try Self.post(
            server, token: token, contentType: "text/plain", xArg: "Tempo=9", body: "Hi.", output: error)
        #expect(tempo.status == 400 && tempo.body.contains("X-Arg Tempo=9"), "\(tempo)")
        let voice = try Self.post(
            server, token: token, contentType: "text/plain", xArg: "VoiceName=nobody", body: "Hi.", output: error)
        #expect(voice.status == 400 && voice.body.contains("no voice 'nobody'"), "\(voice)")
        let type = try Self.post(server, token: token, contentType: "application/json", body: "{}", output: error)
        #expect(type.status == 400 && type.body.contains("text/plain or application/ssml+xml"), "\(type)")
        let long = try Self.post(
            server, token: token, contentType: "text/plain", body: String(repeating: "a", count: 4_097), output: error)
        #expect(long.status == 400 && long.body.contains("the limit is 4096"), "\(long)")
        let huge = try Self.post(
            server, token: token, contentType: "application/ssml+xml",
            body: "<speak>" + String(repeating: "a", count: 20_000) + "</speak>", output: error)
        #expect(huge.status == 413, "\(huge)")
    }

    /// Text to Speech needs the `TTS` scope; a Speech to Text token is refused with the Speech API's 401.
    @Test func aTokenWithoutTheTTSScopeIsRefused() throws {
        let server = try Server()
        defer { _ = server.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let speechOnly = try ServeHardeningTests.token(server, scope: "SPEECH")
        let refused = try Self.post(
            server, token: speechOnly, contentType: "text/plain", body: "Hello.", output: directory.file("out"))
        #expect(refused.status == 401 && refused.body.contains("POL0001"), "\(refused)")
        let both = try ServeHardeningTests.token(server, scope: "SPEECH,TTS")
        let spoken = try Self.post(
            server, token: both, contentType: "text/plain", body: "Hello.", output: directory.file("out"))
        #expect(spoken.status == 200)
    }

    /// Every Text to Speech limit is a `serve` option, and a flood is turned away rather than queued:
    /// with `--max-syntheses 1`, an answer its client does not read (so the synthesis waits on the full
    /// socket, holding its place) makes the next request a 503 naming the option; once that client
    /// hangs up, its place comes back.
    @Test func limitsAreServeOptionsAndAFloodIsTurnedAway() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("answer")
        let small = try Server(
            arguments: ["--max-speech-characters", "100", "--max-ssml-bytes", "200", "--log-level", "warning"])
        defer { _ = small.stop() }
        let token = try ServeHardeningTests.token(small, scope: "TTS")
        let long = try Self.post(
            small, token: token, contentType: "text/plain", body: String(repeating: "word ", count: 21), output: output)
        #expect(long.status == 400 && long.body.contains("105 characters; the limit is 100"), "\(long)")
        let ssml = "<speak>" + String(repeating: "words and ", count: 25) + "</speak>"
        let big = try Self.post(small, token: token, contentType: "application/ssml+xml", body: ssml, output: output)
        #expect(big.status == 413 && big.body.contains("--max-ssml-bytes"), "\(big)")

        // The held answer's write timeout is long, so a starved machine cannot end it before the flood
        // below has been turned away.
        let server = try Server(arguments: [
            "--max-syntheses", "1", "--max-speech-characters", "40000", "--write-timeout", "600", "--log-level",
            "warning",
        ])
        defer { _ = server.stop() }
        let speaker = try ServeHardeningTests.token(server, scope: "TTS")
        // About 23 minutes of speech (46 MB of WAV), never read but for its first bytes: more than the
        // socket buffers hold (Linux lets a loopback receiver's buffer grow to 32 MiB; an 8 MB answer
        // fitted once the test had read its start, and the synthesis ended). The diphone voice makes it
        // cheaply (600× real time), and the synthesis waits once the buffers are full.
        let text = String(repeating: "The kettle began to whistle on the hot stove. ", count: 500)
        let holding = try LoopbackConnection(port: server.port)
        defer { holding.hangUp() }
        #expect(
            holding.send(
                "POST /speech/v3/textToSpeech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(speaker)\r\n"
                    + "X-Arg: VoiceName=kal16\r\nContent-Type: text/plain\r\nContent-Length: \(text.utf8.count)\r\n\r\n"
                    + text))
        // The held request has its place once its answer has begun; asked for sooner, another request
        // could take the place first and the held one be refused (the race two CI runs lost: a loaded
        // machine parsed the held body after the next request had begun). The bounds are for a starved
        // service (a machine busy beside it at a higher priority); idle, the whole test takes two seconds.
        let started = Date()
        while holding.statuses.isEmpty, !holding.isClosedByPeer, Date().timeIntervalSince(started) < 240 {
            holding.read(for: 0.2)
        }
        try #require(holding.statuses.first == 200, "the held request: \(holding.text.prefix(300))")
        var refused: (status: Int, headers: String, body: String)?
        while refused == nil, Date().timeIntervalSince(started) < 240 {
            let next = try Self.post(server, token: speaker, contentType: "text/plain", body: "Hello.", output: output)
            if next.status == 503 { refused = next } else { Thread.sleep(forTimeInterval: 0.2) }
        }
        #expect(refused?.body.contains("--max-syntheses") == true, "\(String(describing: refused))")
        #expect(refused?.headers.contains("retry-after: 1") == true, "\(String(describing: refused))")
        holding.hangUp()
        let hungUp = Date()
        var status = 0
        while status != 200, Date().timeIntervalSince(hungUp) < 240 {
            status = try Self.post(server, token: speaker, contentType: "text/plain", body: "Hello.", output: output)
                .status
            if status != 200 { Thread.sleep(forTimeInterval: 0.2) }
        }
        #expect(status == 200, "the place never came back after the client hung up")
    }
}
