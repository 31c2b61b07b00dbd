// The voice-activity detectors, each driven by VADStage over `speech16k` (10 s of real speech in
// 100 ms blocks at 16 kHz): real-time factor = 10 s / wall-clock time per iteration. The speexdsp
// detector has a twin calling speex_preprocess_run directly on the same audio, so VADStage's overhead
// is a ratio; and each detector's allocations per block once warmed up. Silero needs its model
// (`make models`, or EARSHOT_VAD_MODEL); without it the silero benchmarks are left out, saying so.

import Benchmark
import CSpeexDSP
import EarshotCore
import EarshotIO
import EarshotVAD
import Foundation

/// The Silero model if installed: `EARSHOT_VAD_MODEL`, or `.earshot/models/` in or above the current folder.
private let sileroModels: DetectorModels = {
    let path = SileroModel.locate(
        explicitPath: nil, environment: ProcessInfo.processInfo.environment,
        places: ModelSearch.places())
    guard let path, let model = try? SileroModel(path: path) else {
        FileHandle.standardError.write(Data("VAD benchmarks: no Silero model (make models); silero left out\n".utf8))
        return .none
    }
    return DetectorModels(silero: model)
}()

/// The detectors that can run here: all but silero when its model is missing.
private var runnableKinds: [DetectorKind] {
    DetectorKind.allCases.filter { !$0.needsModel || sileroModels.silero != nil }
}

/// Registers the VAD benchmarks over `speech16k`, 16 kHz mono blocks of 100 ms.
func registerVADBenchmarks(speech16k: [AudioBuffer]) {
    for kind in runnableKinds {
        Benchmark("VAD \(kind) 16k via VADStage") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(
                    try detectedFrames(
                        speech16k,
                        with: try VADStage(detector: kind.makeDetector(sampleRate: 16_000, models: sileroModels))))
            }
        }
    }

    // Silero's network alone, one 32 ms chunk per call as Silero's own wrapper calls it, over the six
    // recordings of the parity fixture (907 chunks, a fresh state per recording): the same audio
    // Benchmarks/vad/silero_reference.py times onnxruntime on (Benchmarks/vad/silero_speed.sh runs both).
    if let model = sileroModels.silero, let recordings = try? sileroFixtureFrames() {
        let chunkCount = recordings.map { $0.count / 576 }.reduce(0, +)
        Benchmark(
            "VAD silero network, fixture recordings (\(chunkCount) chunks of 32 ms)",
            configuration: .init(
                metrics: [.wallClock, .cpuTotal, .mallocCountTotal], timeUnits: .microseconds, maxIterations: 100)
        ) { benchmark in
            let detector = try SileroDetector(model: model)
            var sum: Float = 0
            benchmark.startMeasurement()
            for frames in recordings {
                detector.reset()
                frames.withUnsafeBufferPointer { samples in
                    for first in stride(from: 0, to: samples.count, by: 576) {
                        sum += detector.probability(of: UnsafeBufferPointer(rebasing: samples[first..<first + 576]))
                    }
                }
            }
            benchmark.stopMeasurement()
            blackHole(sum)
        }
    }

    Benchmark("VAD speexdsp direct 16k") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(directSpeexVAD(speech16k)) }
    }

    // MARK: Allocations per block once warmed up (the hot-path promise of STYLE.md)

    let steadyState = Benchmark.Configuration(metrics: [.mallocCountTotal, .wallClock], maxIterations: 20)
    for kind in runnableKinds {
        Benchmark("VAD \(kind) 16k steady state, 1 000 blocks", configuration: steadyState) { benchmark in
            let stage = try VADStage(detector: kind.makeDetector(sampleRate: 16_000, models: sileroModels))
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

/// Each recording of Tests/EarshotVADTests/Fixtures/silero_reference.json cut into Silero's frames as
/// VADStage (and Silero's wrapper) cut it: 64 samples of context (zeros before the start), then the
/// 512-sample chunk, the last chunk zero-padded; frames back to back.
private func sileroFixtureFrames() throws -> [[Float]] {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/EarshotVADTests/Fixtures/silero_reference.json")
    let document = try JSONSerialization.jsonObject(with: Data(contentsOf: fixture)) as? [String: Any]
    let paths = (document?["recordings"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    let root = fixture.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    return try paths.map { path in
        let source = try AudioFileSource(path: path.hasPrefix("/") ? path : root.appendingPathComponent(path).path)
        var samples = [Float](repeating: 0, count: 64)
        while let buffer = try source.read() { samples += buffer.samples }
        let chunks = (samples.count - 64 + 511) / 512
        samples += [Float](repeating: 0, count: 64 + chunks * 512 - samples.count)
        var frames: [Float] = []
        for chunk in 0..<chunks { frames += samples[(chunk * 512)..<(chunk * 512 + 576)] }
        return frames
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
