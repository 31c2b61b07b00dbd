import EarshotCore
import EarshotRecognizer
import EarshotServer
import EarshotTestTraits
import EarshotTesting
import Testing

/// `earshot serve`'s options show and use ServiceConfiguration's defaults, declared there once.
@Suite(.waiting) struct ServeOptionDefaultsTests {
    @Test func serveShowsTheServicesDefaults() throws {
        let dump = try OptionDump()
        let service = ServiceConfiguration.Defaults.self
        let expected: [(String, Double)] = [
            ("port", Double(service.port)), ("recognizers", Double(service.recognizerCount)),
            ("max-audio-duration", service.maxAudioDuration), ("max-initial-silence", service.maxInitialSilence),
            ("max-syntheses", Double(service.maxSyntheses)), ("max-grammar-bytes", Double(service.maxGrammarBytes)),
            ("read-timeout", service.readTimeout.inSeconds), ("upload-grace", service.uploadGrace.inSeconds),
            ("minimum-audio-rate", service.minimumAudioRate), ("idle-timeout", service.idleTimeout.inSeconds),
            ("failed-token-requests", Double(service.failedTokenRequests)),
            ("failed-token-window", service.failedTokenWindow.inSeconds),
            ("drain-delay", service.drainDelay.inSeconds), ("drain-timeout", service.drainTimeout.inSeconds),
            ("access-token-lifetime", TokenIssuer.Lifetimes().accessToken.inSeconds),
            ("refresh-token-lifetime", TokenIssuer.Lifetimes().refreshToken.inSeconds),
            ("max-cpu-per-audio-second", RecognitionCPUBudget.default.perAudioSecond),
            ("cpu-grace", RecognitionCPUBudget.default.grace.inSeconds),
            ("max-grammar-depth", Double(GrammarLimits.default.maxGrammarDepth)),
            ("max-grammar-arcs", Double(GrammarLimits.default.maxGrammarArcs)),
            ("max-lexemes", Double(GrammarLimits.default.maxLexemes)),
            ("realtime-max-sessions", Double(RealtimeLimits.Defaults.maxSessions)),
            ("realtime-max-session-duration", RealtimeLimits.Defaults.maxSessionDuration.inSeconds),
            ("realtime-idle-timeout", RealtimeLimits.Defaults.idleTimeout.inSeconds),
            ("realtime-max-message-bytes", Double(RealtimeLimits.Defaults.maxMessageBytes)),
            ("realtime-max-audio-ahead", RealtimeLimits.Defaults.maxAudioAhead),
            ("realtime-max-queued-events", Double(RealtimeLimits.Defaults.maxQueuedEvents)),
        ]
        for (name, value) in expected {
            #expect(dump.numericDefault("serve", name) == value, "serve --\(name)")
        }
        #expect(dump.option("serve", "host")?.defaultValue == service.host)
    }
}
