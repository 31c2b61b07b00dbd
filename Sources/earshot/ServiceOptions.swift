import ArgumentParser
import EarshotClient
import EarshotCodecs
import EarshotCore
import Foundation

/// Where and how to reach a recognition service: shared by the commands that use one.
struct ServiceOptions: ParsableArguments {
    @Option(
        help: """
            The recognition service URL (speechToText; with --grammar, speechToTextCustom on the same host). \
            listen and bench default to \(Self.defaultService); transcribe uses the embedded recognizer without it.
            """)
    var service: String?

    @Option(
        help: """
            The service's protocol: att (the Speech API v3) or openai (OpenAI's POST …/v1/audio/transcriptions). \
            Default: from the URL's path.
            """)
    var api: ServiceAPI?

    @Option(
        help:
            "With an OpenAI-compatible service: the model field (default: whisper-1, OpenAI's name, which earshot serve takes for its default model)."
    )
    var model: String?

    @Option(
        help:
            "The language spoken (ISO-639-1, e.g. en): the language field for an OpenAI-compatible service, or a multilingual Whisper's language; default: detected (or the server's choice).")
    var language: String?

    @Option(help: "App key for the OAuth token request (default: $EARSHOT_APP_KEY).")
    var appKey: String?

    @Option(help: "App secret for the OAuth token request (default: $EARSHOT_SECRET).")
    var secret: String?

    @Option(help: "An access token (or an OpenAI-compatible server's API key) to send instead of fetching one.")
    var token: String?

    @Option(
        help:
            "X-SpeechContext: Generic, VoiceMail, BusinessSearch, QuestionAndAnswer, WebSearch, Sms, TV; with --grammar GrammarList or GenericHints."
    )
    var context: String?

    @Option(
        help:
            "Wire format: speex-wb, speex-nb, amr, wav, l16, flac or opus (default: speex-wb for listen and bench, as the SDK; flac for transcribe)."
    )
    var audioFormat: String?

    @Option(name: .customLong("x-arg"), help: "An extra argument NAME=VALUE for the X-Arg header (repeatable).")
    var extraArguments: [String] = []

    @Option(help: "An SRGS grammar (.grxml): posts to speechToTextCustom with it as the x-grammar part.")
    var grammar: String?

    @Option(help: "A PLS lexicon (.pls) sent as the x-dictionary part, with --grammar.")
    var lexicon: String?

    @Option(help: "Seconds to wait for a connection.")
    var connectionTimeout: Double = 10

    @Option(help: "Seconds to wait for the answer once the audio is sent.")
    var serverResponseTimeout: Double = 30

    static let defaultService = "http://127.0.0.1:8080/speech/v3/speechToText"

    /// The options given that only make sense with a service, by name (for commands where the service
    /// is optional).
    var serviceOnlyOptionsGiven: [String] {
        [
            ("--app-key", appKey != nil), ("--secret", secret != nil), ("--token", token != nil),
            ("--context", context != nil), ("--audio-format", audioFormat != nil),
            ("--x-arg", !extraArguments.isEmpty), ("--grammar", grammar != nil), ("--lexicon", lexicon != nil),
            ("--api", api != nil), ("--model", model != nil),
        ].filter(\.1).map(\.0)
    }

    /// The request configuration, with `defaultFormat` when no --audio-format is given.
    func configuration(defaultFormat: CodecFormat = .speexWideband) throws -> SpeechRequestConfiguration {
        let format: CodecFormat
        if let audioFormat {
            guard let given = CodecFormat(rawValue: audioFormat), given != .oggSpeex else {
                throw ValidationError(
                    "--audio-format \(audioFormat): expected speex-wb, speex-nb, amr, wav, l16, flac or opus")
            }
            format = given
        } else {
            format = defaultFormat
        }
        let environment = ProcessInfo.processInfo.environment
        let authorization: SpeechRequestConfiguration.Authorization
        if let token {
            authorization = .token(token)
        } else if let key = appKey ?? environment["EARSHOT_APP_KEY"], !key.isEmpty,
            let secret = secret ?? environment["EARSHOT_SECRET"], !secret.isEmpty
        {
            authorization = .credentials(
                appKey: key, secret: secret, scope: grammar == nil ? "SPEECH" : "STTC", tokenURL: nil)
        } else {
            throw ValidationError("give --token, or --app-key and --secret (or $EARSHOT_APP_KEY and $EARSHOT_SECRET)")
        }
        var url = service ?? Self.defaultService
        if grammar != nil, url.hasSuffix("/speechToText") { url += "Custom" }
        var configuration = SpeechRequestConfiguration(
            recognitionURL: url, speechContext: context ?? (grammar == nil ? "Generic" : "GrammarList"),
            authorization: authorization, audioFormat: format)
        configuration.connectionTimeout = connectionTimeout
        configuration.serverResponseTimeout = serverResponseTimeout
        configuration.extraArguments = try extraArguments.map { pair in
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw ValidationError("--x-arg \(pair): expected NAME=VALUE")
            }
            return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
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
            throw ValidationError("--lexicon needs --grammar (both go to speechToTextCustom)")
        }
        return configuration
    }

    /// The protocol `url` speaks, and the URL to post to: from the path, or `forced` (which also gives a
    /// URL without a path its API's usual one). Throws naming the paths expected.
    static func endpoint(_ url: String, forced: ServiceAPI?) throws -> (api: ServiceAPI, url: String) {
        guard var components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", components.host?.isEmpty == false
        else {
            throw ValidationError("--service \(url): expected an http(s) URL such as \(Self.defaultService)")
        }
        let path = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        let found: ServiceAPI? =
            if path.hasSuffix("/v1/audio/transcriptions") || path.hasSuffix("/v1") {
                .openai
            } else if path.hasSuffix("/speech/v3/speechToText") || path.hasSuffix("/speech/v3/speechToTextCustom") {
                .att
            } else {
                nil
            }
        if let found, let forced, found != forced {
            throw ValidationError("--api \(forced.rawValue) does not match --service \(url), a \(found.name) path")
        }
        guard let api = found ?? forced else {
            throw ValidationError(
                "--service \(url): expected a path ending in /speech/v3/speechToText (the Speech API) or "
                    + "/v1/audio/transcriptions (OpenAI-compatible), or --api att|openai")
        }
        if path.isEmpty || path.hasSuffix("/v1") {
            components.path =
                path
                + (api == .openai
                    ? (path.hasSuffix("/v1") ? "" : "/v1") + "/audio/transcriptions" : "/speech/v3/speechToText")
        }
        return (api, components.string ?? url)
    }

    private static func read(_ path: String, _ option: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EarshotError(.invalidInput, "\(path): cannot read the \(option) file")
        }
        return [UInt8](data)
    }
}

/// The protocols a recognition service may speak.
enum ServiceAPI: String, ExpressibleByArgument, CaseIterable {
    case att, openai

    var name: String { self == .att ? "Speech API" : "OpenAI" }
}
