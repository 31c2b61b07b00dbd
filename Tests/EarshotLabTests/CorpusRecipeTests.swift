import EarshotCore
import EarshotTesting
import Foundation
import Testing

@testable import EarshotLab

@Suite(.serialized) struct CorpusRecipeTests {
    /// Builds `recipe` twice into fresh folders and returns both folders' files, path by path.
    static func buildTwice(_ recipe: CorpusRecipe, limit: Int) throws -> ([String: Data], [String: Data], Corpus) {
        var results: [[String: Data]] = []
        var corpus: Corpus?
        for _ in 0..<2 {
            let directory = try TemporaryDirectory("earshot-recipe")
            defer { directory.remove() }
            corpus = try CorpusBuilder.build(
                recipe, options: RecipeOptions(seed: 7, limit: limit), into: directory.path)
            var files: [String: Data] = [:]
            for path in ["manifest.jsonl"] + corpus!.entries.map(\.path) {
                files[path] = FileManager.default.contents(atPath: directory.file(path))
            }
            results.append(files)
        }
        return (results[0], results[1], corpus!)
    }

    @Test(arguments: [(CorpusRecipe.synthetic, 2), (.real, 2), (.noisy, 1)])
    func rebuildsAreByteIdentical(recipe: CorpusRecipe, limit: Int) throws {
        let (first, second, corpus) = try Self.buildTwice(recipe, limit: limit)
        #expect(!first.isEmpty && first.values.allSatisfy { !$0.isEmpty })
        #expect(first == second)
        for entry in corpus.entries {
            // Each file is one utterance with at least 3 s of non-speech after its speech.
            if let end = entry.speechEnd { #expect(entry.duration - end >= 3.0, "\(entry.path)") }
        }
    }

    @Test func aDifferentSeedGivesADifferentCorpus() throws {
        let one = try CorpusBuilder.utterances(.synthetic, options: RecipeOptions(seed: 1, limit: 1))
        let two = try CorpusBuilder.utterances(.synthetic, options: RecipeOptions(seed: 2, limit: 1))
        #expect(one[0].entry != two[0].entry)
    }

    @Test func noisyCorpusCoversNoisesAndHasFilesWithoutSpeech() throws {
        let utterances = try CorpusBuilder.utterances(.noisy, options: RecipeOptions(seed: 3, limit: 2))
        let tagged = utterances.filter { $0.entry.tags["snr_db"] != nil }
        #expect(tagged.allSatisfy { NoisyRecipe.snrs.map(String.init).contains($0.entry.tags["snr_db"]!) })
        #expect(tagged.allSatisfy { $0.entry.tags["clean"] != nil && !$0.entry.speech.isEmpty })
        let silent = utterances.filter { $0.entry.speech.isEmpty }
        #expect(!silent.isEmpty && silent.allSatisfy { $0.entry.tags["noise"] != nil })
    }
}
