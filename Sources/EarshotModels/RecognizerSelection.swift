public import EarshotCore
public import EarshotRecognizer
public import EarshotWhisper

/// How every command and the service pick their embedded recognizer: the one asked for, else Whisper
/// when its model is found and loads, else PocketSphinx — with one line through `note` saying why, so a
/// user always knows which one ran. Only the default model found by the search falls back: a Whisper
/// recognizer asked for, or a Whisper model the user named (the flag, which a config file also sets, or
/// `EARSHOT_WHISPER_MODEL`), that cannot be loaded is an error (`.modelUnavailable`, exit status 3) naming
/// it, never a change of recognizer a script would not notice.
public enum RecognizerSelection {
    /// The model the options name: `requested` (nil for the default rule), the Whisper folder from
    /// `whisperModel` (the `--whisper-model` flag), `EARSHOT_WHISPER_MODEL` in `environment` or the
    /// search of `places` (``ModelSearch``), decoded with `whisperOptions`, its weights held at
    /// `weights` (else as `EARSHOT_WHISPER_WEIGHTS` in `environment` says, else as stored); PocketSphinx
    /// with `pocketSphinx`.
    public static func resolve(
        _ requested: RecognizerKind?, whisperModel: String? = nil, weights: WhisperModel.WeightPrecision? = nil,
        environment: [String: String], places: [ModelSearch.Place] = ModelSearch.places(),
        whisperOptions: WhisperOptions = WhisperOptions(), pocketSphinx: PocketSphinxConfiguration = .default,
        note: (String) -> Void
    ) throws -> EmbeddedRecognizerModel {
        let precision = try WhisperModel.WeightPrecision.resolve(weights, environment: environment)
        let model = try choose(
            requested, whisperModel: whisperModel, precision: precision, environment: environment, places: places,
            whisperOptions: whisperOptions, pocketSphinx: pocketSphinx, note: note)
        // A language the model does not speak stops the command (exit status 1) before any audio is read,
        // whichever recognizer the rule chose: never a silent English decode.
        if let language = whisperOptions.language { try model.requireLanguage(language) }
        try model.requireTask(whisperOptions.task)
        return model
    }

    private static func choose(
        _ requested: RecognizerKind?, whisperModel: String?, precision: WhisperModel.WeightPrecision,
        environment: [String: String],
        places: [ModelSearch.Place], whisperOptions: WhisperOptions, pocketSphinx: PocketSphinxConfiguration,
        note: (String) -> Void
    ) throws -> EmbeddedRecognizerModel {
        if requested == .pocketsphinx { return EmbeddedRecognizerModel(.pocketSphinx(pocketSphinx)) }
        let directory = WhisperModel.locate(
            explicitPath: whisperModel, environment: environment, places: places)
        guard let directory else {
            if requested == .whisper {
                throw EarshotError(
                    .modelUnavailable, "--recognizer whisper: model not found; \(WhisperModel.installHint)")
            }
            note("no Whisper model found, recognizing with PocketSphinx (\(WhisperModel.installHint))")
            return EmbeddedRecognizerModel(.pocketSphinx(pocketSphinx))
        }
        // Who named the folder, for the error: the flag, else the variable; nil when the search found it.
        let namedBy: String? =
            if let whisperModel, !whisperModel.isEmpty {
                "--whisper-model \(whisperModel)"
            } else if let variable = environment[WhisperModel.environmentVariable], !variable.isEmpty {
                "\(WhisperModel.environmentVariable)=\(variable)"
            } else {
                nil
            }
        if let namedBy, WhisperModel.catalogueModel(named: directory) != nil {
            // A model's name that the search did not find (locate gives the name back).
            throw EarshotError(
                .modelUnavailable,
                "\(namedBy): not installed in \(places.map(\.folder).joined(separator: ", ")); run "
                    + "`earshot models fetch \(directory)` (or `make models` in a checkout)")
        }
        let model: WhisperModel
        do {
            model = try WhisperModel(directory: directory, precision: precision)
        } catch let error as EarshotError {
            if let namedBy {
                throw EarshotError(.modelUnavailable, "\(namedBy): not a Whisper model: \(error.message)")
            }
            guard requested == nil else { throw error }
            note("\(error.message); recognizing with PocketSphinx instead")
            return EmbeddedRecognizerModel(.pocketSphinx(pocketSphinx))
        }
        return EmbeddedRecognizerModel(.whisper(model, whisperOptions))
    }
}
