import ArgumentParser
import EarshotCore
import EarshotModels
import EarshotRecognizer
import EarshotServer
import EarshotSynthesis
import Foundation
import Logging
import Synchronization

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the recognition service: the AT&T Speech API v3, served locally.",
        discussion: """
            Serves POST /oauth/token and POST /speech/v3/speechToText with the embedded recognizer \
            (Whisper when its model is installed), POST /speech/v3/speechToTextCustom (grammars) with \
            PocketSphinx, OpenAI's POST /v1/audio/transcriptions with either (its model field: \
            GET /v1/models lists them), recognizing each upload while it streams in, and GET /health \
            and GET /metrics (Prometheus) for operators. Stops gracefully on SIGINT or SIGTERM: /health answers 503, the listener \
            closes (after --drain-delay), requests in flight finish. Instances started with the same \
            --token-key accept each other's tokens, so several can run behind a load balancer.

            Without --credentials, one app key and secret are generated at start and printed once, \
            to standard error; there is no default secret. Logs go to standard error, one line per \
            request with its ResponseId; tokens and secrets are never logged.

            Examples:
              earshot serve
              earshot serve --port 8443 --credentials apps.txt
              curl --include --data "client_id=$APP_KEY" \\
                  --data "client_secret=$SECRET_KEY" \\
                  --data grant_type=client_credentials --data scope=SPEECH \\
                  http://127.0.0.1:8080/oauth/token
            """
    )

    @Option(help: "Address to listen on.")
    var host = ServiceConfiguration.Defaults.host

    @Option(help: "Port to listen on (0 picks a free one, printed at start).")
    var port = ServiceConfiguration.Defaults.port

    @Option(
        help: ArgumentHelp(
            "File of app_key:secret lines, one per app allowed to ask for tokens.",
            discussion:
                "No spaces: the key ends at the first colon, the secret is the rest of the line (printable ASCII). \(Self.secretsFileSyntax)"
        ))
    var credentials: String?

    @Option(
        help: ArgumentHelp(
            "File of static API keys, one per line, accepted as Bearer tokens beside the issued ones.",
            discussion:
                "For clients that take one fixed key (OpenAI-compatible ones). A key is 16–256 printable ASCII characters; SPEECH, STTC or SPEECH,STTC after it and one space sets its scopes (SPEECH when omitted). \(Self.secretsFileSyntax)"
        ))
    var apiKeys: String?

    @Option(
        help: ArgumentHelp(
            "Recognizers that may run at once; more concurrent requests get 503 with Retry-After.",
            discussion: "Default: four per core (at least 4, at most 32): a live stream holds a recognizer while "
                + "it talks but takes about a sixth of a core."))
    var recognizers = ServiceConfiguration.Defaults.recognizerCount

    @OptionGroup(title: "Recognizers") var recognizerOptions: RecognizerOptions

    @Option(help: "Longest audio accepted in one request, in seconds (413 beyond).")
    var maxAudioDuration = ServiceConfiguration.Defaults.maxAudioDuration

    @Option(
        name: .customLong("max-initial-silence"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds of audio in which speech must be found, or the request ends as No Speech (inf: never).",
            discussion:
                "The seed's maxInitialSilence, held by the service: the rest of the body is not read, so silence sent cheaply (AMR NO_DATA frames) holds a recognizer no longer than this. The detector is Silero VAD when its model is installed (see --vad-model), else the spectral one. OpenAI-compatible requests get a 400 naming the limit."
        ))
    var maxInitialSilence = ServiceConfiguration.Defaults.maxInitialSilence

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Begin Whisper's final decode at the speaker's pause, so the words are ready when the upload ends.",
            discussion: "The speech detector watches each upload; a decode begun at a pause is dropped if speech "
                + "comes back. --no-early-decode saves that CPU and answers after the upload ends."))
    var earlyDecode = true

    @OptionGroup(title: "Voice activity detection") var vadModel: VADModelOptions

    @OptionGroup(title: "Realtime sessions (/v1/realtime)") var realtimeOptions: RealtimeOptions

    @Option(
        name: .customLong("max-cpu-per-audio-second"), parsing: .unconditional,
        help: ArgumentHelp(
            "CPU seconds a recognition may take per second of audio it delivers, beyond --cpu-grace (inf: no limit).",
            discussion:
                "A recognition that goes beyond is stopped while it runs and answered 422 naming both options: audio that is cheap to send and dear to decode cannot hold a recognizer and a core. Speech takes 0.12–0.29 s of CPU a second on average, 2.1 s at worst (Whisper on noise); RELIABILITY.md, CPU per recognition."
        ))
    var maxCPUPerAudioSecond: Double = RecognitionCPUBudget.default.perAudioSecond

    @Option(help: "CPU seconds any recognition may take whatever its audio (a short request's fixed costs).")
    var cpuGrace = RecognitionCPUBudget.default.grace.inSeconds

    @Option(help: "Most characters of text one Text to Speech request may speak (400 beyond).")
    var maxSpeechCharacters: Int = SpeechScript.Limits.default.textCharacters

    @Option(
        name: .customLong("max-ssml-bytes"),
        help: "Largest SSML document a Text to Speech request may send, in bytes (413 beyond).")
    var maxSSMLBytes: Int = SpeechScript.Limits.default.ssmlBytes

    @Option(
        help: ArgumentHelp(
            "Longest Text to Speech answer, in seconds of audio, pauses included (413 beyond).",
            discussion:
                "A request sure to run past it (its pauses, and a lower bound on its speech at the rate asked) is refused before synthesis; an answer that runs past it anyway is cut there, its connection closed before the end of the body, so the client sees an incomplete transfer. The default fits OpenAI's 4096 characters spoken at speed 0.25 (about 18 minutes)."
        ))
    var maxSpeechDuration = ServiceConfiguration.Defaults.maxSpeechDuration

    @Option(
        help: ArgumentHelp(
            "Seconds a Text to Speech answer waits on a client that reads nothing; then its connection is closed.",
            discussion:
                "Answers are synthesized at the pace their client reads; one that stops reading would otherwise hold its place among --max-syntheses for good."
        ))
    var writeTimeout = ServiceConfiguration.Defaults.writeTimeout.inSeconds

    @Option(
        help: ArgumentHelp(
            "Text to Speech answers made or queued at once; beyond, 503 with Retry-After.",
            discussion: "One thread synthesizes for the whole service; the others wait for it in turn."))
    var maxSyntheses = ServiceConfiguration.Defaults.maxSyntheses

    @Option(
        help: ArgumentHelp(
            "Recognitions one app (client ID or API key) may run at once; beyond, 429 with Retry-After.",
            discussion:
                "Default: one fewer than --recognizers (at least 1), so no single app takes every recognizer; "
                + "all of them when the service knows one app (one credential and no --api-keys), as for a "
                + "load test of your own service."))
    var maxRecognitionsPerApp: Int?

    @Option(help: "Largest lexicon or grammar part of a speechToTextCustom request, in bytes (413 beyond).")
    var maxGrammarBytes = ServiceConfiguration.Defaults.maxGrammarBytes

    @Option(help: "Seconds an upload may send nothing before it is abandoned with 408.")
    var readTimeout = ServiceConfiguration.Defaults.readTimeout.inSeconds

    @Option(
        help: ArgumentHelp(
            "Seconds an upload may keep the service waiting beyond what its audio accounts for (408 beyond).",
            discussion: "Before a recognizer is lent (the first 1 KiB of body), the whole wait is bounded by it."))
    var uploadGrace = ServiceConfiguration.Defaults.uploadGrace.inSeconds

    @Option(help: "Seconds of audio per second of waiting an upload must sustain once it holds a recognizer.")
    var minimumAudioRate = ServiceConfiguration.Defaults.minimumAudioRate

    @Option(help: "Seconds a connection may stay open with no request under way, or with its headers unfinished.")
    var idleTimeout = ServiceConfiguration.Defaults.idleTimeout.inSeconds

    @Option(
        help: ArgumentHelp(
            "Connections open at once; one accepted beyond is closed at once.",
            discussion:
                "Default: the soft RLIMIT_NOFILE (ulimit -n) less 128, so the listener never runs out of descriptors."))
    var maxConnections: Int?

    @Option(help: "Deepest nesting of elements in a grammar or lexicon (400 beyond).")
    var maxGrammarDepth: Int = GrammarLimits.default.maxGrammarDepth

    @Option(help: "Most rules in one grammar.")
    var maxGrammarRules: Int = GrammarLimits.default.maxGrammarRules

    @Option(help: "Most repetitions a grammar item's repeat may ask for.")
    var maxGrammarRepeat: Int = GrammarLimits.default.maxGrammarRepeat

    @Option(help: "Longest chain of rule references from a grammar's root.")
    var maxGrammarReferenceDepth: Int = GrammarLimits.default.maxGrammarReferenceDepth

    @Option(help: "Most word arcs a grammar may unroll to (repeats unrolled, rule references inlined).")
    var maxGrammarArcs: Int = GrammarLimits.default.maxGrammarArcs

    @Option(help: "Most lexemes in one pronunciation lexicon.")
    var maxLexemes: Int = GrammarLimits.default.maxLexemes

    @Option(
        help: ArgumentHelp(
            "File holding the key that signs tokens; instances started with the same key accept each other's tokens.",
            discussion:
                "At least 32 bytes, as one line of hex (openssl rand -hex 32 > token.key) or raw; the file must be readable and writable by its owner only (chmod 600). Without it, a random key per run: a restart signs every client out."
        ))
    var tokenKey: String?

    @Option(
        help: "Failed token requests allowed per app key and per address within --failed-token-window (429 beyond).")
    var failedTokenRequests = ServiceConfiguration.Defaults.failedTokenRequests

    @Option(help: "Seconds over which failed token requests are counted.")
    var failedTokenWindow = ServiceConfiguration.Defaults.failedTokenWindow.inSeconds

    @Option(help: "Access token lifetime in seconds.")
    var accessTokenLifetime = Int(TokenIssuer.Lifetimes().accessToken.components.seconds)

    @Option(help: "Refresh token lifetime in seconds.")
    var refreshTokenLifetime = Int(TokenIssuer.Lifetimes().refreshToken.components.seconds)

    @Option(
        help: ArgumentHelp(
            "Seconds after SIGTERM during which /health answers 503 but requests are still served, before the listener closes.",
            discussion: "For load balancers that poll /health. In-flight requests finish whatever the delay."))
    var drainDelay = ServiceConfiguration.Defaults.drainDelay.inSeconds

    @Option(
        help: ArgumentHelp(
            "Seconds requests in flight may run once the listener has closed on SIGTERM; then they get 503 and the process exits.",
            discussion: "A hard deadline for stopping: one slow upload cannot hold a stopping instance."))
    var drainTimeout = ServiceConfiguration.Defaults.drainTimeout.inSeconds

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0–65535") }
        guard recognizers > 0 else { throw ValidationError("--recognizers must be at least 1") }
        guard maxGrammarBytes > 0 else { throw ValidationError("--max-grammar-bytes must be at least 1") }
        guard maxAudioDuration > 0, readTimeout > 0, accessTokenLifetime > 0, refreshTokenLifetime > 0 else {
            throw ValidationError("durations and lifetimes must be positive")
        }
        for (flag, value) in [
            ("--upload-grace", uploadGrace), ("--minimum-audio-rate", minimumAudioRate),
            ("--idle-timeout", idleTimeout), ("--failed-token-window", failedTokenWindow),
            ("--max-speech-duration", maxSpeechDuration), ("--write-timeout", writeTimeout),
        ] where !(value > 0 && value.isFinite) {
            throw ValidationError("\(flag) must be a positive number of seconds (or, for the rate, a positive ratio)")
        }
        for (flag, value) in [
            ("--max-grammar-depth", maxGrammarDepth), ("--max-grammar-rules", maxGrammarRules),
            ("--max-grammar-repeat", maxGrammarRepeat), ("--max-grammar-reference-depth", maxGrammarReferenceDepth),
            ("--max-grammar-arcs", maxGrammarArcs), ("--max-lexemes", maxLexemes),
            ("--failed-token-requests", failedTokenRequests), ("--max-speech-characters", maxSpeechCharacters),
            ("--max-ssml-bytes", maxSSMLBytes), ("--max-syntheses", maxSyntheses),
        ] where value < 1 {
            throw ValidationError("\(flag) must be at least 1")
        }
        guard maxInitialSilence > 0 else {
            throw ValidationError("--max-initial-silence must be a positive number of seconds, or inf")
        }
        guard maxCPUPerAudioSecond > 0 else {
            throw ValidationError("--max-cpu-per-audio-second must be a positive ratio, or inf")
        }
        guard cpuGrace >= 0, cpuGrace.isFinite else {
            throw ValidationError("--cpu-grace must be zero or a positive number of seconds")
        }
        guard (maxRecognitionsPerApp ?? 1) > 0 else {
            throw ValidationError("--max-recognitions-per-app must be at least 1")
        }
        guard (maxConnections ?? 1) > 0 else { throw ValidationError("--max-connections must be at least 1") }
        guard drainTimeout > 0, drainTimeout.isFinite else {
            throw ValidationError("--drain-timeout must be a positive number of seconds")
        }
        guard drainDelay >= 0, drainDelay.isFinite else {
            throw ValidationError("--drain-delay must be zero or a positive number of seconds")
        }
        guard SpeechService.logLevel(named: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() async throws {
        let signingKey = try tokenKey.map(TokenKey.init(contentsOfFile:)) ?? .random()
        let apps: Credentials
        // Generated credentials are printed once the service listens, not before a failed start.
        var announcement = ""
        if let credentials {
            apps = try Credentials(contentsOfFile: credentials)
        } else {
            let generated = Credentials.random()
            apps = generated.credentials
            announcement =
                "earshot serve: no --credentials given; this run's only app is APP_KEY=\(generated.appKey) SECRET_KEY=\(generated.secret)\n"
        }
        var configuration = ServiceConfiguration(
            host: host, port: port, credentials: apps,
            tokenLifetimes: .init(
                accessToken: .seconds(accessTokenLifetime), refreshToken: .seconds(refreshTokenLifetime)),
            tokenKey: signingKey, failedTokenRequests: failedTokenRequests,
            failedTokenWindow: Self.duration(failedTokenWindow), maxAudioDuration: maxAudioDuration,
            maxGrammarBytes: maxGrammarBytes, grammarLimits: .default,
            readTimeout: Self.duration(readTimeout), uploadGrace: Self.duration(uploadGrace),
            minimumAudioRate: minimumAudioRate, idleTimeout: Self.duration(idleTimeout), recognizerCount: recognizers)
        try applyReloadableSettings(to: &configuration)
        configuration.models = try recognizerOptions.serviceModels()
        configuration.drainDelay = Self.duration(drainDelay)
        configuration.drainTimeout = Self.duration(drainTimeout)
        if let maxConnections { configuration.maxConnections = maxConnections }
        configuration.maxRecognitionsPerApp = maxRecognitionsPerApp
        configuration.maxSyntheses = maxSyntheses
        configuration.earlyDecode = earlyDecode
        if maxInitialSilence.isFinite || earlyDecode {
            (configuration.speechDetector, configuration.detectorModels) = try vadModel.resolve(nil)
        }
        let host = self.host
        let level = SpeechService.logLevel(named: logLevel) ?? .info
        let configured = configuration
        try await SpeechService.runUntilSignalled(
            configuration: configured, logLevel: level,
            reload: { [startedWith = Settings.injected.withLock { $0 }] in
                try Self.reloaded(configured, startedWith: startedWith)
            }
        ) { [announcement] port in
            FileHandle.standardError.write(
                Data((announcement + "earshot serve: listening on http://\(host):\(port)\n").utf8))
        }
    }
}

