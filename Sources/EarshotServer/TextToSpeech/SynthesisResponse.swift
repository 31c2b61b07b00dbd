import EarshotCodecs
import EarshotCore
import EarshotDSP
import EarshotSynthesis
import Hummingbird
import Logging
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
/// are made (HTTP/1.1 chunked), so the first audio leaves after the first sentence, not the last.
///
/// The synthesis goes at the pace the client reads (``SpeechStream`` makes the next piece only when the
/// last is written), so an answer holds one piece's audio, however long, and a client that stops
/// reading stops it. One that reads nothing for `--write-timeout` is dropped: its connection is
/// closed, and with the body goes the answer's ``SynthesisAdmission`` ticket and its memory. An answer
/// that runs past `--max-speech-duration` (the check before synthesis, ``checkDuration(of:voice:rate:limits:field:)``,
/// knows only a lower bound) is cut there: the audio up to the limit is sent, then the connection is
/// closed without the chunked body's last chunk, so the client sees an incomplete transfer (curl: exit
/// status 18) rather than a file that looks whole.
enum SynthesisResponse {
    /// What one answer may take: read from the service's configuration for each request.
    struct Limits: Sendable {
        /// The longest answer, in seconds of audio.
        var maxSeconds: Double
        /// How long a write may wait on a client that reads nothing.
        var writeTimeout: Duration
    }

    /// A 413 before synthesis when `script` spoken with `voice` at `rate` is sure to run past the limit:
    /// its pauses and a lower bound on its speech (``Synthesis/minimumDuration(of:voice:rate:)``).
    /// `field` names the input.
    static func checkDuration(
        of script: SpeechScript, voice: Voice, rate: Double, limits: Limits, field: String
    ) throws {
        let least = Synthesis.minimumDuration(of: script, voice: voice, rate: rate)
        guard least > limits.maxSeconds else { return }
        var error = ServiceError.badRequest(
            "this speech would last at least \(Int(least.rounded(.up))) s (\(Int(script.pauseSeconds.rounded(.up))) s "
                + "of it pauses), over this service's limit of \(seconds(limits.maxSeconds)) s (--max-speech-duration)",
            variables: field)
        error.status = .contentTooLarge
        throw error
    }

    /// The 200 answer of a Text to Speech route: `contentType`, and the body (see the type's notes).
    /// `ticket` is the answer's place in ``SynthesisAdmission``, held until the body has been written or
    /// dropped.
    static func response(
        contentType: String, script: SpeechScript, voice: Voice, rate: Double, output: SynthesisOutput,
        ticket: SynthesisAdmission.Ticket, limits: Limits, context: ServiceRequestContext
    ) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        let inputFormat = try AudioFormat(sampleRate: voice.sampleRate, channelCount: 1)
        let resampling = Resampler.Configuration(sampleRate: output.sampleRate)
        // The stages are made once here, so a failure is a 500 before the status line goes out.
        _ = try Resampler(inputFormat: inputFormat, configuration: resampling)
        if case .encoded(let format, let sampleRate) = output { _ = try format.makeEncoder(sampleRate: sampleRate) }
        let (logger, closeConnection) = (context.logger, context.closeConnection)
        let body = ResponseBody { writer in
            // The place in the admission is held until the body is written (or dropped).
            defer { withExtendedLifetime(ticket) {} }
            let resampler = try Resampler(inputFormat: inputFormat, configuration: resampling)
            let transcoder: Transcoder
            switch output {
            case .encoded(let format, let sampleRate):
                transcoder = .encoding(resampler, try format.makeEncoder(sampleRate: sampleRate))
            case .pcm16LittleEndian:
                transcoder = .pcm16(resampler)
            }
            let watch = WriteWatch()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    guard await watch.expires(after: limits.writeTimeout) else { return }
                    logger.info(
                        "text to speech client dropped: it read nothing for the write timeout",
                        metadata: ["write-timeout": "\(seconds(limits.writeTimeout.inSeconds)) s"])
                    closeConnection()
                }
                defer { group.cancelAll() }
                try await write(
                    Synthesis.stream(script, voice: voice, rate: rate), maxSeconds: limits.maxSeconds,
                    through: transcoder, watch: watch, logger: logger, to: &writer)
            }
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Writes `speech`, transcoded, to `writer`; throws once past `maxSeconds` of audio, after writing
    /// the audio up to it, so the body ends incomplete.
    private static func write(
        _ speech: SpeechStream, maxSeconds: Double, through transcoder: Transcoder, watch: WriteWatch,
        logger: Logger, to writer: inout any ResponseBodyWriter
    ) async throws {
        var remainingFrames: Int?
        for try await buffer in speech {
            let frames = remainingFrames ?? Int(min(maxSeconds * Double(buffer.format.sampleRate), 1e15))
            // A Flite sentence comes as one buffer, minutes long at a slow rate: it is resampled and
            // written half a second at a time, so no copy of it all is made on the way out.
            let slice = buffer.format.sampleRate / 2
            var start = 0
            while start < min(buffer.samples.count, frames) {
                let end = min(start + slice, buffer.samples.count, frames)
                let part = AudioBuffer(
                    format: buffer.format, samples: Array(buffer.samples[start..<end]),
                    startFrame: buffer.startFrame + Int64(start))
                for bytes in try transcoder.process(part) { try await watch.write(bytes, to: &writer) }
                start = end
            }
            guard buffer.samples.count <= frames else {
                logger.info(
                    "text to speech cut at the limit",
                    metadata: ["max-speech-duration": "\(seconds(maxSeconds)) s"])
                throw SpeechTooLong(maxSeconds: maxSeconds)
            }
            remainingFrames = frames - buffer.samples.count
        }
        for bytes in try transcoder.finish() { try await watch.write(bytes, to: &writer) }
        try await writer.finish(nil)
    }

    /// Seconds as the options take them: `1800`, `2.5`.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// Thrown inside an answer's body when its synthesis runs past `--max-speech-duration`: the connection
