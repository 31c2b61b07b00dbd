import EarshotCore
import Foundation

/// Where PocketSphinx finds its model, and the decoder settings worth changing (named sets of the
/// search settings are the ``Preset``s).
///
/// The defaults are the US English model Debian ships in `pocketsphinx-en-us`
/// (`/usr/share/pocketsphinx/model/en-us`). ``default`` honours `EARSHOT_MODEL_DIR`, a directory laid
/// out the same way (`en-us/`, `en-us.lm.bin`, `cmudict-en-us.dict`), so a deployment can ship its own
/// model without code changes. Paths are checked by ``validate()``, which the recognizer calls before
/// loading anything, so a missing model is reported by name instead of by a crash inside PocketSphinx.
public struct PocketSphinxConfiguration: Sendable, Hashable {
    /// The model directory of Debian's `pocketsphinx-en-us` package.
    public static let debianModelDirectory = "/usr/share/pocketsphinx/model/en-us"
    /// The environment variable naming a model directory that replaces ``debianModelDirectory``.
    public static let modelDirectoryVariable = "EARSHOT_MODEL_DIR"

    /// The acoustic model directory (`-hmm`): `mdef`, `means`, `variances`, `transition_matrices`, and
    /// `sendump` or `mixture_weights`.
    public var acousticModel: String
    /// The n-gram language model (`-lm`), ARPA text or binary.
    public var languageModel: String
    /// The pronunciation dictionary (`-dict`).
    public var dictionary: String
    /// Beam width of the main search (`-beam`), as a probability in (0, 1]; smaller keeps more
    /// hypotheses alive, which is slower and rarely more accurate. PocketSphinx's default is 1e-48.
    public var beam: Double
    /// Beam width for word exits (`-wbeam`), as a probability in (0, 1]. PocketSphinx's default is 7e-29.
    public var wordBeam: Double
    /// The most HMMs kept active in a frame (`-maxhmmpf`), or -1 for no limit. PocketSphinx's default
    /// is 30 000.
    public var maxActiveHMMs: Int
    /// Acoustic scores are computed in one frame of this many and reused in the others (`-ds`), ≥ 1.
    /// PocketSphinx's default is 1 (every frame).
    public var frameDownsampling: Int
    /// Gaussians per mixture scored in full (`-topn`), ≥ 1. PocketSphinx's default is 4.
    public var topGaussians: Int
    /// Frames of phone-loop lookahead that prune word entries (`-pl_window`), 0 (off) to 10.
    /// PocketSphinx's default is 5.
    public var lookaheadWindow: Int
    /// Beam of the lookahead's phone loop (`-pl_beam`), as a probability in (0, 1]. PocketSphinx's
    /// default is 1e-10.
    public var lookaheadBeam: Double
    /// Whether PocketSphinx's front end drops what its own VAD calls silence (`-remove_silence`).
    /// Default false, unlike PocketSphinx: in 5prealpha the dropped frames vanish from the word times,
    /// so every word after a pause comes early (1.3 s after 2 s of silence in the LibriVox clips), and
    /// an utterance holding a pause is numbered from its last speech run (every word 10 s late in the
    /// clips joined). Earshot's own VAD and endpointer trim silence before the recognizer; kept, it gave
    /// the same hypotheses on the five LibriVox clips.
    public var removeSilence: Bool
    /// Whether PocketSphinx runs its second, flat-lexicon search over the whole utterance when it ends
    /// (`-fwdflat`). Default false, unlike PocketSphinx. Measured on the 76 segments of the long corpus
    /// (2 166 words, one decoder carrying its cepstral mean, as `transcribe --jobs 1`): without it the
    /// WER is 0.302 against 0.323, the work left when an utterance ends drops from a median 0.57 s
    /// (p95 0.81 s, max 1.2 s) to 0.02 s (p95 0.10 s), and the decoding CPU from 340 to 279 s. That work
    /// is what a live user waits for after the endpoint (`Benchmarks/recognizer/flat_pass.py`). Grammar
    /// searches never use it.
    public var flatPass: Bool
    /// A custom language model directory (`earshot lm build`, ``CustomLanguageModel``): its
    /// pronunciations join the dictionary and its trigram model is interpolated with ``languageModel``.
    public var customLanguageModel: CustomLanguageModel?
    /// The custom model's interpolation weight, in (0, 1); the general model gets the rest.
    public var customLanguageModelWeight: Double = Self.defaultCustomLanguageModelWeight
    public static let defaultCustomLanguageModelWeight = 0.2

    /// A configuration with explicit model paths and the search settings of `preset`; the defaults are
    /// Debian's en-us model and ``Preset/default``.
    public init(
        acousticModel: String = debianModelDirectory + "/en-us",
        languageModel: String = debianModelDirectory + "/en-us.lm.bin",
        dictionary: String = debianModelDirectory + "/cmudict-en-us.dict",
        preset: Preset = .default,
        removeSilence: Bool = false,
        flatPass: Bool = false
    ) {
        self.acousticModel = acousticModel
        self.languageModel = languageModel
        self.dictionary = dictionary
        (beam, wordBeam, maxActiveHMMs, frameDownsampling, topGaussians, lookaheadWindow, lookaheadBeam) =
            preset.search
        self.removeSilence = removeSilence
        self.flatPass = flatPass
    }

