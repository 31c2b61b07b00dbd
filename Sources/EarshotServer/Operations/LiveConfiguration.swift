import Logging
import Synchronization

/// The service's configuration as the routes read it, request by request: what `earshot serve` started
/// with, with the limits a reload (SIGHUP) may change replaced in place. Connections stay open; a
/// request under way may see the new limits from its next step on.
final class LiveConfiguration: Sendable {
    private let state: Mutex<ServiceConfiguration>

    init(_ configuration: ServiceConfiguration) { state = Mutex(configuration) }

    var current: ServiceConfiguration { state.withLock { $0 } }

    /// Takes `new`'s reloadable settings (``ServiceConfiguration/reloadableSettings``) and returns the
    /// names of those that changed.
    func reload(from new: ServiceConfiguration) -> [String] {
        state.withLock { configuration in
            let changed = configuration.changedReloadableSettings(comparedWith: new)
            configuration.takeReloadableSettings(from: new)
            return changed
        }
    }
}

extension ServiceConfiguration {
    /// The settings a running service takes on reload, by their `earshot serve` option names: the
    /// per-request limits and the API keys. The rest — address, recognizers and their pools,
    /// credentials, token key, connection and pace timers set on the listener — need a restart.
    public static let reloadableSettings = [
        "max-audio-duration", "max-initial-silence", "max-grammar-bytes", "max-grammar-depth", "max-grammar-rules",
        "max-grammar-repeat", "max-grammar-reference-depth", "max-grammar-arcs", "max-lexemes",
        "max-speech-characters", "max-ssml-bytes", "max-speech-duration", "write-timeout", "max-cpu-per-audio-second",
        "cpu-grace", "upload-grace", "minimum-audio-rate", "api-keys", "realtime-max-sessions",
        "realtime-max-session-duration", "realtime-idle-timeout", "realtime-max-audio-ahead",
        "realtime-max-queued-events",
    ]

    mutating func takeReloadableSettings(from new: ServiceConfiguration) {
        maxAudioDuration = new.maxAudioDuration
        maxInitialSilence = new.maxInitialSilence
        maxGrammarBytes = new.maxGrammarBytes
        grammarLimits = new.grammarLimits
        speechLimits = new.speechLimits
        maxSpeechDuration = new.maxSpeechDuration
        writeTimeout = new.writeTimeout
        cpuBudget = new.cpuBudget
        uploadGrace = new.uploadGrace
        minimumAudioRate = new.minimumAudioRate
        apiKeys = new.apiKeys
        // The message bound stays: the frame decoder of every connection was built with it.
        realtime = RealtimeLimits(new.realtime, maxMessageBytes: realtime.maxMessageBytes)
    }

    func changedReloadableSettings(comparedWith new: ServiceConfiguration) -> [String] {
        var changed: [String] = []
        if maxAudioDuration != new.maxAudioDuration { changed.append("max-audio-duration") }
        if maxInitialSilence != new.maxInitialSilence { changed.append("max-initial-silence") }
        if maxGrammarBytes != new.maxGrammarBytes { changed.append("max-grammar-bytes") }
        if grammarLimits != new.grammarLimits { changed.append("grammar limits") }
        if speechLimits != new.speechLimits { changed.append("speech limits") }
        if maxSpeechDuration != new.maxSpeechDuration { changed.append("max-speech-duration") }
        if writeTimeout != new.writeTimeout { changed.append("write-timeout") }
        if cpuBudget != new.cpuBudget { changed.append("CPU budget") }
        if uploadGrace != new.uploadGrace { changed.append("upload-grace") }
        if minimumAudioRate != new.minimumAudioRate { changed.append("minimum-audio-rate") }
        if apiKeys != new.apiKeys { changed.append("api-keys") }
        if realtime != RealtimeLimits(new.realtime, maxMessageBytes: realtime.maxMessageBytes) {
            changed.append("realtime limits")
        }
        return changed
    }
}

/// The level every logger of the service logs at, changed in place by a reload.
final class LiveLogLevel: Sendable {
    private let level: Mutex<Logger.Level>

    init(_ level: Logger.Level) { self.level = Mutex(level) }

    var value: Logger.Level {
        get { level.withLock { $0 } }
        set { level.withLock { $0 = newValue } }
    }
}

/// A stream handler on standard error whose level is the service's live level.
struct LiveLevelLogHandler: LogHandler {
    var stream: StreamLogHandler
    let level: LiveLogLevel

    var logLevel: Logger.Level {
        get { level.value }
        set { level.value = newValue }
    }

    var metadata: Logger.Metadata {
        get { stream.metadata }
        set { stream.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { stream[metadataKey: key] }
        set { stream[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) { stream.log(event: event) }
}
