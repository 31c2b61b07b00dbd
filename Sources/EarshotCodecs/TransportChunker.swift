public import EarshotCore

/// Cuts an encoded byte stream into HTTP transport chunks: `chunkSize` bytes each (512 by default,
/// the size section 3.3 of the AT&T Speech API document recommends for chunked uploads), then the
/// remainder when the stream ends or an endpoint calls ``flush(into:)``.
///
/// Contract:
/// - Input: encoded packets in stream order. Output: chunks of exactly `chunkSize` bytes, except the
///   last one before a flush. Byte order is preserved exactly.
/// - Time: a chunk spans from the start of the first packet it carries bytes of to the end of the
///   last, so two chunks that split one packet both cover that packet's audio.
/// - Latency: a byte waits for at most `chunkSize − 1` later bytes, i.e. `chunkSize` divided by the
///   byte rate: ≈ 0.29 s for Speex wideband at 14 kbit/s, 0.32 s for AMR-NB 12.2, 16 ms for 16 kHz
///   WAV. `maxHoldDuration` bounds it in media time instead: once the held bytes cover that much
///   audio, they go out as a short chunk.
public struct TransportChunker: AudioStage, Sendable {
    public typealias Input = EncodedPacket
    public typealias Output = EncodedPacket

    /// Chunker settings.
    public struct Configuration: Sendable, Hashable {
        /// Bytes per chunk.
        public var chunkSize: Int
        /// If set, seconds of audio after which held bytes are sent even if the chunk is not full.
        public var maxHoldDuration: Double?

        public init(chunkSize: Int = 512, maxHoldDuration: Double? = nil) {
            self.chunkSize = chunkSize
            self.maxHoldDuration = maxHoldDuration
        }
    }

    public let configuration: Configuration
    private var pending: [UInt8] = []
    private var pendingStart: MediaTime?
    private var pendingEnd: MediaTime?

    public init(configuration: Configuration = Configuration()) throws {
        guard configuration.chunkSize > 0 else {
            throw EarshotError(.invalidParameter, "chunk size: \(configuration.chunkSize) bytes; expected at least 1")
        }
        if let hold = configuration.maxHoldDuration, !(hold > 0) {
            throw EarshotError(.invalidParameter, "max hold duration: \(hold) s; expected a positive number of seconds")
        }
        self.configuration = configuration
        pending.reserveCapacity(configuration.chunkSize)
    }

    /// Bytes held back, waiting for a full chunk.
    public var heldByteCount: Int { pending.count }

    public mutating func process(_ packet: EncodedPacket, into output: inout StageOutput<EncodedPacket>) throws {
        var offset = 0
        let size = configuration.chunkSize
        while offset < packet.bytes.count {
            if pendingStart == nil { pendingStart = packet.start }
            pendingEnd = packet.end
            let take = min(size - pending.count, packet.bytes.count - offset)
            pending.append(contentsOf: packet.bytes[offset..<offset + take])
            offset += take
            if pending.count == size { emitPending(into: &output) }
        }
        if let hold = configuration.maxHoldDuration, let start = pendingStart, let end = pendingEnd,
            !pending.isEmpty, end.seconds - start.seconds >= hold
        {
            emitPending(into: &output)
        }
    }

    /// Sends whatever is held as a short chunk: at an endpoint, so the service gets the last audio now.
    public mutating func flush(into output: inout StageOutput<EncodedPacket>) {
        if !pending.isEmpty { emitPending(into: &output) }
    }

    public mutating func finish(into output: inout StageOutput<EncodedPacket>) throws {
        flush(into: &output)
    }

    private mutating func emitPending(into output: inout StageOutput<EncodedPacket>) {
        guard let start = pendingStart, let end = pendingEnd else { return }
        output.emit(EncodedPacket(bytes: pending, start: start, end: end))
        pending.removeAll(keepingCapacity: true)
        pendingStart = nil
        pendingEnd = nil
    }
}
