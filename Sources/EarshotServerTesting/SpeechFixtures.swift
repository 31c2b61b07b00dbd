public import EarshotCodecs
import EarshotCore
import EarshotDSP
import EarshotIO
import EarshotRecognizer
public import EarshotTesting

/// Real speech in every wire format, and what the embedded recognizer makes of it.
public enum SpeechFixtures {
    public static let clips: [LibriVoxClips.Clip] = (try? LibriVoxClips.load()) ?? []

    /// The first LibriVox clip (2.99 s), encoded as `format`.
    public static func encoded(_ format: CodecFormat, clip: LibriVoxClips.Clip? = nil) throws -> [UInt8] {
        guard let clip = clip ?? clips.first else {
            throw EarshotError(.invalidInput, "the LibriVox clips are not installed (make test fetches them)")
        }
        return try encode(clip.path, with: try format.makeEncoder(sampleRate: format.defaultSampleRate))
    }

    private static func encode<Encoder: AudioEncoder>(_ path: String, with encoder: Encoder) throws -> [UInt8] {
        let source = try AudioFileSource(path: path)
        let resampler = try Resampler(
            inputFormat: source.format, configuration: .init(sampleRate: encoder.inputFormat.sampleRate))
        var chain = resampler.then(encoder)
        var output = StageOutput<EncodedPacket>()
        var bytes: [UInt8] = []
        while let buffer = try source.read() {
            try chain.process(buffer, into: &output)
            for packet in output.items { bytes += packet.bytes }
            output.removeAll()
        }
        try chain.finish(into: &output)
        for packet in output.items { bytes += packet.bytes }
        return bytes
    }

    /// The transcript a freshly loaded embedded recognizer gives for `bytes`, decoded whole and
    /// fed in one buffer (the service decodes the same bytes chunk by chunk as they arrive).
    public static func reference(_ bytes: [UInt8], format: CodecFormat) throws -> String {
        try referenceRecognition(bytes, format: format).text
    }

    /// The reference transcript and the seconds of audio `bytes` decode to.
    public static func referenceRecognition(_ bytes: [UInt8], format: CodecFormat) throws -> (text: String, duration: Double) {
        var decoder = try format.makeDecoder(name: "reference", sampleRate: format == .opus ? 16_000 : nil)
        var decoded = StageOutput<AudioBuffer>()
        try decoder.process(bytes, into: &decoded)
        try decoder.finish(into: &decoded)
        guard let first = decoded.items.first else {
            throw EarshotError(.invalidInput, "\(bytes.count) bytes of \(format) decode to no audio")
        }
        var audio = AudioBuffer(format: first.format)
        for buffer in decoded.items { audio.samples += buffer.samples }
        let resampler = try Resampler(inputFormat: audio.format)
        var resampled = StageOutput<AudioBuffer>()
        try resampler.process(audio, into: &resampled)
        try resampler.finish(into: &resampled)
        var mono = AudioBuffer(format: resampler.outputFormat)
        for buffer in resampled.items { mono.samples += buffer.samples }
        let recognizer = try PocketSphinxRecognizer()
        try recognizer.startUtterance()
        try recognizer.accept(mono)
        return (try recognizer.endUtterance().text, audio.duration)
    }

    /// Headers of a speech request as the seed's examples send them.
    public static func speechHeaders(token: String, contentType: String, context: String = "VoiceMail") -> [(String, String)] {
        [("Authorization", "BEARER \(token)"), ("Content-Type", contentType), ("X-SpeechContext", context)]
    }
}
