import EarshotCodecs
import EarshotCore
import EarshotTestTraits
import Testing

/// The packet-time rule every encoder shares: padding carries no media time.
@Suite(.computing) struct EncoderPacketTimeTests {
    @Test(arguments: CodecFormat.allCases)
    func packetsEndWhereTheInputEnded(codec: CodecFormat) throws {
        var encoder = try codec.makeEncoder()
        let format = encoder.inputFormat
        // 170 ms plus 3 frames: never a whole number of codec frames.
        let frames = format.sampleRate * 17 / 100 + 3
        let input = AudioBuffer(format: format, samples: [Float](repeating: 0.01, count: frames), startFrame: 1_000)
        var output = try encoder.process(input)
        try encoder.finish(into: &output)
        let last = try #require(output.items.last)
        #expect(last.end == MediaTime(frame: 1_000 + Int64(frames), sampleRate: format.sampleRate), "\(codec)")
        #expect(output.items.allSatisfy { $0.start <= $0.end && $0.start.frame >= 1_000 }, "\(codec)")
    }
}
