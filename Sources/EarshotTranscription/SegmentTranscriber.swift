import EarshotCore
public import EarshotRecognizer
public import EarshotVAD

/// Turns one segment of a long recording into a recognition result: the seam between the scheduler,
/// which cuts and orders segments, and whatever recognizes them.
///
/// The embedded engine is ``EmbeddedTranscriber``; a transcriber that uploads each segment to a
/// recognition service slots in behind the same protocol. Times in the result are media times of the
/// whole recording (the segment's audio carries them), so the scheduler never shifts words.
///
/// A transcriber is used by one worker task and is not required to be `Sendable`: each worker makes its
/// own with the factory it is given, and keeps it for every segment it handles. Workers run on an
/// executor for blocking work, so a transcriber may block its thread while it computes; one that waits
/// on the network awaits instead, freeing the thread.
public protocol SegmentTranscriber {
    /// Called before the first segment of each recording the worker handles, so what the transcriber
    /// learned about one recording's channel cannot colour the next.
    mutating func beginRecording() throws

    /// Recognizes `segment`. Should check for task cancellation at least every second of audio
    /// (`try Task.checkCancellation()`), so Ctrl-C is prompt.
    mutating func transcribe(_ segment: UtteranceChunk) async throws -> RecognitionResult
}
