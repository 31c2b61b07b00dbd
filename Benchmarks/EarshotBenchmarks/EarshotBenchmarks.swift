// Throughput of the file source and the resampler, each beside the C library it wraps called directly,
// so the wrapper's overhead is a ratio measured in one run on the same machine.
//
// Each iteration processes 10 s of audio: real-time factor = 10 s / wall-clock time per iteration.
// Run: swift package benchmark --target EarshotBenchmarks

import Benchmark
import CSndFile
import CSpeexDSP
import EarshotCore
import EarshotDSP
import EarshotIO
import EarshotTesting
import Foundation

/// Seconds of audio every benchmark iteration processes.
let audioSeconds = 10.0

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 2,
        maxDuration: .seconds(3),
        maxIterations: 200
    )
    let fixtures = try! Fixtures()

    // MARK: Encoders, each beside its C library called directly (see AMRFLACBenchmarks, SpeexOpusBenchmarks)

    registerAMRFLACBenchmarks(speech8k: fixtures.speech8k, speech16k: fixtures.speech16k)
    registerSpeexOpusBenchmarks(speech16k: fixtures.speech16k)
    registerVADBenchmarks(speech16k: fixtures.speech16k)
    registerEndpointingBenchmarks()
    registerChainBenchmarks(speech16k: fixtures.speech16k, speechFiles: [fixtures.speech48k, fixtures.speech44k])
    registerTranscribeBenchmarks(speechFile: fixtures.speech44k)
    registerRecognizerBenchmarks(speech16k: fixtures.speech16k)
    registerWhisperBenchmarks()

    // MARK: File source

    for (label, path, channels) in [
        ("WAV 48k stereo", fixtures.wav48kStereo, 2), ("FLAC 16k mono", fixtures.flac16kMono, 1),
    ] {
        Benchmark("FileSource read \(label)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try sourceRead(path)) }
        }

        Benchmark("libsndfile direct read \(label)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(directRead(path, channels: channels)) }
        }
    }

    // Opening alone: separates the fixed cost per file (path checks, RIFF chunk walk) from per-block reads.
    Benchmark("FileSource open+close WAV") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try AudioFileSource(path: fixtures.wav48kStereo).frameCount)
        }
    }

    Benchmark("libsndfile direct open+close WAV") { benchmark in
        for _ in benchmark.scaledIterations {
            var info = SF_INFO()
            let file = sf_open(fixtures.wav48kStereo, Int32(SFM_READ), &info)
            sf_close(file)
            blackHole(info.frames)
        }
    }

    // MARK: Resampler, each engine beside its C library called directly (see ResamplerBenchmarks)

    registerResamplerBenchmarks()

    // MARK: Allocations per buffer once warmed up (the hot-path promise of STYLE.md)

    Benchmark(
        "LevelMeter 16k steady state, 1 000 blocks",
        configuration: .init(metrics: [.mallocCountTotal, .wallClock], maxIterations: 20)
    ) { benchmark in
        let block = Signal.whiteNoise(seconds: 0.1, format: .wideband)
        var meter = try LevelMeter()
        var output = StageOutput<AudioBuffer>()
        try meter.process(block, into: &output)
        output.removeAll()
        benchmark.startMeasurement()
        for _ in 0..<1_000 {
            try meter.process(block, into: &output)
            output.removeAll()
        }
        benchmark.stopMeasurement()
    }
}

/// The audio the benchmarks read, made once per run.
struct Fixtures {
    let wav48kStereo: String
    let flac16kMono: String
    /// The 10 s of speech below as mono WAVs at 44.1 and 48 kHz, for the full chain.
    let speech44k: String
    let speech48k: String
    /// 10 s of real speech (LibriVox clips from pocketsphinx-testdata) in 100 ms blocks, at 16 and 8 kHz.
    let speech16k: [AudioBuffer]
    let speech8k: [AudioBuffer]

    init() throws {
        speech16k = try Self.speech(rate: 16_000)
        speech8k = try Self.speech(rate: 8_000)
        let directory = try TemporaryDirectory("earshot-bench")
        wav48kStereo = directory.file("noise-48k-stereo.wav")
        flac16kMono = directory.file("tone-16k-mono.flac")
        let stereo = try AudioFormat(sampleRate: 48_000, channelCount: 2)
        let wav = try AudioFileWriter(path: wav48kStereo, format: stereo, fileType: .wav)
        try wav.write(Signal.whiteNoise(seconds: audioSeconds, format: stereo))
        try wav.finish()
        let flac = try AudioFileWriter(path: flac16kMono, format: .wideband, fileType: .flac)
        try flac.write(Signal.sine(frequency: 440, seconds: audioSeconds, format: .wideband))
        try flac.finish()
        speech44k = try Self.upsampled(speech16k, to: 44_100, in: directory)
        speech48k = try Self.upsampled(speech16k, to: 48_000, in: directory)
    }

    /// `blocks` resampled to `rate` (best quality) and written as a WAV in `directory`.
    private static func upsampled(_ blocks: [AudioBuffer], to rate: Int, in directory: TemporaryDirectory) throws
        -> String
    {
        let path = directory.file("speech-\(rate).wav")
        let upsampler = try Resampler(inputFormat: .wideband, configuration: .init(sampleRate: rate, quality: 10))
        var upsampled = StageOutput<AudioBuffer>()
        for block in blocks { try upsampler.process(block, into: &upsampled) }
        try upsampler.finish(into: &upsampled)
        let writer = try AudioFileWriter(path: path, format: upsampler.outputFormat, fileType: .wav)
        for block in upsampled.items { try writer.write(block) }
        try writer.finish()
        return path
    }
}

/// The file source reading a whole file, as a pipeline would.
func sourceRead(_ path: String) throws -> Int {
    let source = try AudioFileSource(path: path)
    var frames = 0
    while let buffer = try source.read() { frames += buffer.frameCount }
    return frames
}

extension Fixtures {
    /// The first `audioSeconds` of the LibriVox clips, back to back, resampled to `rate`, in 100 ms blocks
    /// stamped with contiguous media time.
    static func speech(rate: Int) throws -> [AudioBuffer] {
        var samples: [Float] = []
        for clip in try LibriVoxClips.load() {
            let source = try AudioFileSource(path: clip.path)
            let resampler = try Resampler(
                inputFormat: source.format, configuration: .init(sampleRate: rate, quality: 10))
            var output = StageOutput<AudioBuffer>()
            while let buffer = try source.read() { try resampler.process(buffer, into: &output) }
            try resampler.finish(into: &output)
            samples += output.items.flatMap(\.samples)
        }
        let format = try AudioFormat(sampleRate: rate, channelCount: 1)
        let speech = AudioBuffer(format: format, samples: Array(samples.prefix(Int(audioSeconds) * rate)))
        return Signal.blocks(of: speech, frames: rate / 10)
    }
}

/// libsndfile with no Earshot code: the floor the file source is measured against.
func directRead(_ path: String, channels: Int) -> Int {
    var info = SF_INFO()
    guard let file = sf_open(path, Int32(SFM_READ), &info) else { return 0 }
    defer { sf_close(file) }
    var block = [Float](repeating: 0, count: 4096 * channels)
    var frames = 0
    while true {
        let got = block.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, 4096) }
        if got <= 0 { break }
        frames += Int(got)
    }
    return frames
}