extension Serve {
    /// The syntax of every secrets file (EarshotServer's SecretsFile), for the options' help.
    static let secretsFileSyntax =
        "Lines end with LF or CR LF; empty lines and lines starting with # are skipped (# elsewhere is part of the key or secret: no comments after an entry); nothing else may stand before, after or inside an entry. The file must be readable and writable by its owner only (chmod 600). A bad line is refused at start, naming the file and line but not the secret."

    static func duration(_ seconds: Double) -> Duration { .milliseconds(Int((seconds * 1000).rounded())) }

    /// Sets the settings a running service may reload (``ServiceConfiguration/reloadableSettings``).
    func applyReloadableSettings(to configuration: inout ServiceConfiguration) throws {
        configuration.apiKeys = try apiKeys.map(APIKeys.init(contentsOfFile:)) ?? APIKeys()
        configuration.maxAudioDuration = maxAudioDuration
        configuration.maxInitialSilence = maxInitialSilence
        configuration.maxGrammarBytes = maxGrammarBytes
        configuration.grammarLimits = GrammarLimits(
            maxGrammarDepth: maxGrammarDepth, maxGrammarRules: maxGrammarRules, maxGrammarRepeat: maxGrammarRepeat,
            maxGrammarReferenceDepth: maxGrammarReferenceDepth, maxGrammarArcs: maxGrammarArcs, maxLexemes: maxLexemes)
        configuration.speechLimits = SpeechScript.Limits(textCharacters: maxSpeechCharacters, ssmlBytes: maxSSMLBytes)
        configuration.maxSpeechDuration = maxSpeechDuration
        configuration.writeTimeout = Self.duration(writeTimeout)
        configuration.cpuBudget = RecognitionCPUBudget(
            perAudioSecond: maxCPUPerAudioSecond, grace: Self.duration(cpuGrace))
        configuration.uploadGrace = Self.duration(uploadGrace)
        configuration.minimumAudioRate = minimumAudioRate
        configuration.realtime = realtimeOptions.limits
    }

