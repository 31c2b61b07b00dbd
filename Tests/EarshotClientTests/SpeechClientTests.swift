import EarshotClient
import EarshotCodecs
import EarshotCore
import EarshotIO
import EarshotServer
import EarshotServerTesting
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// The speech client against the real service on loopback, with real speech.
@Suite(.serialized, .waiting) struct SpeechClientTests {
    static func configuration(_ server: RunningService, format: CodecFormat = .speexWideband)
        -> SpeechRequestConfiguration
    {
        var configuration = SpeechRequestConfiguration(
            recognitionURL: "\(server.baseURL)/speech/v3/speechToText", speechContext: "Generic",
            authorization: .credentials(appKey: "test-app", secret: server.appSecret, scope: "SPEECH", tokenURL: nil),
            audioFormat: format)
        // These tests check transcripts and events, not timeouts (SpeechClientFaultTests does): a debug
        // service sharing two cores with the whole suite may take longer than the SDK's 30 s to answer.
        configuration.serverResponseTimeout = 180
        return configuration
    }

    /// Every event until the stream ends.
    static func collect(_ interaction: SpeechInteraction) async -> [SpeechEvent] {
        var events: [SpeechEvent] = []
        for await event in interaction.events { events.append(event) }
        return events
    }

    static func outcome(_ events: [SpeechEvent]) -> Result<SpeechResponse, SpeechClientError>? {
        for event in events.reversed() {
            if case .succeeded(let response) = event { return .success(response) }
            if case .failed(let error) = event { return .failure(error) }
        }
        return nil
    }

    static func states(_ events: [SpeechEvent]) -> [SpeechClientState] {
        events.compactMap { if case .stateChanged(_, let to) = $0 { to } else { nil } }
    }

    @Test(arguments: [CodecFormat.speexWideband, .amr, .wav, .flac, .opus])
    func recordedAudioInEveryFormatGivesTheEmbeddedTranscript(_ format: CodecFormat) async throws {
        let server = try await RunningService.start()
        let client = try SpeechClient(configuration: Self.configuration(server, format: format))
        let audio = try SpeechFixtures.encoded(format)
        let interaction = try client.start(audioData: audio)
        let events = await Self.collect(interaction)
        let response = try #require(try Self.outcome(events)?.get())
        #expect(response.statusCode == 200)
        #expect(response.strings.first == (try SpeechFixtures.reference(audio, format: format)))
        #expect(Self.states(events) == [.connecting, .sendingAudioData, .processing, .idle])
        #expect(interaction.state == .idle)
        try await client.shutdown()
        try await server.stop()
    }

    @Test func liveCaptureStreamsWhileTheSpeakerTalksAndEndsOnSilence() async throws {
        let server = try await RunningService.start()
        var configuration = Self.configuration(server)
        configuration.reportsPartialResults = true
        let client = try SpeechClient(configuration: configuration)
        let clip = try #require(SpeechFixtures.clips.first)
        // The clip, then 2 s of silence for the endpointer, paced at 4× real time.
        let interaction = try client.startListening {
            try PacedSource(
                SilencePaddedSource(try AudioFileSource(path: clip.path), trailingSeconds: 2), speed: 4)
        }
        let events = await Self.collect(interaction)
        let response = try #require(try Self.outcome(events)?.get())
        #expect(response.strings.first?.isEmpty == false)
        #expect(
            Self.states(events) == [.connecting, .recording, .sendingAudioData, .processing, .idle])
        // SDK order: will start, is listening, levels, stopped listening, then the answer.
        let names = events.map(Self.name)
        let willStart = try #require(names.firstIndex(of: "willStartListening"))
        let listening = try #require(names.firstIndex(of: "isListening"))
        let stopped = try #require(names.firstIndex(of: "stoppedListening"))
        #expect(willStart < listening && listening < stopped)
        #expect(names.filter { $0 == "audioLevel" }.count >= 20)
        guard case .stoppedListening(let end, let reason) = events[stopped] else { return }
        #expect(reason == .endingSilence)
        // The upload began long before the audio ended: chunks of the first second went out first.
        let early = events[..<stopped].compactMap { event -> MediaTime? in
            if case .audioSent(_, let at) = event { at } else { nil }
        }
        #expect(early.contains { $0.seconds < 1.0 })
        #expect(end.seconds > 2.5)
        #expect(names.contains("partialResult"))
        try await client.shutdown()
        try await server.stop()
    }

    @Test func silenceEndsWithNoAudioAndCancelWithCanceledByUser() async throws {
        let server = try await RunningService.start()
        let client = try SpeechClient(configuration: Self.configuration(server))
        let silent = try client.startListening {
            try PacedSource(SilencePaddedSource(nil, trailingSeconds: 3), speed: 8)
        }
        #expect(throws: SpeechClientError.attemptAtReentrancy) { try client.start(audioData: [1, 2, 3]) }
        let silentEvents = await Self.collect(silent)
        #expect(Self.outcome(silentEvents).flatMap { try? $0.get() } == nil)
        if case .failure(let error) = Self.outcome(silentEvents) { #expect(error == .noAudio) }
        let clip = try #require(SpeechFixtures.clips.first)
        let canceled = try client.startListening { try PacedSource(try AudioFileSource(path: clip.path), speed: 1) }
        try await Task.sleep(for: .milliseconds(300))
        canceled.cancel()
        let canceledEvents = await Self.collect(canceled)
        if case .failure(let error) = Self.outcome(canceledEvents) {
            #expect(error == .canceledByUser)
        } else {
            Issue.record("a canceled interaction succeeded")
        }
        #expect(Self.states(canceledEvents).last == .idle)
        try await client.shutdown()
        try await server.stop()
    }

    static func name(_ event: SpeechEvent) -> String {
        switch event {
        case .stateChanged: "stateChanged"
        case .willStartListening: "willStartListening"
        case .isListening: "isListening"
        case .audioLevel: "audioLevel"
        case .speechStarted: "speechStarted"
        case .speechEnded: "speechEnded"
        case .shouldEndRecording: "shouldEndRecording"
        case .stoppedListening: "stoppedListening"
        case .audioSent: "audioSent"
        case .partialResult: "partialResult"
        case .succeeded: "succeeded"
        case .recognized: "recognized"
        case .failed: "failed"
        }
    }
}

/// A file followed by digital silence (or silence alone), as a microphone left open after speech.
struct SilencePaddedSource: AudioSource {
    var inner: AudioFileSource?
    let format: AudioFormat
    private var remaining: Int
    private var next: Int64 = 0

    init(_ inner: AudioFileSource?, trailingSeconds: Double) throws {
        self.inner = inner
        format = try inner?.format ?? AudioFormat(sampleRate: 16_000, channelCount: 1)
        remaining = Int(trailingSeconds * Double(format.sampleRate))
    }

    mutating func read() throws -> AudioBuffer? {
        if let source = inner {
            if let buffer = try source.read() {
                inner = source
                next = buffer.startFrame + Int64(buffer.frameCount)
                return buffer
            }
            inner = nil
        }
        guard remaining > 0 else { return nil }
        let frames = min(remaining, format.sampleRate / 10)
        remaining -= frames
        defer { next += Int64(frames) }
        return AudioBuffer(
            format: format, samples: [Float](repeating: 0, count: frames * format.channelCount), startFrame: next)
    }
}
