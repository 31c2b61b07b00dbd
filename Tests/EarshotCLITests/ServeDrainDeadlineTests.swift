import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

/// SIGTERM's drain has a hard end (`--drain-timeout`): an upload still in flight then is answered 503
/// and the process exits, however long its client would have kept it. Against a real `earshot serve`.
@Suite(.serialized, .waiting) struct ServeDrainDeadlineTests {
    typealias Server = ServeCommandTests.Server

    @Test func anUploadStillRunningAtTheDrainTimeoutGets503AndTheProcessExits() throws {
        // Pace rules relaxed so the held upload would otherwise be kept for five minutes (a loaded machine
        // has taken a minute to lend it a recognizer, and the read timeout answered 408 first).
        let server = try Server(arguments: [
            "--recognizers", "2", "--read-timeout", "300", "--upload-grace", "300", "--drain-timeout", "1",
            "--log-level", "warning",
        ])
        defer { if server.process.isRunning { _ = server.stop() } }
        let token = try ServeHardeningTests.token(server)
        let audio = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ServeHardeningTests.wav)))
        let held = try LoopbackConnection(port: server.port)
        held.send(ServeHardeningTests.speechHead(token: token, contentType: "audio/wav", length: audio.count))
        held.send(Array(audio.prefix(audio.count / 2)))
        // SIGTERM once the upload holds a recognizer, the state this test is about, however slowly a
        // loaded machine brings it there.
        let leased = Date()
        while try Self.recognizersInUse(server) != 1, Date().timeIntervalSince(leased) < 240 {
            Thread.sleep(forTimeInterval: 0.02)
        }
        try #require(try Self.recognizersInUse(server) == 1, "the half-sent upload never got a recognizer")
        let signalled = Date()
        kill(server.process.processIdentifier, SIGTERM)
        held.read(for: 20)
        let answeredAfter = Date().timeIntervalSince(signalled)
        #expect(held.statuses == [503], "\(held.text)")
        #expect(held.text.contains("drain timeout"), "\(held.text)")
        #expect(held.text.contains("Retry-After"), "\(held.text)")
        // One second of drain, then the next watchdog look (0.1 s); generous for a loaded machine, far
        // below the minutes the upload would otherwise have held the instance.
        #expect(answeredAfter < 10, "answered \(answeredAfter) s after SIGTERM")
        // The answer said Connection: close; the client closes its end, as an HTTP client does.
        held.hangUp()
        let answered = Date()
        while server.process.isRunning && Date().timeIntervalSince(answered) < 60 {
            Thread.sleep(forTimeInterval: 0.1)
        }
        let exitedAfter = Date().timeIntervalSince(signalled)
        print("earshot serve exited \(exitedAfter) s after SIGTERM")
        if server.process.isRunning {
            Issue.record(
                "still running 60 s after the 503; its threads:\n\(ThreadDump.of(pid: server.process.processIdentifier))"
            )
            return
        }
        #expect(server.process.terminationStatus == 0)
    }

    /// `earshot_recognizers_in_use`, from the service's metrics.
    static func recognizersInUse(_ server: Server) throws -> Double? {
        let scraped = try ExternalTool.run(["curl", "-sf", "http://127.0.0.1:\(server.port)/metrics"])
        let line = scraped.output.split(separator: "\n").first { $0.hasPrefix("earshot_recognizers_in_use ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }
    }
}
