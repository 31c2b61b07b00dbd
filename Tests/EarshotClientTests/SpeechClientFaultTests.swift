import EarshotClient
import EarshotCodecs
import EarshotCore
import EarshotIO
import EarshotServer
import EarshotServerTesting
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every fault ends the interaction with the SDK's error and state, promptly, against real sockets
/// on loopback: a port with nothing listening, one that accepts and stalls, one that drops the
/// connection, and the real service refusing a token or busy.
@Suite(.serialized, .waiting) struct SpeechClientFaultTests {
    static func configuration(port: Int, token: String = "no-such-token") -> SpeechRequestConfiguration {
        var configuration = SpeechRequestConfiguration(
            recognitionURL: "http://127.0.0.1:\(port)/speech/v3/speechToText", authorization: .token(token))
        configuration.connectionTimeout = 2
        configuration.serverResponseTimeout = 1
        return configuration
    }

    /// The error the interaction failed with, and how long it took.
    static func failure(
        _ configuration: SpeechRequestConfiguration, audio: [UInt8] = [UInt8](repeating: 7, count: 2000)
    )
        async throws -> (SpeechClientError?, Duration, [SpeechClientState])
    {
        let client = try SpeechClient(configuration: configuration)
        let started = ContinuousClock.now
        let interaction = try client.start(audioData: audio)
        var error: SpeechClientError?
        var states: [SpeechClientState] = []
        for await event in interaction.events {
            if case .failed(let failure) = event { error = failure }
            if case .stateChanged(_, let to) = event { states.append(to) }
        }
        let elapsed = ContinuousClock.now - started
        try await client.shutdown()
        return (error, elapsed, states)
    }

    @Test func nothingListeningIsAConnectionFailure() async throws {
        let listener = try LoopbackListener(behaviour: .closeImmediately)
        let port = listener.port
        await listener.stop()  // the port is now free: connections are refused
        let (error, elapsed, states) = try await Self.failure(Self.configuration(port: port))
        guard case .connectionFailure = error else {
            Issue.record("expected ConnectionFailure, got \(String(describing: error))")
            return
        }
        // connectionTimeout is 2 s; the bound is loose because the whole suite shares two cores.
        #expect(elapsed < .seconds(60))
        #expect(states.suffix(2) == [.error, .idle])
    }

    @Test func aServerThatNeverAnswersIsNoResponseFromServer() async throws {
        let listener = try LoopbackListener(behaviour: .readAndStall)
        let (error, elapsed, states) = try await Self.failure(Self.configuration(port: listener.port))
        await listener.stop()
        guard case .noResponseFromServer = error else {
            Issue.record("expected NoResponseFromServer, got \(String(describing: error))")
            return
        }
        // serverResponseTimeout is 1 s.
        #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(60))
        #expect(states.suffix(2) == [.error, .idle])
    }

    @Test func aServerThatDropsTheConnectionIsNoResponseFromServer() async throws {
        let listener = try LoopbackListener(behaviour: .readThenClose)
        let (error, _, _) = try await Self.failure(Self.configuration(port: listener.port))
        await listener.stop()
        guard case .noResponseFromServer = error else {
            Issue.record("expected NoResponseFromServer, got \(String(describing: error))")
            return
        }
    }

    @Test func invalidURLsAndPropertiesAreRefusedAtOnce() {
        var configuration = Self.configuration(port: 1)
        configuration.recognitionURL = "not a url"
        #expect(throws: SpeechClientError.invalidURL("recognitionURL \"not a url\" is not an http(s) URL with a host"))
        {
            try SpeechClient(configuration: configuration)
        }
        configuration = Self.configuration(port: 1)
        configuration.serverResponseTimeout = -1
        #expect(throws: SpeechClientError.self) { try SpeechClient(configuration: configuration) }
    }

