import EarshotCodecs
import EarshotCore
import EarshotDSP
import EarshotIO
import EarshotRecognizer
import EarshotServer
import EarshotTesting
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// The real service on a loopback port the test picks (port 0, read back), stopped by `stop()`.
final class RunningService: Sendable {
    let port: Int
    let service: SpeechService
    /// The secret of app `test-app`, random for each server.
    let appSecret: String
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(
        port: Int, service: SpeechService, appSecret: String, group: ServiceGroup, task: Task<Void, any Error>
    ) {
        self.port = port
        self.appSecret = appSecret
        self.service = service
        self.group = group
        self.task = task
    }

    /// Starts a service for app `test-app` (with `secret`, random if not given) with `configure` applied to
    /// its configuration.
    static func start(secret: String? = nil, _ configure: (inout ServiceConfiguration) -> Void = { _ in })
        async throws -> RunningService
    {
        let secret = secret ?? "test-secret-\(UInt64.random(in: 0 ... .max))"
        var configuration = ServiceConfiguration(
            port: 0, credentials: Credentials(secrets: ["test-app": secret, "other-app": "other-secret"]))
        // The whole test process shares two cores with CPU-bound suites; a 10 s read timeout can fire on a
        // healthy upload whose handler was merely waiting for a thread. Tests of the timeout set their own.
        configuration.readTimeout = .seconds(60)
        // The pace rules count the same starved waits as the client's, so their grace is as long.
        configuration.uploadGrace = .seconds(60)
        configuration.idleTimeout = .seconds(60)
        configure(&configuration)
        var logger = Logger(label: "earshot-test-service")
        logger.logLevel = .warning
        let service = SpeechService(configuration: configuration, logger: logger)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let services = try await service.makeServices { port in continuation.yield(port) }
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw EarshotError(.invalidInput, "the test service did not report a port")
        }
        return RunningService(port: port, service: service, appSecret: secret, group: group, task: task)
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Begins a graceful shutdown without waiting for it (as SIGTERM does).
    func beginShutdown() async { await group.triggerGracefulShutdown() }

    /// Ends the server at once (a graceful shutdown held by a drain delay included) and waits for it.
    func cancel() async {
        task.cancel()
        _ = try? await task.value
    }

    /// Stops the server gracefully and waits for it.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// An access token for `scope` from the real token endpoint.
    func token(scope: String = "SPEECH") async throws -> String {
        let reply = try await LoopbackClient.post(
            port: port, path: "/oauth/token",
            headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array(
                "client_id=test-app&client_secret=\(appSecret)&grant_type=client_credentials&scope=\(scope)".utf8))
        let document = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: String])
        return try #require(document["access_token"])
    }
}

