/// The options of an OpenAI transcription request, read from its form fields and checked as each
/// arrives; a bad value is a 400 naming the field.
struct TranscriptionOptions: Sendable, Equatable {
    enum ResponseFormat: String, Sendable, CaseIterable {
        case json, text, srt, verboseJSON = "verbose_json", vtt
    }

    enum Granularity: String, Sendable, CaseIterable {
        case word, segment
    }

    var model: String?
    var language: String?
    var prompt: String?
    var responseFormat = ResponseFormat.json
    var temperature = 0.0
    var granularities: Set<Granularity> = []
    /// The request came to `/v1/audio/translations`: English text whatever the language spoken.
    var translate = false

    /// Sets field `name`: `modelIDs` are the models a request may name (OpenAI's `whisper-1` among them),
    /// `languages` the ISO-639-1 codes some model transcribes. Fields this service does not know are
    /// ignored, as OpenAI-compatible servers commonly do (clients send provider-specific extras).
    mutating func set(_ name: String, to value: String, modelIDs: [String], languages: [String] = ["en"])
        throws(ServiceError)
    {
        switch name {
        case "model":
            guard modelIDs.contains(value) else {
                throw .badRequest(
                    "model \(quoted(value)) does not exist here; expected one of \(modelIDs.joined(separator: ", ")) "
                        + "(GET /v1/models lists them)", variables: "model")
            }
            model = value
        case "language":
            guard languages.contains(value.lowercased()) else {
                throw .badRequest(
                    "language \(quoted(value)) is not recognized by this service; expected "
                        + languages.prefix(12).joined(separator: ", ") + (languages.count > 12 ? ", …" : "")
                        + " (ISO-639-1) or no language field",
                    variables: "language")
            }
            language = value.lowercased()
        case "prompt":
            prompt = value
        case "response_format":
            guard let format = ResponseFormat(rawValue: value) else {
                throw .badRequest(
                    "response_format \(quoted(value)) is not one of "
                        + ResponseFormat.allCases.map(\.rawValue).joined(separator: ", "), variables: "response_format")
            }
            responseFormat = format
        case "temperature":
            guard let number = Double(value), (0...1).contains(number) else {
                throw .badRequest("temperature \(quoted(value)) is not a number from 0 to 1", variables: "temperature")
            }
            temperature = number
        case "timestamp_granularities[]", "timestamp_granularities":
            guard let granularity = Granularity(rawValue: value) else {
                throw .badRequest(
                    "timestamp_granularities[] \(quoted(value)) is not word or segment",
                    variables: "timestamp_granularities[]")
            }
            granularities.insert(granularity)
        default:
            break
        }
    }

    private func quoted(_ value: String) -> String { "\"\(value.prefix(80))\"" }
}
