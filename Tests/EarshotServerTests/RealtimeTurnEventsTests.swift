import EarshotCore
import EarshotRecognizer
import EarshotServer
import EarshotServerTesting
import EarshotTestTraits
import EarshotTesting
import Foundation
import Synchronization
import Testing

/// A Realtime turn's events leave when they happen: `speech_stopped` and `committed` when the endpoint
/// fires, `completed` when the decode ends. A client (the try-it page, a voice agent) learns the user
/// stopped at once, not after the words.
@Suite(.serialized, .waiting) struct RealtimeTurnEventsTests {
    static let apiKey = "sk-realtime-turns-0123456789abcdef"

    /// A final decode the test holds until it lets it go (at most a minute).
    final class Gate: Sendable {
        private let released = DispatchSemaphore(value: 0)
        private let state = Mutex((entered: false, open: false))

        /// Called by the decode: waits to be let go.
        func pass() {
            state.withLock { $0.entered = true }
            _ = released.wait(timeout: .now() + 60)
            state.withLock { $0.open = true }
        }

        /// Whether a decode has passed the gate.
        var passed: Bool { state.withLock { $0.open } }

        /// Whether a decode has reached the gate, waiting up to `seconds` for one to.
        func reached(within seconds: Double) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while ContinuousClock.now < deadline {
                if state.withLock({ $0.entered }) { return true }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return state.withLock { $0.entered }
        }

        func open() { released.signal() }
    }

    /// PocketSphinx, whose final decode waits at the gate.
    final class GatedRecognizer: Recognizer {
        let inner: PocketSphinxRecognizer
        let gate: Gate

        init(gate: Gate) throws {
            inner = try PocketSphinxRecognizer()
            self.gate = gate
        }

        var format: AudioFormat { inner.format }
        func startUtterance() throws { try inner.startUtterance() }
        func accept(_ buffer: AudioBuffer) throws { try inner.accept(buffer) }
        func accept(_ buffer: AudioBuffer, frames: Range<Int>) throws { try inner.accept(buffer, frames: frames) }
        func partialResult() throws -> RecognitionResult? { try inner.partialResult() }
        func abandonUtterance() { inner.abandonUtterance() }
        func resetAdaptation() throws { try inner.resetAdaptation() }

        func endUtterance() throws -> RecognitionResult {
            gate.pass()
            return try inner.endUtterance()
        }
    }

    @Test func speechStoppedAndCommittedLeaveBeforeTheFinalDecodeEnds() async throws {
        let gate = Gate()
        let server = try await RunningService.start(loadRecognizer: { try GatedRecognizer(gate: gate) }) {
            $0.apiKeys = APIKeys(scopes: [Self.apiKey: .speech])
        }
        defer { gate.open() }
        let client = RealtimeTestClient(port: server.port, headers: RealtimeTestClient.bearer(Self.apiKey))
        #expect(await client.next()?["type"] as? String == "session.created")
        try client.send(RealtimeTestClient.update(turnDetection: RealtimeTestClient.serverVAD))
        #expect(await client.next()?["type"] as? String == "session.updated")
        try client.append(
            RealtimeAudio.silence(seconds: 1) + (try RealtimeAudio.pcm(of: RealtimeAudio.clip.path))
                + RealtimeAudio.silence(seconds: 1.5))
        let stopped = await client.events(through: "input_audio_buffer.committed")
        let types = stopped.compactMap { $0["type"] as? String }.filter { !$0.hasSuffix(".delta") }
        #expect(
            types == [
                "input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped",
                "input_audio_buffer.committed",
            ], "\(types)")
        // No decode has passed the gate, which holds it until the test opens it: the two events did not
        // wait for the words. (They may leave before the decode even starts, so wait for it to reach the gate.)
        #expect(!gate.passed, "speech_stopped and committed came only after the final decode")
        #expect(await gate.reached(within: 30), "the turn's final decode never began")
        gate.open()
        let rest = await client.events(through: "conversation.item.input_audio_transcription.completed")
        let completed = try #require(rest.last)
        #expect(completed["type"] as? String == "conversation.item.input_audio_transcription.completed")
        #expect((completed["transcript"] as? String)?.lowercased().hasPrefix("had he married") == true, "\(completed)")
        try await client.close()
        try await server.stop()
    }
}
