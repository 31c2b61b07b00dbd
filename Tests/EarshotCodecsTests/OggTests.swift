import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotCodecs

/// Helpers for the Ogg Speex and Ogg Opus tests: reading a stream's pages and packets back, and
/// building streams by hand.
enum OggTestSupport {
    struct Page: Equatable {
        var offset: Int
        var granulePosition: Int64
        var isEndOfStream: Bool
        var packets: [[UInt8]]
        var packetOffsets: [Int]
    }

    /// Every page of `bytes` with the packets completed on it, fed in `chunkSize` pieces.
    static func pages(_ bytes: [UInt8], chunkSize: Int = 4_096, name: String = "test.ogg") throws -> [Page] {
        let reader = OggPacketReader(name: name)
        var pages: [Page] = []
        for start in stride(from: 0, to: bytes.count, by: chunkSize) {
            try reader.feed(Array(bytes[start..<min(start + chunkSize, bytes.count)]))
            while let page = try reader.nextPage() {
                var packets: [[UInt8]] = []
                var offsets: [Int] = []
                while let packet = try reader.nextPacket() {
                    packets.append(Array(packet.bytes))
                    offsets.append(packet.offset)
                }
                pages.append(
                    Page(
                        offset: page.offset, granulePosition: page.granulePosition, isEndOfStream: page.isEndOfStream,
                        packets: packets, packetOffsets: offsets))
            }
        }
        try reader.finish()
        return pages
    }

    /// Speex frames in an Ogg Speex file, one per packet, five per page, granule positions counting
    /// every decoded sample (no look-ahead to drop: the frames came without a header saying so).
    static func rewrapInOgg(_ frames: [ArraySlice<UInt8>], band: SpeexBand) throws -> [UInt8] {
        let writer = OggPageWriter(serialNumber: 7)
        var bytes: [UInt8] = []
        for header in [try OggSpeexEncoder.identificationHeader(.init(band: band)), OggSpeexEncoder.commentHeader()] {
            writer.append(header, granulePosition: 0)
            writer.flush(into: &bytes)
        }
        for (index, frame) in frames.enumerated() {
            let isLast = index == frames.count - 1
            writer.append(Array(frame), granulePosition: Int64((index + 1) * band.frameSize), endOfStream: isLast)
            if isLast || writer.packetsSinceFlush == 5 { writer.flush(into: &bytes) }
        }
        return bytes
    }

    /// `pages` written again (after a test has edited their packets), granule positions kept.
    static func stream(pages: [Page]) -> [UInt8] {
        let writer = OggPageWriter(serialNumber: 77)
        var bytes: [UInt8] = []
        for (index, page) in pages.enumerated() {
            for packet in page.packets {
                writer.append(packet, granulePosition: page.granulePosition, endOfStream: page.isEndOfStream)
            }
            writer.flush(into: &bytes)
            #expect(page.isEndOfStream == (index == pages.count - 1))
        }
        return bytes
    }

    /// A stream of `packets` (granule position = packet index), flushed every `perPage` packets.
    static func stream(_ packets: [[UInt8]], perPage: Int, endOfStream: Bool = true) -> [UInt8] {
        let writer = OggPageWriter(serialNumber: 1234)
        var bytes: [UInt8] = []
        for (index, packet) in packets.enumerated() {
            let isLast = index == packets.count - 1
            writer.append(packet, granulePosition: Int64(index), endOfStream: isLast && endOfStream)
            if isLast || writer.packetsSinceFlush == perPage { writer.flush(into: &bytes) }
        }
        return bytes
    }

    /// The lag (in samples, within ±`maxLag`) at which `other` best matches `reference`: 0 when a
    /// codec's delay was removed. A speech codec keeps the envelope but not the exact waveform, so a
    /// waveform correlation alone can lock onto a pitch period: the short-time energy (4 ms windows)
    /// finds the lag to within ~10 samples first, then the waveform pins it down within ±12 of that.
    static func bestLag(_ reference: [Float], _ other: [Float], maxLag: Int = 400, span: Int = 32_000) -> Int {
        func envelope(_ samples: [Float]) -> [Float] {
            let window = 64
            var sums: [Float] = [0]
            for sample in samples.prefix(span) { sums.append(sums.last! + sample * sample) }
            let energies = (0..<max(0, sums.count - window)).map { sums[$0 + window] - sums[$0] }
            let mean = energies.reduce(0, +) / Float(max(1, energies.count))
            return energies.map { $0 - mean }
        }
        let coarse = correlationPeak(envelope(reference), envelope(other), lags: -maxLag...maxLag, margin: maxLag)
        return correlationPeak(
            Array(reference.prefix(span)), Array(other.prefix(span)), lags: coarse - 12...coarse + 12,
            margin: maxLag + 12)
    }

    private static func correlationPeak(_ a: [Float], _ b: [Float], lags: ClosedRange<Int>, margin: Int) -> Int {
        let count = min(a.count, b.count) - margin
        var best = (lag: 0, score: -Float.infinity)
        for lag in lags {
            var score: Float = 0
            for index in margin..<count { score += a[index] * b[index + lag] }
            if score > best.score { best = (lag, score) }
        }
        return best.lag
    }
}

