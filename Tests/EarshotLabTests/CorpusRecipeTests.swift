import EarshotCore
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

@testable import EarshotLab

@Suite(.serialized, .computing) struct CorpusRecipeTests {
    /// Builds `recipe` twice into fresh folders and returns both folders' files, path by path.
    static func buildTwice(_ recipe: CorpusRecipe, limit: Int) async throws -> ([String: Data], [String: Data], Corpus)
    {
        var results: [[String: Data]] = []
        var corpus: Corpus?
        for _ in 0..<2 {
            let directory = try TemporaryDirectory("earshot-recipe")
            defer { directory.remove() }
            corpus = try await CorpusBuilder.build(
                recipe, options: RecipeOptions(seed: 7, limit: limit), into: directory.path)
            var files: [String: Data] = [:]
            for path in ["manifest.jsonl"] + corpus!.entries.map(\.path) {
                files[path] = FileManager.default.contents(atPath: directory.file(path))
            }
            results.append(files)
        }
        return (results[0], results[1], corpus!)
    }

    /// The real corpus rebuilds byte-identical within one process. The synthetic and noisy ones do from a
    /// fresh process (`CorpusBuildCommandTests`), not twice in one: eSpeak NG 1.51 carries state from one
    /// synthesis to the next that no call resets (the same text spoken again comes out a few samples
    /// apart; re-initializing keeps it, and `espeak_Terminate` hangs).
    @Test(arguments: [(CorpusRecipe.real, 2)])
    func rebuildsAreByteIdentical(recipe: CorpusRecipe, limit: Int) async throws {
        let (first, second, corpus) = try await Self.buildTwice(recipe, limit: limit)
        #expect(!first.isEmpty && first.values.allSatisfy { !$0.isEmpty })
        #expect(first == second)
        for entry in corpus.entries {
            // Each file is one utterance with at least 3 s of non-speech after its speech.
            if let end = entry.speechEnd { #expect(entry.duration - end >= 3.0, "\(entry.path)") }
        }
    }

    @Test func aDifferentSeedGivesADifferentCorpus() async throws {
        let one = try await CorpusBuilder.utterances(.synthetic, options: RecipeOptions(seed: 1, limit: 1))
        let two = try await CorpusBuilder.utterances(.synthetic, options: RecipeOptions(seed: 2, limit: 1))
        #expect(one[0].entry != two[0].entry)
    }

    @Test func noisyCorpusCoversNoisesAndHasFilesWithoutSpeech() async throws {
        let utterances = try await CorpusBuilder.utterances(.noisy, options: RecipeOptions(seed: 3, limit: 2))
        let tagged = utterances.filter { $0.entry.tags["snr_db"] != nil }
        #expect(tagged.allSatisfy { NoisyRecipe.snrs.map(String.init).contains($0.entry.tags["snr_db"]!) })
        #expect(tagged.allSatisfy { $0.entry.tags["clean"] != nil && !$0.entry.speech.isEmpty })
        let silent = utterances.filter { $0.entry.speech.isEmpty }
        #expect(!silent.isEmpty && silent.allSatisfy { $0.entry.tags["noise"] != nil })
    }
}

@Suite(.computing) struct LongRecipeTests {
    @Test func twoBuildsGiveIdenticalRecordingsAndManifests() async throws {
        let options = RecipeOptions(seed: 9, limit: 1, minimumRecordingDuration: 40)
        let first = try await CorpusBuilder.utterances(.long, options: options)
        let second = try await CorpusBuilder.utterances(.long, options: options)
        #expect(first.map(\.entry) == second.map(\.entry))
        #expect(first.map(\.samples) == second.map(\.samples))
        #expect(try ManifestWriter.text(for: first.map(\.entry)) == ManifestWriter.text(for: second.map(\.entry)))
        let other = try await CorpusBuilder.utterances(
            .long, options: RecipeOptions(seed: 10, limit: 1, minimumRecordingDuration: 40))
        #expect(other[0].entry != first[0].entry)
    }

    @Test func recordingsJoinClipsWithNaturalPausesAndCarryTheirLabels() async throws {
        let made = try await CorpusBuilder.utterances(
            .long, options: RecipeOptions(seed: 2, limit: 1, minimumRecordingDuration: 60))
        let entry = made[0].entry
        #expect(entry.duration >= 60 && entry.duration < 60 + 7.2 + 2.5 + 2.0)
        let words = try #require(entry.words)
        let clips = try #require(entry.tags["clips"]).split(separator: ",")
        #expect(clips.count >= 12, "about 3.2 s of speech and 1.4 s of pause per clip")
        // Every clip's words, in order, make the transcript; every labelled word lies in labelled speech.
        #expect(words.map(\.word).joined(separator: " ") == entry.transcript)
        for word in words { #expect(entry.speech.contains { $0.start <= word.start && word.end <= $0.end }) }
        // Pauses between clips (gaps ≥ 0.3 s between speech segments) are never digital silence.
        let samples = made[0].samples
        for (previous, next) in zip(entry.speech, entry.speech.dropFirst()) where next.start - previous.end >= 0.3 {
            let gap = samples[Int(previous.end * 16_000) + 800..<Int(next.start * 16_000) - 800]
            #expect(gap.contains { $0 != 0 })
        }
    }
}
