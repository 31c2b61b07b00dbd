import EarshotCodecs
import EarshotCore
import EarshotDSP
import EarshotRecognizer

/// One request's audio path, fed as the body arrives: decoder → resampler → recognizer.
///
/// Each body chunk is decoded, brought to the recognizer's 16 kHz mono and decoded by PocketSphinx
/// before the next chunk is read, so when the last chunk arrives only its own audio and the end of
/// the utterance remain to be computed. Not thread-safe (it drives C state): one per request.
final class RecognitionSession {
    /// Bytes of body received.
    private(set) var audioBytes = 0
    /// Seconds of audio decoded so far (at the stream's own rate).
    private(set) var audioTime = 0.0

    private let recognizer: PocketSphinxRecognizer
    private let formatName: String
    private var decoder: any AudioDecoder
    private var resampler: Resampler?
    private let maxAudioDuration: Double
    private var decoded = StageOutput<AudioBuffer>()
    private var resampled = StageOutput<AudioBuffer>()
    private var decodedFrames: Int64 = 0

    /// Errors the session throws: the body's audio is malformed, or longer than allowed.
    enum Failure: Error {
        /// The audio is not `format` (its display name): `message` says where it went wrong.
        case malformed(format: String, message: String)
        case tooLong(limit: Double)
    }

    init(contentType: AudioContentType, recognizer: PocketSphinxRecognizer, maxAudioDuration: Double) throws {
        self.recognizer = recognizer
        self.maxAudioDuration = maxAudioDuration
        formatName = contentType.format.displayName
        decoder = try contentType.makeDecoder()
        // Each request is decoded as by a freshly loaded recognizer: one client's channel must not
        // colour another's result.
        try recognizer.resetAdaptation()
        try recognizer.startUtterance()
    }

    /// Decodes and recognizes one chunk of the body.
    func consume(_ bytes: [UInt8]) throws {
        audioBytes += bytes.count
        decoded.removeAll()
        do {
            try decoder.process(bytes, into: &decoded)
        } catch let error as EarshotError {
            throw Failure.malformed(format: formatName, message: error.message)
        }
        try recognize(decoded.items)
    }

    /// The best hypothesis so far, or nil.
    func partialText() throws -> String? {
        try recognizer.partialResult()?.text
    }

    /// Flushes the decoder and resampler and ends the utterance.
    func finish() throws -> RecognitionResult {
        decoded.removeAll()
        do {
            try decoder.finish(into: &decoded)
        } catch let error as EarshotError {
            _ = try? recognizer.endUtterance()
            throw Failure.malformed(format: formatName, message: error.message)
        }
        try recognize(decoded.items)
        if let resampler {
            resampled.removeAll()
            try resampler.finish(into: &resampled)
            for buffer in resampled.items { try recognizer.accept(buffer) }
        }
        if decodedFrames == 0 {
            _ = try? recognizer.endUtterance()
            throw Failure.malformed(format: formatName, message: "the body holds no audio samples")
        }
        return try recognizer.endUtterance()
    }

    /// Abandons the utterance (after an error), leaving the recognizer ready for the next request.
    func abandon() {
        _ = try? recognizer.endUtterance()
    }

    private func recognize(_ buffers: [AudioBuffer]) throws {
        for buffer in buffers where !buffer.isEmpty {
            decodedFrames += Int64(buffer.frameCount)
            audioTime = Double(decodedFrames) / Double(buffer.format.sampleRate)
            if audioTime > maxAudioDuration { throw Failure.tooLong(limit: maxAudioDuration) }
            if resampler == nil {
                resampler = try Resampler(
                    inputFormat: buffer.format, configuration: .init(sampleRate: recognizer.format.sampleRate))
            }
            resampled.removeAll()
            try resampler!.process(buffer, into: &resampled)
            for output in resampled.items { try recognizer.accept(output) }
        }
    }
}
