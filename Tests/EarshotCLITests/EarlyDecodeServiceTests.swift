import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// Issue 47, item 1, against a real `earshot serve` (Whisper) on loopback: the service watches each
/// upload for the speaker's pause and begins the final decode there, while the client's endpointer
/// waits out its ending silence. When only silence follows, that decode is the answer; when speech
/// comes back it is dropped and the whole utterance is decoded — nothing lost. The service's metrics
/// say which happened (`earshot_early_decodes_total{outcome}`). The service does this only while the
/// audio arrives at the speaker's pace, so the live bodies here are sent so (0.1 s every 0.1 s); a body
/// sent at once is a recording, answered when it ends. Behaviour and order only: the pauses are in the
/// audio, and a sender slower than the clock is as live as one on time.
@Suite(.serialized, .waiting) struct EarlyDecodeServiceTests {
    static let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0920.wav"

    /// The clip as L16 (16 kHz 16-bit mono, big-endian as RFC 2586 has it), through sox.
    static func pcm(_ path: String) throws -> [UInt8] {
        let converted = try ExternalTool.run(
            ["sox", path, "-t", "raw", "-r", "16000", "-e", "signed-integer", "-b", "16", "-c", "1", "-B", "-"])
        try #require(converted.status == 0, "\(converted.standardError)")
        return [UInt8](converted.standardOutput)
    }

    static func silence(seconds: Double) -> [UInt8] { [UInt8](repeating: 0, count: Int(seconds * 16_000) * 2) }

    /// Sends `audio` as one body, at once or `paced` as a microphone gives it (0.1 s every 0.1 s), and
    /// reads the answer.
    static func recognize(_ server: ServeCommandTests.Server, token: String, audio: [UInt8], paced: Bool = true)
        throws -> (Int, String)
    {
        let piece = 3_200  // 0.1 s of 16 kHz 16-bit mono
        return try recognize(
            server, token: token,
            chunks: paced
                ? stride(from: 0, to: audio.count, by: piece).map { Array(audio[$0..<min($0 + piece, audio.count)]) }
                : [audio], paced: paced)
    }

    /// Sends `chunks` as one body, at once or `paced` (each 0.1 s of audio, sent 0.1 s after the one
    /// before), and reads the answer.
    static func recognize(
        _ server: ServeCommandTests.Server, token: String, chunks: [[UInt8]],
        contentType: String = "audio/L16;rate=16000", paced: Bool = true
    ) throws -> (Int, String) {
        let connection = try LoopbackConnection(port: server.port)
        connection.send(
            ServeHardeningTests.speechHead(token: token, contentType: contentType, length: chunks.joined().count))
        let started = Date()
        for (index, chunk) in chunks.enumerated() {
            let due = Double(index) / 10 - Date().timeIntervalSince(started)
            if paced, due > 0 { Thread.sleep(forTimeInterval: due) }
            connection.send(chunk)
        }
        // The answer closes the connection (Connection: close), which ends the read; the bound only
        // keeps a broken service from holding the suite, loaded as a whole suite's run loads it.
        connection.read(for: 600)
        return (connection.statuses.first ?? 0, connection.text)
    }

