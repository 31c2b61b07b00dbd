public import EarshotCapture
public import EarshotCodecs
import EarshotCore
import EarshotWire
import Foundation

/// The protocols a recognition service may speak.
public enum RecognitionAPI: String, Sendable, CaseIterable {
    /// The Speech API v3 (`…/speech/v3/speechToText`), as `earshot serve` and the AT&T SDK.
    case att
    /// OpenAI's `POST …/v1/audio/transcriptions`.
    case openai
    /// OpenAI's Realtime transcription sessions over WebSocket (`ws://…/v1/realtime`), live only.
    case realtime

    public var name: String {
        switch self {
        case .att: "Speech API"
        case .openai: "OpenAI"
        case .realtime: "OpenAI Realtime"
        }
    }
}

/// Where and how to reach a recognition service, as a user gives it (a command's options and the
/// environment). Checked once, it makes the live path's ``SpeechRequestConfiguration`` or a
/// ``RecognitionBackendFactory`` for transcription, so every command reads these settings alike.
///
/// Values the user gave wrongly throw ``RecognitionServiceSettings/Invalid`` naming the option;
/// files that cannot be read throw `EarshotError(.invalidInput)` naming the file.
public struct RecognitionServiceSettings: Sendable {
    /// A setting given wrongly: `option` is the user's name for it (`--service`, `--x-arg` …).
    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public let option: String
        public let description: String

