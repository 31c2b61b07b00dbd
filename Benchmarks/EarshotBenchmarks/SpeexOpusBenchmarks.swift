// Speex wideband (header-byte) and Ogg Opus encoding, each beside the C libraries called directly
// with the same frame loop and no Earshot code, so the wrappers' overhead is a ratio; and the
// allocations per block once warmed up, for the encoders and their decoders.
//
// Each throughput iteration encodes `speech16k` (10 s of speech in 100 ms blocks at 16 kHz):
// real-time factor = 10 s / wall-clock time per iteration.

import Benchmark
import COgg
import COpus
import CSpeex
import EarshotCodecs
import EarshotCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Registers the Speex and Opus benchmarks over `speech16k`, 16 kHz mono blocks of 100 ms.
func registerSpeexOpusBenchmarks(speech16k: [AudioBuffer]) {
    let speex = SpeexEncoder.Configuration()
    let opus = OggOpusEncoder.Configuration()

    // MARK: Throughput beside the C libraries

    Benchmark("SpeexEncoder WB q\(speex.quality) VBR") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try encodedBytes(speech16k, with: try SpeexEncoder(configuration: speex)))
        }
    }

    Benchmark("libspeex direct WB q\(speex.quality) VBR") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(directSpeex(speech16k, quality: speex.quality, complexity: speex.complexity))
        }
    }

    Benchmark("OggOpusEncoder 16k \(opus.bitrate / 1000) kbit/s") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try encodedBytes(speech16k, with: try OggOpusEncoder(configuration: opus, serialNumber: 1)))
        }
    }

    Benchmark("libopus+libogg direct 16k \(opus.bitrate / 1000) kbit/s") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(directOggOpus(speech16k, bitrate: opus.bitrate, complexity: opus.complexity))
        }
    }

    // MARK: Allocations per block once warmed up (the hot-path promise of STYLE.md)

    let steadyState = Benchmark.Configuration(metrics: [.mallocCountTotal, .wallClock], maxIterations: 20)

    Benchmark("SpeexEncoder WB steady state, 1 000 blocks", configuration: steadyState) { benchmark in
        let encoder = try SpeexEncoder(configuration: speex)
        try steadyEncode(encoder, speech16k, benchmark)
    }

    Benchmark("OggOpusEncoder 16k steady state, 1 000 blocks", configuration: steadyState) { benchmark in
        let encoder = try OggOpusEncoder(configuration: opus, serialNumber: 1)
        try steadyEncode(encoder, speech16k, benchmark)
    }

    // The decoders are fed the encoded 100 s in 512-byte chunks, as a chunked upload delivers them.
    let speexStream = try! encodedBytes(Array(repeating: speech16k, count: 10).flatMap { $0 }, with: SpeexEncoder())
    let opusStream = try! encodedBytes(
        Array(repeating: speech16k, count: 10).flatMap { $0 }, with: OggOpusEncoder(serialNumber: 1))

    Benchmark("SpeexDecoder WB steady state, 100 s in 512-byte chunks", configuration: steadyState) { benchmark in
        try steadyDecode(try SpeexDecoder(), speexStream, benchmark)
    }

    Benchmark("OggOpusDecoder 16k steady state, 100 s in 512-byte chunks", configuration: steadyState) { benchmark in
        try steadyDecode(try OggOpusDecoder(), opusStream, benchmark)
    }
}

/// All the bytes `encoder` makes of `blocks`, as a pipeline would collect them.
private func encodedBytes<E: AudioEncoder>(_ blocks: [AudioBuffer], with encoder: E) throws -> [UInt8] {
    var encoder = encoder
    var output = StageOutput<EncodedPacket>()
    var bytes: [UInt8] = []
    for block in blocks {
        try encoder.process(block, into: &output)
        for packet in output.items { bytes += packet.bytes }
        output.removeAll()
    }
    try encoder.finish(into: &output)
    for packet in output.items { bytes += packet.bytes }
    return bytes
}

/// Encodes `blocks` ten times over (1 000 blocks) after one warm-up pass, measuring only the loop.
private func steadyEncode<E: AudioEncoder>(_ encoder: E, _ blocks: [AudioBuffer], _ benchmark: Benchmark) throws {
    var encoder = encoder
    var output = StageOutput<EncodedPacket>()
    var bytes = 0
    for block in blocks {  // warm up: sizes the reused packet and libogg's buffers
        try encoder.process(block, into: &output)
        output.removeAll()
    }
    benchmark.startMeasurement()
    for _ in 0..<10 {
        for block in blocks {
            try encoder.process(block, into: &output)
            for packet in output.items { bytes += packet.bytes.count }
            output.removeAll()
        }
    }
    benchmark.stopMeasurement()
    blackHole(bytes)
}

