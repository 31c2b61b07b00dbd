import EarshotClient
import EarshotCodecs
import EarshotCore
import EarshotTestTraits
import Foundation
import Testing

/// The service settings every command shares: the protocol read from the URL, errors that name the
/// option, and a backend of the right kind and wire format.
@Suite(.computing) struct RecognitionServiceSettingsTests {
    private func settings(_ service: String?, api: RecognitionAPI? = nil) -> RecognitionServiceSettings {
        var settings = RecognitionServiceSettings(environment: [:])
        settings.service = service
        settings.api = api
        return settings
    }

    @Test func theProtocolComesFromThePath() throws {
        #expect(try settings("http://h:1/speech/v3/speechToText").endpoint().api == .att)
        #expect(try settings("http://h:1/speech/v3/speechToTextCustom").endpoint().api == .att)
        #expect(try settings("http://h:1/v1/audio/transcriptions").endpoint().api == .openai)
        let bare = try settings("http://h:1/v1").endpoint()
        #expect(bare.api == .openai && bare.url == "http://h:1/v1/audio/transcriptions")
        let forced = try settings("http://h:1", api: .att).endpoint()
        #expect(forced.url == "http://h:1/speech/v3/speechToText")
        #expect(try settings(nil).endpoint().url == RecognitionServiceSettings.defaultService)
    }

    @Test func wrongSettingsNameTheirOption() {
        #expect(throws: RecognitionServiceSettings.Invalid.self) { try settings("ftp://h/x").endpoint() }
        #expect { try settings("http://h:1/elsewhere").endpoint() } throws: { error in
            (error as? RecognitionServiceSettings.Invalid)?.option == "--service"
        }
        #expect { try settings("http://h:1/v1/audio/transcriptions", api: .att).endpoint() } throws: { error in
            (error as? RecognitionServiceSettings.Invalid)?.option == "--api"
        }
        var openAI = settings("http://h:1/v1/audio/transcriptions")
        openAI.context = "Generic"
        #expect { try openAI.backendFactory() } throws: { error in
            (error as? RecognitionServiceSettings.Invalid)?.option == "--context"
        }
        var speechAPI = settings("http://h:1/speech/v3/speechToText")
        speechAPI.token = "t"
        speechAPI.extraArguments = ["=novalue"]
        #expect { try speechAPI.backendFactory() } throws: { error in
            (error as? RecognitionServiceSettings.Invalid)?.option == "--x-arg"
        }
        speechAPI.extraArguments = []
        speechAPI.audioFormat = "mp3"
        #expect { try speechAPI.backendFactory() } throws: { error in
            (error as? RecognitionServiceSettings.Invalid)?.option == "--audio-format"
        }
    }

    @Test func aSpeechAPIServiceNeedsCredentialsFromFlagsOrEnvironment() throws {
        #expect { try settings(nil).speechRequestConfiguration() } throws: { error in
            (error as? RecognitionServiceSettings.Invalid)?.option == "--token"
        }
        var fromEnvironment = RecognitionServiceSettings(environment: ["EARSHOT_APP_KEY": "a", "EARSHOT_SECRET": "s"])
        fromEnvironment.grammar = nil
        let configuration = try fromEnvironment.speechRequestConfiguration()
        guard case .credentials(let key, let secret, let scope, _) = configuration.authorization else {
            Issue.record("expected credentials, got \(configuration.authorization)")
            return
        }
        #expect(key == "a" && secret == "s" && scope == "SPEECH")
        #expect(configuration.audioFormat == .speexWideband)
    }

    @Test func aGrammarPostsToTheCustomRouteAndAMissingFileIsAnInputError() throws {
        let grammar = FileManager.default.temporaryDirectory.appendingPathComponent("settings-\(UUID()).grxml").path
        try Data("<grammar/>".utf8).write(to: URL(fileURLWithPath: grammar))
        defer { try? FileManager.default.removeItem(atPath: grammar) }
        var custom = settings(nil)
        custom.token = "t"
        custom.grammar = grammar
        let configuration = try custom.speechRequestConfiguration()
        #expect(configuration.recognitionURL.hasSuffix("/speechToTextCustom"))
        #expect(configuration.speechContext == "GrammarList")
        #expect(configuration.partsBeforeAudio.map(\.name) == ["x-grammar"])
        custom.grammar = grammar + ".missing"
        #expect { try custom.speechRequestConfiguration() } throws: { error in
            (error as? EarshotError)?.description.contains(".missing") == true
        }
    }

    @Test func eachProtocolGetsItsBackendAndWireFormat() throws {
        var speechAPI = settings("http://127.0.0.1:9/speech/v3/speechToText")
        speechAPI.token = "t"
        let att = try speechAPI.backendFactory()
        #expect(att.audioFormat == .flac)
        #expect(try att.makeBackend() is SpeechAPIBackend)
        var openAI = settings("http://127.0.0.1:9/v1")
        openAI.audioFormat = "opus"
        let openai = try openAI.backendFactory()
        #expect(openai.audioFormat == .opus)
        #expect(try openai.makeBackend() is OpenAITranscriptionClient)
    }
}
