import EarshotCore
import EarshotIO
import EarshotRecognizer
import EarshotTesting

/// Shared helpers: every test builds its own recognizer (a decoder carries state between utterances,
/// and Swift Testing runs tests in parallel), but they read the clips the same way.
enum RecognizerFixtures {
    /// The longest LibriVox clip (6.8 s), for tests that need words mid-stream.
    static let longClipID = "sense_and_sensibility_01_austen_64kb-0870"
    /// The shortest LibriVox clip (3.0 s), for tests that decode several times.
    static let shortClipID = "sense_and_sensibility_01_austen_64kb-0880"

    static func clip(_ id: String) throws -> LibriVoxClips.Clip {
        guard let clip = try LibriVoxClips.load().first(where: { $0.id == id }) else {
            throw EarshotError(.invalidInput, "LibriVox clip \(id) is not listed in the transcription")
        }
        return clip
    }

    /// The whole file as one buffer starting at `startFrame`, read through `AudioFileSource`.
    static func audio(of clip: LibriVoxClips.Clip, startFrame: Int64 = 0) throws -> AudioBuffer {
        let source = try AudioFileSource(path: clip.path)
        var samples: [Float] = []
        while let block = try source.read() { samples.append(contentsOf: block.samples) }
        return AudioBuffer(format: source.format, samples: samples, startFrame: startFrame)
    }

    /// Decodes `audio` as one utterance, fed in blocks of `blockFrames`.
    static func recognize(
        _ audio: AudioBuffer, blockFrames: Int, with recognizer: PocketSphinxRecognizer
    ) throws -> RecognitionResult {
        try recognizer.startUtterance()
        for block in Signal.blocks(of: audio, frames: blockFrames) { try recognizer.accept(block) }
        return try recognizer.endUtterance()
    }
}
