import CLinuxSocket
import Glibc
import Logging
import NIOCore

/// The service's listening socket, and the way it stops taking connections at the end of a drain
/// without resetting any it has already taken.
///
/// Closing a listening socket resets the connections the kernel has completed but the server not yet
/// accepted (its accept queue), and SwiftNIO closes a connection it has accepted if the listener
/// closes while that connection is still being set up on its event loop. Either way a client whose
/// `connect()` succeeded sees its request reset, and a balancer that streams the body (nginx with
/// `proxy_request_buffering off`) cannot pass it to another instance: it answers 502. A refused
/// connection, by contrast, is one it passes on. So ``shut(queueWait:settle:)`` closes the door in
/// steps, before Hummingbird closes the socket:
/// 1. A classic BPF socket filter that keeps no packet is attached to the listening socket. A new
///    connection attempt gets no answer to its SYN and sends it again (Linux: after 1 s), by which
///    time the closed port refuses it.
/// 2. Wait, at most `queueWait`, until the accept queue is empty (for a listener, TCP_INFO's
///    `tcpi_unacked` is that queue's length).
/// 3. Wait `settle` for the connections just accepted to be set up, so that they get their answer
///    (``ConnectionGuard`` holds the drain for a connection until its first request has arrived).
actor ServiceListener {
    private var channel: (any Channel)?
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// The listening channel, once Hummingbird has bound it.
    func opened(_ channel: any Channel) { self.channel = channel }

    func shut(queueWait: Duration = .seconds(2), settle: Duration = .milliseconds(250)) async {
        guard let channel, channel.isActive else { return }
        do {
            guard try await channel.eventLoop.submit({ try Self.refuseNewConnections(channel) }).get() else {
                logger.debug("the listener gives no access to its socket: it closes without a filter")
                return
            }
            let deadline = ContinuousClock.now.advanced(by: queueWait)
            while ContinuousClock.now < deadline,
                try await channel.eventLoop.submit({ try Self.acceptQueueLength(channel) }).get() > 0
            {
                try await Task.sleep(for: .milliseconds(10))
            }
            try await Task.sleep(for: settle)
        } catch {
            // The listener closed meanwhile, or the socket refused the filter: close as Hummingbird does.
            logger.debug("closing the listener without waiting: \(error)")
        }
    }

    /// Attaches a one-instruction filter, `ret #0` (keep no byte of any packet). False if the channel
    /// does not expose a socket. On the channel's event loop.
    private static func refuseNewConnections(_ channel: any Channel) throws -> Bool {
        let attached = try channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(
            of: NIOBSDSocket.Handle.self
        ) { socket in
            var instructions = [sock_filter(code: UInt16(BPF_RET | BPF_K), jt: 0, jf: 0, k: 0)]
            let result = instructions.withUnsafeMutableBufferPointer { instructions in
                var program = sock_fprog(len: UInt16(instructions.count), filter: instructions.baseAddress)
                return setsockopt(
                    socket, SOL_SOCKET, SO_ATTACH_FILTER, &program, socklen_t(MemoryLayout<sock_fprog>.size))
            }
            guard result == 0 else { throw IOError(errnoCode: errno, reason: "setsockopt(SO_ATTACH_FILTER)") }
            return true
        }
        return attached ?? false
    }

    /// Connections completed by the kernel and not yet accepted. On the channel's event loop.
    private static func acceptQueueLength(_ channel: any Channel) throws -> Int {
        Int(try SocketInfo.tcpInfo(channel)?.tcpi_unacked ?? 0)
    }
}