    @Test func theServicesRefusalsArriveAsHTTPErrorsWithTheirRequestError() async throws {
        let server = try await RunningService.start { $0.recognizerCount = 1 }
        // A bad token: 401 with the PolicyException.
        let (unauthorized, _, _) = try await Self.failure(Self.configuration(port: server.port))
        #expect(unauthorized?.label == "HTTP 401")
        if case .httpStatus(_, let body?, _) = unauthorized { #expect(body.messageID == "POL0001") }
        // Text as audio: 400 with the ServiceException.
        let token = try await server.token()
        let (badAudio, _, _) = try await Self.failure(
            Self.configuration(port: server.port, token: token), audio: Array("hello, world".utf8))
        #expect(badAudio?.label == "HTTP 400")
        if case .httpStatus(_, let body?, _) = badAudio { #expect(body.messageID == "SVC0001") }
        // Busy: hold the only recognizer with a stalled upload, then ask.
        let holder = Task {
            try await LoopbackClient.post(
                port: server.port, path: "/speech/v3/speechToText",
                headers: SpeechFixtures.speechHeaders(token: token, contentType: "audio/L16;rate=16000"),
                body: [UInt8](repeating: 0, count: 64_000), framing: .chunked(size: 3200, interval: 0.1),
                closeAfter: 16_000, halfClose: false)
        }
        try await Task.sleep(for: .milliseconds(500))
        let (busy, _, _) = try await Self.failure(Self.configuration(port: server.port, token: token))
        #expect(busy?.label == "HTTP 503")
        // Live: the 503 comes while the microphone is still open; capture must stop, not hang.
        let liveClient = try SpeechClient(configuration: Self.configuration(port: server.port, token: token))
        let clip = try #require(SpeechFixtures.clips.first)
        let live = try liveClient.startListening { try PacedSource(try AudioFileSource(path: clip.path), speed: 1) }
        let started = ContinuousClock.now
        var liveError: SpeechClientError?
        for await event in live.events { if case .failed(let error) = event { liveError = error } }
        #expect(liveError?.label == "HTTP 503")
        #expect(ContinuousClock.now - started < .seconds(30))
        try await liveClient.shutdown()
        holder.cancel()
        try await server.stop()
    }

    @Test func anExpiredTokenIsRenewed() async throws {
        // The service and the client share a clock the test moves: the token expires between rounds.
        let time = ManualWallClock()
        let server = try await RunningService.start(clock: time.clock) {
            $0.tokenLifetimes = .init(accessToken: .seconds(4))
        }
        var configuration = Self.configuration(port: server.port)
        // What is checked is the renewal, not speed: beside a CPU hog and the rest of the suite, one
        // recognition here took over 30 s, so the answer gets two minutes.
        configuration.serverResponseTimeout = 120
        configuration.authorization = .credentials(
            appKey: "test-app", secret: server.appSecret, scope: "SPEECH", tokenURL: nil)
        let client = try SpeechClient(configuration: configuration, clock: time.clock)
        let audio = try SpeechFixtures.encoded(.speexWideband)
        for round in 0..<2 {
            let interaction = try client.start(audioData: audio)
            var succeeded = false
            for await event in interaction.events {
                if case .succeeded = event { succeeded = true }
                if case .failed(let error) = event { Issue.record("round \(round): \(error)") }
            }
            #expect(succeeded)
            // The token expires; the next round must get a fresh one.
            time.advance(by: 5)
        }
        try await client.shutdown()
        try await server.stop()
    }
}

/// A TCP listener on 127.0.0.1 (a port the system picks) that misbehaves on purpose; its accepting
/// and its connections block threads of ``TestExecutors/waiting`` until ``stop()``.
final class LoopbackListener: Sendable {
    enum Behaviour {
        case closeImmediately, readAndStall, readThenClose
    }

    let port: Int
    private let descriptor: Int32
    private let accepted = Locked<[Int32]>([])
    private let serving: Task<Void, Never>

    init(behaviour: Behaviour) throws {
        let listening = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        descriptor = listening
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, length) }
        }
        guard bound == 0, listen(listening, 8) == 0 else {
            close(listening)
            throw EarshotError(.invalidInput, "test listener: cannot bind a loopback port")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Unstructured because the listener outlives its initializer; `stop()` ends it and waits for it.
        serving = Task(executorPreference: TestExecutors.waiting) { [accepted] in
            await withDiscardingTaskGroup { group in
                while true {
                    let connection = accept(listening, nil, nil)
                    if connection < 0 { return }
                    accepted.withLock { $0.append(connection) }
                    group.addTask { Self.serve(connection, behaviour) }
                }
            }
        }
    }

    private static func serve(_ connection: Int32, _ behaviour: Behaviour) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        switch behaviour {
        case .closeImmediately:
            shutdown(connection, Int32(SHUT_RDWR))
        case .readAndStall:
            while recv(connection, &buffer, buffer.count, 0) > 0 {}
        case .readThenClose:
            _ = recv(connection, &buffer, buffer.count, 0)
            shutdown(connection, Int32(SHUT_RDWR))
        }
    }

    /// Closes the port and every connection, and waits until nothing is served.
    func stop() async {
        shutdown(descriptor, Int32(SHUT_RDWR))
        let connections = accepted.withLock { $0 }
        for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        await serving.value
        close(descriptor)
        for connection in connections { close(connection) }
    }
}
