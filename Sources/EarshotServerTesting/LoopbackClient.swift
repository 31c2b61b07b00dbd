import EarshotCore
import EarshotTesting
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.1 client on a blocking loopback socket, able to send a body chunked and paced
/// like a live uploader and to see a reply that begins before the upload ends. Its socket work runs on
/// ``TestExecutors/waiting``, never on the cooperative pool.
public enum LoopbackClient {
    /// How the body goes out.
    public enum Framing: Sendable {
        /// One write with `Content-Length`.
        case contentLength
        /// `Transfer-Encoding: chunked`, `size` bytes a chunk, `interval` seconds between chunks.
        case chunked(size: Int, interval: Double)
    }

    /// GETs `path` and reads the reply.
    public static func get(port: Int, path: String) async throws -> HTTPReply {
        try await exchange(
            method: "GET", port: port, path: path, headers: [], body: [], framing: .contentLength,
            closeAfter: nil, halfClose: true, holdAfter: nil)
    }

    /// POSTs `body`, stopping after `closeAfter` bytes if given (then half-closing unless `halfClose`
    /// is false, which leaves a stalled upload), and reads the reply. With `holdAfter`, the rest of a
    /// chunked body waits (up to a minute) once that many bytes are sent, until the reply's body begins.
    public static func post(
        port: Int, path: String, headers: [(String, String)], body: [UInt8], framing: Framing = .contentLength,
        closeAfter: Int? = nil, halfClose: Bool = true, holdAfter: Int? = nil
    ) async throws -> HTTPReply {
        try await exchange(
            method: "POST", port: port, path: path, headers: headers, body: body, framing: framing,
            closeAfter: closeAfter, halfClose: halfClose, holdAfter: holdAfter)
    }

    private static func exchange(
        method: String, port: Int, path: String, headers: [(String, String)], body: [UInt8], framing: Framing,
        closeAfter: Int?, halfClose: Bool, holdAfter: Int?
    ) async throws -> HTTPReply {
        try await withTaskExecutorPreference(TestExecutors.waiting) {
            let socket = try connect(port: port)
            defer { close(socket) }
            var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            switch framing {
            case .contentLength: head += "Content-Length: \(body.count)\r\n\r\n"
            case .chunked: head += "Transfer-Encoding: chunked\r\n\r\n"
            }
            try send(socket, Array(head.utf8))
            // The reply is read from the start, beside the upload, so one that begins while the upload
            // continues (an early error, streamed partial results) is seen when it arrives.
            let reader = ReplyReader(socket: socket)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { reader.read() }
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
                            try await Task.sleep(until: started + .seconds(interval * Double(index)))
                            let chunk = body[start..<min(start + size, body.count)]
                            try send(
                                socket, Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10])
                            index += 1
                            // Proof, whatever the machine's load, that the server answers before the
                            // upload is complete.
                            if let holdAfter, start < holdAfter, start + size >= holdAfter {
                                beganMidUpload = await reader.bodyBegins(within: .seconds(60))
                            }
                        }
                        if closeAfter == nil { try send(socket, Array("0\r\n\r\n".utf8)) }
                    }
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    // The server may answer and close before the whole body is sent (an early refusal).
                }
                let sentEnd = ContinuousClock.now
                // A client that gives up closes its side; one that stalls just stops sending.
                if closeAfter != nil && halfClose { shutdown(socket, Int32(SHUT_WR)) }
                try await group.waitForAll()
                let (data, firstByte) = reader.received
                guard var reply = parse(data, complete: true) else {
                    throw EarshotError(.invalidInput, "incomplete HTTP reply: \(String(decoding: data, as: UTF8.self))")
                }
                reply.latency = seconds(.now - sentEnd)
                reply.firstByteLead = firstByte.map { seconds(sentEnd - $0) } ?? 0
                reply.beganMidUpload = beganMidUpload
                return reply
            }
        }
    }

    public static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Reads a socket until the reply is complete or the server closes.
    private final class ReplyReader: Sendable {
        private let socket: Int32
        private let state = Locked<(data: [UInt8], firstByte: ContinuousClock.Instant?)>(([], nil))
        /// Ends when the reply's body — not just its head, which a streamed answer sends at once — has
        /// begun, or the reading is over.
        private let bodyBegan: AsyncStream<Void>
        private let bodyBeganContinuation: AsyncStream<Void>.Continuation

        init(socket: Int32) {
            self.socket = socket
            (bodyBegan, bodyBeganContinuation) = AsyncStream.makeStream(of: Void.self)
        }

        /// Blocks in recv(2) until the reply is complete, the server closes, or the socket's timeout.
        func read() {
            defer { bodyBeganContinuation.finish() }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var data: [UInt8] = []
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                data += buffer[0..<count]
                state.withLock {
                    if $0.firstByte == nil { $0.firstByte = .now }
                    $0.data = data
                }
                if let head = data.firstRange(of: [13, 10, 13, 10]), data.count > head.upperBound {
                    bodyBeganContinuation.yield()
                }
                if LoopbackClient.parse(data) != nil { break }
            }
        }

        /// Whether the reply's body began within `timeout` (waits once per exchange).
        func bodyBegins(within timeout: Duration) async -> Bool {
            await withTaskGroup(of: Bool.self) { group in
                group.addTask { [bodyBegan] in
                    for await _ in bodyBegan { return true }
                    return false
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return false
                }
                let began = await group.next()!
                group.cancelAll()
                return began
            }
        }

        var received: ([UInt8], ContinuousClock.Instant?) { state.withLock { ($0.data, $0.firstByte) } }
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
    public static func parse(_ data: [UInt8], complete: Bool = false) -> HTTPReply? {
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

