import EarshotCore
import EarshotTesting
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOWebSocket
import Testing
import WSCore

/// A Realtime client for the tests, on hummingbird-websocket's client: it sends JSON events and hands
/// the server's events back one at a time, and tells how the server closed the connection.
final class RealtimeTestClient: Sendable {
    private let outgoing: AsyncStream<String>.Continuation
    private let incoming: AsyncStream<String>
    private let connection: Task<WebSocketCloseFrame?, any Error>

    /// Connects to `port`'s `/v1/realtime?intent=transcription` with `headers` (a Bearer key, or the
    /// subprotocols a browser sends).
    init(port: Int, query: String = "intent=transcription", headers: HTTPFields) {
        let (outgoingEvents, outgoing) = AsyncStream.makeStream(of: String.self)
        let (incoming, received) = AsyncStream.makeStream(of: String.self)
        self.outgoing = outgoing
        self.incoming = incoming
        var logger = Logger(label: "realtime-test-client")
        logger.logLevel = .warning
        connection = Task {
            defer { received.finish() }
            return try await WebSocketClient.connect(
                url: "ws://127.0.0.1:\(port)/v1/realtime?\(query)",
                configuration: .init(maxFrameSize: 1 << 22, additionalHeaders: headers), logger: logger
            ) { inbound, outbound, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in outgoingEvents { try await outbound.write(.text(text)) }
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                    for try await message in inbound.messages(maxSize: 1 << 24) {
                        if case .text(let text) = message { received.yield(text) }
                    }
                    group.cancelAll()
                }
            }
        }
    }

    static func bearer(_ key: String) -> HTTPFields { [.authorization: "Bearer \(key)"] }

    /// A `session.update` to 16 kHz PCM and PocketSphinx, with `turnDetection` (NSNull for manual commits).
    static func update(turnDetection: Any) -> [String: Any] {
        [
            "type": "session.update",
            "session": [
                "type": "transcription",
                "audio": [
                    "input": [
                        "format": ["type": "audio/pcm", "rate": 16_000],
                        "transcription": ["model": "pocketsphinx-en-us"], "turn_detection": turnDetection,
                    ]
                ],
            ],
        ]
    }

    /// `server_vad` with a threshold of 0.5, 300 ms of prefix padding and 500 ms of silence.
    static var serverVAD: [String: Any] {
        ["type": "server_vad", "threshold": 0.5, "prefix_padding_ms": 300, "silence_duration_ms": 500]
    }

    /// The subprotocols a browser sends: `realtime` and the key.
    static func subprotocol(_ key: String) -> HTTPFields {
        [.secWebSocketProtocol: "realtime, openai-insecure-api-key.\(key)"]
    }

    func send(_ event: [String: Any]) throws {
        outgoing.yield(String(decoding: try JSONSerialization.data(withJSONObject: event), as: UTF8.self))
    }

    func sendText(_ text: String) { outgoing.yield(text) }

    /// Sends `bytes` in `input_audio_buffer.append` events of `chunk` bytes each.
    func append(_ bytes: [UInt8], chunk: Int = 6_400) throws {
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            let piece = Data(bytes[start..<min(start + chunk, bytes.count)])
            try send(["type": "input_audio_buffer.append", "audio": piece.base64EncodedString()])
        }
    }

    /// The next server event, or nil when the connection has ended or `timeout` passed. The default is
    /// generous: a turn's `committed` comes with its decode, which took over a minute on a machine
    /// running every suite at once (a fresh-clone `make test`), and the tests assert order, not speed.
    func next(timeout: Duration = .seconds(300)) async -> [String: Any]? {
        let incoming = self.incoming
        let text = await withTaskGroup(of: String?.self) { group in
            group.addTask {
                var iterator = incoming.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
        return text.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Events up to and including the first of `type`.
    func events(through type: String, timeout: Duration = .seconds(300)) async -> [[String: Any]] {
        var seen: [[String: Any]] = []
        while let event = await next(timeout: timeout) {
            seen.append(event)
            if event["type"] as? String == type { break }
        }
        return seen
    }

    /// Closes politely and returns the close code the server answered with.
    @discardableResult
    func close() async throws -> Int? {
        outgoing.finish()
        return Self.number(try await connection.value?.closeCode)
    }

    /// The close code the server closed the connection with, once it has (without closing from this side).
    func closed() async throws -> Int? { Self.number(try await connection.value?.closeCode) }

    private static func number(_ code: WebSocketErrorCode?) -> Int? {
        guard let code else { return nil }
        var buffer = ByteBuffer()
        buffer.write(webSocketErrorCode: code)
        return buffer.readInteger(as: UInt16.self).map(Int.init)
    }

    /// Drops the connection without a close handshake, as a client that crashes or loses its network.
    func hangUp() {
        connection.cancel()
        outgoing.finish()
    }
}

/// The test audio: a LibriVox clip as 16 kHz PCM16 little-endian, and its transcript.
enum RealtimeAudio {
    static var clip: LibriVoxClips.Clip {
        get throws {
            try #require(
                (try LibriVoxClips.load()).first { $0.path.hasSuffix("0920.wav") },
                "pocketsphinx-testdata's LibriVox clips are missing")
        }
    }

    /// The samples of a 16-bit PCM WAV file (its `data` chunk).
    static func pcm(of path: String) throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var offset = 12
        while offset + 8 <= bytes.count {
            let size =
                Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                | Int(bytes[offset + 7]) << 24
            if bytes[offset..<offset + 4].elementsEqual("data".utf8) {
                return Array(bytes[(offset + 8)..<min(offset + 8 + size, bytes.count)])
            }
            offset += 8 + size + size % 2
        }
        throw EarshotError(.invalidInput, "\(path): no data chunk")
    }

    /// `seconds` of digital silence at 16 kHz.
    static func silence(seconds: Double) -> [UInt8] { [UInt8](repeating: 0, count: Int(seconds * 16_000) * 2) }
}

