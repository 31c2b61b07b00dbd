import EarshotCore
import Foundation

/// One utterance a recipe produced: its manifest entry and its 16 kHz samples.
public struct RecipeUtterance: Sendable {
    public var entry: CorpusEntry
    public var samples: [Float]
    public init(entry: CorpusEntry, samples: [Float]) {
        self.entry = entry
        self.samples = samples
    }
}

/// The corpora Earshot rebuilds from installed Debian packages, deterministically from a seed.
public enum CorpusRecipe: String, Sendable, CaseIterable {
    /// Real recordings from pocketsphinx-testdata and alsa-utils, labelled by forced alignment.
    case real
    /// eSpeak NG and Flite speech, synthesized in-process, with exact labels from the clean signal.
    case synthetic
    /// The real and synthetic utterances mixed with noise, music and clicks at set SNRs, plus files
    /// with no speech at all.
    case noisy
    /// Real speech from pocketsphinx-testdata joined with natural pauses into recordings of 10+ minutes.
    case long
}

/// What a build may vary.
public struct RecipeOptions: Sendable, Hashable {
    /// Every random choice derives from it; the same seed gives byte-identical files and manifest (for
    /// the synthetic and noisy corpora, from a fresh process: see ``SyntheticRecipe``).
    public var seed: UInt64
    /// Build only the first `limit` utterances of each source list (for quick checks and tests);
    /// the files built are exactly those of a full build with the same seed.
    public var limit: Int?
    /// A folder for intermediate files (synthesizer output, MIDI), which the build removes. Default: the
    /// system's temporary folder.
    public var scratch: String
    /// The long corpus only: each recording is at least this many seconds (default 600). Shorter
    /// recordings keep tests quick; they are not prefixes of the full-length ones.
    public var minimumRecordingDuration: Double?

    public init(
        seed: UInt64 = 1, limit: Int? = nil, scratch: String? = nil,
        minimumRecordingDuration: Double? = nil
    ) {
        self.seed = seed
        self.limit = limit
        self.scratch = scratch ?? NSTemporaryDirectory()
        self.minimumRecordingDuration = minimumRecordingDuration
    }

    /// An independent generator for one purpose, so adding draws to one part of a recipe cannot shift
    /// the choices of another.
    func random(_ purpose: UInt64) -> SplitMix64 {
        var mixer = SplitMix64(seed: seed ^ (purpose &* 0x9E37_79B9_7F4A_7C15))
        return SplitMix64(seed: mixer.next())
    }
}

/// Builds a recipe into a corpus folder.
public enum CorpusBuilder {
    /// The utterances of `recipe`, in manifest order, without writing anything.
    public static func utterances(
        _ recipe: CorpusRecipe, options: RecipeOptions, progress: (String) -> Void = { _ in }
    ) async throws -> [RecipeUtterance] {
        switch recipe {
        case .real: try RealRecipe.utterances(options: options, progress: progress)
        case .synthetic: try await SyntheticRecipe.utterances(options: options, progress: progress)
        case .noisy: try await NoisyRecipe.utterances(options: options, progress: progress)
        case .long: try LongRecipe.utterances(options: options, progress: progress)
        }
    }

    /// Builds `recipe` into `directory`: audio under `audio/`, then `manifest.jsonl` last (each
    /// file written atomically), and returns the corpus as a reader would load it.
    @discardableResult
    public static func build(
        _ recipe: CorpusRecipe, options: RecipeOptions, into directory: String, progress: (String) -> Void = { _ in }
    ) async throws -> Corpus {
        let scratch = try makeScratch(in: options.scratch)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var options = options
        options.scratch = scratch
        let made = try await utterances(recipe, options: options, progress: progress)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for utterance in made {
            try RecipeAudio.write(utterance.samples, to: directory + "/" + utterance.entry.path)
        }
        let corpus = Corpus(directory: directory, entries: made.map(\.entry))
        try corpus.writeManifest()
        return try Corpus.load(directory: directory)
    }

    private static func makeScratch(in parent: String) throws -> String {
        var template = Array((parent + "/earshot-recipe-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw EarshotError(.writeFailed, "\(parent): cannot create a scratch folder for the recipe")
        }
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// An entry for `samples` (quantized as the file will hold them), with labels clamped to the
    /// audio and rounded to the millisecond as the manifest stores them.
    static func utterance(
        path: String, samples: [Float], speech: [LabeledSegment], transcript: String?, words: [TimedWord]?,
        tags: [String: String]
    ) -> RecipeUtterance {
        let duration = ManifestWriter.roundedSeconds(RecipeAudio.seconds(samples.count))
        let round = ManifestWriter.roundedSeconds
        let segments = speech.map { LabeledSegment(start: round($0.start), end: min(round($0.end), duration)) }
        let labelledWords = words?.map {
            TimedWord(word: $0.word, start: round($0.start), end: min(round($0.end), duration))
        }
        let entry = CorpusEntry(
            path: path, duration: duration, speech: segments, transcript: transcript, words: labelledWords, tags: tags)
        return RecipeUtterance(entry: entry, samples: RecipeAudio.quantized(samples))
    }
}

/// Silence that is not digital zero: a white-noise floor for padding and under synthesized speech.
///
/// Digital silence flatters energy detectors: any threshold separates speech from exact zeros, so a
/// detector tuned on such files fails on the first real microphone. A floor at a realistic level
/// (−66 dBFS RMS for synthetic speech, the recording's own floor for real clips) keeps the padding
/// honest without audibly changing the speech.
enum NoiseFloor {
    static let syntheticDBFS = -66.0

    /// `frames` samples of white noise at `dBFS` RMS.
    static func samples(frames: Int, dBFS: Double, using random: inout SplitMix64) -> [Float] {
        let level = Float(pow(10, dBFS / 20))
        return NoiseGenerator.white(frames: frames, using: &random).map { $0 * level }
    }

    /// The level of the quietest tenth of a recording's 10 ms frames, in dBFS: its background.
    static func estimate(_ samples: [Float]) -> Double {
        let frame = RecipeAudio.sampleRate / 100
        let levels = stride(from: 0, to: samples.count - frame + 1, by: frame).map {
            RecipeAudio.rms(samples[$0..<$0 + frame])
        }.sorted()
        guard !levels.isEmpty else { return -120 }
        let quiet = levels[levels.count / 10]
        return quiet > 0 ? 20 * log10(quiet) : -120
    }
}
