import EarshotWire

/// A Realtime transcription session's settings: the input format, the transcription model and its
/// options, and turn detection. Starts at OpenAI's defaults (PCM16 at 24 kHz, `server_vad` with
/// threshold 0.5, 300 ms of prefix padding, 500 ms of silence) and changes only by
/// ``applying(_:models:languages:)``, which reads the GA shape (`session.audio.input.…`) and
/// the beta one (`input_audio_format`, `input_audio_transcription`, `turn_detection`) and refuses a
/// bad value naming its field. A pure value: the session's state machine holds it.
struct RealtimeSessionSettings: Sendable, Equatable {
    enum Encoding: String, Sendable {
        case pcm16 = "audio/pcm"
        case pcmu = "audio/pcmu"
        case pcma = "audio/pcma"
    }

    /// How the input audio is encoded, and its rate (24 000 or 16 000 for PCM, 8 000 for G.711).
    struct Format: Sendable, Equatable {
        var encoding: Encoding
        var rate: Int

        /// Bytes of an `append` message per second of audio in this format: base64's 4 per 3 bytes of
        /// samples (the event's few bytes of JSON aside).
        var messageBytesPerSecond: Double {
            Double(rate * (encoding == .pcm16 ? 2 : 1)) * 4 / 3
        }
    }

    /// `server_vad`'s parameters, OpenAI's names and defaults.
    struct ServerVAD: Sendable, Equatable {
        var threshold = 0.5
        var prefixPaddingMs = 300
        var silenceDurationMs = 500
    }

    var format = Format(encoding: .pcm16, rate: 24_000)
    /// A model the service serves, as the client named it (`whisper-1` is the default model).
    var model = RecognizerPools.openAIModelName
    var prompt: String?
    var language: String?
    /// Nil: the client commits each turn itself.
    var turnDetection: ServerVAD? = ServerVAD()

    /// The settings with `update` applied; throws a refusal naming the first bad field. `models` are
    /// the model names a client may give, `languages` the ISO-639-1 codes some model speaks.
    func applying(
        _ update: [String: JSONValue], models: [String], languages: [String]
    ) throws(RealtimeRefusal) -> RealtimeSessionSettings {
        var next = self
        if let type = update["type"] {
            guard type.string == "transcription" else {
                throw .invalidValue(
                    "session.type",
                    "session.type \(type.shown) is not served here; expected \"transcription\" "
                        + "(this service transcribes; it has no realtime conversation model)")
            }
        }
        // The GA shape: session.audio.input.{format, transcription, turn_detection}.
        if let audio = update["audio"] {
            guard let audio = audio.object else {
                throw .invalidValue("session.audio", "expected an object")
            }
            if let input = audio["input"] {
                guard let input = input.object else {
                    throw .invalidValue("session.audio.input", "expected an object")
                }
                if let format = input["format"] {
                    next.format = try Self.format(format, param: "session.audio.input.format")
                }
                if let transcription = input["transcription"] {
                    try next.transcription(
                        transcription, param: "session.audio.input.transcription", models: models, languages: languages)
                }
                if input.keys.contains("turn_detection") {
                    next.turnDetection = try Self.turnDetection(
                        input["turn_detection"]!, param: "session.audio.input.turn_detection")
                }
            }
        }
        // The beta shape (transcription_session.update, and older session.update clients).
        if let format = update["input_audio_format"] {
            guard let name = format.string else {
                throw .invalidValue("session.input_audio_format", "expected pcm16, g711_ulaw or g711_alaw")
            }
            switch name {
            case "pcm16": next.format = Format(encoding: .pcm16, rate: 24_000)
            case "g711_ulaw": next.format = Format(encoding: .pcmu, rate: 8_000)
            case "g711_alaw": next.format = Format(encoding: .pcma, rate: 8_000)
            default:
                throw .invalidValue(
                    "session.input_audio_format",
                    "input_audio_format \(JSONValue.string(name).shown) is not accepted; expected pcm16, g711_ulaw or g711_alaw"
                )
            }
        }
        if let transcription = update["input_audio_transcription"] {
            try next.transcription(
                transcription, param: "session.input_audio_transcription", models: models, languages: languages)
        }
        if update.keys.contains("turn_detection") {
            next.turnDetection = try Self.turnDetection(update["turn_detection"]!, param: "session.turn_detection")
        }
        return next
    }

    private static func format(_ value: JSONValue, param: String) throws(RealtimeRefusal) -> Format {
        guard let object = value.object else {
            throw .invalidValue(param, "expected an object such as {\"type\": \"audio/pcm\", \"rate\": 24000}")
        }
        guard let type = object["type"]?.string else {
            throw .missing(param + ".type", "audio/pcm, audio/pcmu or audio/pcma")
        }
        switch type {
        case "audio/pcm":
            let rate = object["rate"].map(\.integer) ?? 24_000
            guard let rate, rate == 24_000 || rate == 16_000 else {
                throw .invalidValue(
                    param + ".rate",
                    "rate \((object["rate"] ?? "").shown) is not accepted for audio/pcm; expected 24000 "
                        + "(or 16000)")
            }
            return Format(encoding: .pcm16, rate: rate)
        case "audio/pcmu": return Format(encoding: .pcmu, rate: 8_000)
        case "audio/pcma": return Format(encoding: .pcma, rate: 8_000)
        default:
            throw .invalidValue(
                param + ".type",
                "format \(JSONValue.string(type).shown) is not accepted; expected audio/pcm, audio/pcmu or audio/pcma")
        }
    }

