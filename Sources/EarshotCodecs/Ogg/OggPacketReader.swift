import COgg
import EarshotCore

/// Splits an Ogg byte stream (RFC 3533), fed in pieces cut anywhere, into the packets of its first
/// logical stream, with libogg.
///
/// The reader is strict because its input is untrusted upload data: the stream must start with a
/// beginning-of-stream page, pages must follow one another with no junk between them, every page must
/// pass its CRC, no page may be missing, and the stream must end with its end-of-stream page. Each
/// problem throws `.invalidInput` naming the byte offset, as soon as enough bytes have arrived to see
/// it (a wrong capture pattern is caught on its first differing byte). Pages of other logical streams
/// multiplexed in (a Skeleton track, say) are skipped; chained streams are not supported.
///
/// Use: ``feed(_:)`` the bytes, then take ``nextPage()`` while it returns a page and, after each,
/// ``nextPacket()`` until it returns `nil`; packets are valid until the next `nextPage()`.
final class OggPacketReader {
    /// What the codec needs to know about the page that just arrived.
    struct Page {
        /// Byte offset of the page's capture pattern in the stream.
        var offset: Int
        /// The codec's position after the last packet completed on this page; -1 when none completes.
        var granulePosition: Int64
        var isEndOfStream: Bool
    }

    /// A packet and where it starts in the stream (for error messages).
    struct Packet {
        var bytes: UnsafeRawBufferPointer
        var offset: Int
    }

    /// Largest packet accepted: bounds the memory a hostile stream can make libogg allocate.
    static let maxPacketBytes = 1 << 22

    private static let capturePattern: [UInt8] = Array("OggS".utf8)

    let name: String
    private let sync: UnsafeMutablePointer<ogg_sync_state>
    private let stream: UnsafeMutablePointer<ogg_stream_state>
    private var serialNumber: Int32?
    /// Bytes of the stream consumed as whole pages: the offset of the next page.
    private var consumed = 0
    private var sawEndOfStream = false
    /// Stream offsets where the packets completed on the current page start, in order.
    private var packetStarts: [Int] = []
    private var nextPacketIndex = 0
    /// Where the packet still open at the end of the last page started, if one is.
    private var openPacketStart: Int?

    init(name: String) {
        self.name = name
        sync = .allocate(capacity: 1)
        sync.initialize(to: ogg_sync_state())
        ogg_sync_init(sync)
        stream = .allocate(capacity: 1)
        stream.initialize(to: ogg_stream_state())
        packetStarts.reserveCapacity(255)
    }

    deinit {
        ogg_sync_clear(sync)
        sync.deallocate()
        if serialNumber != nil { ogg_stream_clear(stream) }
        stream.deallocate()
    }

    /// Hands `bytes` to libogg; pages come out of ``nextPage()``.
    func feed(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        guard let buffer = ogg_sync_buffer(sync, bytes.count) else {
            throw EarshotError.malformedStream(
                name, at: consumed, "libogg could not buffer \(bytes.count) more bytes", expected: "a smaller stream")
        }
        bytes.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        ogg_sync_wrote(sync, bytes.count)
    }

    /// The next complete page of the logical stream, or `nil` until more bytes arrive.
    func nextPage() throws -> Page? {
        var page = ogg_page()
        while true {
            try checkCapturePattern()
            let result = ogg_sync_pageseek(sync, &page)
            if result == 0 { return nil }
            if result < 0 {
                // The capture pattern matched (checked above), so libogg rejected the header or the CRC.
                throw EarshotError.malformedStream(
                    name, at: consumed, "Ogg page is corrupt (its checksum or header does not match its contents)",
                    expected: "an intact page")
            }
            let offset = consumed
            consumed += result
            if let info = try accept(&page, at: offset) { return info }
        }
    }

    /// The next packet completed on the current page, or `nil` when the page has no more.
    func nextPacket() throws -> Packet? {
        var packet = ogg_packet()
        switch ogg_stream_packetout(stream, &packet) {
        case 1:
            let offset = nextPacketIndex < packetStarts.count ? packetStarts[nextPacketIndex] : consumed
            nextPacketIndex += 1
            return Packet(bytes: UnsafeRawBufferPointer(start: packet.packet, count: packet.bytes), offset: offset)
        case 0:
            return nil
        default:
            throw EarshotError.malformedStream(
                name, at: consumed, "a page is missing before this point (page sequence numbers skip)",
                expected: "consecutive pages")
        }
    }

