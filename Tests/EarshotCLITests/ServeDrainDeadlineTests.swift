import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// SIGTERM's drain has a hard end (`--drain-timeout`): an upload still in flight then is answered 503
/// and the process exits, however long its client would have kept it. Against a real `earshot serve`.
@Suite(.serialized, .waiting) struct ServeDrainDeadlineTests {
    typealias Server = ServeCommandTests.Server

    @Test func anUploadStillRunningAtTheDrainTimeoutGets503AndTheProcessExits() throws {
        // Pace rules relaxed so the held upload would otherwise be kept for a minute.
        let server = try Server(arguments: [
            "--recognizers", "2", "--read-timeout", "60", "--upload-grace", "60", "--drain-timeout", "1",
            "--log-level", "warning",
        ])
        defer { if server.process.isRunning { _ = server.stop() } }
        let token = try ServeHardeningTests.token(server)
        let audio = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ServeHardeningTests.wav)))
        let held = try LoopbackConnection(port: server.port)
        held.send(ServeHardeningTests.speechHead(token: token, contentType: "audio/wav", length: audio.count))
        held.send(Array(audio.prefix(audio.count / 2)))
        held.read(for: 0.5)
        let signalled = Date()
        kill(server.process.processIdentifier, SIGTERM)
        held.read(for: 20)
        let answeredAfter = Date().timeIntervalSince(signalled)
        #expect(held.statuses == [503], "\(held.text)")
        #expect(held.text.contains("drain timeout"), "\(held.text)")
        #expect(held.text.contains("Retry-After"), "\(held.text)")
        // One second of drain, then the next watchdog look (0.1 s); generous for a loaded machine, far
        // below the minute the upload would otherwise have held the instance.
        #expect(answeredAfter < 10, "answered \(answeredAfter) s after SIGTERM")
        // The answer said Connection: close; the client closes its end, as an HTTP client does.
        held.hangUp()
        let answered = Date()
        while server.process.isRunning && Date().timeIntervalSince(answered) < 60 {
            Thread.sleep(forTimeInterval: 0.1)
        }
        let exitedAfter = Date().timeIntervalSince(signalled)
        print("earshot serve exited \(exitedAfter) s after SIGTERM")
        try #require(!server.process.isRunning, "still running 60 s after the 503")
        #expect(server.process.terminationStatus == 0)
    }
}
