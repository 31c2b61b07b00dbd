import CLinuxSocket
import Glibc
import NIOCore

/// The kernel's TCP_INFO for a channel's socket: what the service reads of a connection's state
/// (``ClientDeparture``) and of its listener's accept queue (``ServiceListener``).
enum SocketInfo {
    /// The channel's `tcp_info`, or nil if the channel exposes no socket (an embedded channel in tests).
    /// On the channel's event loop.
    static func tcpInfo(_ channel: any Channel) throws -> tcp_info? {
        try channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) { socket in
            var info = tcp_info()
            var size = socklen_t(MemoryLayout<tcp_info>.size)
            guard getsockopt(socket, Int32(IPPROTO_TCP), TCP_INFO, &info, &size) == 0 else {
                throw IOError(errnoCode: errno, reason: "getsockopt(TCP_INFO)")
            }
            return info
        }
    }
}
