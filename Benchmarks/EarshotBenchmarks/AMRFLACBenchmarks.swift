// Throughput of the AMR-NB, FLAC and WAV encoders, each beside the same work done with no Earshot code
// (the C library called directly in the same 160-sample or block loop; for WAV, a plain Float→Int16 LE
// loop), so the wrapper's overhead is a ratio; and allocations per block once warmed up.
//
// Each throughput iteration encodes the 10 s of speech it is given, in 100 ms blocks.

import Benchmark
import CFLAC
import COpenCoreAMR
import EarshotCodecs
import EarshotCore

/// Registers the AMR-NB, FLAC and WAV encoder benchmarks over `speech8k` and `speech16k` (100 ms
/// blocks, 10 s of speech each).
func registerAMRFLACBenchmarks(speech8k: [AudioBuffer], speech16k: [AudioBuffer]) {
    // MARK: AMR-NB 12.2 kbit/s at 8 kHz

    Benchmark("AMREncoder MR122 8k") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try encodeBlocks(speech8k, with: AMREncoder())) }
    }

    Benchmark("opencore-amrnb direct MR122 8k") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(directAMR(speech8k)) }
    }

    // MARK: FLAC level 5 at 16 kHz

    Benchmark("FLACEncoder level 5 16k") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try encodeBlocks(speech16k, with: FLACEncoder(inputFormat: .wideband)))
        }
    }

    Benchmark("libFLAC direct level 5 16k") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(directFLAC(speech16k)) }
    }

    // MARK: WAV at 16 kHz

    Benchmark("WAVEncoder 16k") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try encodeBlocks(speech16k, with: WAVEncoder(inputFormat: .wideband)))
        }
    }

    Benchmark("Float→Int16 LE direct 16k") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(directPCM16(speech16k)) }
    }

    // MARK: Allocations per block once warmed up (the hot-path promise of STYLE.md)

    let steady = Benchmark.Configuration(metrics: [.mallocCountTotal, .wallClock], maxIterations: 20)
    Benchmark("AMREncoder steady state, 1 000 blocks", configuration: steady) { benchmark in
        try measureSteadyState(AMREncoder(), blocks: speech8k, benchmark)
    }
    Benchmark("FLACEncoder steady state, 1 000 blocks", configuration: steady) { benchmark in
        try measureSteadyState(FLACEncoder(inputFormat: .wideband), blocks: speech16k, benchmark)
    }
    Benchmark("WAVEncoder steady state, 1 000 blocks", configuration: steady) { benchmark in
        try measureSteadyState(WAVEncoder(inputFormat: .wideband), blocks: speech16k, benchmark)
    }
    Benchmark("L16Encoder steady state, 1 000 blocks", configuration: steady) { benchmark in
        try measureSteadyState(L16Encoder(inputFormat: .wideband), blocks: speech16k, benchmark)
    }
}

/// Our encoder over every block, then finished: the bytes it wrote.
private func encodeBlocks<E: AudioEncoder>(_ blocks: [AudioBuffer], with encoder: E) throws -> Int {
    var encoder = encoder
    var output = StageOutput<EncodedPacket>()
    var bytes = 0
    for block in blocks {
        try encoder.process(block, into: &output)
        for packet in output.items { bytes += packet.bytes.count }
        output.removeAll()
    }
    try encoder.finish(into: &output)
    for packet in output.items { bytes += packet.bytes.count }
    return bytes
}

/// Feeds 1 000 blocks, cycling through `blocks`, after a second of warm-up that sizes the reused buffers
/// (a FLAC frame is 256 ms, so the first packets do not show its size yet).
private func measureSteadyState<E: AudioEncoder>(_ encoder: E, blocks: [AudioBuffer], _ benchmark: Benchmark) throws {
    var encoder = encoder
    var output = StageOutput<EncodedPacket>()
    for block in blocks.prefix(10) {
        try encoder.process(block, into: &output)
        output.removeAll()
    }
    benchmark.startMeasurement()
    for index in 0..<1_000 {
        try encoder.process(blocks[index % blocks.count], into: &output)
        output.removeAll()
    }
    benchmark.stopMeasurement()
}

/// opencore-amrnb with no Earshot code: 160-sample frames converted to Int16 and encoded at MR122,
/// each block's frames appended to one reused byte array, as the encoder's packet is.
private func directAMR(_ blocks: [AudioBuffer]) -> Int {
    guard let state = Encoder_Interface_init(0) else { return 0 }
    defer { Encoder_Interface_exit(state) }
    var frame = [Int16](repeating: 0, count: 160)
    var encoded = [UInt8](repeating: 0, count: 32)
    var packet: [UInt8] = []
    packet.reserveCapacity(4_096)
    var fill = 0
    var total = 0
    for block in blocks {
        packet.removeAll(keepingCapacity: true)
        for sample in block.samples {
            frame[fill] = PCM.int16(sample)
            fill += 1
            guard fill == 160 else { continue }
            let count = Encoder_Interface_Encode(state, MR122, frame, &encoded, 0)
            packet.append(contentsOf: encoded[0..<Int(count)])
            fill = 0
        }
        total += packet.count
    }
    return total
}

/// Bytes libFLAC's write callback hands over, when it is called directly.
private final class DirectFLACSink {
    var bytes: [UInt8] = []
}

/// libFLAC with no Earshot code: the same settings, blocks converted to Int32 and pushed through
/// `process_interleaved`, output appended to one reused byte array per block.
private func directFLAC(_ blocks: [AudioBuffer]) -> Int {
    guard let encoder = FLAC__stream_encoder_new() else { return 0 }
    defer { FLAC__stream_encoder_delete(encoder) }
    let sink = DirectFLACSink()
    FLAC__stream_encoder_set_channels(encoder, 1)
    FLAC__stream_encoder_set_bits_per_sample(encoder, 16)
    FLAC__stream_encoder_set_sample_rate(encoder, 16_000)
    FLAC__stream_encoder_set_compression_level(encoder, 5)
    let status = FLAC__stream_encoder_init_stream(
        encoder,
        { _, bytes, count, _, _, context in
            let sink = Unmanaged<DirectFLACSink>.fromOpaque(context!).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
            return FLAC__STREAM_ENCODER_WRITE_STATUS_OK
        },
        nil, nil, nil, Unmanaged.passUnretained(sink).toOpaque())
    guard status == FLAC__STREAM_ENCODER_INIT_STATUS_OK else { return 0 }
    var integers = [FLAC__int32](repeating: 0, count: blocks.map(\.samples.count).max() ?? 0)
    var total = 0
    for block in blocks {
        total += sink.bytes.count
        sink.bytes.removeAll(keepingCapacity: true)
        for (index, sample) in block.samples.enumerated() { integers[index] = FLAC__int32(PCM.int16(sample)) }
        FLAC__stream_encoder_process_interleaved(encoder, integers, UInt32(block.samples.count))
    }
    FLAC__stream_encoder_finish(encoder)
    return total + sink.bytes.count
}

/// What the WAV encoder does, minus Earshot: each block's samples as Int16 little-endian into a reused array.
private func directPCM16(_ blocks: [AudioBuffer]) -> Int {
    var bytes: [UInt8] = []
    var total = 0
    for block in blocks {
        bytes.removeAll(keepingCapacity: true)
        for sample in block.samples {
            let value = UInt16(bitPattern: PCM.int16(sample))
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        total += bytes.count
    }
    return total
}
