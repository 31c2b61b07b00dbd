public import Foundation

/// A reply read off the socket.
public struct HTTPReply: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Data
    /// Seconds from sending the last byte of the request to reading the whole reply.
    public var latency: Double
    /// Seconds by which the reply's first byte arrived before the upload ended (negative: after).
    public var firstByteLead: Double = 0
    /// With `holdAfter`: whether the reply's body began while the client held back the rest of its own.
    public var beganMidUpload = false

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
    public var text: String { String(decoding: body, as: UTF8.self) }
}

