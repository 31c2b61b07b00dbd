import EarshotCodecs
import EarshotCore
import EarshotDSP
import EarshotIO
import EarshotLab
import EarshotRecognizer
import EarshotTesting
import Foundation
import Testing

/// Shared machinery for codec tests: real speech in, encoded bytes, decoded audio, and recognition.
enum CodecRoundTrip {
    /// A LibriVox clip at `rate` mono (resampled from its native 16 kHz when needed).
    static func speech(_ clip: LibriVoxClips.Clip, rate: Int = 16_000) throws -> AudioBuffer {
        let source = try AudioFileSource(path: clip.path)
        let resampler = try Resampler(inputFormat: source.format, configuration: .init(sampleRate: rate, quality: 10))
        var all = AudioBuffer(format: resampler.outputFormat)
        var output = StageOutput<AudioBuffer>()
        while let buffer = try source.read() { try resampler.process(buffer, into: &output) }
        try resampler.finish(into: &output)
        for buffer in output.items { all.samples += buffer.samples }
        return all
    }

    /// Encodes `audio` fed in blocks of `blockFrames`, returning the whole byte stream.
    static func encode<E: AudioEncoder>(_ audio: AudioBuffer, with encoder: inout E, blockFrames: Int = 1_000) throws
        -> [UInt8]
    {
        var bytes: [UInt8] = []
        var output = StageOutput<EncodedPacket>()
        for block in Signal.blocks(of: audio, frames: blockFrames) {
            try encoder.process(block, into: &output)
            for packet in output.items { bytes += packet.bytes }
            output.removeAll()
        }
        try encoder.finish(into: &output)
        for packet in output.items { bytes += packet.bytes }
        return bytes
    }

    /// Decodes `bytes` fed in pieces of `chunkSize` bytes, checking contiguous media time.
    static func decode<D: AudioDecoder>(_ bytes: [UInt8], with decoder: inout D, chunkSize: Int = 512) throws
        -> AudioBuffer
    {
        var samples: [Float] = []
        var format: AudioFormat?
        var next: Int64 = 0
        var output = StageOutput<AudioBuffer>()
        func collect() {
            for buffer in output.items {
                #expect(buffer.startFrame == next, "decoded buffers are contiguous in media time")
                next += Int64(buffer.frameCount)
                format = buffer.format
                samples += buffer.samples
            }
            output.removeAll()
        }
        for start in stride(from: 0, to: bytes.count, by: chunkSize) {
            try decoder.process(Array(bytes[start..<min(start + chunkSize, bytes.count)]), into: &output)
            collect()
        }
        try decoder.finish(into: &output)
        collect()
        let decodedFormat = try #require(format ?? decoder.outputFormat, "the decoder never reported a format")
        return AudioBuffer(format: decodedFormat, samples: samples)
    }

    /// Reads a file written by an independent tool (sox, ffmpeg, speexdec) into memory.
    static func readFile(_ path: String) throws -> AudioBuffer {
        let source = try AudioFileSource(path: path)
        var all = AudioBuffer(format: source.format)
        while let buffer = try source.read() { all.samples += buffer.samples }
        return all
    }

    /// Word error rate of the embedded recognizer over the five LibriVox clips, each clip passed through
    /// `transform` first (which may return audio at 8 kHz: it is brought back to 16 kHz to recognize).
    static func corpusWER(_ transform: (AudioBuffer) throws -> AudioBuffer) throws -> WordErrorRate {
        let recognizer = try PocketSphinxRecognizer()
        var total = WordErrorRate.zero
        for clip in try LibriVoxClips.load() {
            try recognizer.resetAdaptation()
            var audio = try transform(try speech(clip))
            if audio.format.sampleRate != 16_000 {
                var up = try Resampler(inputFormat: audio.format, configuration: .init(sampleRate: 16_000, quality: 10))
                var output = try up.process(audio)
                try up.finish(into: &output)
                audio = AudioBuffer(format: .wideband, samples: output.items.flatMap(\.samples))
            }
            var stage = RecognizerStage(recognizer: recognizer)
            var output = try stage.process(audio)
            try stage.finish(into: &output)
            total = total + WordErrorRate(reference: clip.transcript, hypothesis: output.items.first?.text ?? "")
        }
        return total
    }

    /// `audio` resampled to `rate` (returned at that rate; `corpusWER` brings it back to 16 kHz): the
    /// band-limited baseline a narrowband codec is compared with.
    static func bandLimited(_ audio: AudioBuffer, to rate: Int) throws -> AudioBuffer {
        var down = try Resampler(inputFormat: audio.format, configuration: .init(sampleRate: rate, quality: 10))
        var output = try down.process(audio)
        try down.finish(into: &output)
        return AudioBuffer(format: down.outputFormat, samples: output.items.flatMap(\.samples))
    }
}
