import EarshotServer
import EarshotServerTesting
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// A graceful shutdown (SIGTERM) treats a Realtime session as a request in flight: the turn it is in
/// is finished and sent, then an `error` says the service is stopping and the connection closes with
/// 1001 (going away); a session between turns closes at once; a turn still open at the drain deadline
/// is committed there, never lost.
@Suite(.serialized, .waiting) struct RealtimeShutdownTests {
    /// The `error` object of `event`, if it is one.
    static func refusal(_ event: [String: Any]?) -> [String: Any]? {
        guard event?["type"] as? String == "error" else { return nil }
        return event?["error"] as? [String: Any]
    }

    @Test func aTurnInFlightIsFinishedThenTheSessionClosesGoingAway() async throws {
        // The idle session sends nothing: its idle timeout must not end it first on a loaded machine.
        let server = try await RealtimeProtocolTests.start {
            $0.drainTimeout = .seconds(600)
            $0.realtime.idleTimeout = .seconds(600)
        }
        let headers = RealtimeTestClient.bearer(RealtimeProtocolTests.apiKey)
        let talking = RealtimeTestClient(port: server.port, headers: headers)
        let idle = RealtimeTestClient(port: server.port, headers: headers)
        #expect(await talking.next()?["type"] as? String == "session.created")
        #expect(await idle.next()?["type"] as? String == "session.created")
        try talking.send(
            RealtimeTestClient.update(turnDetection: RealtimeTestClient.serverVAD))
        #expect(await talking.next()?["type"] as? String == "session.updated")
        // Half the clip: the speaker is mid-sentence when the service is told to stop.
        let audio = try RealtimeAudio.pcm(of: try RealtimeAudio.clip.path)
        let half = audio.count / 4 * 2
        try talking.append(RealtimeAudio.silence(seconds: 1) + Array(audio[..<half]))
        _ = await talking.events(through: "input_audio_buffer.speech_started")
        await server.beginShutdown()

        // Between turns: closed at once, saying why.
        let idleEnd = try #require(Self.refusal(await idle.next()))
        #expect(idleEnd["code"] as? String == "server_shutting_down", "\(idleEnd)")
        #expect(try await idle.closed() == 1001)

        // In a turn: the rest of the sentence is still taken, and the whole turn transcribed.
        try talking.append(Array(audio[half...]) + RealtimeAudio.silence(seconds: 1.5))
        let rest = await talking.events(through: "error")
        let types = rest.compactMap { $0["type"] as? String }.filter { !$0.hasSuffix(".delta") }
        #expect(
            types == [
                "input_audio_buffer.speech_stopped", "input_audio_buffer.committed",
                "conversation.item.input_audio_transcription.completed", "error",
            ], "\(types)")
        let completed = rest.first { $0["type"] as? String == "conversation.item.input_audio_transcription.completed" }
        let transcript = try #require(completed?["transcript"] as? String)
        #expect(transcript.lowercased().hasPrefix("had he married"), "\(transcript)")
        #expect(transcript.lowercased().contains("respectable"), "the second half too: \(transcript)")
        #expect(Self.refusal(rest.last)?["code"] as? String == "server_shutting_down")
        #expect(try await talking.closed() == 1001)
        try await server.stop()
    }

    @Test func aTurnStillOpenAtTheDrainDeadlineIsCommittedThere() async throws {
        let server = try await RealtimeProtocolTests.start { $0.drainTimeout = .seconds(1) }
        let client = RealtimeTestClient(
            port: server.port, headers: RealtimeTestClient.bearer(RealtimeProtocolTests.apiKey))
        #expect(await client.next()?["type"] as? String == "session.created")
        // No turn detection and no commit: only the deadline ends this turn.
        let manual = RealtimeTestClient.update(turnDetection: NSNull())
        try client.send(manual)
        #expect(await client.next()?["type"] as? String == "session.updated")
        try client.append(try RealtimeAudio.pcm(of: try RealtimeAudio.clip.path))
        // An update after the audio is answered once the audio before it has been taken.
        try client.send(manual)
        _ = await client.events(through: "session.updated")
        await server.beginShutdown()

        let rest = await client.events(through: "error")
        let types = rest.compactMap { $0["type"] as? String }.filter { !$0.hasSuffix(".delta") }
        #expect(
            types == [
                "input_audio_buffer.committed", "conversation.item.input_audio_transcription.completed", "error",
            ], "\(types)")
        let transcript =
            rest.first { $0["type"] as? String == "conversation.item.input_audio_transcription.completed" }?[
                "transcript"] as? String
        #expect(transcript?.lowercased().hasPrefix("had he married") == true, "\(transcript ?? "")")
        #expect(try await client.closed() == 1001)
        try await server.stop()
    }
}
