import COgg

/// Packs codec packets into Ogg pages (RFC 3533) with libogg, leaving the caller in charge of when a
/// page is closed.
///
/// Streaming needs short pages: libogg on its own closes a page only at ~4 KiB, which at speech rates
/// would hold seconds of audio back. Encoders call ``flush(into:)`` after each header packet (the
/// Speex and Opus mappings want headers on pages of their own) and whenever ``packetsSinceFlush``
/// reaches their latency budget. Steady state allocates nothing: libogg reuses its packet and page
/// buffers once they have grown to a page's size.
final class OggPageWriter {
    private let stream: UnsafeMutablePointer<ogg_stream_state>
    private var packetNumber: Int64 = 0
    /// Packets appended since the last page was written.
    private(set) var packetsSinceFlush = 0

    init(serialNumber: Int32) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: ogg_stream_state())
        ogg_stream_init(stream, serialNumber)
    }

    deinit {
        ogg_stream_clear(stream)
        stream.deallocate()
    }

    /// Queues one packet; `granulePosition` is the codec's position once the packet is decoded.
    ///
    /// libogg copies the bytes, so `packet` need only live for the call. Empty packets are refused
    /// because no codec here has a meaning for them.
    func append(_ packet: UnsafeRawBufferPointer, granulePosition: Int64, endOfStream: Bool = false) {
        precondition(!packet.isEmpty, "Ogg packets written by Earshot are never empty")
        var oggPacket = ogg_packet(
            packet: UnsafeMutablePointer(mutating: packet.baseAddress!.assumingMemoryBound(to: UInt8.self)),
            bytes: packet.count,
            b_o_s: packetNumber == 0 ? 1 : 0,
            e_o_s: endOfStream ? 1 : 0,
            granulepos: granulePosition,
            packetno: packetNumber)
        // libogg fails only when it cannot grow its buffers; nothing sensible can follow that.
        let status = ogg_stream_packetin(stream, &oggPacket)
        precondition(status == 0, "libogg could not queue a packet (out of memory)")
        packetNumber += 1
        packetsSinceFlush += 1
    }

    /// Queues one packet held in an array (headers, built once).
    func append(_ packet: [UInt8], granulePosition: Int64, endOfStream: Bool = false) {
        packet.withUnsafeBytes { append($0, granulePosition: granulePosition, endOfStream: endOfStream) }
    }

    /// Closes the queued packets into pages and appends their bytes to `bytes`.
    func flush(into bytes: inout [UInt8]) {
        var page = ogg_page()
        while ogg_stream_flush(stream, &page) != 0 {
            bytes.append(contentsOf: UnsafeBufferPointer(start: page.header, count: page.header_len))
            bytes.append(contentsOf: UnsafeBufferPointer(start: page.body, count: page.body_len))
        }
        packetsSinceFlush = 0
    }
}
