import EarshotCore
import EarshotDSP

/// The audio a ``RealtimeListener`` sends: 16-bit little-endian PCM at 24 kHz, the rate OpenAI's Realtime
/// sessions take for `audio/pcm` (the only one they take), converted from the capture chain's PCM at its
/// detection rate (16 kHz) with the resampler the chain itself uses (libsoxr). The chain's audio holds
/// nothing above 8 kHz, so a service that works at 16 kHz gets back what was captured.
struct RealtimeSessionAudio {
    /// The session's `audio/pcm` rate.
    static let sessionRate = 24_000

    private let resampler: Resampler
    private var frame: Int64 = 0
    /// A byte of a sample split across two chunks.
    private var carry: UInt8?

    init(captureRate: Int) throws {
        resampler = try Resampler(
            inputFormat: AudioFormat(sampleRate: captureRate, channelCount: 1, origin: "capture rate"),
            configuration: Resampler.Configuration(sampleRate: Self.sessionRate))
    }

    /// The session's PCM for the next `pcm` bytes of the chain's.
    mutating func convert(_ pcm: some Collection<UInt8>) throws -> [UInt8] {
        var bytes = carry.map { [$0] } ?? []
        bytes.append(contentsOf: pcm)
        carry = bytes.count % 2 == 1 ? bytes.removeLast() : nil
        var samples = [Float](repeating: 0, count: bytes.count / 2)
        for index in samples.indices {
            samples[index] =
                Float(Int16(bitPattern: UInt16(bytes[2 * index]) | UInt16(bytes[2 * index + 1]) << 8)) / 32_768
        }
        let input = AudioBuffer(format: resampler.inputFormat, samples: samples, startFrame: frame)
        frame += Int64(samples.count)
        var output = StageOutput<AudioBuffer>()
        try resampler.process(input, into: &output)
        return Self.pcm(output.items)
    }

    /// The tail the resampler's filter held back, at the end of the utterance.
    mutating func finish() throws -> [UInt8] {
        var output = StageOutput<AudioBuffer>()
        try resampler.finish(into: &output)
        return Self.pcm(output.items)
    }

    private static func pcm(_ buffers: [AudioBuffer]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 * buffers.reduce(0) { $0 + $1.samples.count })
        for buffer in buffers {
            for sample in buffer.samples {
                let value = UInt16(bitPattern: Int16(max(-32_768, min(32_767, (sample * 32_768).rounded()))))
                bytes.append(UInt8(value & 0xFF))
                bytes.append(UInt8(value >> 8))
            }
        }
        return bytes
    }
}