/// Feeds `stream` in 512-byte chunks, measuring from the 64th chunk on (headers read, buffers sized).
private func steadyDecode<D: AudioDecoder>(_ decoder: D, _ stream: [UInt8], _ benchmark: Benchmark) throws {
    var decoder = decoder
    var output = StageOutput<AudioBuffer>()
    let chunks = stride(from: 0, to: stream.count, by: 512).map { Array(stream[$0..<min($0 + 512, stream.count)]) }
    var frames = 0
    for (index, chunk) in chunks.enumerated() {
        if index == 64 { benchmark.startMeasurement() }
        try decoder.process(chunk, into: &output)
        for buffer in output.items { frames += buffer.frameCount }
        output.removeAll()
    }
    benchmark.stopMeasurement()
    try decoder.finish(into: &output)
    blackHole(frames)
}

/// libspeex with no Earshot code: the same VBR settings, one frame per `speex_bits_reset`, a length
/// byte before each frame.
private func directSpeex(_ blocks: [AudioBuffer], quality: Int, complexity: Int) -> Int {
    guard let state = speex_encoder_init(speex_lib_get_mode(SPEEX_MODEID_WB)) else { return 0 }
    defer { speex_encoder_destroy(state) }
    var intQuality = Int32(quality), intComplexity = Int32(complexity), on: Int32 = 1
    var vbrQuality = Float(quality)
    speex_encoder_ctl(state, SPEEX_SET_QUALITY, &intQuality)
    speex_encoder_ctl(state, SPEEX_SET_COMPLEXITY, &intComplexity)
    speex_encoder_ctl(state, SPEEX_SET_VBR, &on)
    speex_encoder_ctl(state, SPEEX_SET_VBR_QUALITY, &vbrQuality)
    var bits = SpeexBits()
    speex_bits_init(&bits)
    defer { speex_bits_destroy(&bits) }
    var pcm = [Int16](repeating: 0, count: 320)
    var frame = [CChar](repeating: 0, count: 256)
    var output = [UInt8]()
    output.reserveCapacity(1 << 16)
    for block in blocks {
        for start in stride(from: 0, to: block.samples.count - 319, by: 320) {
            for index in 0..<320 { pcm[index] = PCM.int16(block.samples[start + index]) }
            speex_bits_reset(&bits)
            speex_encode_int(state, &pcm, &bits)
            let count = Int(speex_bits_write(&bits, &frame, 255))
            output.append(UInt8(count))
            frame.withUnsafeBytes { output.append(contentsOf: $0.prefix(count)) }
        }
    }
    return output.count
}

/// libopus and libogg with no Earshot code: 20 ms packets, a page every 5, as ``OggOpusEncoder``
/// does (headers left out: they are written once per stream).
private func directOggOpus(_ blocks: [AudioBuffer], bitrate: Int, complexity: Int) -> Int {
    var error: Int32 = 0
    guard let encoder = opus_encoder_create(16_000, 1, OPUS_APPLICATION_VOIP, &error) else { return 0 }
    defer { opus_encoder_destroy(encoder) }
    // opus_encoder_ctl is variadic, which Swift cannot call; see OpusControl in EarshotCodecs.
    typealias SetInt = @convention(c) (OpaquePointer?, Int32, Int32) -> Int32
    guard let symbol = dlsym(nil, "opus_encoder_ctl") else { return 0 }
    let control = unsafeBitCast(symbol, to: SetInt.self)
    _ = control(encoder, OPUS_SET_BITRATE_REQUEST, Int32(bitrate))
    _ = control(encoder, OPUS_SET_COMPLEXITY_REQUEST, Int32(complexity))
    _ = control(encoder, OPUS_SET_SIGNAL_REQUEST, OPUS_SIGNAL_VOICE)
    var stream = ogg_stream_state()
    ogg_stream_init(&stream, 1)
    defer { ogg_stream_clear(&stream) }
    var packet = [UInt8](repeating: 0, count: 1_276)
    var output = [UInt8]()
    output.reserveCapacity(1 << 16)
    var packetNumber: Int64 = 0
    for block in blocks {
        for start in stride(from: 0, to: block.samples.count - 319, by: 320) {
            let count = block.samples.withUnsafeBufferPointer {
                opus_encode_float(encoder, $0.baseAddress! + start, 320, &packet, 1_276)
            }
            packetNumber += 1
            packet.withUnsafeMutableBufferPointer {
                var oggPacket = ogg_packet(
                    packet: $0.baseAddress, bytes: Int(count), b_o_s: 0, e_o_s: 0, granulepos: packetNumber * 960,
                    packetno: packetNumber)
                ogg_stream_packetin(&stream, &oggPacket)
            }
            if packetNumber % 5 == 0 {
                var page = ogg_page()
                while ogg_stream_flush(&stream, &page) != 0 {
                    output.append(contentsOf: UnsafeBufferPointer(start: page.header, count: page.header_len))
                    output.append(contentsOf: UnsafeBufferPointer(start: page.body, count: page.body_len))
                }
            }
        }
    }
    return output.count
}