    /// Throws if the stream stopped before its end: inside a page, inside a packet, or before the
    /// end-of-stream page.
    func finish() throws {
        let pending = Int(sync.pointee.fill - sync.pointee.returned)
        if pending > 0 {
            throw EarshotError.malformedStream(
                name, at: consumed + pending, "stream ends inside the Ogg page that starts at byte \(consumed)",
                expected: "the rest of that page")
        }
        guard serialNumber != nil else {
            throw EarshotError.malformedStream(name, at: 0, "stream is empty", expected: "an Ogg page (\"OggS\")")
        }
        if let openPacketStart {
            throw EarshotError.malformedStream(
                name, at: consumed, "stream ends inside the packet that starts at byte \(openPacketStart)",
                expected: "a page completing that packet")
        }
        guard sawEndOfStream else {
            throw EarshotError.malformedStream(
                name, at: consumed, "stream ends without its end-of-stream page (it was cut short)",
                expected: "more pages")
        }
    }

    /// Compares the bytes waiting at the next page's position with "OggS", as far as they go.
    private func checkCapturePattern() throws {
        let available = Int(sync.pointee.fill - sync.pointee.returned)
        guard available > 0, let data = sync.pointee.data else { return }
        let start = data + Int(sync.pointee.returned)
        for index in 0..<min(available, 4) where start[index] != Self.capturePattern[index] {
            let found = (0..<min(available, 4)).map { Self.printable(start[$0]) }.joined()
            throw EarshotError.malformedStream(
                name, at: consumed, "found \"\(found)\" where an Ogg page should begin",
                expected: "the Ogg capture pattern \"OggS\"")
        }
    }

    /// Hands a page of our logical stream to libogg and notes where its packets start; `nil` for a
    /// page of another multiplexed stream.
    private func accept(_ page: inout ogg_page, at offset: Int) throws -> Page? {
        let serial = ogg_page_serialno(&page)
        if serialNumber == nil {
            guard ogg_page_bos(&page) != 0 else {
                throw EarshotError.malformedStream(
                    name, at: offset, "first Ogg page does not begin a logical stream",
                    expected: "a beginning-of-stream page")
            }
            serialNumber = serial
            ogg_stream_init(stream, serial)
        } else if serial != serialNumber {
            if sawEndOfStream && ogg_page_bos(&page) != 0 {
                throw EarshotError(
                    .unsupportedFormat,
                    "\(name): a second (chained) Ogg stream begins at byte \(offset); only one is supported")
            }
            return nil
        }
        if sawEndOfStream {
            throw EarshotError.malformedStream(
                name, at: offset, "Ogg page follows the end-of-stream page", expected: "the end of the stream")
        }
        guard ogg_stream_pagein(stream, &page) == 0 else {
            throw EarshotError.malformedStream(
                name, at: offset, "libogg rejected the Ogg page (unsupported version or bad structure)",
                expected: "a version 0 page")
        }
        try notePacketStarts(of: page, at: offset)
        sawEndOfStream = ogg_page_eos(&page) != 0
        return Page(offset: offset, granulePosition: ogg_page_granulepos(&page), isEndOfStream: sawEndOfStream)
    }

    /// Walks the segment table: a lacing value below 255 ends a packet, and a page flagged
    /// "continued" carries on the packet left open by the page before.
    private func notePacketStarts(of page: ogg_page, at offset: Int) throws {
        packetStarts.removeAll(keepingCapacity: true)
        nextPacketIndex = 0
        var page = page
        if ogg_page_continued(&page) == 0 { openPacketStart = nil }
        let segmentCount = Int(page.header[26])
        var position = offset + page.header_len
        for segment in 0..<segmentCount {
            let lacing = Int(page.header[27 + segment])
            let start = openPacketStart ?? position
            position += lacing
            if lacing < 255 {
                packetStarts.append(start)
                openPacketStart = nil
            } else {
                openPacketStart = start
                if position - start > Self.maxPacketBytes {
                    throw EarshotError.malformedStream(
                        name, at: start, "Ogg packet grows past \(Self.maxPacketBytes) bytes",
                        expected: "packets of a speech codec")
                }
            }
        }
    }

    private static func printable(_ byte: UInt8) -> String {
        (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
    }
}
