import EarshotRecognizer

/// What a recognition request's body is fed to, chunk by chunk as it arrives: the audio of a Speech
/// to Text request (``RecognitionSession``), or the parts of a Speech to Text Custom request
/// (``CustomRecognitionRequest``), whose audio comes last.
protocol RequestAudio: AnyObject {
    /// Bytes of audio received (the audio part's only, for a multipart body).
    var audioBytes: Int { get }
    /// Seconds of audio decoded so far.
    var audioTime: Double { get }
    /// Handles the next chunk of the body.
    func consume(_ bytes: [UInt8]) throws
    /// The best hypothesis so far, or nil; its end is the audio its text was heard in (a recognizer that
    /// decodes beside the stream answers for audio a little behind ``audioTime``).
    func partialResult() throws -> RecognitionResult?
    /// The body has ended: the final result.
    func finish() throws -> RecognitionResult
    /// Gives up after an error, leaving the recognizer with no open utterance.
    func abandon()
}

extension RecognitionSession: RequestAudio {}
