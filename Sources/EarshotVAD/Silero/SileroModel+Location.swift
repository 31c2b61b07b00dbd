import EarshotCore

extension SileroModel {
    /// The `--vad-model` / `EARSHOT_VAD_MODEL` value that turns the learned detector off.
    public static let disabled = "none"

    /// Where the model file is, in this order: `explicitPath` (the CLI's `--vad-model`), then
    /// `EARSHOT_VAD_MODEL` in `environment`, then ``defaultRelativePath`` under each of `searchRoots`
    /// or any folder above it. `nil` when no model is found, so the caller can fall back or explain.
    ///
    /// Pass the current directory and the executable's folder as roots: `make models` puts the file in
    /// the repository, and a binary built there (`.build/release/earshot`) or run from there finds it
    /// by walking up. An explicit path or the variable is returned even if it does not exist, so a typo
    /// gives a clear loading error instead of a silent fallback. The value ``disabled`` (`none`), as the
    /// path or the variable, means no model: the search stops and the caller falls back.
    public static func locate(explicitPath: String?, environment: [String: String], searchRoots: [String])
        -> String?
    {
        for given in [explicitPath, environment[environmentVariable]] {
            guard let given, !given.isEmpty else { continue }
            return given == disabled ? nil : given
        }
        return ModelSearch.find(defaultRelativePath, under: searchRoots)
    }
}
