import EarshotCodecs
import EarshotCore
import EarshotSynthesis
import EarshotWire
import Foundation
import Hummingbird
import Logging
import NIOCore

/// `POST /v1/audio/speech`: OpenAI's speech API over the local engines, the audio streamed as it is
/// synthesized (what the official clients' `with_streaming_response` reads).
///
/// JSON body: `model`, `input` (at most 4096 characters, OpenAI's limit; a body too large for that is a
/// 413 naming `--max-speech-characters`, one sure to speak past `--max-speech-duration` a 413 naming
/// that, before any synthesis), `voice`, `response_format`
/// (`wav`, `pcm` — raw 16-bit little-endian —, `flac`, `opus`; default `wav`, since Earshot has no MP3
/// encoder; `mp3`, `aac` and anything else are a 400), `speed` (0.25–4). Audio is at 24 kHz mono, as
/// OpenAI's. The key is an access token of scope `TTS` (or an API key granting it). OpenAI's model
/// and voice names map to local ones (``OpenAIVoices``); local names are taken as they are.
struct OpenAISpeechRoute: Sendable {
    let authority: TokenAuthority
    /// The service's configuration, read as each request needs it (a reload changes its limits).
    let live: LiveConfiguration
    var configuration: ServiceConfiguration { live.current }
    /// Shared with `/speech/v3/textToSpeech`.
    let admission: SynthesisAdmission

    struct Body: Decodable {
        var model: String?
        var input: String?
        var voice: String?
        var response_format: String?
        var speed: Double?
    }

    /// The rate OpenAI's speech API answers at.
    static let sampleRate = 24_000

    func speak(_ request: Request, context: ServiceRequestContext) async -> Response {
        do {
            return try await respond(request, context: context)
        } catch let error as ServiceError {
            context.logger.info(
                "speech refused", metadata: ["status": "\(error.status.code)", "text": "\(error.text)"])
            return OpenAIError.response(for: error)
        } catch {
            context.logger.error("speech failed", metadata: ["error": "\(error)"])
            return OpenAIError.response(for: ServiceError.synthesisFailed(error))
        }
    }

    private func respond(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await authorize(request)
        let configuration = self.configuration
        // JSON escapes a character in at most 6 bytes (\uXXXX); the other fields are short.
        let limit = 6 * configuration.speechLimits.textCharacters + 4_096
        let data: ByteBuffer
        do {
            data = try await WholeBody.collect(request.body, upTo: limit, within: WholeBody.deadline, context: context)
        } catch WholeBody.Failure.tooSlow(let deadline) {
            throw WholeBody.tooSlowError(deadline, field: "body")
        } catch WholeBody.Failure.tooLarge {
            // The rest of the body is not read, so the connection ends with the answer.
            var tooLarge = ServiceError.badRequest(
                "the body is over \(limit) bytes, this service's limit for an input of "
                    + "\(configuration.speechLimits.textCharacters) characters (--max-speech-characters)",
                variables: "input")
            tooLarge.status = .contentTooLarge
            tooLarge.headers[.connection] = "close"
            throw tooLarge
        }
        let body: Body
        do {
            body = try JSONDecoder().decode(Body.self, from: Data(data.readableBytesView))
        } catch {
            throw ServiceError.badRequest(
                "the body is not the JSON object expected: \(String(describing: error).prefix(300))", variables: "body")
        }
        let model = body.model ?? "tts-1"
        guard OpenAIVoices.models.contains(model) else {
            throw ServiceError.badRequest(
                "model \(Synthesis.quoted(model)) is not served; models: \(OpenAIVoices.models.joined(separator: ", "))",
                variables: "model")
        }
        guard let input = body.input else { throw ServiceError.badRequest("input is required", variables: "input") }
        let script: SpeechScript
        do {
            script = try SpeechScript(text: input, field: "input", limits: configuration.speechLimits)
        } catch let error as EarshotError {
            throw ServiceError.badRequest(error.message, variables: "input")
        }
        guard let voiceName = body.voice else { throw ServiceError.badRequest("voice is required", variables: "voice") }
        let voice: Voice
        do {
            voice = try await Synthesis.voice(named: OpenAIVoices.local(for: voiceName, model: model), field: "voice")
        } catch let error as EarshotError {
            throw ServiceError.badRequest(error.message, variables: "voice")
        }
        let speed = body.speed ?? 1
        guard Synthesis.rateRange.contains(speed) else {
            throw ServiceError.badRequest("speed \(speed) is out of range; expected 0.25–4", variables: "speed")
        }
        let format = body.response_format ?? "wav"
        let output: SynthesisOutput
        let contentType: String
        switch format {
        case "wav": (output, contentType) = (.encoded(.wav, sampleRate: Self.sampleRate), "audio/wav")
        case "flac": (output, contentType) = (.encoded(.flac, sampleRate: Self.sampleRate), "audio/flac")
        case "opus": (output, contentType) = (.encoded(.opus, sampleRate: Self.sampleRate), "audio/ogg;codecs=opus")
        case "pcm": (output, contentType) = (.pcm16LittleEndian(sampleRate: Self.sampleRate), "audio/pcm")
        default:
            throw ServiceError.badRequest(
                "response_format \(Synthesis.quoted(format)) is not available; this service writes wav, pcm, flac and opus",
                variables: "response_format")
        }
        let limits = SynthesisResponse.Limits(
            maxSeconds: configuration.maxSpeechDuration, writeTimeout: configuration.writeTimeout)
        try SynthesisResponse.checkDuration(of: script, voice: voice, rate: speed, limits: limits, field: "input")
        context.logger.info(
            "speaking",
            metadata: ["voice": "\(voice.qualifiedName)", "characters": "\(input.count)", "format": "\(format)"])
        guard let ticket = admission.admit() else {
            throw ServiceError.synthesesBusy(limit: admission.limit, retryAfter: configuration.retryAfterSeconds)
        }
        return try SynthesisResponse.response(
            contentType: contentType, script: script, voice: voice, rate: speed, output: output, ticket: ticket,
            limits: limits, context: context)
    }

    private func authorize(_ request: Request) async throws(ServiceError) {
        switch await authority.check(request.headers[.authorization], for: .textToSpeech) {
        case .success: return
        case .failure(let refusal):
            var error = ServiceError.unauthorized(realm: configuration.realm, reason: refusal.reason)
            error.text =
                "Incorrect API key provided: \(refusal.reason); use an access token of scope TTS from POST /oauth/token"
            error.variables = ""
            throw error
        }
    }
}

/// OpenAI's speech model and voice names, and the local voices they stand for, so programs written
/// for OpenAI run unchanged. `tts-1` speaks with Flite's voices, `tts-1-hd` the same (Flite's are the
/// more intelligible by the round trip in BENCHMARKS.md); a local voice name (`slt`, `en-us`,
/// `flite:kal16`) is taken as it is with any model.
enum OpenAIVoices {
    static let models = ["tts-1", "tts-1-hd", "gpt-4o-mini-tts", "flite", "espeak-ng"]

    /// OpenAI voice → local voice.
    static let table: [String: String] = [
        "alloy": "slt", "ash": "kal16", "ballad": "awb", "coral": "slt", "echo": "rms", "fable": "awb",
        "onyx": "rms", "nova": "slt", "sage": "kal16", "shimmer": "slt", "verse": "awb",
    ]

    static func local(for voice: String, model: String) -> String {
        let name = voice.lowercased()
        guard let mapped = table[name] else { return name }
        return model == "espeak-ng" ? "en-us" : mapped
    }
}
