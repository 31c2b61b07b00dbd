public import ArgumentParser
import EarshotCapture
import EarshotClient
import EarshotCodecs
import EarshotWhisper
import Foundation
import Synchronization

/// Where and how to reach a recognition service: shared by the commands that use one.
struct ServiceOptions: ParsableArguments {
    @Option(
        help: """
            The recognition service URL (speechToText; with --grammar, speechToTextCustom on the same host), \
            …/v1/audio/transcriptions, or for listen and bench a Realtime session's ws(s)://HOST:PORT/v1/realtime. \
            listen and bench default to \(Self.defaultService); transcribe uses the embedded recognizer without it.
            """)
    var service: String?

    @Option(
        help: """
            The service's protocol: att (the Speech API v3), openai (OpenAI's POST …/v1/audio/transcriptions) or \
            realtime (OpenAI's Realtime transcription sessions over WebSocket, live only). Default: from the URL.
            """)
    var api: RecognitionAPI?

    @Option(
        help:
            "With an OpenAI-compatible service or a Realtime session: the model (default: whisper-1, OpenAI's name, which earshot serve takes for its default model)."
    )
    var model: String?

    @Option(
        help:
            "The language spoken: auto or an ISO-639-1 code (en, fr, …): the language field for an OpenAI-compatible service, Content-Language for the Speech API, or the embedded Whisper's language (a code the model does not speak is refused); default: auto, detected on the first 30 s (or the server's choice)."
    )
    var language: String?

    /// `--language` as a code, nil for `auto` (or not given): detect it.
    var spokenLanguage: String? { language == "auto" ? nil : language }

    @Option(
        help: ArgumentHelp(
            "transcribe, or translate: English text from speech in any language, by a multilingual Whisper (such "
                + "as whisper-base; an English-only model is refused by name).",
            discussion:
                "The embedded Whisper translates; listen and bench ask a service for it too: X-Arg Task=translate to "
                + "the Speech API, …/v1/audio/translations of an OpenAI-compatible one (a Realtime session has no "
                + "translation: refused)."))
    var task: WhisperTask = .transcribe

    @Option(help: "App key for the OAuth token request (default: $EARSHOT_APP_KEY).")
    var appKey: String?

    @Option(help: "App secret for the OAuth token request (default: $EARSHOT_SECRET).")
    var secret: String?

    @Option(help: "An access token (or an OpenAI-compatible server's API key) to send instead of fetching one.")
    var token: String?

    @Option(
        help: ArgumentHelp(
            "A file holding APP_KEY:SECRET on one line, for the token request when neither --app-key and --secret nor "
                + "$EARSHOT_APP_KEY and $EARSHOT_SECRET give them.",
            discussion:
                "Readable and writable by its owner only (chmod 600); lines starting with # are skipped. The way to keep credentials in the config file's service section: by path, not inline.",
            valueName: "file"))
    var credentials: String?

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

    static let defaultService = RecognitionServiceSettings.defaultService

    /// The settings these options give, for the client library to check and use.
    var settings: RecognitionServiceSettings {
        var settings = RecognitionServiceSettings()
        settings.service = service
        settings.api = api
        settings.model = model
        settings.language = spokenLanguage
        settings.translate = task == .translate
        settings.appKey = appKey
        settings.secret = secret
        settings.token = token
        settings.context = context
        settings.audioFormat = audioFormat
        settings.extraArguments = extraArguments
        settings.grammar = grammar
        settings.lexicon = lexicon
        settings.connectionTimeout = connectionTimeout
        settings.serverResponseTimeout = serverResponseTimeout
        return settings
    }

    /// The options given on the command line that only make sense with a service, by name (the config
    /// file's shared `service` section sets them for every command, which need not use them).
    var serviceOnlyOptionsGiven: [String] {
        let configured = Set(Settings.injected.withLock { $0 }.map { "--" + $0.key })
        return (settings.serviceOnlyOptionsGiven + (credentials == nil ? [] : ["--credentials"]))
            .filter { !configured.contains($0) }
    }

    /// ``settings``, with the app key and secret of `--credentials` when nothing before it gave them.
    func settingsWithCredentials() throws -> RecognitionServiceSettings {
        var settings = settings
        let environment = ProcessInfo.processInfo.environment
        guard let credentials, appKey ?? environment["EARSHOT_APP_KEY"] == nil,
            secret ?? environment["EARSHOT_SECRET"] == nil
        else { return settings }
        (settings.appKey, settings.secret) = try ClientCredentialsFile.read(credentials)
        return settings
    }

    /// The Speech API request configuration, with `defaultFormat` when no --audio-format is given.
    func configuration(defaultFormat: CodecFormat = .speexWideband) throws -> SpeechRequestConfiguration {
        let settings = try settingsWithCredentials()
        return try Self.usage { try settings.speechRequestConfiguration(defaultFormat: defaultFormat) }
    }

    /// How to make a backend for --service's protocol, checked once.
    func backendFactory() throws -> RecognitionBackendFactory {
        let settings = try settingsWithCredentials()
        return try Self.usage { try settings.backendFactory(defaultFormat: .flac) }
    }

    /// How to make live recognizers for --service's protocol (listen, bench), checked once.
    /// `languageModel` names a custom language model the service serves.
    func liveRecognizerFactory(capture: CaptureConfiguration, partialResults: Bool, languageModel: String? = nil)
        throws -> LiveRecognizerFactory
    {
        var settings = try settingsWithCredentials()
        settings.languageModel = languageModel
        return try Self.usage {
            try settings.liveRecognizerFactory(capture: capture, partialResults: partialResults)
        }
    }

    /// A setting given wrongly is a usage error (exit 1); a file that cannot be read stays an I/O error.
    private static func usage<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let invalid as RecognitionServiceSettings.Invalid {
            throw ValidationError(invalid.description)
        }
    }
}

extension RecognitionAPI: ExpressibleByArgument {}
