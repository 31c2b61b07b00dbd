import ArgumentParser
import EarshotCore
import EarshotTestTraits
import EarshotVAD
import EarshotWhisper
import Testing

@testable import earshot

/// Every command parsed in this process (argument-parser's `parseAsRoot`, as `earshot` itself parses),
/// with no binary started: which command a command line runs, what its options come to, and how a bad
/// one is refused — the message naming the option, and the exit status `earshot` gives it (1, usage).
/// What needs a process (files written, signals, the service) is tested by running the binary.
@Suite(.computing) struct CommandParseTests {
    /// A command line for each command, leaves and groups alike; ``everyCommandHasACaseHere()`` holds
    /// the table to the command tree, so a new command comes with its parse test.
    static let minimal: [(arguments: [String], command: any ParsableCommand.Type)] = [
        (["transcribe", "a.wav"], Transcribe.self),
        (["listen", "--file", "a.wav", "--service", "http://127.0.0.1:1/speech/v3/speechToText"], Listen.self),
        (["info", "a.wav"], Info.self),
        (["level", "a.wav"], Level.self),
        (["vad", "a.wav"], VAD.self),
        (["endpoint", "a.wav"], Endpoint.self),
        (["eval", "corpus"], Eval.self),
        (["sweep", "corpus", "--grid", "endingSilence=0.5,0.8"], Sweep.self),
        (["decoder-sweep", "corpus", "--grid", "beam=1e-48,1e-40"], DecoderSweep.self),
        (["corpus", "build", "real", "--out", "out"], CorpusCommand.Build.self),
        (["corpus", "validate", "corpus"], CorpusCommand.Validate.self),
        (["corpus", "import", "audio", "--format", "rttm", "--labels", "labels.rttm"], CorpusCommand.Import.self),
        (["corpus", "export", "corpus", "--format", "rttm"], CorpusCommand.Export.self),
        (["lm", "build", "data.json", "--output", "model"], LanguageModelCommand.Build.self),
        (["lm", "pronounce", "hello"], LanguageModelCommand.Pronounce.self),
        (["encode", "a.wav", "a.spx"], Encode.self),
        (["decode", "a.spx", "a.wav"], Decode.self),
        (["speak", "hello"], Speak.self),
        (["serve"], Serve.self),
        (["bench", "--corpus", "corpus"], Bench.self),
        (["models"], Models.List.self),
        (["models", "list"], Models.List.self),
        (["models", "fetch"], Models.Fetch.self),
        (["config", "show"], ConfigCommand.Show.self),
    ]

    @Test(arguments: minimal.indices)
    func eachCommandLineRunsItsCommand(index: Int) throws {
        let (arguments, expected) = Self.minimal[index]
        let command = try Earshot.parseAsRoot(arguments)
        #expect(type(of: command) == expected, "\(arguments) parsed as \(type(of: command))")
    }

    /// Each leaf of the command tree appears in ``minimal``.
    @Test func everyCommandHasACaseHere() {
        func leaves(_ command: any ParsableCommand.Type) -> [any ParsableCommand.Type] {
            let subcommands = command.configuration.subcommands
            return subcommands.isEmpty ? [command] : subcommands.flatMap(leaves)
        }
        let tested = Set(Self.minimal.map { ObjectIdentifier($0.command) })
        for leaf in leaves(Earshot.self) {
            #expect(tested.contains(ObjectIdentifier(leaf)), "no parse case for \(leaf._commandName)")
        }
    }

    /// What a command line comes to: the values its options take, as the command then runs with them.
    @Test func optionsTakeTheValuesGiven() throws {
        let transcribe = try #require(
            try Earshot.parseAsRoot(["transcribe", "--jobs", "2", "-o", "out.txt", "a.wav", "b.wav"]) as? Transcribe)
        #expect(transcribe.files == ["a.wav", "b.wav"] && transcribe.output == "out.txt")
        let widened = try #require(
            try Earshot.parseAsRoot(["serve", "--whisper-weights", "float32"]) as? Serve)
        #expect(widened.recognizerOptions.whisperWeights == .float32)
        let endpoint = try #require(
            try Earshot.parseAsRoot(["endpoint", "--ending-silence", "0.5", "--maxInitialSilence", "inf", "a.wav"])
                as? Endpoint)
        let configuration = try endpoint.endpointing.configuration()
        #expect(configuration.endingSilence == 0.5 && configuration.maxInitialSilence == .infinity)
        // A value out of its range is parsed, and refused when the configuration is made, naming it.
        let negative = try #require(
            try Earshot.parseAsRoot(["endpoint", "--endingSilence", "-1", "a.wav"]) as? Endpoint)
        let refusal = #expect(throws: EarshotError.self) { try negative.endpointing.configuration() }
        #expect(refusal?.message.contains("endingSilence") == true && refusal.map { ExitStatus($0) } == .usage)
    }

    /// Refused before anything runs, naming what was wrong, with status 1 as `earshot` exits.
    @Test(arguments: [
        (["transcribe"], "Missing expected argument '<files> ...'"),
        (["transcribe", "--jobs", "0", "a.wav"], "--jobs"),
        (["eval", "--detector", "spectral", "webrtc", "corpus"], "unknown detector 'webrtc'"),
        (["eval", "--detector", "spectral"], "<corpus>"),
        (["endpoint", "--maxInitialSilence", "soon", "a.wav"], "maxInitialSilence"),
        (["transcribe", "--no-such-flag", "a.wav"], "--no-such-flag"),
        (["serve", "--partial-encoder-window", "half"], "--partial-encoder-window half"),
        (["serve", "--partial-encoder-window", "fitted:0"], "--partial-encoder-window fitted:0"),
        (["listen", "--file", "a.wav", "--live-encoder-window", "fitted:512:2000"], "--live-encoder-window"),
        (["transcribe", "--whisper-weights", "float16", "a.wav"], "--whisper-weights"),
        (["transcribe", "--recognizer", "pocketsphinx", "--whisper-weights", "float32", "a.wav"], "--whisper-weights"),
    ])
    func aBadCommandLineIsAUsageErrorNamingTheOption(arguments: [String], named: String) throws {
        do {
            let command = try Earshot.parseAsRoot(arguments)
            Issue.record("\(arguments) parsed as \(type(of: command))")
        } catch {
            let message = (error as? EarshotError)?.message ?? Earshot.fullMessage(for: error)
            #expect(message.contains(named), "\(arguments): \(message)")
            let status =
                (error as? EarshotError).map { ExitStatus($0) }
                ?? (Earshot.exitCode(for: error) == .validationFailure ? .usage : .invalidInput)
            #expect(status == .usage, "\(arguments): \(message)")
        }
    }
}