/// The Ogg page writer and packet reader over libogg.
@Suite(.computing) struct OggTests {
    /// Packets of assorted sizes: empty-ish, exactly 255 (a lacing value of 255 then 0), several
    /// segments, and one larger than a page's 65 025-byte body.
    static let packets: [[UInt8]] = [1, 254, 255, 256, 600, 70_000, 3, 510].enumerated().map { index, size in
        (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7 + index) }
    }

    @Test func packetsComeBackIntactWhateverTheChunkSize() throws {
        let bytes = OggTestSupport.stream(Self.packets, perPage: 3)
        let whole = try OggTestSupport.pages(bytes, chunkSize: bytes.count)
        #expect(whole.flatMap(\.packets) == Self.packets)
        #expect(whole.last?.isEndOfStream == true)
        #expect(whole.dropLast().allSatisfy { !$0.isEndOfStream })
        #expect(try OggTestSupport.pages(bytes, chunkSize: 1) == whole)
        #expect(try OggTestSupport.pages(bytes, chunkSize: 97) == whole)
        // The first packet starts right after the first page's header: 27 bytes and one lacing value.
        #expect(whole[0].packetOffsets[0] == 28)
        // Each packet's offset points at its first segment (up to 255 bytes, never split across pages),
        // including the packet continued over several pages.
        for (packet, offset) in zip(Self.packets, whole.flatMap(\.packetOffsets)) {
            let first = min(packet.count, 255)
            #expect(Array(bytes[offset..<offset + first]) == Array(packet.prefix(first)))
        }
    }

    @Test func wrongCapturePatternThrowsAtItsFirstByte() throws {
        let reader = OggPacketReader(name: "speech.wav")
        try reader.feed(Array("R".utf8))
        let error = try thrownEarshotError { _ = try reader.nextPage() }
        #expect(error?.code == .invalidInput)
        #expect(
            error?.message
                == "speech.wav: found \"R\" where an Ogg page should begin at byte 0; expected the Ogg capture pattern \"OggS\""
        )
    }

    @Test func junkBetweenPagesThrowsAtItsOffset() throws {
        let first = OggTestSupport.stream([[1, 2, 3]], perPage: 1, endOfStream: false)
        let bytes = first + Array("junk".utf8) + first
        let error = try thrownEarshotError { _ = try OggTestSupport.pages(bytes, chunkSize: 1) }
        #expect(error?.message.contains("found \"j\" where an Ogg page should begin at byte \(first.count)") == true)
    }

    @Test func corruptPageFailsItsChecksum() throws {
        var bytes = OggTestSupport.stream(Self.packets, perPage: 3)
        let pages = try OggTestSupport.pages(bytes)
        bytes[pages[1].offset + 40] ^= 0xFF
        let error = try thrownEarshotError { _ = try OggTestSupport.pages(bytes) }
        #expect(error?.message.contains("corrupt") == true)
        #expect(error?.message.contains("at byte \(pages[1].offset)") == true, "\(String(describing: error))")
    }

    @Test func truncationIsCaughtAtFinish() throws {
        let bytes = OggTestSupport.stream(Self.packets, perPage: 3)
        let pages = try OggTestSupport.pages(bytes)
        // Inside the last page.
        let cut = try thrownEarshotError { _ = try OggTestSupport.pages(Array(bytes.dropLast(10))) }
        #expect(
            cut?.message.contains("stream ends inside the Ogg page that starts at byte \(pages.last!.offset)") == true)
        // Exactly at a page boundary: no end-of-stream page.
        let early = try thrownEarshotError { _ = try OggTestSupport.pages(Array(bytes[..<pages.last!.offset])) }
        #expect(early?.message.contains("without its end-of-stream page") == true, "\(String(describing: early))")
        // Nothing at all.
        let empty = try thrownEarshotError { _ = try OggTestSupport.pages([]) }
        #expect(empty?.message.contains("stream is empty at byte 0") == true)
    }

    @Test func missingPageIsCaught() throws {
        let bytes = OggTestSupport.stream((0..<9).map { [UInt8($0)] }, perPage: 2)
        let pages = try OggTestSupport.pages(bytes)
        let gapped = Array(bytes[..<pages[2].offset] + bytes[pages[3].offset...])
        let error = try thrownEarshotError { _ = try OggTestSupport.pages(gapped) }
        #expect(error?.message.contains("a page is missing") == true, "\(String(describing: error))")
    }

    @Test func streamMustStartWithABeginningOfStreamPage() throws {
        let bytes = OggTestSupport.stream((0..<4).map { [UInt8($0)] }, perPage: 2)
        let pages = try OggTestSupport.pages(bytes)
        let error = try thrownEarshotError { _ = try OggTestSupport.pages(Array(bytes[pages[1].offset...])) }
        #expect(error?.message.contains("does not begin a logical stream at byte 0") == true)
    }

    @Test func pagesAfterTheEndOfStreamAreRefused() throws {
        let bytes = OggTestSupport.stream([[1], [2]], perPage: 1)
        let error = try thrownEarshotError { _ = try OggTestSupport.pages(bytes + bytes) }
        #expect(error?.code == .unsupportedFormat || error?.message.contains("end-of-stream") == true)
        #expect(error?.message.contains("at byte \(bytes.count)") == true, "\(String(describing: error))")
    }
}
