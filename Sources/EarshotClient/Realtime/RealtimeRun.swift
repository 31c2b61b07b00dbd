import AsyncAlgorithms
import EarshotCodecs
import EarshotCore
import NIOCore

/// A ``RealtimeListener``'s interaction: capture streams into the session while the user talks, as
/// three parts run side by side — the capture loop (``LiveCapture``, on the executor for blocking
/// work), the sender (each chunk as `input_audio_buffer.append`, then the commit), and the reader (the
/// server's events through ``RealtimeTurn``). A refusal the reader sees stops the capture, as an HTTP
/// error stops the Speech API's upload.
extension SpeechInteraction {
    func runRealtime(open: @escaping @Sendable () throws -> any AudioSource, listener: RealtimeListener) async {
        enter(.connecting)
        let session: RealtimeConnection
        do {
            session = try await listener.openSession()
        } catch {
            await listener.discardSession(after: error)
            end(reply: .failure(error))
            return
        }
        let channel = AsyncChannel<ByteBuffer>()
        let abort = Locked<UploadStatus>(.running)
        let captured = Locked(false)
        let committed = Locked(false)
        let sentSeconds = Locked(0.0)
        let configuration = listener.configuration
        let rate = listener.sampleRate
        let partial = self.partial
        let outcome = await withTaskGroup(of: Result<RecognitionReply, SpeechClientError>?.self) {
            group -> Result<RecognitionReply, SpeechClientError> in
            group.addTask {
                await Self.read(
                    session, reportPartial: configuration.reportsPartialResults ? partial : nil,
                    sentSeconds: sentSeconds, committed: committed
                ) { error in
                    abort.withLock { if case .running = $0 { $0 = .failed(error) } }
                    // A chunk waiting to be sent is let go, so the capture sees the failure.
                    channel.finish()
                }
            }
            group.addTask {
                // The WAV encoder's header goes first; the rest is the chain's PCM16, sent at the session's rate.
                var header = WAVEncoder.headerSize
                var bytes = 0
                do {
                    var audio = try RealtimeSessionAudio(captureRate: rate)
                    for await chunk in channel {
                        let drop = min(header, chunk.readableBytes)
                        header -= drop
                        guard chunk.readableBytes > drop else { continue }
                        let pcm = try audio.convert(chunk.readableBytesView.dropFirst(drop))
                        if !pcm.isEmpty { await session.send(RealtimeClientEvent.append(pcm)) }
                        bytes += chunk.readableBytes - drop
                        sentSeconds.withLock { $0 = Double(bytes / 2) / Double(rate) }
                    }
                    guard captured.value, !Task.isCancelled else { return nil }
                    let tail = try audio.finish()
                    if !tail.isEmpty { await session.send(RealtimeClientEvent.append(tail)) }
                } catch {
                    return .failure(.invalidParameter("the Realtime session's audio: \(error)"))
                }
                // Set first: the transcript that answers the commit may come before `send` returns.
                committed.withLock { $0 = true }
                await session.send(RealtimeClientEvent.commit)
                self.enter(.processing)
                try? await Task.sleep(for: .milliseconds(Int64(configuration.serverResponseTimeout * 1000)))
                return Task.isCancelled
                    ? nil
                    : .failure(
                        .noResponseFromServer(
                            "no transcript from \(configuration.url) within the server response timeout"))
            }
            let capture = await LiveCapture.run(
                interaction: self, capture: listener.capture, open: open, upload: (channel, abort))
            if case .failure(let error) = capture {
                // A failed session is why capture stopped, unless capture stopped first.
                let cause = abort.value.error ?? error
                group.cancelAll()
                channel.finish()
                return .failure(cause)
            }
            if let error = abort.value.error {
                group.cancelAll()
                channel.finish()
                return .failure(error)
            }
            captured.withLock { $0 = true }
            channel.finish()
            while let next = await group.next() {
                if let next {
                    group.cancelAll()
                    return next
                }
            }
            return .failure(.noResponseFromServer("the session with \(configuration.url) ended without a transcript"))
        }
        if case .failure(let error) = outcome { await listener.discardSession(after: error) }
        end(reply: outcome)
    }

    /// The reader: the session's events until the utterance's transcript, or a failure (reported to
    /// `fail` at once, so capture stops). Nil when canceled.
    private static func read(
        _ session: RealtimeConnection, reportPartial: (@Sendable (String, Double) -> Void)?,
        sentSeconds: Locked<Double>, committed: Locked<Bool>, fail: @Sendable (SpeechClientError) -> Void
    ) async -> Result<RecognitionReply, SpeechClientError>? {
        var turn = RealtimeTurn()
        for await incoming in session.messages {
            let step: RealtimeTurn.Step
            switch incoming {
            case .message(let text):
                if committed.value { turn.committed() }
                step = turn.receive(RealtimeServerEvent(text: text))
            case .closed(let code, let reason):
                step = .failed(RealtimeFailure.closed(code: code, reason: reason, url: session.url))
            case .failed(let error):
                step = .failed(error)
            }
            switch step {
            case .nothing: continue
            case .partial(let text): reportPartial?(text, sentSeconds.value)
            case .answered(let reply): return .success(reply)
            case .failed(let error):
                fail(error)
                return .failure(error)
            }
        }
        return nil
    }
}
