import Foundation

/// What the service settings mean for a Realtime session (`--service ws://…/v1/realtime`): its URL, and
/// the listener's configuration.
extension RecognitionServiceSettings {
    /// `earshot serve`'s Realtime route on its default port, the example messages give.
    static let realtimeExample = "ws://127.0.0.1:8080/v1/realtime"

    /// The endpoint of a `ws(s)://` URL: a path ending in `/v1/realtime` (a URL without a path, or with
    /// `/v1`, gets it), with `intent=transcription` added when the query names no intent.
    func realtimeEndpoint(_ url: String, components: URLComponents, path: String) throws(Invalid)
        -> (api: RecognitionAPI, url: String)
    {
        if let api, api != .realtime {
            throw Invalid(
                "--api",
                "--api \(api.rawValue) does not match --service \(url), a WebSocket URL; expected --api realtime "
                    + "(or an http(s) URL for \(api.name))")
        }
        var components = components
        if path.isEmpty || path.hasSuffix("/v1") {
            components.path = path + (path.hasSuffix("/v1") ? "" : "/v1") + "/realtime"
        } else if !path.hasSuffix("/v1/realtime") {
            throw Invalid(
                "--service",
                "--service \(url): expected a WebSocket URL whose path ends in /v1/realtime (OpenAI Realtime), "
                    + "such as \(Self.realtimeExample)")
        }
        var query = components.queryItems ?? []
        if !query.contains(where: { $0.name == "intent" }) {
            query.append(URLQueryItem(name: "intent", value: "transcription"))
        }
        components.queryItems = query
        return (.realtime, components.string ?? url)
    }

    /// A Realtime session's settings: the key as for an OpenAI-compatible service (`--token`,
    /// `$EARSHOT_TOKEN`, `$OPENAI_API_KEY`), else app credentials whose `SPEECH` token is the key; the
    /// model and language. The Speech API's options and a wire format are refused by name: the session
    /// takes PCM16.
    func realtimeConfiguration(url: String, partialResults: Bool) throws(Invalid)
        -> RealtimeListener.Configuration
    {
        for (option, given) in [
            ("--grammar", grammar != nil), ("--lexicon", lexicon != nil), ("--context", context != nil),
            ("--x-arg", !extraArguments.isEmpty),
        ] where given {
            throw Invalid(option, "\(option) is a Speech API option; \(url) is an OpenAI Realtime session")
        }
        if translate {
            throw Invalid(
                "--task",
                "--task translate: \(url) is an OpenAI Realtime session, whose protocol transcribes only (it has "
                    + "no translation); translate through an http(s) service: the Speech API (X-Arg Task=translate) "
                    + "or an OpenAI-compatible …/v1/audio/translations")
        }
        if let audioFormat {
            throw Invalid(
                "--audio-format",
                "--audio-format \(audioFormat): a Realtime session is sent 16-bit PCM, so no wire format is chosen")
        }
        let authorization: SpeechRequestConfiguration.Authorization?
        if let key = token ?? environment["EARSHOT_TOKEN"] ?? environment["OPENAI_API_KEY"] {
            authorization = .token(key)
        } else if let appKey = appKey ?? environment["EARSHOT_APP_KEY"], !appKey.isEmpty,
            let secret = secret ?? environment["EARSHOT_SECRET"], !secret.isEmpty
        {
            authorization = .credentials(appKey: appKey, secret: secret, scope: "SPEECH", tokenURL: nil)
        } else {
            authorization = nil
        }
        var configuration = RealtimeListener.Configuration(
            url: url, authorization: authorization,
            model: (model ?? "whisper-1") + (languageModel.map { "+" + $0 } ?? ""), language: language)
        configuration.reportsPartialResults = partialResults
        configuration.connectionTimeout = connectionTimeout
        configuration.serverResponseTimeout = serverResponseTimeout
        return configuration
    }
}