/// A WebSocket client written on a raw loopback connection, frame by frame: for the tests that must
/// drop the connection without a close handshake (a crash, a lost network), and that read what the
/// server sends the moment it upgrades (a refusal) byte for byte.
final class RawWebSocket {
    let connection: LoopbackConnection

    /// Opens `/v1/realtime?intent=transcription` with `headers` ("Name: value" lines), with a receive
    /// buffer of `receiveBufferBytes` if given (the kernel's default otherwise), and sends that fail
    /// after `sendTimeout` seconds if given (see ``LoopbackConnection/init(port:receiveBufferBytes:sendTimeout:)``).
    init(port: Int, headers: [String], receiveBufferBytes: Int? = nil, sendTimeout: Double? = nil) throws {
        connection = try LoopbackConnection(
            port: port, receiveBufferBytes: receiveBufferBytes, sendTimeout: sendTimeout)
        let head =
            [
                "GET /v1/realtime?intent=transcription HTTP/1.1", "Host: 127.0.0.1:\(port)", "Upgrade: websocket",
                "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
            ]
            + headers
        connection.send(head.joined(separator: "\r\n") + "\r\n\r\n")
    }

    /// Sends one masked text frame, as a client must.
    func send(_ text: String) { sendFrame(text) }

    /// Sends one masked text frame; false once the server has closed the connection.
    @discardableResult
    func sendFrame(_ text: String) -> Bool {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65_536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: frame += [0x80 | 127] + (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return connection.send(frame)
    }

    func send(_ event: [String: Any]) throws {
        send(String(decoding: try JSONSerialization.data(withJSONObject: event), as: UTF8.self))
    }

    /// Reads until what has arrived contains `text`, or `timeout` seconds pass; whether it did.
    func waitFor(_ text: String, timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !received.contains(text), Date() < deadline, !connection.isClosedByPeer { connection.read(for: 0.05) }
        return received.contains(text)
    }

    /// Everything received, as text (the server's frames are unmasked, so their JSON shows as is).
    var received: String { connection.text }

    /// Whether the server sent a close frame with `code`.
    func closed(with code: UInt16, timeout: Double = 30) -> Bool {
        let expected: [UInt8] = [0x88, 0, UInt8(code >> 8), UInt8(code & 0xFF)]
        let deadline = Date().addingTimeInterval(timeout)
        func found() -> Bool {
            let bytes = connection.read(for: 0)
            guard bytes.count >= 4 else { return false }
            // A close frame: 0x88, a 7-bit length, the code (big-endian), then the reason.
            for index in 0...(bytes.count - 4)
            where bytes[index] == expected[0] && bytes[index + 2] == expected[2] && bytes[index + 3] == expected[3] {
                return true
            }
            return false
        }
        while !found(), Date() < deadline, !connection.isClosedByPeer { connection.read(for: 0.05) }
        return found()
    }
}
