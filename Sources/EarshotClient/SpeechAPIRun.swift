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

/// A ``SpeechClient``'s interactions on the Speech API: recorded audio sent whole, and live audio
/// streamed with chunked transfer encoding while capture runs beside the upload.
extension SpeechInteraction {
    func runUpload(_ audio: [UInt8], contentType: String, client: SpeechClient) async {
        enter(.connecting)
        let exchange = RecognitionExchange(configuration: client.configuration, http: client.http)
        let body = exchange.prefix(audioContentType: contentType) + audio + exchange.suffix()
        enter(.sendingAudioData)
        end(await sendWhole(body, contentType: contentType, exchange: exchange, client: client, retryOn401: true))
    }

    /// Sends a complete body with `Content-Length`; on a 401 with credentials, fetches a new token
    /// and tries once more.
    func sendWhole(
        _ body: [UInt8], contentType: String, exchange: RecognitionExchange, client: SpeechClient, retryOn401: Bool
    ) async
        -> Result<SpeechResponse, SpeechClientError>
    {
        do {
            let token = try await client.token()
            let request = exchange.request(
                token: token, audioContentType: contentType,
                body: .bytes(body, length: .known(Int64(body.count))))
            let response = try await exchange.perform(
                request, deadline: Self.deadline(client.configuration, audioSeconds: 0), onPartial: partial)
            if response.statusCode == 401, retryOn401, let tokens = client.tokens {
                await tokens.invalidate()
                return await sendWhole(
                    body, contentType: contentType, exchange: exchange, client: client, retryOn401: false)
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
    static func deadline(_ configuration: SpeechRequestConfiguration, audioSeconds: Double) -> TimeAmount {
        let recording =
            configuration.endpointing.maxRecordingTime.isFinite ? configuration.endpointing.maxRecordingTime : 3600
        let seconds =
            configuration.connectionTimeout + max(recording, audioSeconds) + configuration.serverResponseTimeout + 30
        return .milliseconds(Int64(seconds * 1000))
    }

    func runLive(open: @escaping @Sendable () throws -> any AudioSource, client: SpeechClient) async {
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
        let deadline = Self.deadline(configuration, audioSeconds: 0)
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
                interaction: self, capture: configuration.capture, open: open, upload: (channel, abort))
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
                        prefix + sent + exchange.suffix(), contentType: audioType, exchange: exchange, client: client,
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
