// What ending an utterance costs PocketSphinx once its audio is in: for a result (`endUtterance`: the
// search's end, the best path, word times and posteriors) or for nobody (`abandonUtterance`: the
// search's end only), as a cancelled service request or transcription segment ends. Feeding the
// audio is setup, outside the measurement: each run feeds 10 s of speech, then times the end alone.

import Benchmark
import EarshotCore
import EarshotRecognizer

func registerRecognizerBenchmarks(speech16k: [AudioBuffer]) {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal], warmupIterations: 1, scalingFactor: .one, maxDuration: .seconds(60),
        maxIterations: 15)
    let recognizer = try! PocketSphinxRecognizer()

    func feed() throws {
        try recognizer.resetAdaptation()
        try recognizer.startUtterance()
        for buffer in speech16k { try recognizer.accept(buffer) }
    }

    Benchmark("PocketSphinx end utterance for its result, after 10 s of speech", configuration: configuration) {
        benchmark in
        try feed()
        benchmark.startMeasurement()
        blackHole(try recognizer.endUtterance())
        benchmark.stopMeasurement()
    }
    Benchmark("PocketSphinx abandon utterance, after 10 s of speech", configuration: configuration) { benchmark in
        try feed()
        benchmark.startMeasurement()
        recognizer.abandonUtterance()
        benchmark.stopMeasurement()
    }
}