    private mutating func transcription(
        _ value: JSONValue, param: String, models: [String], languages: [String]
    ) throws(RealtimeRefusal) {
        // null turns transcription off in OpenAI's API; a transcription session without it has no
        // purpose, so it keeps the default model.
        if value.isNull { return }
        guard let object = value.object else { throw .invalidValue(param, "expected an object") }
        if let model = object["model"], !model.isNull {
            guard let name = model.string, models.contains(name) else {
                throw .invalidValue(
                    param + ".model",
                    "model \(model.shown) does not exist here; expected one of "
                        + models.joined(separator: ", ") + " (GET /v1/models lists them)")
            }
            self.model = name
        }
        if let prompt = object["prompt"] {
            if prompt.isNull {
                self.prompt = nil
            } else {
                guard let text = prompt.string else { throw .invalidValue(param + ".prompt", "expected a string") }
                self.prompt = text.isEmpty ? nil : text
            }
        }
        if let language = object["language"] {
            if language.isNull {
                self.language = nil
            } else {
                guard let code = language.string?.lowercased(), code.isEmpty || languages.contains(code) else {
                    throw .invalidValue(
                        param + ".language",
                        "language \(language.shown) is not recognized by this service; "
                            + "expected " + languages.prefix(12).joined(separator: ", ")
                            + (languages.count > 12 ? ", …" : "") + " (ISO-639-1)")
                }
                self.language = code.isEmpty ? nil : code
            }
        }
    }

    private static func turnDetection(_ value: JSONValue, param: String) throws(RealtimeRefusal) -> ServerVAD? {
        if value.isNull { return nil }
        guard let object = value.object else {
            throw .invalidValue(param, "expected an object with type server_vad, or null for manual commits")
        }
        let type = object["type"]?.string ?? "server_vad"
        guard type == "server_vad" else {
            if type == "semantic_vad" {
                throw RealtimeRefusal(
                    code: "unsupported_value",
                    message: "semantic_vad is not served here: this service has no turn-detection model; use "
                        + "server_vad (its voice activity detector and endpointer) or null for manual commits",
                    param: param + ".type")
            }
            throw .invalidValue(
                param + ".type",
                "turn detection \(JSONValue.string(type).shown) is unknown; expected server_vad or null")
        }
        var vad = ServerVAD()
        if let threshold = object["threshold"], !threshold.isNull {
            guard let number = threshold.double, (0...1).contains(number) else {
                throw .invalidValue(param + ".threshold", "threshold \(threshold.shown) is not a number from 0 to 1")
            }
            vad.threshold = number
        }
        if let number = try milliseconds(object, "prefix_padding_ms", in: 0...2_000, param: param) {
            vad.prefixPaddingMs = number
        }
        if let number = try milliseconds(object, "silence_duration_ms", in: 100...10_000, param: param) {
            vad.silenceDurationMs = number
        }
        return vad
    }

    /// `object[key]` as whole milliseconds within `range`; nil when absent or null.
    private static func milliseconds(
        _ object: [String: JSONValue], _ key: String, in range: ClosedRange<Int>, param: String
    ) throws(RealtimeRefusal) -> Int? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let number = value.integer, range.contains(number) else {
            throw .invalidValue(
                param + "." + key,
                "\(key) \(value.shown) is not a whole number of milliseconds from \(range.lowerBound) to \(range.upperBound)"
            )
        }
        return number
    }

    /// The GA session object `session.created` and `session.updated` carry.
    func sessionObject(id: String, expiresAt: Int) -> JSONValue {
        var format: [String: JSONValue] = ["type": .string(format.encoding.rawValue)]
        if self.format.encoding == .pcm16 { format["rate"] = .integer(self.format.rate) }
        let turnDetection: JSONValue =
            self.turnDetection.map {
                [
                    "type": "server_vad", "threshold": .number($0.threshold),
                    "prefix_padding_ms": .integer($0.prefixPaddingMs),
                    "silence_duration_ms": .integer($0.silenceDurationMs),
                ]
            } ?? .null
        return [
            "type": "transcription", "object": "realtime.transcription_session", "id": .string(id),
            "expires_at": .integer(expiresAt),
            "audio": [
                "input": [
                    "format": .object(format),
                    "transcription": [
                        "model": .string(model), "prompt": .string(prompt ?? ""), "language": JSONValue(language),
                    ],
                    "turn_detection": turnDetection,
                    "noise_reduction": nil,
                ]
            ],
            "include": [],
        ]
    }
}