        init(_ option: String, _ description: String) {
            self.option = option
            self.description = description
        }
    }

    /// The Speech API route `earshot serve` answers on by default: where `listen` and `bench` post.
    public static let defaultService = "http://127.0.0.1:8080/speech/v3/speechToText"
    /// The wire formats a Speech API request may carry.
    static let speechAPIFormats = "speex-wb, speex-nb, amr, wav, l16, flac or opus"

    public var service: String?
    /// The protocol, when the URL's path does not say it.
    public var api: RecognitionAPI?
    /// An OpenAI-compatible service's model field (default `whisper-1`).
    public var model: String?
    /// The language spoken (ISO-639-1): an OpenAI-compatible service's `language` field, the Speech
    /// API's `Content-Language` header (as the 2013 service took it).
    public var language: String?
    /// English text whatever the language spoken, from a multilingual model: the Speech API's
    /// `X-Arg: Task=translate`, an OpenAI-compatible service's `/v1/audio/translations` (beside its
    /// transcriptions route). OpenAI's Realtime sessions have no translation, so it is refused there.
    public var translate = false
    public var appKey: String?
    public var secret: String?
    /// An access token, or an OpenAI-compatible server's API key.
    public var token: String?
    /// X-SpeechContext (Speech API).
    public var context: String?
    /// The wire format's name (`CodecFormat`'s raw value); nil for the caller's default.
    public var audioFormat: String?
    /// Extra arguments for the X-Arg header, each `NAME=VALUE`.
    public var extraArguments: [String] = []
    /// A custom language model the service serves (`earshot serve --language-model NAME=DIR`), by
    /// name: the Speech API's `X-Arg: LanguageModel=NAME`, or an OpenAI-compatible `model` of
    /// `<model>+NAME`.
    public var languageModel: String?
    /// An SRGS grammar file: posts to speechToTextCustom with it as the x-grammar part.
    public var grammar: String?
    /// A PLS lexicon file, sent as the x-dictionary part with a grammar.
    public var lexicon: String?
    public var connectionTimeout: Double = 10
    public var serverResponseTimeout: Double = 30
    /// Where `EARSHOT_APP_KEY`, `EARSHOT_SECRET`, `EARSHOT_TOKEN` and `OPENAI_API_KEY` are looked up.
    public var environment: [String: String]

    /// Settings that look credentials up in `environment` (nil: the process's own).
    public init(environment: [String: String]? = nil) {
        self.environment = environment ?? ProcessInfo.processInfo.environment
    }

    /// The options given that only make sense with a service, by name (for commands where the service
    /// is optional).
    public var serviceOnlyOptionsGiven: [String] {
        [
            ("--app-key", appKey != nil), ("--secret", secret != nil), ("--token", token != nil),
            ("--context", context != nil), ("--audio-format", audioFormat != nil),
            ("--x-arg", !extraArguments.isEmpty), ("--grammar", grammar != nil), ("--lexicon", lexicon != nil),
            ("--api", api != nil), ("--model", model != nil),
        ].filter(\.1).map(\.0)
    }

    /// The protocol the service speaks and the URL to post to: from the URL's path, or ``api`` (which
    /// also gives a URL without a path its API's usual one). A `ws://` or `wss://` URL is a Realtime
    /// session's, `…/v1/realtime` (given `intent=transcription` unless it names an intent). With
    /// ``translate``, an OpenAI-compatible service's URL is its `…/v1/audio/translations`.
    public func endpoint() throws(Invalid) -> (api: RecognitionAPI, url: String) {
        let url = service ?? Self.defaultService
        guard var components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            ["http", "https", "ws", "wss"].contains(scheme), components.host?.isEmpty == false
        else {
            throw Invalid(
                "--service",
                "--service \(url): expected an http(s) URL such as \(Self.defaultService), or a ws(s) URL such as "
                    + Self.realtimeExample)
        }
        let path = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        if scheme == "ws" || scheme == "wss" {
            return try realtimeEndpoint(url, components: components, path: path)
        }
        if api == .realtime || path.hasSuffix("/v1/realtime") {
            throw Invalid(
                api == .realtime ? "--api" : "--service",
                "--service \(url)\(api == .realtime ? " with --api realtime" : ""): a Realtime session is a "
                    + "WebSocket; expected a ws:// or wss:// URL ending in /v1/realtime, such as "
                    + Self.realtimeExample)
        }
        let found: RecognitionAPI? =
            if path.hasSuffix("/v1/audio/transcriptions") || path.hasSuffix("/v1") {
                .openai
            } else if path.hasSuffix("/speech/v3/speechToText") || path.hasSuffix("/speech/v3/speechToTextCustom") {
                .att
            } else {
                nil
            }
        if let found, let api, found != api {
            throw Invalid("--api", "--api \(api.rawValue) does not match --service \(url), a \(found.name) path")
        }
        guard let chosen = found ?? api else {
            throw Invalid(
                "--service",
                "--service \(url): expected a path ending in /speech/v3/speechToText (the Speech API) or "
                    + "/v1/audio/transcriptions (OpenAI-compatible), or --api att|openai, or a ws(s) URL ending in "
                    + "/v1/realtime (OpenAI Realtime)")
        }
        if path.isEmpty || path.hasSuffix("/v1") {
            components.path =
                path
                + (chosen == .openai
                    ? (path.hasSuffix("/v1") ? "" : "/v1") + "/audio/transcriptions" : "/speech/v3/speechToText")
        }
        if chosen == .openai, translate {
            // OpenAI's translations route takes the transcriptions route's form, beside it.
            let route = "/transcriptions"
            guard components.path.hasSuffix(route) else {
                throw Invalid(
                    "--task",
                    "--task translate: --service \(url) is not a …/v1/audio/transcriptions URL, so where its "
                        + "translations route (…/v1/audio/translations) is cannot be told")
            }
            components.path = String(components.path.dropLast(route.count)) + "/translations"
        }
        return (chosen, components.string ?? url)
    }

    /// A Speech API request for these settings, in `defaultFormat` when no ``audioFormat`` is given.
    /// Reads the grammar and lexicon files; the URL is checked where the request is made.
    public func speechRequestConfiguration(defaultFormat: CodecFormat = .speexWideband) throws
        -> SpeechRequestConfiguration
    {
        let format: CodecFormat
        if let audioFormat {
            guard let given = CodecFormat(rawValue: audioFormat), given != .oggSpeex else {
                throw Invalid("--audio-format", "--audio-format \(audioFormat): expected \(Self.speechAPIFormats)")
            }
            format = given
        } else {
            format = defaultFormat
        }
        let authorization: SpeechRequestConfiguration.Authorization
        if let token {
            authorization = .token(token)
        } else if let key = appKey ?? environment["EARSHOT_APP_KEY"], !key.isEmpty,
            let secret = secret ?? environment["EARSHOT_SECRET"], !secret.isEmpty
        {
            authorization = .credentials(
                appKey: key, secret: secret, scope: grammar == nil ? "SPEECH" : "STTC", tokenURL: nil)
        } else {
            throw Invalid(
                "--token", "give --token, or --app-key and --secret (or $EARSHOT_APP_KEY and $EARSHOT_SECRET)")
        }
        var url = service ?? Self.defaultService
        if grammar != nil, url.hasSuffix("/speechToText") { url += "Custom" }
        var configuration = SpeechRequestConfiguration(
            recognitionURL: url, speechContext: context ?? (grammar == nil ? "Generic" : "GrammarList"),
            authorization: authorization, audioFormat: format)
        configuration.connectionTimeout = connectionTimeout
        configuration.serverResponseTimeout = serverResponseTimeout
        configuration.extraArguments = try extraArguments.map { (pair) throws(Invalid) in
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw Invalid("--x-arg", "--x-arg \(pair): expected NAME=VALUE")
            }
            return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
        }
        if let languageModel {
            try Self.add(
                (SpeechArgumentName.languageModel, languageModel), to: &configuration, option: "--language-model",
                refusing: "--language-model and --x-arg \(SpeechArgumentName.languageModel)=… both name a model")
        }
        if translate {
            try Self.add(
                (SpeechArgumentName.task, "translate"), to: &configuration, option: "--task",
                refusing: "--task translate and --x-arg \(SpeechArgumentName.task)=… both set the task")
        }
        if let language {
            configuration.requestHeaders.append((name: "Content-Language", value: language))
        }
        if let lexicon {
            configuration.partsBeforeAudio.append(
                .init(
                    name: "x-dictionary", contentType: "application/pls+xml", data: try Self.read(lexicon, "--lexicon"))
            )
        }
        if let grammar {
            configuration.partsBeforeAudio.append(
                .init(name: "x-grammar", contentType: "application/srgs+xml", data: try Self.read(grammar, "--grammar"))
            )
        } else if lexicon != nil {
            throw Invalid("--lexicon", "--lexicon needs --grammar (both go to speechToTextCustom)")
        }
        return configuration
    }

    /// How to make a backend for the service's protocol (checked here, once, so a wrong setting is one
    /// error rather than one per utterance). `defaultFormat` is the Speech API's wire format when no
    /// ``audioFormat`` is given; an OpenAI-compatible service gets WAV unless told FLAC or Opus.
    public func backendFactory(defaultFormat: CodecFormat = .flac) throws -> RecognitionBackendFactory {
        let (api, url) = try endpoint()
        switch api {
        case .realtime:
            throw Invalid(
                "--service",
                "--service \(url) is a Realtime session, which transcribes live audio only (listen, bench); "
                    + "expected an http(s) URL ending in /v1/audio/transcriptions or /speech/v3/speechToText")
        case .att:
            var settings = self
            settings.service = url
            let configuration = try settings.speechRequestConfiguration(defaultFormat: defaultFormat)
            do {
                try configuration.validate()
            } catch {
                throw Invalid("--service", error.description)
            }
            return RecognitionBackendFactory(audioFormat: configuration.audioFormat) { () throws(SpeechClientError) in
                try SpeechAPIBackend(configuration: configuration)
            }
        case .openai:
            for (option, given) in [
                ("--grammar", grammar != nil), ("--lexicon", lexicon != nil), ("--context", context != nil),
                ("--x-arg", !extraArguments.isEmpty),
            ] where given {
                throw Invalid(option, "\(option) is a Speech API option; \(url) is OpenAI-compatible")
            }
            let key = token ?? environment["EARSHOT_TOKEN"] ?? environment["OPENAI_API_KEY"]
            var credentials: (appKey: String, secret: String)?
            if key == nil, let appKey = appKey ?? environment["EARSHOT_APP_KEY"],
                let secret = secret ?? environment["EARSHOT_SECRET"]
            {
                credentials = (appKey, secret)
            }
            var configuration = OpenAITranscriptionClient.Configuration(
                url: url, apiKey: key, model: (model ?? "whisper-1") + (languageModel.map { "+" + $0 } ?? ""),
                language: language)
            configuration.connectionTimeout = connectionTimeout
            configuration.responseTimeout = serverResponseTimeout
            let format: CodecFormat
            if let audioFormat {
                guard let given = CodecFormat(rawValue: audioFormat), [.wav, .flac, .opus].contains(given) else {
                    throw Invalid(
                        "--audio-format",
                        "--audio-format \(audioFormat): an OpenAI-compatible service takes wav, flac or opus")
                }
                format = given
            } else {
                format = .wav  // what every OpenAI-compatible server reads
            }
            do {
                try OpenAITranscriptionClient.validate(configuration)
            } catch {
                throw Invalid("--service", error.description)
            }
            let (checked, given) = (configuration, credentials)
            return RecognitionBackendFactory(audioFormat: format) { () throws(SpeechClientError) in
                try OpenAITranscriptionClient(configuration: checked, audioFormat: format, credentials: given)
            }
        }
    }

    /// How to make live recognizers for the service: a ``SpeechClient`` streaming to the Speech API
    /// (in Speex wideband unless ``audioFormat`` says otherwise, as the SDK), or a ``BackendListener``
    /// sending each endpointed utterance whole to an OpenAI-compatible service (in its
    /// ``backendFactory(defaultFormat:)`` format), or a ``RealtimeListener`` streaming into a Realtime
    /// session. `capture` gives the detector and endpointing; its audio format is the service's. Partial
    /// results need a streaming protocol: the Speech API's, or Realtime's deltas.
    public func liveRecognizerFactory(capture: CaptureConfiguration, partialResults: Bool = false) throws
        -> LiveRecognizerFactory
    {
        let (api, url) = try endpoint()
        switch api {
        case .att:
            var settings = self
            settings.service = url
            var configuration = try settings.speechRequestConfiguration(defaultFormat: .speexWideband)
            let format = configuration.audioFormat
            configuration.capture = capture
            configuration.audioFormat = format
            configuration.reportsPartialResults = partialResults
            let checked = configuration
            return LiveRecognizerFactory(api: api, url: configuration.recognitionURL) { () throws(SpeechClientError) in
                try SpeechClient(configuration: checked)
            }
        case .openai:
            if partialResults {
                throw Invalid(
                    "--partial-results",
                    "--partial-results needs a streaming protocol (the Speech API, or a ws://…/v1/realtime session); \(url) is OpenAI-compatible and answers once per utterance"
                )
            }
            let backends = try backendFactory()
            return LiveRecognizerFactory(api: api, url: url) { () throws(SpeechClientError) in
                BackendListener(backend: try backends.makeBackend(), capture: capture)
            }
        case .realtime:
            let configuration = try realtimeConfiguration(url: url, partialResults: partialResults)
            return LiveRecognizerFactory(api: api, url: url) { () throws(SpeechClientError) in
                try RealtimeListener(configuration: configuration, capture: capture)
            }
        }
    }

    /// Adds the X-Arg entry `option` sets, refused with `conflict` when `--x-arg` gives the same name.
    private static func add(
        _ argument: (name: String, value: String), to configuration: inout SpeechRequestConfiguration,
        option: String, refusing conflict: String
    ) throws(Invalid) {
        if configuration.extraArguments.contains(where: { $0.0.lowercased() == argument.name.lowercased() }) {
            throw Invalid(option, conflict)
        }
        configuration.extraArguments.append(argument)
    }

    private static func read(_ path: String, _ option: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EarshotError(.invalidInput, "\(path): cannot read the \(option) file")
        }
        return [UInt8](data)
    }
}

/// Makes ``RecognitionBackend``s for one checked service: one per worker, since a backend serves one
/// request at a time.
public struct RecognitionBackendFactory: Sendable {
    /// The wire format the backends take.
    public let audioFormat: CodecFormat
    private let make: @Sendable () throws(SpeechClientError) -> any RecognitionBackend

    init(audioFormat: CodecFormat, make: @escaping @Sendable () throws(SpeechClientError) -> any RecognitionBackend) {
        self.audioFormat = audioFormat
        self.make = make
    }

    public func makeBackend() throws(SpeechClientError) -> any RecognitionBackend { try make() }
}
