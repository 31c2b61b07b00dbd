// The level meter, the transport chunker, and the whole client chain: file → 16 kHz → level meter →
// spectral VAD → smoother → endpointer, and beside it Speex wideband → 512-byte chunks — the client's
// own CapturePipeline, fed from a 44.1 kHz WAV of real speech. Each iteration processes 10 s of audio.

import Benchmark
import EarshotCapture
import EarshotCodecs
import EarshotCore
import EarshotDSP
import EarshotIO
import EarshotVAD

/// Registers the chain benchmarks; `speechFiles` hold `audioSeconds` of speech each, at 48 and 44.1 kHz.
func registerChainBenchmarks(speech16k: [AudioBuffer], speechFiles: [String]) {
    Benchmark("LevelMeter 16k, 100 ms windows") { benchmark in
        for _ in benchmark.scaledIterations {
            var meter = try LevelMeter()
            var output = StageOutput<AudioBuffer>()
            for block in speech16k {
                try meter.process(block, into: &output)
                output.removeAll()
            }
            blackHole(output)
        }
    }

    let packets = try! speexPackets(speech16k)
    Benchmark("TransportChunker 512 B over Speex WB packets") { benchmark in
        for _ in benchmark.scaledIterations {
            var chunker = try TransportChunker()
            var output = StageOutput<EncodedPacket>()
            var bytes = 0
            for packet in packets {
                try chunker.process(packet, into: &output)
                for chunk in output.items { bytes += chunk.bytes.count }
                output.removeAll()
            }
            blackHole(bytes)
        }
    }

    // 48 kHz (what capture devices deliver) resamples by 1:3; 44.1 kHz by 160:441, which speexdsp
    // interpolates between filter phases, five times the cost.
    for (label, file) in zip(["48k", "44.1k"], speechFiles) {
        Benchmark("Full chain: file \(label) → 16k → VAD → endpointer → Speex WB → chunks") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try fullChain(file)) }
        }
    }

    let steady = Benchmark.Configuration(metrics: [.mallocCountTotal, .wallClock], maxIterations: 20)
    Benchmark("LevelMeter steady state, 1 000 blocks", configuration: steady) { benchmark in
        var meter = try LevelMeter()
        var output = StageOutput<AudioBuffer>()
        try meter.process(speech16k[0], into: &output)
        output.removeAll()
        benchmark.startMeasurement()
        for index in 0..<1_000 {
            try meter.process(speech16k[index % speech16k.count], into: &output)
            output.removeAll()
        }
        benchmark.stopMeasurement()
    }
}

/// The endpointing that never ends, so every iteration runs the whole file through every stage.
let endlessEndpointing = try! EndpointerConfiguration(
    maxInitialSilence: .infinity, endingSilence: .infinity, maxRecordingTime: .infinity, cancelWhenSilent: false)

/// The client's capture chain over a whole file; returns the bytes it would upload.
func fullChain(_ path: String) throws -> Int {
    let source = try AudioFileSource(path: path, blockFrames: 4410)
    var configuration = CaptureConfiguration()
    configuration.endpointing = endlessEndpointing
    let pipeline = try CapturePipeline(sourceFormat: source.format, configuration: configuration)
    var bytes = 0
    while let buffer = try source.read() {
        for chunk in try pipeline.process(buffer).chunks { bytes += chunk.bytes.count }
    }
    for chunk in try pipeline.finish().chunks { bytes += chunk.bytes.count }
    return bytes
}

func speexPackets(_ blocks: [AudioBuffer]) throws -> [EncodedPacket] {
    var encoder = try CodecFormat.speexWideband.makeEncoder(sampleRate: 16_000)
    var output = StageOutput<EncodedPacket>()
    for block in blocks { try encoder.process(block, into: &output) }
    try encoder.finish(into: &output)
    return output.items
}
