import EarshotCapture
import EarshotClient
import EarshotCodecs
import EarshotCore
import EarshotTestTraits
import EarshotVAD
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

    @Test func aWebSocketURLIsARealtimeSession() throws {
        let given = try settings("ws://h:1/v1/realtime").endpoint()
        #expect(given.api == .realtime && given.url == "ws://h:1/v1/realtime?intent=transcription")
        let withIntent = try settings("wss://h/v1/realtime?intent=transcription").endpoint()
        #expect(withIntent.url == "wss://h/v1/realtime?intent=transcription")
        let bare = try settings("ws://h:1", api: .realtime).endpoint()
        #expect(bare.api == .realtime && bare.url == "ws://h:1/v1/realtime?intent=transcription")
        #expect(try settings("ws://h:1/v1").endpoint().url == "ws://h:1/v1/realtime?intent=transcription")
        #expect(try settings("wss://h/proxy/v1/realtime/").endpoint().api == .realtime)
    }

    @Test func aRealtimeURLIsRefusedWhereItCannotServe() {
        func refusal(_ settings: RecognitionServiceSettings) -> RecognitionServiceSettings.Invalid? {
            do {
                _ = try settings.endpoint()
                return nil
            } catch {
                return error
            }
        }
        let wrongPath = refusal(settings("ws://h:1/wrong/path"))
        #expect(wrongPath?.option == "--service" && wrongPath?.description.contains("/v1/realtime") == true)
        let httpRealtime = refusal(settings("http://h:1", api: .realtime))
        #expect(httpRealtime?.option == "--api" && httpRealtime?.description.contains("ws://") == true)
        let httpPath = refusal(settings("https://h/v1/realtime"))
        #expect(httpPath?.option == "--service" && httpPath?.description.contains("WebSocket") == true)
        let otherAPI = refusal(settings("ws://h:1/v1/realtime", api: .openai))
        #expect(otherAPI?.option == "--api" && otherAPI?.description.contains("--api realtime") == true)
        // transcribe's backends send whole files: a live-only session is refused, naming --service.
        #expect { try settings("ws://h:1/v1/realtime").backendFactory() } throws: { error in
            let invalid = error as? RecognitionServiceSettings.Invalid
            return invalid?.option == "--service" && invalid?.description.contains("live") == true
        }
        var speechOption = settings("ws://h:1/v1/realtime")
        speechOption.context = "Generic"
        #expect { try speechOption.liveRecognizerFactory(capture: CaptureConfiguration()) } throws: { error in
            (error as? RecognitionServiceSettings.Invalid)?.option == "--context"
        }
        var format = settings("ws://h:1/v1/realtime")
        format.audioFormat = "speex-wb"
        #expect { try format.liveRecognizerFactory(capture: CaptureConfiguration()) } throws: { error in
            (error as? RecognitionServiceSettings.Invalid)?.option == "--audio-format"
        }
    }

    @Test func aRealtimeSessionGetsItsKeyModelAndLanguage() throws {
        var capture = CaptureConfiguration(audioFormat: .amr)
        capture.endpointing = try EndpointerConfiguration(endingSilence: 0.5)
        var given = RecognitionServiceSettings(environment: ["OPENAI_API_KEY": "from-environment"])
        given.service = "ws://127.0.0.1:9/v1/realtime"
        given.language = "en"
        given.languageModel = "chess"
        let factory = try given.liveRecognizerFactory(capture: capture, partialResults: true)
        #expect(factory.api == .realtime && factory.url == "ws://127.0.0.1:9/v1/realtime?intent=transcription")
        let listener = try #require(try factory.makeRecognizer() as? RealtimeListener)
        guard case .token(let key)? = listener.configuration.authorization else {
            Issue.record("expected the environment's key, got \(String(describing: listener.configuration))")
            return
        }
        #expect(key == "from-environment")
        #expect(listener.configuration.model == "whisper-1+chess" && listener.configuration.language == "en")
        #expect(listener.configuration.reportsPartialResults)
        // The endpointing is the caller's; the audio is PCM16 (WAV's samples without its header).
        #expect(listener.capture.endpointing.endingSilence == 0.5 && listener.capture.audioFormat == .wav)
        var credentials = RecognitionServiceSettings(environment: [:])
        credentials.service = "wss://h/v1/realtime"
        (credentials.appKey, credentials.secret) = ("app", "secret")
        let fromCredentials = try #require(
            try credentials.liveRecognizerFactory(capture: capture).makeRecognizer() as? RealtimeListener)
        guard case .credentials(let app, _, let scope, _)? = fromCredentials.configuration.authorization else {
            Issue.record("expected app credentials")
            return
        }
        #expect(app == "app" && scope == "SPEECH")
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

    @Test func eachProtocolGetsItsLiveRecognizer() throws {
        var capture = CaptureConfiguration(audioFormat: .amr)
        capture.endpointing = try EndpointerConfiguration(endingSilence: 0.5)
        var speechAPI = settings("http://127.0.0.1:9")
        speechAPI.api = .att
        speechAPI.token = "t"
        let att = try speechAPI.liveRecognizerFactory(capture: capture, partialResults: true)
        #expect(att.api == .att && att.url == "http://127.0.0.1:9/speech/v3/speechToText")
        let client = try #require(try att.makeRecognizer() as? SpeechClient)
        // The endpointing is the caller's; the wire format the service's (the SDK's Speex by default).
        #expect(client.configuration.endpointing.endingSilence == 0.5)
        #expect(client.configuration.audioFormat == .speexWideband && client.configuration.reportsPartialResults)
        let openAI = try settings("http://127.0.0.1:9/v1").liveRecognizerFactory(capture: capture)
        #expect(openAI.api == .openai && openAI.url == "http://127.0.0.1:9/v1/audio/transcriptions")
        let listener = try #require(try openAI.makeRecognizer() as? BackendListener)
        #expect(listener.capture.audioFormat == .wav && listener.capture.endpointing.endingSilence == 0.5)
        #expect {
            try settings("http://127.0.0.1:9/v1").liveRecognizerFactory(capture: capture, partialResults: true)
        } throws: { error in
            (error as? RecognitionServiceSettings.Invalid)?.option == "--partial-results"
        }
    }
}
