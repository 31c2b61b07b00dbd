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
import Foundation

/// Frames per block that the file source reads (AudioInput's default).
let transcribeBlockFrames = 4096

/// Registers the transcribe-path benchmarks over `speechFile`, 10 s of speech at 44.1 kHz. The
/// reading task also runs over the same speech three times over (30 s), and opening alone is timed, so
/// that the allocations per block are the slope between the two lengths, apart from the per-file cost.
func registerTranscribeBenchmarks(speechFile: String) {
    let configuration = Benchmark.Configuration(
        metrics: [.mallocCountTotal, .wallClock, .cpuTotal], warmupIterations: 1, maxIterations: 20)
    let longFile = try! repeated(speechFile, times: 3)

    Benchmark("Transcribe open alone: 44.1k file", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            var source = try AudioInput.open(path: speechFile, blockFrames: transcribeBlockFrames)
            blackHole(source.format)
            source.stop()
        }
    }
    for (label, path) in [("10 s", speechFile), ("30 s", longFile)] {
        Benchmark("Transcribe reading task: open 44.1k file → 16k → chunker, \(label)", configuration: configuration) {
            benchmark in
            for _ in benchmark.scaledIterations { blackHole(try transcribeFront(path).count) }
        }
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

/// `path`'s audio `times` times over, written beside it as a WAV.
func repeated(_ path: String, times: Int) throws -> String {
    let source = try AudioFileSource(path: path)
    var blocks: [AudioBuffer] = []
    while let block = try source.read() { blocks.append(block) }
    let output = path.replacingOccurrences(of: ".wav", with: "-x\(times).wav")
    let writer = try AudioFileWriter(path: output, format: source.format, fileType: .wav)
    for _ in 0..<times { for block in blocks { try writer.write(block) } }
    try writer.finish()
    return output
}
