import EarshotCapture
import EarshotClient
import EarshotCodecs
import EarshotCore
import EarshotIO
import EarshotServerTesting
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// Live capture through a ``RecognitionBackend``: the client's capture chain, then the endpointed
/// utterance sent whole — here to the real service's OpenAI-compatible route on loopback.
@Suite(.serialized, .waiting) struct BackendListenerTests {
    static func listener(_ server: RunningService, format: CodecFormat) throws -> BackendListener {
        var configuration = OpenAITranscriptionClient.Configuration(
            url: "\(server.baseURL)/v1/audio/transcriptions", apiKey: nil, model: "whisper-1")
        // A debug service sharing two cores with the whole suite may be slow to answer.
        configuration.responseTimeout = 180
        let backend = try OpenAITranscriptionClient(
            configuration: configuration, audioFormat: format, credentials: ("test-app", server.appSecret))
        return BackendListener(backend: backend, capture: CaptureConfiguration())
    }

    /// Every event of an interaction over the clip and 2 s of silence, paced at 4× real time.
    static func listen(_ listener: BackendListener, clip: String) async throws -> [SpeechEvent] {
        let interaction = try listener.startListening {
            try PacedSource(SilencePaddedSource(try AudioFileSource(path: clip), trailingSeconds: 2), speed: 4)
        }
        return await SpeechClientTests.collect(interaction)
    }

    static func reply(_ events: [SpeechEvent]) -> RecognitionReply? {
        events.lazy.compactMap { if case .recognized(let reply) = $0 { reply } else { nil } }.first
    }

    @Test func anEndpointedUtteranceIsSentWholeAndTheReplyEndsTheInteraction() async throws {
        let server = try await RunningService.start()
        let clip = try #require(SpeechFixtures.clips.first)
        var texts: [CodecFormat: String] = [:]
        // WAV and FLAC carry the same samples, so the service hears the same utterance in both.
        for format in [CodecFormat.wav, .flac] {
            let listener = try Self.listener(server, format: format)
            let events = try await Self.listen(listener, clip: clip.path)
            for event in events { if case .failed(let error) = event { Issue.record("\(format): \(error)") } }
            let reply = try #require(Self.reply(events), "\(format): no reply")
            #expect(reply.text.split(separator: " ").count >= 4, "\(format): \(reply.text)")
            // No streaming: nothing is sent before the endpoint, and there is no partial result.
            let names = events.map(SpeechClientTests.name)
            #expect(!names.contains("audioSent") && !names.contains("partialResult"))
            let stopped = try #require(names.firstIndex(of: "stoppedListening"))
            #expect(stopped < names.firstIndex(of: "recognized")!)
            if case .stoppedListening(let end, let reason) = events[stopped] {
                #expect(reason == .endingSilence)
                // The service heard the utterance to its end, not just a first chunk.
                let lastEnd = reply.words.last?.end ?? reply.segments.last?.end ?? 0
                #expect(lastEnd > end.seconds - 2, "\(format): last word ends at \(lastEnd) s of \(end.seconds) s")
            }
            #expect(SpeechClientTests.states(events) == [.recording, .sendingAudioData, .idle])
            texts[format] = reply.text
        }
        #expect(texts[.wav] == texts[.flac])
        try await server.stop()
    }

    @Test func oneInteractionAtATimeAndCancelEndsWithCanceledByUser() async throws {
        let server = try await RunningService.start()
        let clip = try #require(SpeechFixtures.clips.first)
        let listener = try Self.listener(server, format: .wav)
        let interaction = try listener.startListening {
            try PacedSource(try AudioFileSource(path: clip.path), speed: 1)
        }
        #expect(throws: SpeechClientError.attemptAtReentrancy) {
            try listener.startListening { try AudioFileSource(path: clip.path) }
        }
        try await Task.sleep(for: .milliseconds(300))
        interaction.cancel()
        let events = await SpeechClientTests.collect(interaction)
        #expect(Self.reply(events) == nil)
        if case .failure(let error) = SpeechClientTests.outcome(events) { #expect(error == .canceledByUser) }
        #expect(SpeechClientTests.states(events).last == .idle)
        // Free again once the interaction has ended.
        let again = try await Self.listen(listener, clip: clip.path)
        #expect(Self.reply(again)?.text.isEmpty == false)
        try await server.stop()
    }

    /// What a backend is sent is a finished file: the capture chain's bytes with the encoder's header
    /// rewritten at the end (a WAV's sizes, in place of the streaming placeholder).
    @Test func theUtteranceIsAnExactFile() throws {
        let clip = try #require(SpeechFixtures.clips.first)
        var source = try AudioFileSource(path: clip.path)
        let pipeline = try CapturePipeline(
            sourceFormat: source.format, configuration: CaptureConfiguration(audioFormat: .wav))
        #expect(pipeline.finalizedHeader() == nil)  // not before the end
        var bytes: [UInt8] = []
        while let buffer = try source.read() { bytes += try pipeline.process(buffer).chunks.flatMap(\.bytes) }
        bytes += try pipeline.finish().chunks.flatMap(\.bytes)
        let header = try #require(pipeline.finalizedHeader())
        #expect(Array(bytes[4..<8]) == [0xFF, 0xFF, 0xFF, 0xFF])  // streamed with the placeholder
        bytes.replaceSubrange(0..<header.count, with: header)
        func size(at offset: Int) -> Int { bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) } }
        #expect(size(at: 4) == bytes.count - 8)
        #expect(size(at: 40) == bytes.count - 44 && bytes.count > 16_000 * 2)
    }
}