/// A reply read off the socket.
struct HTTPReply: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: Data
    /// Seconds from sending the last byte of the request to reading the whole reply.
    var latency: Double
    /// Seconds by which the reply's first byte arrived before the upload ended (negative: after).
    var firstByteLead: Double = 0
    /// With `holdAfter`: whether the reply's body began while the client held back the rest of its own.
    var beganMidUpload = false

    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A minimal HTTP/1.1 client on a blocking loopback socket, run on its own thread (never on the
/// cooperative pool, which the server needs), able to send a body chunked and paced like a live
/// uploader.
enum LoopbackClient {
    /// How the body goes out.
    enum Framing: Sendable {
        /// One write with `Content-Length`.
        case contentLength
        /// `Transfer-Encoding: chunked`, `size` bytes a chunk, `interval` seconds between chunks.
        case chunked(size: Int, interval: Double)
    }

    /// GETs `path` and reads the reply.
    static func get(port: Int, path: String) async throws -> HTTPReply {
        try await onThread {
            try exchange(
                method: "GET", port: port, path: path, headers: [], body: [], framing: .contentLength,
                closeAfter: nil, halfClose: true, holdAfter: nil)
        }
    }

    /// POSTs `body`, stopping after `closeAfter` bytes if given (then half-closing unless `halfClose`
    /// is false, which leaves a stalled upload), and reads the reply.
    static func post(
        port: Int, path: String, headers: [(String, String)], body: [UInt8], framing: Framing = .contentLength,
        closeAfter: Int? = nil, halfClose: Bool = true, holdAfter: Int? = nil
    ) async throws -> HTTPReply {
        try await onThread {
            try exchange(
                method: "POST", port: port, path: path, headers: headers, body: body, framing: framing,
                closeAfter: closeAfter,
                halfClose: halfClose, holdAfter: holdAfter)
        }
    }

    /// Runs `body` on a new thread and returns its result.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    private static func exchange(
        method: String, port: Int, path: String, headers: [(String, String)], body: [UInt8], framing: Framing,
        closeAfter: Int?,
        halfClose: Bool, holdAfter: Int?
    ) throws -> HTTPReply {
        let socket = try connect(port: port)
        defer { close(socket) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        switch framing {
        case .contentLength: head += "Content-Length: \(body.count)\r\n\r\n"
        case .chunked: head += "Transfer-Encoding: chunked\r\n\r\n"
        }
        try send(socket, Array(head.utf8))
        // The reply is read on its own thread from the start, so one that begins while the upload
        // continues (an early error, streamed partial results) is seen when it arrives.
        let reader = ReplyReader(socket: socket)
        let sentEnd: ContinuousClock.Instant
        var beganMidUpload = false
        do {
            switch framing {
            case .contentLength:
                try send(socket, Array(body.prefix(closeAfter ?? body.count)))
            case .chunked(let size, let interval):
                let started = ContinuousClock.now
                var index = 0
                for start in stride(from: 0, to: min(body.count, closeAfter ?? body.count), by: size) {
                    // Paced against the start, so send jitter does not accumulate.
                    let due = started + .seconds(interval * Double(index))
                    if due > .now { Thread.sleep(forTimeInterval: seconds(due - .now)) }
                    let chunk = body[start..<min(start + size, body.count)]
                    try send(socket, Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10])
                    index += 1
                    // Hold the rest of the body until the reply begins (or a minute passes): proof, whatever
                    // the machine's load, that the server answers before the upload is complete.
                    if let holdAfter, start < holdAfter, start + size >= holdAfter {
                        beganMidUpload = reader.waitForFirstByte(timeout: 60)
                    }
                }
                if closeAfter == nil { try send(socket, Array("0\r\n\r\n".utf8)) }
            }
        } catch {
            // The server may answer and close before the whole body is sent (an early refusal).
        }
        sentEnd = .now
        // A client that gives up closes its side; one that stalls just stops sending.
        if closeAfter != nil && halfClose { shutdown(socket, Int32(SHUT_WR)) }
        let (data, firstByte) = reader.wait()
        guard var reply = parse(data, complete: true) else {
            throw EarshotError(.invalidInput, "incomplete HTTP reply: \(String(decoding: data, as: UTF8.self))")
        }
        reply.latency = seconds(.now - sentEnd)
        reply.firstByteLead = firstByte.map { seconds(sentEnd - $0) } ?? 0
        reply.beganMidUpload = beganMidUpload
        return reply
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Reads a socket until the reply is complete or the server closes, on its own thread.
    private final class ReplyReader: @unchecked Sendable {
        // Written by the reading thread before `done` is signalled, read after: no overlap.
        private var data: [UInt8] = []
        private var firstByte: ContinuousClock.Instant?
        private var bodyBegan = false
        private let done = DispatchSemaphore(value: 0)
        private let began = DispatchSemaphore(value: 0)

        init(socket: Int32) {
            Thread.detachNewThread { [self] in
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                    if count <= 0 { break }
                    if firstByte == nil { firstByte = .now }
                    data += buffer[0..<count]
                    // The body, not just the head (which a streamed answer sends at once), has begun.
                    if !bodyBegan, let head = data.firstRange(of: [13, 10, 13, 10]), data.count > head.upperBound {
                        bodyBegan = true
                        began.signal()
                    }
                    if LoopbackClient.parse(data) != nil { break }
                }
                done.signal()
            }
        }

        /// Whether the reply's body began within `timeout` seconds.
        func waitForFirstByte(timeout: Double) -> Bool {
            began.wait(timeout: .now() + timeout) == .success
        }

        func wait() -> ([UInt8], ContinuousClock.Instant?) {
            done.wait()
            return (data, firstByte)
        }
    }

    private static func connect(port: Int) throws -> Int32 {
        let socket: Int32
        do {
            socket = try LoopbackConnection.connectedSocket(port: port)
        } catch {
            throw EarshotError(.invalidInput, "cannot connect to 127.0.0.1:\(port)")
        }
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return socket
    }

    private static func send(_ socket: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw EarshotError(.writeFailed, "send() failed after \(offset) bytes") }
            offset += sent
        }
    }

    /// A reply once its head and its whole body (by Content-Length or chunked framing) are in `data`.
    static func parse(_ data: [UInt8], complete: Bool = false) -> HTTPReply? {
        guard let headEnd = data.firstRange(of: [13, 10, 13, 10]) else { return nil }
        let lines = String(decoding: data[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var reply = HTTPReply(status: status, headers: headers, body: Data(), latency: 0)
        let rest = Array(data[headEnd.upperBound...])
        if let length = reply.header("Content-Length").flatMap(Int.init) {
            guard rest.count >= length else { return nil }
            reply.body = Data(rest.prefix(length))
            return reply
        }
        if reply.header("Transfer-Encoding")?.lowercased() == "chunked" {
            var body: [UInt8] = []
            var index = 0
            while let lineEnd = rest[index...].firstRange(of: [13, 10]) {
                let size = Int(String(decoding: rest[index..<lineEnd.lowerBound], as: UTF8.self), radix: 16) ?? -1
                if size < 0 { return nil }
                if size == 0 {
                    reply.body = Data(body)
                    return reply
                }
                guard rest.count >= lineEnd.upperBound + size + 2 else { return nil }
                body += rest[lineEnd.upperBound..<lineEnd.upperBound + size]
                index = lineEnd.upperBound + size + 2
            }
            return nil
        }
        guard complete else { return nil }
        reply.body = Data(rest)
        return reply
    }
}

/// Real speech in every wire format, and what the embedded recognizer makes of it.
enum SpeechFixtures {
    static let clips: [LibriVoxClips.Clip] = (try? LibriVoxClips.load()) ?? []

    /// The first LibriVox clip (2.99 s), encoded as `format`.
    static func encoded(_ format: CodecFormat, clip: LibriVoxClips.Clip? = nil) throws -> [UInt8] {
        let clip = try #require(clip ?? clips.first)
        return try encode(clip.path, with: try format.makeEncoder(sampleRate: format.defaultSampleRate))
    }

    private static func encode<Encoder: AudioEncoder>(_ path: String, with encoder: Encoder) throws -> [UInt8] {
        let source = try AudioFileSource(path: path)
        let resampler = try Resampler(
            inputFormat: source.format, configuration: .init(sampleRate: encoder.inputFormat.sampleRate))
        var chain = resampler.then(encoder)
        var output = StageOutput<EncodedPacket>()
        var bytes: [UInt8] = []
        while let buffer = try source.read() {
            try chain.process(buffer, into: &output)
            for packet in output.items { bytes += packet.bytes }
            output.removeAll()
        }
        try chain.finish(into: &output)
        for packet in output.items { bytes += packet.bytes }
        return bytes
    }

    /// The transcript a freshly loaded embedded recognizer gives for `bytes`, decoded whole and
    /// fed in one buffer (the service decodes the same bytes chunk by chunk as they arrive).
    static func reference(_ bytes: [UInt8], format: CodecFormat) throws -> String {
        try referenceRecognition(bytes, format: format).text
    }

    /// The reference transcript and the seconds of audio `bytes` decode to.
    static func referenceRecognition(_ bytes: [UInt8], format: CodecFormat) throws -> (text: String, duration: Double) {
        var decoder = try format.makeDecoder(name: "reference", sampleRate: format == .opus ? 16_000 : nil)
        var decoded = StageOutput<AudioBuffer>()
        try decoder.process(bytes, into: &decoded)
        try decoder.finish(into: &decoded)
        let first = try #require(decoded.items.first)
        var audio = AudioBuffer(format: first.format)
        for buffer in decoded.items { audio.samples += buffer.samples }
        let resampler = try Resampler(inputFormat: audio.format)
        var resampled = StageOutput<AudioBuffer>()
        try resampler.process(audio, into: &resampled)
        try resampler.finish(into: &resampled)
        var mono = AudioBuffer(format: resampler.outputFormat)
        for buffer in resampled.items { mono.samples += buffer.samples }
        let recognizer = try PocketSphinxRecognizer()
        try recognizer.startUtterance()
        try recognizer.accept(mono)
        return (try recognizer.endUtterance().text, audio.duration)
    }

    /// Headers of a speech request as the seed's examples send them.
    static func speechHeaders(token: String, contentType: String, context: String = "VoiceMail") -> [(String, String)] {
        [("Authorization", "BEARER \(token)"), ("Content-Type", contentType), ("X-SpeechContext", context)]
    }
}
