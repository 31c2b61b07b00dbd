public import EarshotCore

extension SileroModel {
    /// The `--vad-model` / `EARSHOT_VAD_MODEL` value that turns the learned detector off.
    public static let disabled = "none"

    /// Where the model file is, in this order: `explicitPath` (the CLI's `--vad-model`, which the config
    /// file can also set), then `EARSHOT_VAD_MODEL` in `environment`, then ``relativePath`` in each of
    /// `places` (``ModelSearch``). `nil` when no model is found, so the caller can fall back or explain.
    ///
    /// An explicit path or the variable is returned even if it does not exist, so a typo gives a clear
    /// loading error instead of a silent fallback. The value ``disabled`` (`none`), as the path or the
    /// variable, means no model: the search stops and the caller falls back.
    public static func locate(
        explicitPath: String?, environment: [String: String], places: [ModelSearch.Place]
    ) -> String? {
        let located = ModelSearch.locate(
            given: explicitPath, variable: environmentVariable, environment: environment, relativePath: relativePath,
            in: places)
        return located?.value == disabled ? nil : located?.value
    }
}
