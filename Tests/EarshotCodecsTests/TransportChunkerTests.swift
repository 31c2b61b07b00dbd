import EarshotCodecs
import EarshotCore
import EarshotTestTraits
import Testing

private func packet(_ bytes: [UInt8], from start: Int64, to end: Int64) -> EncodedPacket {
    EncodedPacket(
        bytes: bytes, start: MediaTime(frame: start, sampleRate: 16_000), end: MediaTime(frame: end, sampleRate: 16_000)
    )
}

@Suite(.computing) struct TransportChunkerTests {
    @Test(arguments: [1, 7, 100, 512, 513, 5_000])
    func cutsAnyPacketSizesIntoFullChunksPreservingBytes(packetSize: Int) throws {
        var chunker = try TransportChunker()
        let stream = (0..<4_321).map { UInt8(truncatingIfNeeded: $0 * 31) }
        var chunks: [EncodedPacket] = []
        var output = StageOutput<EncodedPacket>()
        for (index, start) in stride(from: 0, to: stream.count, by: packetSize).enumerated() {
            let slice = Array(stream[start..<min(start + packetSize, stream.count)])
            try chunker.process(packet(slice, from: Int64(index * 320), to: Int64(index * 320 + 320)), into: &output)
            chunks += output.items
            output.removeAll()
            #expect(chunker.heldByteCount < 512, "never holds a full chunk's worth")
        }
        try chunker.finish(into: &output)
        chunks += output.items
        #expect(chunks.flatMap(\.bytes) == stream)
        #expect(chunks.dropLast().allSatisfy { $0.bytes.count == 512 })
        #expect(chunks.last?.bytes.count == 4_321 % 512)
        for (a, b) in zip(chunks, chunks.dropFirst()) { #expect(a.start <= b.start && a.end <= b.end) }
    }

    @Test func chunkTimesSpanThePacketsTheyCarry() throws {
        var chunker = try TransportChunker(configuration: .init(chunkSize: 4))
        var out = try chunker.process(packet([1, 2, 3], from: 0, to: 320))
        #expect(out.items.isEmpty)
        out = try chunker.process(packet([4, 5, 6], from: 320, to: 640))
        #expect(out.items == [packet([1, 2, 3, 4], from: 0, to: 640)])
        out = try chunker.finish()
        #expect(out.items == [packet([5, 6], from: 320, to: 640)])
    }

    @Test func flushSendsTheRemainderAtAnEndpoint() throws {
        var chunker = try TransportChunker()
        var output = StageOutput<EncodedPacket>()
        try chunker.process(packet([9, 9, 9], from: 0, to: 160), into: &output)
        chunker.flush(into: &output)
        #expect(output.items.map(\.bytes) == [[9, 9, 9]])
        #expect(chunker.heldByteCount == 0)
        #expect(try chunker.finish().items.isEmpty, "nothing left, nothing sent")
    }

    @Test func maxHoldDurationBoundsLatencyInMediaTime() throws {
        // 40 bytes per 20 ms frame (16 kbit/s): 512 bytes would wait 256 ms; a 100 ms bound sends after 5 frames.
        var chunker = try TransportChunker(configuration: .init(maxHoldDuration: 0.1))
        var sent: [EncodedPacket] = []
        for frame in 0..<12 {
            sent += try chunker.process(
                packet([UInt8](repeating: 1, count: 40), from: Int64(frame * 320), to: Int64(frame * 320 + 320))
            ).items
        }
        #expect(sent.map(\.bytes.count) == [200, 200])
        #expect(sent.first?.end.seconds == 0.1)
    }

    @Test func rejectsBadConfiguration() {
        #expect(throws: EarshotError.self) { try TransportChunker(configuration: .init(chunkSize: 0)) }
        #expect(throws: EarshotError.self) { try TransportChunker(configuration: .init(maxHoldDuration: -1)) }
    }
}
