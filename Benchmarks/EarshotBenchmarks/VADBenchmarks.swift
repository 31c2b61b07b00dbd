// The voice-activity detectors, each driven by VADStage over `speech16k` (10 s of real speech in
// 100 ms blocks at 16 kHz): real-time factor = 10 s / wall-clock time per iteration. The speexdsp
// detector has a twin calling speex_preprocess_run directly on the same audio, so VADStage's overhead
// is a ratio; and each detector's allocations per block once warmed up.

import Benchmark
import CSpeexDSP
import EarshotCore
import EarshotVAD

/// Registers the VAD benchmarks over `speech16k`, 16 kHz mono blocks of 100 ms.
func registerVADBenchmarks(speech16k: [AudioBuffer]) {
    for kind in DetectorKind.allCases {
        Benchmark("VAD \(kind) 16k via VADStage") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(
                    try detectedFrames(speech16k, with: try VADStage(detector: kind.makeDetector(sampleRate: 16_000))))
            }
        }
    }

    Benchmark("VAD speexdsp direct 16k") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(directSpeexVAD(speech16k)) }
    }

    // MARK: Allocations per block once warmed up (the hot-path promise of STYLE.md)

    let steadyState = Benchmark.Configuration(metrics: [.mallocCountTotal, .wallClock], maxIterations: 20)
    for kind in DetectorKind.allCases {
        Benchmark("VAD \(kind) 16k steady state, 1 000 blocks", configuration: steadyState) { benchmark in
            let stage = try VADStage(detector: kind.makeDetector(sampleRate: 16_000))
            var output = StageOutput<VADFrame>()
            try stage.process(speech16k[0], into: &output)  // warm up: sizes the output's storage
            output.removeAll()
            benchmark.startMeasurement()
            for index in 0..<1_000 {
                try stage.process(speech16k[index % speech16k.count], into: &output)
                output.removeAll()
            }
            benchmark.stopMeasurement()
        }
    }
}

/// Smoother and endpointer over 100 s of 10 ms frames (the first 4.2 s warm up) whose probabilities alternate speech and pauses
/// (the endpointer never ends: no rule can fire while `endingSilence` is infinite): time per frame
/// and allocations per frame in steady state, which must be 0.
func registerEndpointingBenchmarks() {
    var frames: [VADFrame] = []
    for index in 0..<10_000 {
        // 1.4 s of speech, then a 0.7 s pause, over and over.
        let probability: Float = (index / 70) % 3 == 2 ? 0.05 : 0.9
        let start = MediaTime(frame: Int64(index) * 160, sampleRate: 16_000)
        frames.append(VADFrame(start: start, frameCount: 160, probability: probability))
    }
    Benchmark(
        "Smoother + endpointer, 10 000 frames (100 s)",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput], maxIterations: 50)
    ) { benchmark in
        var smoother = try DecisionSmoother(configuration: SmoothingConfiguration(), sampleRate: 16_000, hopLength: 160)
        let configuration = try EndpointerConfiguration(
            maxInitialSilence: .infinity, endingSilence: .infinity, maxRecordingTime: .infinity)
        var endpointer = EndpointerStage(configuration: configuration, start: .zero(sampleRate: 16_000))
        var decisions = StageOutput<VADDecision>()
        var passed = StageOutput<VADDecision>()
        // Warm up over the first speech/pause cycle, so every buffer has grown to its working size.
        for frame in frames[..<420] {
            try smoother.process(frame, into: &decisions)
            for decision in decisions.items { endpointer.process(decision, into: &passed) }
            decisions.removeAll()
            passed.removeAll()
        }
        benchmark.startMeasurement()
        for frame in frames[420...] {
            try smoother.process(frame, into: &decisions)
            for decision in decisions.items { endpointer.process(decision, into: &passed) }
            decisions.removeAll()
            passed.removeAll()
        }
        benchmark.stopMeasurement()
        blackHole(endpointer.endpointer.speechSeen)
    }
}

/// Runs `stage` over `blocks` and sums the probabilities, as a consumer would read every frame.
private func detectedFrames(_ blocks: [AudioBuffer], with stage: VADStage) throws -> Float {
    var output = StageOutput<VADFrame>()
    var sum: Float = 0
    for block in blocks {
        try stage.process(block, into: &output)
        for frame in output.items { sum += frame.probability }
        output.removeAll()
    }
    try stage.finish(into: &output)
    for frame in output.items { sum += frame.probability }
    return sum
}

/// speexdsp with no Earshot code: 10 ms frames converted to 16-bit, preprocessed, probability read.
private func directSpeexVAD(_ blocks: [AudioBuffer]) -> Float {
    guard let state = speex_preprocess_state_init(160, 16_000) else { return 0 }
    defer { speex_preprocess_state_destroy(state) }
    var frame = [spx_int16_t](repeating: 0, count: 160)
    var sum: Float = 0
    for block in blocks {
        block.samples.withUnsafeBufferPointer { samples in
            frame.withUnsafeMutableBufferPointer { frame in
                for start in stride(from: 0, to: samples.count - 159, by: 160) {
                    for index in 0..<160 {
                        let scaled = (samples[start + index] * 32768).rounded()
                        frame[index] = spx_int16_t(min(max(scaled, -32768), 32767))
                    }
                    speex_preprocess_run(state, frame.baseAddress)
                    var percent: spx_int32_t = 0
                    speex_preprocess_ctl(state, SPEEX_PREPROCESS_GET_PROB, &percent)
                    sum += Float(percent) / 100
                }
            }
        }
    }
    return sum
}
