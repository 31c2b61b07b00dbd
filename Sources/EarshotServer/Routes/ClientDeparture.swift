import CLinuxSocket
import NIOCore

/// Whether the client of a connection has gone: its end is closed, although the server may still
/// hold bytes it sent and has not read.
///
/// A client that gives up (Ctrl-C, a timeout, a crash) closes its socket; the kernel takes the FIN
/// at once, but the server reads it only after the body bytes queued before it — for a fast upload,
/// seconds of audio still to decode for nobody. TCP_INFO shows the FIN as soon as it arrives: the
/// connection leaves ESTABLISHED for CLOSE_WAIT. Like nginx (its "client prematurely closed
/// connection", status 499), the service takes a client's FIN during a request as the client
/// leaving: HTTP clients do not half-close a connection they want an answer on.
enum ClientDeparture {
    /// True once the client's end is closed, or the connection is gone. From any task: the socket is
    /// read on the channel's event loop.
    static func hasLeft(_ channel: any Channel) async -> Bool {
        guard channel.isActive else { return true }
        let state = try? await channel.eventLoop.submit { try SocketInfo.tcpInfo(channel)?.tcpi_state }.get()
        guard let state else { return !channel.isActive }
        return state != UInt8(TCP_ESTABLISHED)
    }
}
