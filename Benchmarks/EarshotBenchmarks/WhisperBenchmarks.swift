// Whisper tiny.en's network, the parts a transcription's time goes to: the encoder on a 30 s window
// (and on a 5 s utterance's window, whose padding rows are copied, not convolved), and the decoder's
// steps, greedy (one row) and beam 5 (five rows), each timed over 20 steps after the window's
// cross-attention keys and values are computed (outside the measurement). Compare with
// CTranslate2's own timings of the same parts: `Benchmarks/whisper/side_by_side.py --parts`.
//
// Needs the model (`make models`); without it these benchmarks are skipped, saying so.

import Benchmark
import EarshotCore
import EarshotWhisper
import Foundation

func registerWhisperBenchmarks() {
    let found = WhisperModel.locate(
        explicitPath: nil, environment: ProcessInfo.processInfo.environment, places: ModelSearch.places())
    guard let directory = found, let model = try? WhisperModel(directory: directory) else {
        print("Whisper benchmarks skipped: no model (\(WhisperModel.installHint))")
        return
    }
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal], warmupIterations: 1, scalingFactor: .one,
        maxDuration: .seconds(20), maxIterations: 20)
    let encoder = WhisperEncoder(model: model)
    let frames = encoder.inputFrames * model.dimensions.melBins
    let window = UnsafeMutablePointer<Float>.allocate(capacity: frames)
    var random = SplitMix64(seed: 1)
    for i in 0..<frames { window[i] = Float(Double(random.next() >> 11) * 0x1p-53) - 0.5 }

    Benchmark("Whisper tiny.en encoder, one 30 s window", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(encoder.encode(window)) }
    }
    Benchmark("Whisper tiny.en encoder, a 5 s utterance's window", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(encoder.encode(window, contentFrames: 500)) }
    }

    let decoder = WhisperDecoder(model: model, capacity: 5)
    let tokenizer = model.tokenizer
    let start = [tokenizer.startOfTranscript]
    let one = [tokenizer.timestampBegin + 10]
    let five = [Int](repeating: tokenizer.timestampBegin + 10, count: 5)
    let (row, rows) = ([0], Array(0..<5))
    let parents = [Int](repeating: 0, count: 5)
    encoder.encode(window)
    Benchmark("Whisper tiny.en decoder, 20 greedy steps", configuration: configuration) { benchmark in
        decoder.begin(encoderOutput: encoder.output)
        decoder.run(tokens: start, perHypothesis: 1, logitRows: row)
        benchmark.startMeasurement()
        for _ in 0..<20 { decoder.run(tokens: one, perHypothesis: 1, logitRows: row) }
        benchmark.stopMeasurement()
    }
    Benchmark("Whisper tiny.en decoder, 20 beam-5 steps", configuration: configuration) { benchmark in
        decoder.begin(encoderOutput: encoder.output)
        decoder.run(tokens: start, perHypothesis: 1, logitRows: row)
        decoder.reorder(parents)
        benchmark.startMeasurement()
        for _ in 0..<20 { decoder.run(tokens: five, perHypothesis: 1, logitRows: rows) }
        benchmark.stopMeasurement()
    }
}
