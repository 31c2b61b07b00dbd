import AsyncAlgorithms
import AsyncHTTPClient
import EarshotCodecs
import EarshotCore
import EarshotVAD
import Foundation
import NIOCore

/// How the upload of a live interaction stands, as the capture thread sees it.
enum UploadStatus: Sendable {
    case running
    /// The service answered before the audio ended (an early 401 or 503): capture stops, the answer counts.
    case answered
    case failed(SpeechClientError)

    var error: SpeechClientError? { if case .failed(let error) = self { error } else { nil } }
}

/// One speech interaction: its events as an `AsyncSequence`, its state, and the application's
/// controls (the SDK's `stopListening`, `cancel` and `extendTimeout:`).
///
/// Events come in the SDK's order: state changes, will-start and is-listening, audio levels and
/// speech boundaries while recording, stopped-listening, then exactly one of `succeeded` or
/// `failed`, after which the stream ends and the state is `Idle` again.
public final class SpeechInteraction: Sendable {
    public let events: AsyncStream<SpeechEvent>
    private let continuation: AsyncStream<SpeechEvent>.Continuation
    private let client: SpeechClient
    private let release: @Sendable () -> Void
    private let stateBox = Locked(SpeechClientState.idle)
    private let requests = Locked(Requests())

    private struct Requests {
        var stop = false
        var cancel = false
        var extensions: [Double] = []
    }

    init(client: SpeechClient, release: @escaping @Sendable () -> Void) {
        (events, continuation) = AsyncStream.makeStream(of: SpeechEvent.self)
        self.client = client
        self.release = release
    }

    /// Runs the interaction's work in a task of its own, tied to whoever reads ``events``: if the
    /// reader's task is cancelled (or the stream is dropped), the work is cancelled as ``cancel()``
    /// would, and stops between blocks of audio or in its wait for the network.
    func run(_ work: @escaping @Sendable (SpeechInteraction) async -> Void) {
        let task = Task { await work(self) }
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
    public func cancel() { requests.withLock { $0.cancel = true } }

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

    /// Ends the interaction with `outcome`. The client is free for the next interaction before the
    /// final event is delivered, so an application may start one as soon as it learns the result.
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
        release()
        emit(final)
        continuation.finish()
    }

    // MARK: recorded audio

    func runUpload(_ audio: [UInt8], contentType: String) async {
        enter(.connecting)
        let exchange = RecognitionExchange(configuration: client.configuration, http: client.http)
        let body = exchange.prefix(audioContentType: contentType) + audio + exchange.suffix()
        enter(.sendingAudioData)
        end(await sendWhole(body, contentType: contentType, exchange: exchange, retryOn401: true))
    }

    /// Sends a complete body with `Content-Length`; on a 401 with credentials, fetches a new token
    /// and tries once more.
    func sendWhole(_ body: [UInt8], contentType: String, exchange: RecognitionExchange, retryOn401: Bool) async
        -> Result<SpeechResponse, SpeechClientError>
    {
        do {
            let token = try await client.token()
            let request = exchange.request(
                token: token, audioContentType: contentType,
                body: .bytes(body, length: .known(Int64(body.count))))
            let response = try await exchange.perform(request, deadline: deadline(audioSeconds: 0), onPartial: partial)
            if response.statusCode == 401, retryOn401, let tokens = client.tokens {
                await tokens.invalidate()
                return await sendWhole(body, contentType: contentType, exchange: exchange, retryOn401: false)
            }
            enter(.processing)
            return .success(response)
        } catch {
            return .failure(error)
        }
    }

    var partial: @Sendable (String, Double) -> Void {
        { [weak self] text, time in self?.emit(.partialResult(text, audioTime: time)) }
    }

    /// A whole-exchange deadline well past every timeout that should fire first.
    func deadline(audioSeconds: Double) -> TimeAmount {
        let configuration = client.configuration
        let recording =
            configuration.endpointing.maxRecordingTime.isFinite ? configuration.endpointing.maxRecordingTime : 3600
        let seconds =
            configuration.connectionTimeout + max(recording, audioSeconds) + configuration.serverResponseTimeout + 30
        return .milliseconds(Int64(seconds * 1000))
    }

    // MARK: live capture

    func runLive(open: @escaping @Sendable () throws -> any AudioSource) async {
        enter(.connecting)
        let configuration = client.configuration
        let exchange = RecognitionExchange(configuration: configuration, http: client.http)
        let audioType = configuration.audioFormat.contentType(sampleRate: configuration.audioFormat.defaultSampleRate)
        let token: String
        do {
            token = try await client.token()
        } catch {
            end(.failure(error))
            return
        }
        let channel = AsyncChannel<ByteBuffer>()
        let request = exchange.request(
            token: token, audioContentType: audioType, body: .stream(channel, length: .unknown))
        let abort = Locked<UploadStatus>(.running)
        let partial = self.partial
        let deadline = self.deadline(audioSeconds: 0)
        let prefix = exchange.prefix(audioContentType: audioType)
        // The upload runs beside the capture, as a child task. A request that ends early — refused, timed
        // out, or answered before the audio ended (a 503, a 401) — stops the capture, and finishes the
        // channel so that a send waiting on it returns.
        let outcome = await withTaskGroup(of: Result<SpeechResponse, any Error>.self) { group -> LiveOutcome in
            group.addTask {
                let result: Result<SpeechResponse, any Error>
                do {
                    result = .success(try await exchange.perform(request, deadline: deadline, onPartial: partial))
                    abort.withLock { if case .running = $0 { $0 = .answered } }
                } catch {
                    result = .failure(error)
                    abort.withLock { $0 = .failed(HTTPFailure.classify(error, during: "the recognition request")) }
                }
                channel.finish()
                return result
            }
            if !prefix.isEmpty { await channel.send(ByteBuffer(bytes: prefix)) }
            let capture = await LiveCapture.run(
                interaction: self, configuration: configuration, open: open, channel: channel, abort: abort)
            switch capture {
            case .failure(let error):
                // A failed request is why capture stopped, unless capture stopped first and cancels it.
                let cause = abort.withLock { $0.error } ?? error
                group.cancelAll()
                channel.finish()
                return .failed(cause)
            case .success(let sent):
                if case .running = abort.withLock({ $0 }) {
                    await channel.send(ByteBuffer(bytes: exchange.suffix()))
                }
                channel.finish()
                if let error = abort.withLock({ $0.error }) { return .failed(error) }
                enter(.processing)
                let result = await group.next()!.mapError {
                    HTTPFailure.classify($0, during: "the recognition request")
                }
                return .answered(result, sent: sent)
            }
        }
        switch outcome {
        case .failed(let error):
            end(.failure(error))
        case .answered(let result, let sent):
            if case .success(let response) = result, response.statusCode == 401, client.tokens != nil {
                // The token was refused mid-stream; the audio is still here, so send it once more.
                await client.tokens?.invalidate()
                enter(.sendingAudioData)
                end(
                    await sendWhole(
                        prefix + sent + exchange.suffix(), contentType: audioType, exchange: exchange,
                        retryOn401: false))
                return
            }
            end(result)
        }
    }
}

/// How a live interaction's capture and upload ended, once both have.
private enum LiveOutcome {
    /// Capture or the request failed: the interaction fails with this.
    case failed(SpeechClientError)
    /// The audio was all sent (`sent`, for a retry) and the service answered, or the request failed.
    case answered(Result<SpeechResponse, SpeechClientError>, sent: [UInt8])
}
