import EarshotCodecs
import EarshotServer
import EarshotServerTesting
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// A client that hangs up in the middle of its upload stops its recognition at once (about 0.1 s when the
/// machine is idle; the assertion allows 2 s for a whole suite's load): the recognizer goes back to the
/// pool and the next client is served.
@Suite(.serialized, .timed) struct HangUpTests {
    /// 16 kHz 16-bit mono, as the L16 upload carries it.
    static let bytesPerSecond = 32_000

    @Test func aSpeechAPIUploadThatHangsUpFreesItsRecognizerAtOnce() async throws {
        let server = try await RunningService.start { $0.recognizerCount = 1 }
        let token = try await server.token()
        let head = Self.head(
            path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: CodecFormat.l16.contentType()))
        let audio = try SpeechFixtures.encoded(.l16)
        try await Self.hangUpWhileRecognizing(server: server, head: head, body: audio)
        try await Self.expectTheNextClientIsServed(server: server, token: token)
        try await server.stop()
    }

    @Test func anOpenAIUploadThatHangsUpFreesItsRecognizerAtOnce() async throws {
        let server = try await RunningService.start { $0.recognizerCount = 1 }
        let token = try await server.token()
        let boundary = "earshot-hang-up"
        let head = Self.head(
            path: "/v1/audio/transcriptions",
            headers: [
                ("Authorization", "Bearer \(token)"), ("Content-Type", "multipart/form-data; boundary=\(boundary)"),
            ])
        let fields =
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\npocketsphinx-en-us\r\n"
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"speech.wav\"\r\n"
            + "Content-Type: audio/wav\r\n\r\n"
        let body = Array(fields.utf8) + (try SpeechFixtures.encoded(.wav))
        try await Self.hangUpWhileRecognizing(server: server, head: head, body: body)
        try await Self.expectTheNextClientIsServed(server: server, token: token)
        try await server.stop()
    }

    /// A chunked POST's request line and headers.
    static func head(path: String, headers: [(String, String)]) -> String {
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        return head + "\r\n"
    }

    /// Sends `body` at a live client's pace (0.1 s of audio every 0.1 s) until the request has held
    /// the service's one recognizer for a second, hangs up, and expects the recognizer back in the
    /// pool within a second.
    static func hangUpWhileRecognizing(server: RunningService, head: String, body: [UInt8]) async throws {
        let connection = try LoopbackConnection(port: server.port)
        defer { connection.hangUp() }
        #expect(connection.send(head))
        let chunk = bytesPerSecond / 10
        var sent = 0
        var leased: ContinuousClock.Instant?
        while sent < body.count {
            let piece = body[sent..<min(sent + chunk, body.count)]
            #expect(connection.send(Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Array("\r\n".utf8)))
            sent += piece.count
            try await Task.sleep(for: .milliseconds(100))
            if leased == nil, server.service.pool.busyCount == 1 { leased = .now }
            if let leased, ContinuousClock.now - leased > .seconds(1) { break }
        }
        try #require(sent < body.count, "the clip ran out before the request held its recognizer for a second")
        connection.hangUp()
        let hungUp = ContinuousClock.now
        while server.service.pool.busyCount > 0, ContinuousClock.now - hungUp < .seconds(10) {
            try await Task.sleep(for: .milliseconds(10))
        }
        let freed = ContinuousClock.now - hungUp
        // The figure BENCHMARKS.md quotes: `swift test 2>&1 | grep "after the client hung up"`.
        print("the recognizer came back \(freed) after the client hung up")
        // A bound that holds beside a whole suite's run (1.15 s was seen there once; idle it is about
        // 0.1 s): the defect it guards against held the recognizer for the seconds of audio still queued.
        #expect(freed < .seconds(2), "the recognizer came back \(freed) after the client hung up")
    }

    static func expectTheNextClientIsServed(server: RunningService, token: String) async throws {
        let next = try await LoopbackClient.post(
            port: server.port, path: "/speech/v3/speechToText",
            headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/amr"),
            body: try SpeechFixtures.encoded(.amr))
        #expect(next.status == 200, "\(next.text)")
    }
}