    /// The value of one series on `/metrics` (`name{labels}`), 0 when it is not there.
    static func metric(_ server: ServeCommandTests.Server, _ series: String) throws -> Double {
        let connection = try LoopbackConnection(port: server.port)
        connection.send("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        connection.read(for: 120)
        let prefix = series + " "
        let line = connection.text.split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { Double($0.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    static func earlyDecodes(_ server: ServeCommandTests.Server, _ outcome: String) throws -> Double {
        try metric(server, "earshot_early_decodes_total{outcome=\"\(outcome)\"}")
    }

    @Test func theDecodeBegunAtThePauseIsTheAnswerUnlessSpeechComesBack() throws {
        let server = try ServeCommandTests.Server(arguments: ["--log-level", "warning"])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        let speech = try Self.pcm(Self.clip)

        // Speech, then the endpointer's wait: the early decode answers.
        let (status, text) = try Self.recognize(server, token: token, audio: speech + Self.silence(seconds: 1))
        #expect(status == 200, "\(text)")
        #expect(text.contains("Had he married a more amiable woman"), "\(text)")
        #expect(try Self.earlyDecodes(server, "used") == 1)
        let droppedBefore = try Self.earlyDecodes(server, "dropped")  // a pause at a comma may begin one

        // A pause mid-sentence, then the rest: the first early decode is dropped, the answer holds both
        // halves.
        let half = speech.count / 4 * 2
        let (again, both) = try Self.recognize(
            server, token: token,
            audio: Array(speech[..<half]) + Self.silence(seconds: 0.6) + Array(speech[half...])
                + Self.silence(seconds: 1))
        #expect(again == 200, "\(both)")
        #expect(both.contains("Had he") && both.contains("than he was"), "\(both)")
        #expect(try Self.earlyDecodes(server, "used") == 2)
        #expect(try Self.earlyDecodes(server, "dropped") >= droppedBefore + 1)
        // Every decode, early or not, took its turn on a core, and its CPU is counted.
        #expect(try Self.metric(server, "earshot_decodes_total{kind=\"final\"}") >= 3)
        #expect(try Self.metric(server, "earshot_decode_cpu_seconds_total{kind=\"final\"}") > 0)
    }

    /// Speex wideband sent as the speech client sends it: chunks of 0.1 s of audio at the speaker's pace
    /// (``EarshotCapture/CapturePipeline/maxChunkHold``). Its first kilobyte, gathered before the
    /// recognizer is lent, is a second of audio that arrived over a second: not a recording running
    /// ahead of the clock. And each chunk decodes to five 20 ms frames: a pause the detector sees in
    /// any of them counts, not only in the last.
    @Test func speexInTenthsOfASecondGetsTheDecodeBegunAtThePause() throws {
        let server = try ServeCommandTests.Server(arguments: ["--log-level", "warning"])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        let directory = try TemporaryDirectory("earshot-early-speex")
        defer { directory.remove() }
        let padded = directory.file("padded.wav")
        let speex = directory.file("padded.speex")
        // 1.5 s of silence first, as before a user speaks: Speex codes it in about 0.8 KiB, so the
        // kilobyte gathered before the lease holds more than a second of audio.
        let sox = try ExternalTool.run(["sox", Self.clip, padded, "pad", "1.5", "1"])
        try #require(sox.status == 0, "\(sox.standardError)")
        let encode = try ExternalTool.run([ExternalTool.earshotPath, "encode", "--format", "speex-wb", padded, speex])
        try #require(encode.status == 0, "\(encode.standardError)")
        let audio = try [UInt8](Data(contentsOf: URL(fileURLWithPath: speex)))
        // Five 20 ms frames (a length byte, then the frame) to a chunk, each sent when its audio is due.
        var chunks: [[UInt8]] = []
        var offset = 0
        while offset < audio.count {
            var end = offset
            for _ in 0..<5 where end < audio.count { end += 1 + Int(audio[end]) }
            chunks.append(Array(audio[offset..<min(end, audio.count)]))
            offset = end
        }
        let (status, text) = try Self.recognize(
            server, token: token, chunks: chunks, contentType: "audio/x-speex-with-header-byte;rate=16000")
        #expect(status == 200, "\(text)")
        #expect(text.contains("Had he married a more amiable woman"), "\(text)")
        #expect(try Self.earlyDecodes(server, "used") == 1)
    }

    /// The same recording sent at once runs far ahead of the clock: no decode is begun at its pauses
    /// (it would decode with the live window, and nobody waits out an ending silence), and the answer
    /// is the one decode after the upload ends.
    @Test func aRecordingSentAtOnceBeginsNoEarlyDecode() throws {
        let server = try ServeCommandTests.Server(arguments: ["--log-level", "warning"])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        let speech = try Self.pcm(Self.clip)
        let (status, text) = try Self.recognize(
            server, token: token, audio: speech + Self.silence(seconds: 1), paced: false)
        #expect(status == 200, "\(text)")
        #expect(text.contains("Had he married a more amiable woman"), "\(text)")
        #expect(try Self.earlyDecodes(server, "used") == 0)
        #expect(try Self.earlyDecodes(server, "dropped") == 0)
        #expect(try Self.metric(server, "earshot_decodes_total{kind=\"final\"}") == 1)
    }

    /// A Realtime session without turn detection, whose client commits at its own endpoint (as
    /// `earshot listen --service ws://…` does): the service still hears the pause of a live stream, and
    /// the commit finds the final decode begun there. The session's tally reaches the metrics when it
    /// ends.
    @Test func aRealtimeCommitFindsTheDecodeBegunAtThePause() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (keys, key) = try RealtimeServiceTests.keys(in: directory)
        let raw = directory.file("clip24.raw")
        let sox = try ExternalTool.run(
            ["sox", Self.clip, "-r", "24000", "-b", "16", "-e", "signed", "-c", "1", "-t", "raw", raw, "pad", "0", "1"])
        try #require(sox.status == 0, "\(sox.standardError)")
        let server = try ServeCommandTests.Server(arguments: ["--api-keys", keys, "--log-level", "warning"])
        defer { _ = server.stop() }
        let url = "ws://127.0.0.1:\(server.port)/v1/realtime?intent=transcription"
        // Sent at once, a recording: no decode is begun at its pause.
        let atOnce = try RealtimeServiceTests.python("realtime_manual_turn.py", [url, key, raw])
        #expect((atOnce["transcript"] as? String)?.hasPrefix(RealtimeServiceTests.sentence) == true, "\(atOnce)")
        // The session's tally reaches the metrics before its recognizer goes back to the pool.
        for _ in 0..<600 where try Self.metric(server, "earshot_recognizers_in_use") > 0 {
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(try Self.metric(server, "earshot_recognizers_in_use") == 0)
        #expect(try Self.earlyDecodes(server, "used") == 0 && Self.earlyDecodes(server, "dropped") == 0)
        // At the speaker's pace, live: the commit finds the decode begun at the pause.
        let report = try RealtimeServiceTests.python("realtime_manual_turn.py", [url, key, raw, "paced"])
        #expect((report["transcript"] as? String)?.hasPrefix(RealtimeServiceTests.sentence) == true, "\(report)")
        var used = 0.0
        for _ in 0..<600 where used == 0 {
            used = try Self.earlyDecodes(server, "used")
            if used == 0 { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(used == 1, "the commit used the decode begun at the pause")
    }
}
