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
        ]
        for (name, value) in expected {
            #expect(dump.numericDefault("serve", name) == value, "serve --\(name)")
        }
        #expect(dump.option("serve", "host")?.defaultValue == service.host)
    }
}
