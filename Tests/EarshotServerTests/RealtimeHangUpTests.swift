import EarshotServer
import EarshotServerTesting
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// A Realtime client that drops its connection in the middle of an utterance gives its recognizer
/// back at once (the bound allows 2 s for a whole suite's load), and the next client is served.
@Suite(.serialized, .timed) struct RealtimeHangUpTests {
    @Test func aClientThatHangsUpMidUtteranceFreesItsRecognizerAtOnce() async throws {
        let server = try await RealtimeProtocolTests.start { $0.recognizerCount = 1 }
        // A raw socket, so the hang-up is a reset, with no close handshake.
        let client = try RawWebSocket(
            port: server.port, headers: ["Authorization: Bearer \(RealtimeProtocolTests.apiKey)"])
        #expect(client.waitFor("session.created"), "\(client.received)")
        try client.send(RealtimeTestClient.update(turnDetection: NSNull()))
        #expect(client.waitFor("session.updated"), "\(client.received)")
        // Half the clip: the utterance is open, its recognizer lent.
        let audio = try RealtimeAudio.pcm(of: try RealtimeAudio.clip.path)
        let half = Array(audio.prefix(audio.count / 2))
        for start in stride(from: 0, to: half.count, by: 6_400) {
            let piece = Data(half[start..<min(start + 6_400, half.count)])
            try client.send(["type": "input_audio_buffer.append", "audio": piece.base64EncodedString()])
        }
        #expect(server.service.pools.busyCount == 1)
        // The partial text shows the utterance is being decoded when the client goes.
        _ = client.waitFor("transcription.delta", timeout: 10)
        client.connection.reset()
        let clock = ContinuousClock()
        let start = clock.now
        while server.service.pools.busyCount > 0, clock.now - start < .seconds(2) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(server.service.pools.busyCount == 0, "the recognizer is back within 2 s of the hang-up")
        let next = try RawWebSocket(
            port: server.port, headers: ["Authorization: Bearer \(RealtimeProtocolTests.apiKey)"])
        #expect(next.waitFor("session.created"), "the next client is served: \(next.received)")
        next.connection.hangUp()
        try await server.stop()
    }
}
