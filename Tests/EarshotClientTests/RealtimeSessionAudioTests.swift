import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotClient

/// The Realtime client's audio: the chain's 16 kHz PCM16 as the session's 24 kHz, in chunks of any size.
@Suite(.computing) struct RealtimeSessionAudioTests {
    /// A 440 Hz tone at 16 kHz, in chunks of odd byte counts (a sample split across two), comes out as
    /// exactly 1.5 times the frames, with the tone's frequency and level.
    @Test func theChainsPCMComesOutAt24kHzWithItsToneAndLevel() throws {
        let frames = 16_000
        var pcm: [UInt8] = []
        for index in 0..<frames {
            let sample = Int16((0.5 * sin(2 * Double.pi * 440 * Double(index) / 16_000) * 32_767).rounded())
            pcm += [UInt8(UInt16(bitPattern: sample) & 0xFF), UInt8(UInt16(bitPattern: sample) >> 8)]
        }
        var audio = try RealtimeSessionAudio(captureRate: 16_000)
        var out: [UInt8] = []
        var offset = 0
        for size in [1, 333, 2_047, 5_001].cycled(until: pcm.count) {
            let end = min(offset + size, pcm.count)
            out += try audio.convert(pcm[offset..<end])
            offset = end
            if offset == pcm.count { break }
        }
        out += try audio.finish()
        #expect(out.count == 2 * frames * 3 / 2)
        let samples = stride(from: 0, to: out.count, by: 2).map {
            Double(Int16(bitPattern: UInt16(out[$0]) | UInt16(out[$0 + 1]) << 8)) / 32_768
        }
        // 440 Hz over 1 s: 880 zero crossings, counted away from the edges' filter ramps.
        let middle = samples[1_200..<(samples.count - 1_200)]
        let crossings = zip(middle, middle.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        let seconds = Double(middle.count) / 24_000
        #expect(abs(Double(crossings) / seconds - 880) < 4, "\(crossings) crossings in \(seconds) s")
        let rms = (middle.reduce(0) { $0 + $1 * $1 } / Double(middle.count)).squareRoot()
        #expect(abs(rms - 0.5 / 2.0.squareRoot()) < 0.01, "rms \(rms)")
    }
}

extension Array where Element == Int {
    /// These sizes over and over, enough of them to cover `total`.
    fileprivate func cycled(until total: Int) -> [Int] {
        var sizes: [Int] = []
        var covered = 0
        while covered < total {
            let size = self[sizes.count % count]
            sizes.append(size)
            covered += size
        }
        return sizes
    }
}
