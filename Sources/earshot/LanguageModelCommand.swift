import ArgumentParser
import EarshotCore
import EarshotRecognizer
import Foundation

struct LanguageModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lm",
        abstract: "Custom language models: teach the recognizers an app's phrases and words.",
        subcommands: [Build.self])

    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prepare a custom language model from training data (phrases, templates, pronunciations).",
            discussion: """
                Reads DATA, a JSON file of phrases with counts, templates that expand over word classes and \
                custom pronunciations in X-SAMPA (the shape of Apple's SFCustomLanguageModelData), and writes \
                --output: a trigram model (interpolated modified Kneser–Ney), dictionary entries for the \
                custom pronunciations, and a manifest. Use it with `earshot transcribe --language-model DIR`.

                Every word must be pronounceable: in the recognizer's dictionary (--dictionary) or given a \
                pronunciation. An existing --output is replaced only if it is a custom language model.

                Examples:
                  earshot lm build Examples/language-models/chess.json --output chess-lm
                  earshot transcribe --language-model chess-lm --recognizer pocketsphinx \\
                      move.wav
                """)

        @Argument(help: "The training data (JSON).")
        var data: String

        @Option(name: .shortAndLong, help: "The directory to write.")
        var output: String

        @Option(
            help: "The pronouncing dictionary words are checked against (default: the PocketSphinx model's).")
        var dictionary: String?

        func run() throws {
            let parsed = try CustomLanguageModelData.read(path: data)
            let source = FileManager.default.contents(atPath: data)
            let model = try CustomLanguageModel.build(
                parsed, source: source, into: output,
                dictionary: dictionary ?? PocketSphinxConfiguration.default.dictionary)
            let manifest = model.manifest
            Messages.write(
                "\(output): \(manifest.phrases) phrases, \(manifest.words) words (\(manifest.customPronunciations) with custom pronunciations), n-grams \(manifest.ngrams.map(String.init).joined(separator: "/"))",
                level: "info")
        }
    }
}
