import EarshotCore

/// One speech interaction: its events as an `AsyncSequence`, its state, and the application's
/// controls (the SDK's `stopListening`, `cancel` and `extendTimeout:`).
///
/// Events come in the SDK's order: state changes, will-start and is-listening, audio levels and
/// speech boundaries while recording, stopped-listening, then exactly one final event — `succeeded`
/// (a ``SpeechClient``'s Speech API answer), `recognized` (a ``BackendListener``'s reply from any
/// ``RecognitionBackend``) or `failed` — after which the stream ends and the state is `Idle` again.
public final class SpeechInteraction: Sendable {
    public let events: AsyncStream<SpeechEvent>
    private let continuation: AsyncStream<SpeechEvent>.Continuation
    private let release: @Sendable () -> Void
    private let stateBox = Locked(SpeechClientState.idle)
    private let requests = Locked(Requests())

    private struct Requests {
        var stop = false
        var cancel = false
        var extensions: [Double] = []
        /// The task running the interaction's work, and whether ``cancel()`` cancels it: in a phase
        /// with no capture loop to see the request (a whole upload through a backend).
        var work: Task<Void, Never>?
        var cancelsWork = false
    }

    init(release: @escaping @Sendable () -> Void) {
        (events, continuation) = AsyncStream.makeStream(of: SpeechEvent.self)
        self.release = release
    }

    /// A new interaction for a client whose `busy` flag says whether one is running: sets it, and the
    /// interaction clears it as it ends. Throws `.attemptAtReentrancy` while another one runs.
    static func claiming(_ busy: Locked<Bool>) throws(SpeechClientError) -> SpeechInteraction {
        let claimed = busy.withLock { running in
            defer { running = true }
            return !running
        }
        guard claimed else { throw .attemptAtReentrancy }
        return SpeechInteraction { busy.withLock { $0 = false } }
    }

    /// Runs the interaction's work in a task of its own, tied to whoever reads ``events``: if the
    /// reader's task is cancelled (or the stream is dropped), the work is cancelled as ``cancel()``
    /// would, and stops between blocks of audio or in its wait for the network.
    func run(_ work: @escaping @Sendable (SpeechInteraction) async -> Void) {
        let task = Task { await work(self) }
        requests.withLock { $0.work = task }
        continuation.onTermination = { [weak self] termination in
            guard case .cancelled = termination else { return }
            self?.cancel()
            task.cancel()
        }
    }

    /// The current state.
    public var state: SpeechClientState { stateBox.withLock { $0 } }

    /// Ends capture now (manual endpoint); the audio so far is sent and recognized.
    public func stopListening() { requests.withLock { $0.stop = true } }

    /// Abandons the interaction: capture stops, the request is dropped, and the interaction ends
    /// with `failed(.canceledByUser)`.
    public func cancel() {
        let task = requests.withLock { pending in
            pending.cancel = true
            return pending.cancelsWork ? pending.work : nil
        }
        task?.cancel()
    }

    /// From now on ``cancel()`` also cancels the interaction's task, so a wait with no capture loop
    /// to see the request (a whole upload) ends at once. Returns false when already canceled.
    func cancelsTaskFromNowOn() -> Bool {
        requests.withLock { pending in
            pending.cancelsWork = true
            return !pending.cancel
        }
    }

    /// Keeps capturing for `seconds` more of silence (multimodal input).
    public func extendTimeout(_ seconds: Double) { requests.withLock { $0.extensions.append(seconds) } }

    var canceled: Bool { requests.withLock { $0.cancel } }

    /// The stop, cancel and extend requests made since the last call (cancel stays set).
    func takeRequests() -> (stop: Bool, cancel: Bool, extensions: [Double]) {
        requests.withLock { pending in
            defer {
                pending.stop = false
                pending.extensions = []
            }
            return (pending.stop, pending.cancel, pending.extensions)
        }
    }

    func emit(_ event: SpeechEvent) { continuation.yield(event) }

    func enter(_ next: SpeechClientState) {
        let previous = stateBox.withLock { state in
            defer { state = next }
            return state
        }
        if previous != next { emit(.stateChanged(from: previous, to: next)) }
    }

    /// Ends the interaction with a backend's reply (``SpeechEvent/recognized(_:)``) or its failure.
    func end(reply outcome: Result<RecognitionReply, SpeechClientError>) {
        switch outcome {
        case .success(let reply):
            enter(.idle)
            finish(with: .recognized(reply))
        case .failure(let error):
            end(Result<SpeechResponse, SpeechClientError>.failure(error))
        }
    }

    /// Ends the interaction with a Speech API answer (an HTTP error status fails it). The client is
    /// free for the next interaction before the final event is delivered, so an application may start
    /// one as soon as it learns the result.
    func end(_ outcome: Result<SpeechResponse, SpeechClientError>) {
        let final: SpeechEvent
        switch outcome {
        case .success(let response) where response.statusCode < 400:
            enter(.idle)
            final = .succeeded(response)
        case .success(let response):
            enter(.error)
            enter(.idle)
            let retryAfter = response.headers.first { $0.key.lowercased() == "retry-after" }?.value
            final = .failed(
                .httpStatus(
                    response.statusCode, RequestError(json: response.data),
                    retryAfter: SpeechClientError.retryAfter(header: retryAfter)))
        case .failure(let error):
            enter(.error)
            enter(.idle)
            final = .failed(canceled ? .canceledByUser : error)
        }
        finish(with: final)
    }

    private func finish(with final: SpeechEvent) {
        release()
        emit(final)
        continuation.finish()
    }
}
