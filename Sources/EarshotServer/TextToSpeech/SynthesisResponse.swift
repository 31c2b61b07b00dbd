import EarshotCodecs
import EarshotCore
import EarshotDSP
import EarshotSynthesis
import Hummingbird
import NIOCore

/// How a Text to Speech route sends its audio: an encoder's format at a rate, or OpenAI's `pcm`
/// (raw 16-bit little-endian, which no Speech API format is).
enum SynthesisOutput: Sendable {
    case encoded(CodecFormat, sampleRate: Int)
    case pcm16LittleEndian(sampleRate: Int)

    var sampleRate: Int {
        switch self {
        case .encoded(_, let rate), .pcm16LittleEndian(let rate): rate
        }
    }
}

/// The body of a Text to Speech answer: the engine's buffers resampled, encoded and written as they
/// are made (HTTP/1.1 chunked), so the first audio leaves after the first sentence, not the last. If
/// the client goes away the writer throws, the stream is dropped and the engine stops at its next block.
/// The answer's ``SynthesisAdmission`` ticket lives as long as its body.
enum SynthesisResponse {
    /// The 200 answer of a Text to Speech route: `contentType`, and the body (see ``body(script:voice:rate:output:ticket:)``).
    /// `ticket` is the answer's place in ``SynthesisAdmission``, held until the body has been written.
    static func response(
        contentType: String, script: SpeechScript, voice: Voice, rate: Double, output: SynthesisOutput,
        ticket: SynthesisAdmission.Ticket
    ) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        return Response(
            status: .ok, headers: headers,
            body: try body(script: script, voice: voice, rate: rate, output: output, ticket: ticket))
    }

    /// Checks that the stages can be made (before the status line goes out), then returns the body,
    /// which makes its own inside the writing task.
    static func body(
        script: SpeechScript, voice: Voice, rate: Double, output: SynthesisOutput, ticket: SynthesisAdmission.Ticket
    ) throws -> ResponseBody {
        let inputFormat = try AudioFormat(sampleRate: voice.sampleRate, channelCount: 1)
        let resampling = Resampler.Configuration(sampleRate: output.sampleRate)
        _ = try Resampler(inputFormat: inputFormat, configuration: resampling)
        switch output {
        case .encoded(let format, let sampleRate):
            _ = try format.makeEncoder(sampleRate: sampleRate)
            return ResponseBody { writer in
                // The place in the admission is held until the body is written (or dropped).
                defer { withExtendedLifetime(ticket) {} }
                let resampler = try Resampler(inputFormat: inputFormat, configuration: resampling)
                try await stream(
                    script: script, voice: voice, rate: rate, resampler: resampler,
                    encoder: try format.makeEncoder(sampleRate: sampleRate), to: &writer)
            }
        case .pcm16LittleEndian:
            return ResponseBody { writer in
                // The place in the admission is held until the body is written (or dropped).
                defer { withExtendedLifetime(ticket) {} }
                let resampler = try Resampler(inputFormat: inputFormat, configuration: resampling)
                var resampled = StageOutput<AudioBuffer>()
                func send(_ writer: inout any ResponseBodyWriter) async throws {
                    for buffer in resampled.items where !buffer.isEmpty {
                        var bytes = ByteBuffer()
                        bytes.reserveCapacity(buffer.samples.count * 2)
                        for sample in buffer.samples {
                            bytes.writeInteger(
                                Int16((max(-1, min(1, sample)) * 32_767).rounded()), endianness: .little)
                        }
                        try await writer.write(bytes)
                    }
                    resampled.removeAll()
                }
                for try await buffer in Synthesis.stream(script, voice: voice, rate: rate) {
                    try resampler.process(buffer, into: &resampled)
                    try await send(&writer)
                }
                try resampler.finish(into: &resampled)
                try await send(&writer)
                try await writer.finish(nil)
            }
        }
    }

    private static func stream<Encoder: AudioEncoder>(
        script: SpeechScript, voice: Voice, rate: Double, resampler: Resampler, encoder: Encoder,
        to writer: inout any ResponseBodyWriter
    ) async throws {
        var chain = resampler.then(encoder)
        var packets = StageOutput<EncodedPacket>()
        for try await buffer in Synthesis.stream(script, voice: voice, rate: rate) {
            try chain.process(buffer, into: &packets)
            for packet in packets.items { try await writer.write(ByteBuffer(bytes: packet.bytes)) }
            packets.removeAll()
        }
        try chain.finish(into: &packets)
        for packet in packets.items { try await writer.write(ByteBuffer(bytes: packet.bytes)) }
        try await writer.finish(nil)
    }
}