    /// The model in `directory`, laid out as Debian's: `en-us/`, `en-us.lm.bin`, `cmudict-en-us.dict`.
    public init(modelDirectory directory: String, preset: Preset = .default) {
        self.init(
            acousticModel: directory + "/en-us",
            languageModel: directory + "/en-us.lm.bin",
            dictionary: directory + "/cmudict-en-us.dict",
            preset: preset)
    }

    /// The model in `$EARSHOT_MODEL_DIR` when that variable is set and not empty, else Debian's en-us
    /// model, searched with ``Preset/default``.
    public static var `default`: PocketSphinxConfiguration { `default`(preset: .default) }

    /// The model ``default`` names, searched with `preset`.
    public static func `default`(preset: Preset) -> PocketSphinxConfiguration {
        let override = ProcessInfo.processInfo.environment[modelDirectoryVariable] ?? ""
        return PocketSphinxConfiguration(
            modelDirectory: override.isEmpty ? debianModelDirectory : override, preset: preset)
    }

    /// Checks that every model file is present and readable and that the beams are probabilities.
    ///
    /// The acoustic model's files are checked one by one because PocketSphinx exits the process,
    /// rather than failing, when the mixture weights are missing.
    public func validate() throws {
        try Self.requireDirectory(acousticModel, what: "acoustic model directory")
        for file in ["mdef", "means", "variances", "transition_matrices"] {
            try Self.requireFile(acousticModel + "/" + file, what: "acoustic model file")
        }
        let weights = ["sendump", "mixture_weights"].map { acousticModel + "/" + $0 }
        if !weights.contains(where: Self.isReadableFile) {
            throw EarshotError(
                .modelUnavailable,
                "PocketSphinx acoustic model file missing: expected \(weights[0]) or \(weights[1]); \(Self.remedy)")
        }
        try Self.requireFile(languageModel, what: "language model")
        try Self.requireFile(dictionary, what: "dictionary")
        try validateSearch()
        if customLanguageModel != nil {
            guard customLanguageModelWeight > 0, customLanguageModelWeight < 1 else {
                throw EarshotError(
                    .invalidParameter,
                    "customLanguageModelWeight is \(customLanguageModelWeight); expected a weight between 0 and 1")
            }
        }
    }

    /// Checks the search settings alone (no model files): each named by its property, with its range.
    public func validateSearch() throws {
        for (name, value) in [("beam", beam), ("wordBeam", wordBeam), ("lookaheadBeam", lookaheadBeam)]
        where !(value > 0 && value <= 1) {
            throw EarshotError(.invalidParameter, "\(name) is \(value); expected a probability in (0, 1]")
        }
        for (name, value, range, expected) in [
            ("maxActiveHMMs", maxActiveHMMs, -1...Int(Int32.max), "-1 (no limit) or a count ≥ 0"),
            ("frameDownsampling", frameDownsampling, 1...100, "an integer from 1 to 100"),
            ("topGaussians", topGaussians, 1...256, "an integer from 1 to 256"),
            ("lookaheadWindow", lookaheadWindow, 0...10, "an integer from 0 (off) to 10"),
        ] where !range.contains(value) {
            throw EarshotError(.invalidParameter, "\(name) is \(value); expected \(expected)")
        }
    }

    /// The PocketSphinx command line for this configuration.
    var arguments: [String] {
        ["-hmm", acousticModel, "-lm", languageModel, "-dict", dictionary]
            + searchArguments.flatMap { [$0.flag, $0.value] }
            + ["-remove_silence", removeSilence ? "yes" : "no", "-fwdflat", flatPass ? "yes" : "no"]
    }

    /// The search settings as PocketSphinx flags and values, in a fixed order: `-beam 1e-48`, ….
    public var searchArguments: [(flag: String, value: String)] {
        [
            ("-beam", "\(beam)"), ("-wbeam", "\(wordBeam)"), ("-maxhmmpf", "\(maxActiveHMMs)"),
            ("-ds", "\(frameDownsampling)"), ("-topn", "\(topGaussians)"), ("-pl_window", "\(lookaheadWindow)"),
            ("-pl_beam", "\(lookaheadBeam)"),
        ]
    }

    private static let remedy =
        "install the Debian package pocketsphinx-en-us, or set \(modelDirectoryVariable) to a directory "
        + "holding en-us/, en-us.lm.bin and cmudict-en-us.dict"

    private static func requireDirectory(_ path: String, what: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
            FileManager.default.isReadableFile(atPath: path)
        else {
            throw EarshotError(.modelUnavailable, "PocketSphinx \(what) not found: \(path); \(remedy)")
        }
    }

    private static func requireFile(_ path: String, what: String) throws {
        guard isReadableFile(path) else {
            throw EarshotError(.modelUnavailable, "PocketSphinx \(what) not found: \(path); \(remedy)")
        }
    }

    private static func isReadableFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isReadableFile(atPath: path)
    }
}
