import EarshotCore
public import EarshotRecognizer
public import EarshotVAD

/// A recognizer in this process behind ``SegmentTranscriber``: loaded once and reused for every
/// segment the worker gets. Any ``Recognizer``; `earshot transcribe` gives it PocketSphinx
/// (``init(configuration:)``, about half a second to load).
///
/// Cepstral mean: the recognizer's channel estimate is reset at the start of each recording
/// (``beginRecording()``) and carried from segment to segment within it, as in a live PocketSphinx
/// session; on the LibriVox clips carrying it lowers the word error rate from 0.37 to 0.31. With
/// several workers, each carries its own estimate across the segments it is dealt (the scheduler deals
/// them by their lengths, so which segments those are depends only on the number of jobs).
///
/// Audio goes to the recognizer in one-second pieces of the segment's buffer (not copies of them,
/// for a recognizer that reads frames in place: ``Recognizer/accept(_:frames:)``), with a cancellation
/// check between them.
public final class EmbeddedTranscriber<R: Recognizer>: SegmentTranscriber {
    public private(set) var recognizer: R
    /// Samples handed to the recognizer between cancellation checks: one second.
    private let piece: Int

    public init(recognizer: R) {
        self.recognizer = recognizer
        piece = recognizer.format.sampleRate
    }

    public func beginRecording() throws {
        try recognizer.resetAdaptation()
    }

    public func transcribe(_ segment: UtteranceChunk) async throws -> RecognitionResult {
        try recognizer.startUtterance()
        // The segment is all here: nothing to decode ahead of its end (a live stream's early work).
        recognizer.noteStreamPace(isLive: false)
        var first = 0
        let audio = segment.audio
        do {
            while first < audio.frameCount {
                try Task.checkCancellation()
                let last = min(first + piece, audio.frameCount)
                try recognizer.accept(audio, frames: first..<last)
                first = last
            }
        } catch {
            recognizer.abandonUtterance()  // leave the recognizer ready for the next segment
            throw error
        }
        return try recognizer.endUtterance()
    }
}

extension EmbeddedTranscriber where R == PocketSphinxRecognizer {
    /// Loads PocketSphinx with `configuration`; throws `.modelUnavailable` naming what is missing.
    public convenience init(configuration: PocketSphinxConfiguration = .default) throws {
        self.init(recognizer: try PocketSphinxRecognizer(configuration: configuration))
    }
}

/// A transcriber over any recognizer, specialized for its own type (SE-0352): what a command makes for
/// each worker from the recognizer a model gives.
public func embeddedTranscriber(for recognizer: any Recognizer) -> any SegmentTranscriber {
    transcriber(opening: recognizer)
}

private func transcriber<R: Recognizer>(opening recognizer: R) -> any SegmentTranscriber {
    EmbeddedTranscriber(recognizer: recognizer)
}