    /// What SIGHUP reloads: the command line parsed again with the config file and environment as they
    /// are now, its reloadable settings on `running` (a file that no longer parses changes nothing),
    /// and the settings that differ from `startedWith` (what the file and environment gave at start)
    /// but take a restart.
    static func reloaded(_ running: ServiceConfiguration, startedWith: [Settings.Value]) throws -> ServiceReload {
        let (arguments, configFlag) = Settings.invocation.withLock { $0 }
        let serve: Serve
        let now: [Settings.Value]
        do {
            let withSettings: [String]
            (withSettings, now) = try Earshot.applySettings(to: arguments, configFlag: configFlag)
            guard let parsed = try Earshot.parseAsRoot(withSettings) as? Serve else {
                throw EarshotError(.invalidParameter, "the command line no longer names serve")
            }
            serve = parsed
        } catch let error as EarshotError {
            throw error
        } catch {
            throw EarshotError(.invalidParameter, Earshot.message(for: error))
        }
        var configuration = running
        try serve.applyReloadableSettings(to: &configuration)
        let reloadable = Set(ServiceConfiguration.reloadableSettings + ["log-level"])
        let before = Dictionary(startedWith.map { ($0.key, $0.values) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(now.map { ($0.key, $0.values) }, uniquingKeysWith: { first, _ in first })
        let needsRestart = Set(before.keys).union(after.keys).filter {
            !reloadable.contains($0) && before[$0] != after[$0]
        }
        return ServiceReload(
            configuration: configuration, logLevel: SpeechService.logLevel(named: serve.logLevel) ?? .info,
            needsRestart: needsRestart.sorted())
    }
}
