import EarshotRecognizer
import EarshotServer
import EarshotTestTraits
import EarshotTesting
import Testing

/// `earshot serve`'s options show and use ServiceConfiguration's defaults, declared there once.
@Suite(.waiting) struct ServeOptionDefaultsTests {
    @Test func serveShowsTheServicesDefaults() throws {
        let dump = try OptionDump()
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        let service = ServiceConfiguration.Defaults.self
        let expected: [(String, Double)] = [
            ("port", Double(service.port)), ("recognizers", Double(service.recognizerCount)),
            ("max-audio-duration", service.maxAudioDuration), ("max-initial-silence", service.maxInitialSilence),
            ("max-syntheses", Double(service.maxSyntheses)), ("max-grammar-bytes", Double(service.maxGrammarBytes)),
            ("read-timeout", seconds(service.readTimeout)), ("upload-grace", seconds(service.uploadGrace)),
            ("minimum-audio-rate", service.minimumAudioRate), ("idle-timeout", seconds(service.idleTimeout)),
            ("failed-token-requests", Double(service.failedTokenRequests)),
            ("failed-token-window", seconds(service.failedTokenWindow)),
            ("drain-delay", seconds(service.drainDelay)), ("drain-timeout", seconds(service.drainTimeout)),
            ("access-token-lifetime", seconds(TokenIssuer.Lifetimes().accessToken)),
            ("refresh-token-lifetime", seconds(TokenIssuer.Lifetimes().refreshToken)),
            ("max-cpu-per-audio-second", RecognitionCPUBudget.default.perAudioSecond),
            ("cpu-grace", seconds(RecognitionCPUBudget.default.grace)),
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
