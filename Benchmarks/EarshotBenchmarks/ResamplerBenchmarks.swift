// The resampler stage with each engine, beside libsoxr and speexdsp called directly on the same
// blocks (100 ms, as a live source delivers them), so the stage's overhead is a ratio from one run.
// Stereo input is averaged to mono first, by the stage and by the direct loops alike.
// The whole-process comparison with the sox and ffmpeg command lines is Benchmarks/resampler/side_by_side.sh.

import Benchmark
import CSoxr
import CSpeexDSP
import EarshotCore
import EarshotDSP
import EarshotTesting

func registerResamplerBenchmarks() {
    for (rate, channels) in [(44_100, 2), (48_000, 1), (8_000, 1)] {
        let format = try! AudioFormat(sampleRate: rate, channelCount: channels)
        let blocks = Signal.blocks(of: Signal.whiteNoise(seconds: audioSeconds, format: format), frames: rate / 10)
        let name = "\(Double(rate) / 1000)k \(channels == 2 ? "stereo" : "mono")→16k"

        for engine in Resampler.Engine.allCases {
            Benchmark("Resampler \(engine) \(name)") { benchmark in
                for _ in benchmark.scaledIterations {
                    let resampler = try Resampler(inputFormat: format, configuration: .init(engine: engine))
                    var output = StageOutput<AudioBuffer>()
                    var frames = 0
                    for block in blocks {
                        try resampler.process(block, into: &output)
                        for buffer in output.items { frames += buffer.frameCount }
                        output.removeAll()
                    }
                    try resampler.finish(into: &output)
                    blackHole(frames)
                }
            }
        }
        Benchmark("libsoxr direct \(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(directSoxr(blocks, from: rate, channels: channels)) }
        }
        Benchmark("speexdsp direct q4 \(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(directSpeex(blocks, from: rate, channels: channels, quality: 4))
            }
        }
    }

    // Allocations per block once warmed up (the hot-path promise of STYLE.md), for each engine.
    for (engine, rate, channels) in [(Resampler.Engine.speexdsp, 48_000, 1), (.soxr, 48_000, 1), (.soxr, 44_100, 2)] {
        Benchmark(
            "Resampler \(engine) \(Double(rate) / 1000)k \(channels == 2 ? "stereo" : "mono")→16k steady state, 1 000 blocks",
            configuration: .init(metrics: [.mallocCountTotal, .wallClock], maxIterations: 20)
        ) { benchmark in
            let format = try AudioFormat(sampleRate: rate, channelCount: channels)
            let block = Signal.whiteNoise(seconds: 0.1, format: format)
            let resampler = try Resampler(inputFormat: format, configuration: .init(engine: engine))
            var output = StageOutput<AudioBuffer>()
            for _ in 0..<10 {  // warm up: sizes the reused buffers (libsoxr releases output in bursts)
                try resampler.process(block, into: &output)
                output.removeAll()
            }
            benchmark.startMeasurement()
            for _ in 0..<1_000 {
                try resampler.process(block, into: &output)
                output.removeAll()
            }
            benchmark.stopMeasurement()
        }
    }
}

/// `block` as mono: its samples, or its interleaved `channels` averaged into `scratch` (sized to the block).
private func mono(_ block: AudioBuffer, channels: Int, scratch: inout [Float]) -> [Float] {
    guard channels > 1 else { return block.samples }
    let frames = block.samples.count / channels
    if scratch.count != frames { scratch = [Float](repeating: 0, count: frames) }
    for frame in 0..<frames {
        var sum: Float = 0
        for channel in 0..<channels { sum += block.samples[frame * channels + channel] }
        scratch[frame] = sum / Float(channels)
    }
    return scratch
}

/// libsoxr at SOXR_HQ, one thread, called on each block.
func directSoxr(_ blocks: [AudioBuffer], from rate: Int, channels: Int) -> Int {
    var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
    var quality = soxr_quality_spec(UInt(SOXR_HQ), 0)
    var runtime = soxr_runtime_spec(1)
    guard let state = soxr_create(Double(rate), 16_000, 1, nil, &io, &quality, &runtime) else { return 0 }
    defer { soxr_delete(state) }
    var scratch: [Float] = []
    var out = [Float](repeating: 0, count: 16_384)
    var frames = 0
    for block in blocks {
        mono(block, channels: channels, scratch: &scratch).withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                var used = 0
                var made = 0
                _ = soxr_process(state, source.baseAddress, source.count, &used, target.baseAddress, target.count, &made)
                frames += made
            }
        }
    }
    return frames
}

/// speexdsp at `quality`, called on each block.
func directSpeex(_ blocks: [AudioBuffer], from rate: Int, channels: Int, quality: Int) -> Int {
    var status: Int32 = 0
    guard let state = speex_resampler_init(1, spx_uint32_t(rate), 16_000, Int32(quality), &status) else { return 0 }
    defer { speex_resampler_destroy(state) }
    speex_resampler_skip_zeros(state)
    var scratch: [Float] = []
    var out = [Float](repeating: 0, count: 16_384)
    var frames = 0
    for block in blocks {
        mono(block, channels: channels, scratch: &scratch).withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                var inLength = spx_uint32_t(source.count)
                var outLength = spx_uint32_t(target.count)
                speex_resampler_process_float(state, 0, source.baseAddress, &inLength, target.baseAddress, &outLength)
                frames += Int(outLength)
            }
        }
    }
    return frames
}
