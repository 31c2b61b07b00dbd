// The path `earshot transcribe` takes a file along, in its two halves: the reading task (open, read
// 44.1 kHz blocks, resample to 16 kHz, cut segments with the chunker) and a worker (feed a segment's
// samples to PocketSphinx). Allocations are what these measure (mallocCountTotal): divided by the
// blocks read, they are the allocations per block that BENCHMARKS.md records.
//
// The recognizer's own allocations (PocketSphinx's search, in C) are counted too, so the second
// benchmark's figure is an upper bound on what Earshot's code allocates around it.

import Benchmark
import EarshotCore
import EarshotDSP
import EarshotIO
import EarshotRecognizer
import EarshotTranscription
import EarshotVAD

/// Frames per block that the file source reads (AudioInput's default).
let transcribeBlockFrames = 4096

/// Registers the transcribe-path benchmarks over `speechFile`, 10 s of speech at 44.1 kHz.
func registerTranscribeBenchmarks(speechFile: String) {
    let configuration = Benchmark.Configuration(
        metrics: [.mallocCountTotal, .wallClock, .cpuTotal], warmupIterations: 1, maxIterations: 20)

    Benchmark("Transcribe reading task: open 44.1k file → 16k → chunker, 10 s", configuration: configuration) {
        benchmark in
        for _ in benchmark.scaledIterations { blackHole(try transcribeFront(speechFile).count) }
    }

    let segments = try! transcribeFront(speechFile)
    let transcriber = try! EmbeddedTranscriber()
    Benchmark("Transcribe worker: 10 s of segments → PocketSphinx", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            try transcriber.beginRecording()
            for segment in segments where segment.containsSpeech {
                blackHole(try await transcriber.transcribe(segment))
            }
        }
    }
}

/// What the reading task of BatchTranscriber does with one file: its segments.
func transcribeFront(_ path: String) throws -> [UtteranceChunk] {
    var source = try AudioInput.open(path: path, blockFrames: transcribeBlockFrames)
    defer { source.stop() }
    let chunker = try UtteranceChunker(configuration: UtteranceChunkerConfiguration())
    var chain = try Resampler(
        inputFormat: source.format, configuration: .init(sampleRate: chunker.format.sampleRate)
    ).then(chunker)
    var output = StageOutput<UtteranceChunk>()
    while let buffer = try source.read() { try chain.process(buffer, into: &output) }
    try chain.finish(into: &output)
    return output.items
}