/// closes without the body's last chunk.
struct SpeechTooLong: Error, CustomStringConvertible {
    let maxSeconds: Double
    var description: String {
        "the speech ran past this service's limit of \(SynthesisResponse.seconds(maxSeconds)) s (--max-speech-duration)"
    }
}

/// The stages between the synthesizer's buffers and the answer's bytes.
private enum Transcoder {
    case encoding(any AnswerStage)
    case pcm16(Resampler)

    static func encoding<Encoder: AudioEncoder>(_ resampler: Resampler, _ encoder: Encoder) -> Transcoder {
        .encoding(EncodingChain(resampler.then(encoder)))
    }

    func process(_ buffer: AudioBuffer) throws -> [ByteBuffer] {
        switch self {
        case .encoding(let chain): return try chain.process(buffer)
        case .pcm16(let resampler):
            var resampled = StageOutput<AudioBuffer>()
            try resampler.process(buffer, into: &resampled)
            return Self.pcm16(resampled)
        }
    }

    func finish() throws -> [ByteBuffer] {
        switch self {
        case .encoding(let chain): return try chain.finish()
        case .pcm16(let resampler):
            var resampled = StageOutput<AudioBuffer>()
            try resampler.finish(into: &resampled)
            return Self.pcm16(resampled)
        }
    }

    /// OpenAI's `pcm`: 16-bit little-endian samples.
    private static func pcm16(_ resampled: StageOutput<AudioBuffer>) -> [ByteBuffer] {
        resampled.items.filter { !$0.isEmpty }.map { buffer in
            var bytes = ByteBuffer()
            bytes.reserveCapacity(buffer.samples.count * 2)
            for sample in buffer.samples {
                bytes.writeInteger(Int16((max(-1, min(1, sample)) * 32_767).rounded()), endianness: .little)
            }
            return bytes
        }
    }
}

/// A resampler and an encoder as one stage, held by reference so the transcoder can be shared by value.
private protocol AnswerStage {
    func process(_ buffer: AudioBuffer) throws -> [ByteBuffer]
    func finish() throws -> [ByteBuffer]
}

private final class EncodingChain<Encoder: AudioEncoder>: AnswerStage {
    private var chain: StageChain<Resampler, Encoder>

    init(_ chain: StageChain<Resampler, Encoder>) { self.chain = chain }

    func process(_ buffer: AudioBuffer) throws -> [ByteBuffer] {
        var packets = StageOutput<EncodedPacket>()
        try chain.process(buffer, into: &packets)
        return packets.items.map { ByteBuffer(bytes: $0.bytes) }
    }

    func finish() throws -> [ByteBuffer] {
        var packets = StageOutput<EncodedPacket>()
        try chain.finish(into: &packets)
        return packets.items.map { ByteBuffer(bytes: $0.bytes) }
    }
}
