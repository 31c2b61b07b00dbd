import EarshotCodecs
import EarshotCore
import EarshotSynthesis
import EarshotWire
import Foundation
import Hummingbird
import Logging

/// `POST /speech/v3/textToSpeech`: the Speech API's other half (the seed's Text to Speech: "accepts
/// text data and returns an audio stream … customize the language, voice, and tempo").
///
/// Token scope `TTS`. The body is `text/plain` (UTF-8, at most `--max-speech-characters` characters)
/// or `application/ssml+xml` (at most `--max-ssml-bytes` bytes, the SSML
/// subset ``SpeechScript`` reads; anything else is a 400 naming the element). `Accept` picks the audio:
/// `audio/x-wav` or `audio/wav` (16 kHz 16-bit, the default) or `audio/amr` (AMR-NB, 8 kHz); others a
/// 400. `X-Arg` takes `VoiceName` (a local voice, `rms` by default; the AT&T Natural Voices names
/// `crystal` and `mike` map to `slt` and `rms`), `Tempo` (speaking rate, 0.25–4, 1 normal) and `Volume`
/// (0–4, 1 normal). The audio is sent chunked as it is synthesized, at the pace the client reads
/// (``SynthesisResponse``: at most `--max-speech-duration` of it, 413 before synthesis when that is
/// sure to be passed); errors are the Speech API's.
struct TextToSpeechRoute: Sendable {
    let authority: TokenAuthority
    /// The service's configuration, read as each request needs it (a reload changes its limits).
    let live: LiveConfiguration
    var configuration: ServiceConfiguration { live.current }
    /// Shared with `/v1/audio/speech`: the answers the one synthesis thread makes or queues.
    let admission: SynthesisAdmission

    /// AT&T's voice names, as clients written for the platform send them.
    static let voiceNames = ["crystal": "slt", "mike": "rms"]

    func respond(_ request: Request, context: ServiceRequestContext) async -> Response {
        let responseID = ServiceIdentifiers.responseID()
        var response: Response
        do {
            response = try await speak(request, context: context)
        } catch let error as ServiceError {
            context.logger.info(
                "text to speech refused", metadata: ["status": "\(error.status.code)", "text": "\(error.text)"])
            response = SpeechToTextRoute.response(for: error)
        } catch {
            context.logger.error("text to speech failed", metadata: ["error": "\(error)"])
            response = SpeechToTextRoute.response(for: ServiceError.synthesisFailed(error))
        }
        response.headers[ServiceIdentifiers.responseIDField] = responseID
        return response
    }

    private func speak(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        if case .failure(let refusal) = await authority.check(request.headers[.authorization], for: .textToSpeech) {
            throw ServiceError.unauthorized(realm: configuration.realm, reason: refusal.reason)
        }
        let media = MediaType(header: request.headers[.contentType] ?? "")
        let isSSML: Bool
        switch media.type {
        case "text/plain": isSSML = false
        case "application/ssml+xml": isSSML = true
        default:
            throw ServiceError.badRequest(
                "Content-Type \(request.headers[.contentType] ?? "(none)") is not accepted by textToSpeech; expected "
                    + "text/plain or application/ssml+xml", variables: "Content-Type")
        }
        // Four bytes a character at most: a text body beyond that is over the limit however it is spelled.
        let limits = configuration.speechLimits
        let limit = isSSML ? limits.ssmlBytes : 4 * limits.textCharacters
        let body: ByteBuffer
        do {
            body = try await WholeBody.collect(request.body, upTo: limit, within: WholeBody.deadline, context: context)
        } catch WholeBody.Failure.tooSlow(let deadline) {
            throw WholeBody.tooSlowError(deadline, field: "body")
        } catch {
            var tooLarge = ServiceError.badRequest(
                "the body is over \(limit) bytes, this service's limit for \(isSSML ? "SSML (--max-ssml-bytes)" : "text (--max-speech-characters)")",
                variables: "body")
            tooLarge.status = .contentTooLarge
            tooLarge.headers[.connection] = "close"
            throw tooLarge
        }
        let script: SpeechScript
        do {
            if isSSML {
                script = try SpeechScript(ssml: Array(buffer: body), field: "body", limits: limits)
            } else {
                guard let text = String(validating: Array(buffer: body), as: UTF8.self) else {
                    throw ServiceError.badRequest("the text is not UTF-8", variables: "body")
                }
                script = try SpeechScript(text: text, field: "body", limits: limits)
            }
        } catch let error as EarshotError {
            throw ServiceError.badRequest(error.message, variables: "body")
        }
        let arguments = ExtraArguments(headers: request.headers[values: .extraArgument])
        let voice: Voice
        do {
            let name = arguments[SpeechArgumentName.voiceName].map { Self.voiceNames[$0.lowercased()] ?? $0 }
            voice = try await Synthesis.voice(named: name, field: "X-Arg \(SpeechArgumentName.voiceName)")
        } catch let error as EarshotError {
            throw ServiceError.badRequest(error.message, variables: "X-Arg")
        }
        let tempo = try Self.number(arguments, "Tempo", in: Synthesis.rateRange)
        let volume = try Self.number(arguments, "Volume", in: Prosody.volumeRange)
        let output: SynthesisOutput
        let contentType: String
        switch Self.audioType(accept: request.headers[values: .accept]) {
        case "audio/x-wav", "audio/wav", "audio/*", "*/*", nil:
            (output, contentType) = (.encoded(.wav, sampleRate: 16_000), "audio/x-wav")
        case "audio/amr": (output, contentType) = (.encoded(.amr, sampleRate: 8_000), "audio/amr")
        case let other?:
            throw ServiceError.badRequest(
                "Accept \(other) is not available; this service speaks audio/x-wav (16 kHz) and audio/amr",
                variables: "Accept")
        }
        context.logger.info(
            "speaking",
            metadata: ["voice": "\(voice.qualifiedName)", "bytes": "\(body.readableBytes)", "accept": "\(contentType)"])
        let answerLimits = SynthesisResponse.Limits(
            maxSeconds: configuration.maxSpeechDuration, writeTimeout: configuration.writeTimeout)
        try SynthesisResponse.checkDuration(of: script, voice: voice, rate: tempo, limits: answerLimits, field: "body")
        guard let ticket = admission.admit() else {
            throw ServiceError.synthesesBusy(limit: admission.limit, retryAfter: configuration.retryAfterSeconds)
        }
        return try SynthesisResponse.response(
            contentType: contentType, script: volume == 1 ? script : script.scalingVolume(by: volume), voice: voice,
            rate: tempo, output: output, ticket: ticket, limits: answerLimits, context: context)
    }

    /// The first media type of `Accept`, lower-cased, without parameters; nil when there is none.
    static func audioType(accept: [String]) -> String? {
        accept.flatMap { $0.split(separator: ",") }.lazy.compactMap {
            $0.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        }.first { !$0.isEmpty }
    }

    /// An `X-Arg` number within `range`, 1 when absent; a 400 naming it otherwise.
    static func number(_ arguments: ExtraArguments, _ name: String, in range: ClosedRange<Double>) throws -> Double {
        guard let text = arguments[name] else { return 1 }
        guard let value = Double(text), range.contains(value) else {
            throw ServiceError.badRequest(
                "X-Arg \(name)=\(text.prefix(64)) is out of range; expected a number from \(range.lowerBound) to "
                    + "\(range.upperBound) (1 is normal)", variables: "X-Arg")
        }
        return value
    }
}
