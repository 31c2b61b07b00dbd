import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One raw TCP connection to a server on 127.0.0.1, driven byte by byte: for tests that must send
/// what no HTTP client would (half a request line, a body at one byte a second) and see exactly what
/// comes back, and when the server closes.
///
/// Blocking calls with timeouts; use it from a thread of its own (or a test that may block).
public final class LoopbackConnection: @unchecked Sendable {
    private var socket: Int32
    private var received: [UInt8] = []
    public private(set) var isClosedByPeer = false
    /// The server reset the connection (rather than closing it in order): what a client may see
    /// when a server closes with unread upload bytes, possibly before it read the whole response.
    public private(set) var wasReset = false

    /// Connects to 127.0.0.1:`port`; with `receiveBufferBytes`, the socket's receive buffer is that
    /// small (set before connecting, so the window offered to the server is too): a client that reads
    /// slowly fills it at once. With `sendTimeout`, a send that waits that many seconds for a server
    /// that reads nothing fails (``send(_:)-([UInt8])`` returns false) instead of blocking for good.
    public init(port: Int, receiveBufferBytes: Int? = nil, sendTimeout: Double? = nil) throws {
        socket = try Self.connectedSocket(port: port, receiveBufferBytes: receiveBufferBytes)
        if let sendTimeout {
            var limit = timeval(
                tv_sec: Int(sendTimeout), tv_usec: Int(sendTimeout.truncatingRemainder(dividingBy: 1) * 1e6))
            setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    /// A TCP socket connected to 127.0.0.1:`port`, with Nagle's delay off; the caller closes it.
    public static func connectedSocket(port: Int, receiveBufferBytes: Int? = nil) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw CocoaError(.fileWriteUnknown) }
        if let receiveBufferBytes {
            var bytes = Int32(receiveBufferBytes)
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &bytes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var noDelay: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            close(socket)
            throw CocoaError(.fileReadNoSuchFile)
        }
        return socket
    }

    deinit { hangUp() }

    /// Closes the connection from this end at once, as a client that gives up or dies mid-request.
    public func hangUp() {
        guard socket >= 0 else { return }
        close(socket)
        socket = -1
    }

    /// Resets the connection (SO_LINGER 0, then close): the server's next read fails with ECONNRESET,
    /// as when a client's process is killed or a middlebox drops the connection.
    public func reset() {
        guard socket >= 0 else { return }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        hangUp()
    }

    /// Sends `bytes`; false if the server has closed the connection (or the send timeout passed).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads what arrives within `timeout` seconds (returning early once the server closes) and
    /// returns everything received on this connection so far.
    @discardableResult
    public func read(for timeout: Double) -> [UInt8] {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !isClosedByPeer {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { break }
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000))
            if ready < 0 && errno != EINTR { break }
            if ready <= 0 { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                isClosedByPeer = true
                wasReset = count < 0 && errno == ECONNRESET
            } else {
                received += buffer[0..<count]
            }
        }
        return received
    }

    /// Waits up to `timeout` seconds for the server to close; returns the seconds it took, or nil.
    public func secondsUntilClosed(timeout: Double) -> Double? {
        let started = Date()
        read(for: timeout)
        return isClosedByPeer ? Date().timeIntervalSince(started) : nil
    }

    /// Everything received so far, as text.
    public var text: String { String(decoding: received, as: UTF8.self) }

    /// The status codes of the HTTP responses received so far, in order.
    public var statuses: [Int] {
        text.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
    }
}
