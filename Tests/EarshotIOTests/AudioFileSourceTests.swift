import EarshotCore
import EarshotIO
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

/// Reads everything from a source into one buffer.
func readAll(_ source: inout some AudioSource) throws -> AudioBuffer {
    var all = AudioBuffer(format: source.format)
    var expectedStart: Int64 = 0
    while let buffer = try source.read() {
        #expect(buffer.startFrame == expectedStart, "buffers must be stamped contiguously")
        expectedStart += Int64(buffer.frameCount)
        all.samples += buffer.samples
    }
    return all
}

/// Every 16-bit value in turn, then a ramp, for `channels` channels: exact round trips must keep all of them.
func everyInt16(channels: Int, format: AudioFormat) -> AudioBuffer {
    var samples: [Float] = []
    var value = Int32(Int16.min)
    while samples.count < 70_000 * channels {
        for channel in 0..<channels {
            samples.append(PCM.float(Int16(truncatingIfNeeded: value + Int32(channel * 7))))
        }
        value = value == Int32(Int16.max) ? Int32(Int16.min) : value + 1
    }
    return AudioBuffer(format: format, samples: samples)
}

@Suite(.computing) struct AudioFileSourceTests {
    @Test(arguments: [
        (AudioFileWriter.FileType.wav, AudioFileWriter.SampleEncoding.pcm16), (.wav, .float32), (.flac, .pcm16),
        (.aiff, .pcm16), (.caf, .pcm16), (.w64, .float32),
    ])
    func losslessContainersRoundTripExactly(type: AudioFileWriter.FileType, encoding: AudioFileWriter.SampleEncoding)
        throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for (rate, channels) in [(16_000, 1), (44_100, 2), (48_000, 6)] {
            let format = try AudioFormat(sampleRate: rate, channelCount: channels)
            let original = everyInt16(channels: channels, format: format)
            let path = directory.file("roundtrip-\(rate)-\(channels).\(type.rawValue)")
            let writer = try AudioFileWriter(path: path, format: format, fileType: type, encoding: encoding)
            for block in Signal.blocks(of: original, frames: 3_000) { try writer.write(block) }
            try writer.finish()

            var source = try AudioFileSource(path: path, blockFrames: 1_024)
            #expect(source.format == format)
            #expect(source.frameCount == Int64(original.frameCount))
            let decoded = try readAll(&source)
            #expect(decoded.samples == original.samples, "\(type) \(encoding) at \(format) must round-trip exactly")
        }
    }

    @Test(arguments: [AudioFileWriter.FileType.oggVorbis, .oggOpus])
    func lossyOggReadsBackAtTheRightRateAndLength(type: AudioFileWriter.FileType) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let format = try AudioFormat(sampleRate: 48_000, channelCount: 2)
        let tone = Signal.sine(frequency: 440, peakDBFS: -6, seconds: 2, format: format)
        let path = directory.file("tone.\(type.rawValue)")
        let writer = try AudioFileWriter(path: path, format: format, fileType: type)
        try writer.write(tone)
        try writer.finish()

        var source = try AudioFileSource(path: path)
        #expect(source.format == format)
        let decoded = try readAll(&source)
        #expect(
            abs(decoded.frameCount - tone.frameCount) <= 960,
            "decoded \(decoded.frameCount) of \(tone.frameCount) frames")
        let left = decoded.samples.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        let frequency = Signal.estimatedFrequency(of: left[4_800..<90_000], sampleRate: 48_000)
        #expect(abs(frequency - 440) < 1, "a lossy codec keeps the pitch: got \(frequency) Hz")
    }

    @Test func agreesWithSoxOnARealRecording() throws {
        // sox decodes independently of libsndfile: our samples must equal its raw s16 output exactly.
        let clip = try LibriVoxClips.load()[1].path
        let sox = try ExternalTool.run(["sox", clip, "-t", "raw", "-e", "signed", "-b", "16", "-L", "-"])
        try #require(sox.status == 0, "sox failed: \(sox.standardError)")
        let reference = sox.standardOutput.withUnsafeBytes { raw in
            (0..<raw.count / 2).map {
                PCM.float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)))
            }
        }
        var source = try AudioFileSource(path: clip)
        let ours = try readAll(&source)
        #expect(ours.samples.count == reference.count)
        #expect(ours.samples == reference)
    }

    @Test func memoryIsOneBlockWhateverTheLength() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("long.wav")
        let writer = try AudioFileWriter(path: path, format: .wideband, fileType: .wav)
        let minute = Signal.whiteNoise(seconds: 60, format: .wideband)
        for _ in 0..<5 { try writer.write(minute) }
        try writer.finish()

        let source = try AudioFileSource(path: path, blockFrames: 4_096)
        var largest = 0
        var frames = 0
        while let buffer = try source.read() {
            largest = max(largest, buffer.samples.capacity)
            frames += buffer.frameCount
        }
        #expect(frames == 5 * 60 * 16_000)
        #expect(largest < 8_192, "buffers stay one block long, not the file's length")
    }

    @Test func aWriterDroppedBeforeFinishLeavesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let writer = try AudioFileWriter(path: directory.file("out.wav"), format: .wideband, fileType: .wav)
            try writer.write(Signal.silence(seconds: 1, format: .wideband))
        }
        #expect(directory.contents().isEmpty)
    }
}
