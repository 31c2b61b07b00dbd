public import EarshotCapture
import EarshotCodecs
public import EarshotCore

/// Live recognition through any ``RecognitionBackend`` — an OpenAI-compatible service, or the Speech
/// API as a backend: the client's capture chain (resampler, level meter, detector, endpointer,
/// encoder) runs exactly as for ``SpeechClient/startListening(from:)``, with the same events and
/// controls, but the encoded utterance is kept until the endpoint and then sent whole, since a file
/// upload has no streaming body. The interaction ends with ``SpeechEvent/recognized(_:)``.
///
/// Partial results need a streaming protocol, so there are none; ``SpeechInteraction/cancel()``
/// during the upload drops the request.
public final class BackendListener: LiveRecognizer {
    public let backend: any RecognitionBackend
    /// The capture chain's configuration; its audio format is the backend's.
    public let capture: CaptureConfiguration
    private let active = Locked(false)

    /// `capture`'s detector, models and endpointing are used; its audio format is replaced by the
    /// backend's ``RecognitionBackend/audioFormat``.
    public init(backend: any RecognitionBackend, capture: CaptureConfiguration) {
        self.backend = backend
        var capture = capture
        capture.audioFormat = backend.audioFormat
        self.capture = capture
    }

    public func startListening(from open: @escaping @Sendable () throws -> any AudioSource) throws(SpeechClientError)
        -> SpeechInteraction
    {
        let interaction = try SpeechInteraction.claiming(active)
        interaction.run { [self] in await $0.runWhole(open: open, listener: self) }
        return interaction
    }

    /// The backend's connections are released when it is dropped.
    public func shutdown() async throws {}
}

extension SpeechInteraction {
    /// Capture to the endpoint, keeping every encoded byte; then one request through the backend.
    fileprivate func runWhole(open: @escaping @Sendable () throws -> any AudioSource, listener: BackendListener) async {
        let capture = await LiveCapture.run(interaction: self, capture: listener.capture, open: open, upload: nil)
        let audio: [UInt8]
        switch capture {
        case .failure(let error):
            end(reply: .failure(error))
            return
        case .success(let bytes):
            audio = bytes
        }
        guard cancelsTaskFromNowOn() else {
            end(reply: .failure(.canceledByUser))
            return
        }
        let format = listener.capture.audioFormat
        let contentType = format.contentType(sampleRate: format.defaultSampleRate)
        do throws(SpeechClientError) {
            end(reply: .success(try await listener.backend.recognize(audio, contentType: contentType)))
        } catch {
            end(reply: .failure(error))
        }
    }
}
