import ArgumentParser
import EarshotCapture
import EarshotClient
import EarshotCore
import EarshotIO
import EarshotVAD
import Foundation

struct Listen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Capture speech, endpoint it and have a recognition service transcribe it while you talk.",
        discussion: """
            The SDK's interaction on a terminal: listens on an ALSA capture device (or replays --file \
            like a microphone), shows the level, the state and partial results, ends on silence (the \
            endpointing options) or when you press Enter, and prints the transcript on standard output. \
            Ctrl-C cancels. Without a terminal, events are printed one per line on standard error.

            The Speech API gets the audio while you talk (chunked upload, partial results on request); \
            an OpenAI-compatible service (--api openai, or a …/v1/audio/transcriptions URL) gets the \
            endpointed utterance as one file; a Realtime session (ws://HOST:PORT/v1/realtime) gets the \
            audio while you talk as 16 kHz PCM, your endpoint commits it, and its transcription deltas \
            are the partial results. A wrong key is refused like an HTTP 401 (exit 3).

            --language CODE and --task translate (English text from speech in any language) go to the \
            service: Content-Language and X-Arg Task=translate to the Speech API, the language field and \
            …/v1/audio/translations to an OpenAI-compatible one. A Realtime session has no translation: \
            --task translate is refused before connecting (exit 1). A model that cannot translate (tiny.en, \
            PocketSphinx) is refused by the service, naming it (exit 3); `earshot serve --whisper-model \
            whisper-base` translates.

            Exit status: 0 recognized; 1 bad options; 2 no microphone, no speech or too short; \
            3 the service or the network failed; 130 canceled.

            Examples:
              earshot serve --credentials apps.txt &
              earshot listen --app-key KEY --secret SECRET
              earshot listen --file talk.wav --realtime --app-key KEY --secret SECRET \\
                  --partial-results
              earshot listen --grammar Examples/grammars/cards.grxml \\
                  --app-key KEY --secret SECRET
              earshot listen --service http://127.0.0.1:8080/v1/audio/transcriptions \\
                  --token KEY
              earshot listen --service ws://127.0.0.1:8080/v1/realtime --token KEY \\
                  --partial-results
              earshot serve --credentials apps.txt --language-model chess=chess-lm &
              earshot listen --language-model chess --app-key KEY --secret SECRET
              earshot serve --credentials apps.txt --whisper-model whisper-base &
              earshot listen --file fr.wav --task translate --app-key KEY --secret SECRET
            """)

    @OptionGroup var serviceOptions: ServiceOptions
    @OptionGroup var capture: CaptureOptions

    @Option(help: "ALSA capture device.")
    var device: String = "default"

    @Option(help: "Replay this file instead of capturing (with --realtime, at the pace of a microphone).")
    var file: String?

    @Flag(help: "With --file: release audio no faster than real time.")
    var realtime = false

    @Option(help: "With --file --realtime: media seconds per second (e.g. 4 for a quick test).")
    var speed: Double = 1

    @Option(
        help: ArgumentHelp(
            "A custom language model the service serves (earshot serve --language-model NAME=DIR), by name: "
                + "X-Arg LanguageModel=NAME to the Speech API, model=<model>+NAME to an OpenAI-compatible one.",
            valueName: "name"))
    var languageModel: String?

    @Flag(help: "Ask the service for partial results while uploading (the Speech API, or a Realtime session's deltas).")
    var partialResults = false

    @Flag(
        help:
            "Print the service's whole JSON answer instead of the transcript (from an OpenAI-compatible service or a Realtime session: the reply's text, words and segments)."
    )
    var json = false

    func run() async throws {
        let factory = try serviceOptions.liveRecognizerFactory(
            capture: try capture.configuration(), partialResults: partialResults, languageModel: languageModel)
        let client: any LiveRecognizer
        do {
            client = try factory.makeRecognizer()
        } catch {
            throw error.earshotError
        }
        let file = self.file
        let device = self.device
        let pace: Double? = realtime ? speed : nil
        let interaction: SpeechInteraction
        do {
            interaction = try client.startListening {
                guard let file else { return try ALSACaptureSource(device: device) }
                let source = try AudioInput.open(path: file, blockFrames: 1024)
                guard let pace else { return source }
                return try Self.paced(source, speed: pace)
            }
        } catch {
            throw error.earshotError
        }
        let display = ListenDisplay(interactive: isatty(STDERR_FILENO) != 0 && isatty(STDIN_FILENO) != 0)
        // Enter stops (manual endpoint); Ctrl-C cancels.
        // Enter on the terminal: an event source on standard input, so no thread waits on it.
        let enter = display.interactive ? DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO) : nil
        enter?.setEventHandler {
            var bytes = [UInt8](repeating: 0, count: 256)
            let count = read(STDIN_FILENO, &bytes, bytes.count)
            if count <= 0 { enter?.cancel() }  // end of input: nothing more to wait for
            if count > 0, bytes[..<count].contains(UInt8(ascii: "\n")) {
                enter?.cancel()
                interaction.stopListening()
            }
        }
        enter?.resume()
        defer { enter?.cancel() }
        var outcome: Result<String, SpeechClientError>?
        try await Interrupts.handling(with: { _ in interaction.cancel() }) {
            for await event in interaction.events {
                display.show(event)
                switch event {
                case .succeeded(let response) where json:
                    outcome = .success(String(decoding: response.data, as: UTF8.self))
                case .recognized(let reply) where json:
                    outcome = .success(try reply.jsonText())
                default: if let text = event.finalText { outcome = .success(text) }
                }
                if case .failed(let error) = event { outcome = .failure(error) }
            }
        }
        try? await client.shutdown()
        display.finish()
        switch outcome {
        case .success(let text)?:
            print(text)
        case .failure(let error)?:
            FileHandle.standardError.write(Data("earshot listen: \(error)\n".utf8))
            throw ExitCode(ExitStatus(error.code).rawValue)
        case nil:
            throw ExitCode(ExitStatus.recognizer.rawValue)
        }
    }
}

extension Listen {
    static func paced<Source: AudioSource>(_ source: Source, speed: Double) throws -> any AudioSource {
        try PacedSource(source, speed: speed)
    }
}
