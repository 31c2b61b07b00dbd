import ArgumentParser
import EarshotCore
import EarshotRecognizer
import EarshotSynthesis
import Foundation

struct LanguageModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lm",
        abstract: "Custom language models: teach the recognizers an app's phrases and words.",
        subcommands: [Build.self, Pronounce.self])

    /// A word's CMU phones from eSpeak NG's rules (the fallback for words the dictionary lacks).
    static func guessPronunciation(_ word: String) throws -> [String] {
        let phonemes = try ESpeakEngine().phonemes(of: word)
        do { return try ESpeakToCMU.phones(phonemes) } catch {
            throw EarshotError(.invalidInput, "espeak-ng's phoneme '\(error.symbol)' (in \(phonemes)) has no CMU phone")
        }
    }

    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prepare a custom language model from training data (phrases, templates, pronunciations).",
            discussion: """
                Reads DATA, a JSON file of phrases with counts, templates that expand over word classes and \
                custom pronunciations in X-SAMPA (the shape of Apple's SFCustomLanguageModelData), and writes \
                --output: a trigram model (interpolated modified Kneser–Ney), dictionary entries for the \
                custom pronunciations, and a manifest. Use it with `earshot transcribe --language-model DIR`.

                A word neither in the recognizer's dictionary (--dictionary) nor given a pronunciation is \
                pronounced by espeak-ng's rules, mapped to the dictionary's phones, and listed; \
                --no-guess-pronunciations refuses such words instead. Check a word with `earshot lm \
                pronounce`. An existing --output is replaced only if it is a custom language model.

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

        @Flag(
            inversion: .prefixedNo,
            help: "Pronounce words the dictionary lacks with espeak-ng (else they are refused).")
        var guessPronunciations = true

        func run() throws {
            let parsed = try CustomLanguageModelData.read(path: data)
            let source = FileManager.default.contents(atPath: data)
            let model = try CustomLanguageModel.build(
                parsed, source: source, into: output,
                dictionary: dictionary ?? PocketSphinxConfiguration.default.dictionary,
                guess: guessPronunciations ? { try LanguageModelCommand.guessPronunciation($0) } : nil)
            let manifest = model.manifest
            Messages.write(
                "\(output): \(manifest.phrases) phrases, \(manifest.words) words (\(manifest.customPronunciations) with custom pronunciations), n-grams \(manifest.ngrams.map(String.init).joined(separator: "/"))",
                level: "info")
            let guessed = manifest.guessedPronunciations ?? []
            if !guessed.isEmpty {
                var entries: [String: String] = [:]
                for (word, phones) in try model.pronunciations() where entries[word] == nil { entries[word] = phones }
                Messages.write(
                    "pronounced by espeak-ng (give them pronunciations if these are wrong): "
                        + guessed.map { "\($0) [\(entries[$0] ?? "")]" }.joined(separator: ", "),
                    level: "note")
            }
        }
    }

    struct Pronounce: ParsableCommand {
        enum Source: String, ExpressibleByArgument, CaseIterable {
            case any, dictionary
            case espeak = "espeak-ng"
        }

        static let configuration = CommandConfiguration(
            abstract: "Print how the recognizers would pronounce words, in the dictionary's phones.",
            discussion: """
                For each WORD, prints the word, its phones and where they came from (dictionary, or \
                espeak-ng for a word the dictionary lacks), tab-separated; a word with several pronunciations \
                gets a line each. `lm build` uses the same sources.

                Examples:
                  earshot lm pronounce Tartakower knight
                  earshot lm pronounce --from espeak-ng knight
                """)

        @Argument(help: "The words.")
        var words: [String]

        @Option(help: "Where pronunciations come from: any (the dictionary, else espeak-ng), dictionary or espeak-ng.")
        var from: Source = .any

        @Option(help: "The pronouncing dictionary (default: the PocketSphinx model's).")
        var dictionary: String?

        func run() throws {
            let path = dictionary ?? PocketSphinxConfiguration.default.dictionary
            let lowered = words.map { $0.lowercased() }
            let known = from == .espeak ? [:] : try CustomLanguageModel.dictionaryPronunciations(path, of: Set(lowered))
            var output = ""
            for word in lowered {
                if let pronunciations = known[word] {
                    for phones in pronunciations { output += "\(word)\t\(phones.joined(separator: " "))\tdictionary\n" }
                } else if from == .dictionary {
                    throw EarshotError(.invalidInput, "\(word): not in \(path)")
                } else {
                    let phones = try LanguageModelCommand.guessPronunciation(word)
                    output += "\(word)\t\(phones.joined(separator: " "))\tespeak-ng\n"
                }
            }
            FileHandle.standardOutput.write(Data(output.utf8))
        }
    }
}
