public import ArgumentParser
import EarshotCore
import EarshotModels
public import EarshotRecognizer
public import EarshotWhisper
import Foundation

extension RecognizerKind: ExpressibleByArgument {}
extension WhisperTask: ExpressibleByArgument {}
extension WhisperModel.WeightPrecision: ExpressibleByArgument {}

/// The embedded recognizer and its settings, for every command that runs one (`transcribe`, `serve`,
/// `bench --embedded`): `--recognizer`, Whisper's model, beam, language and prompt, PocketSphinx's
/// model folder and search preset.
struct RecognizerOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Embedded recognizer: whisper or pocketsphinx. Default: whisper when its model is installed (else "
                + "pocketsphinx, saying so); --decoder or --model-dir choose pocketsphinx.",
            valueName: "name"))
    var recognizer: RecognizerKind?

    @Option(
        name: .customLong("whisper-model"),
        help: ArgumentHelp(
            "A Whisper model by name (\(ModelCatalogue.whisperModels.map(\.name).joined(separator: ", ")), as "
                + "`earshot models` lists them) or a folder in CTranslate2's format (model.bin, config.json, "
                + "vocabulary.txt or .json, tokenizer.json), as faster-whisper uses. Default: "
                + "$\(WhisperModel.environmentVariable), then \(WhisperModel.folderName)/ in the model folders.",
            valueName: "name|dir"))
    var whisperModel: String?

    @Option(
        help: ArgumentHelp(
            "Whisper's weights in memory: stored (as the file holds them; float16 matrices stay float16, "
                + "widened as the kernels read them; an int8 file's stay int8), float32 (widened on load: twice a "
                + "float16 model's memory, the same words, to compare with) or int8 (quantized on load, one scale "
                + "per row, and the decoder's products in integers, as faster-whisper's compute_type int8: half a "
                + "float16 model's memory). Default: $\(WhisperModel.WeightPrecision.environmentVariable), "
                + "else stored.",
            valueName: "stored|float32|int8"))
    var whisperWeights: WhisperModel.WeightPrecision?

    @Option(
        help: ArgumentHelp(
            "Whisper's beam width; 1 decodes greedily. Default: \(WhisperOptions.defaultBeamSize).", valueName: "n"))
    var beamSize: Int?

    @Option(
        help: ArgumentHelp(
            "Text that primes Whisper: names and spellings to expect, or the style of the transcript.",
            valueName: "text"))
    var prompt: String?

    @Option(
        help: ArgumentHelp(
            "Whisper's encoder window: full (30 s, the default) or fitted to the audio (faster, may cost words).",
            valueName: "full|fitted"))
    var encoderWindow: String?

    @Option(
        help: ArgumentHelp(
            "Whisper's encoder window for the final decode begun at the speaker's pause while audio arrives "
                + "live (serve, listen, bench --embedded): fitted (the default: the audio so far, decoded again "
                + "on the full window when that loops or says nothing; about half the decode, about one WER "
                + "point) or full (30 s: a file's words, answered later).",
            valueName: "full|fitted"))
    var liveEncoderWindow: String?

    @Option(
        help: ArgumentHelp(
            "Whisper's encoder window for partial results (serve, listen, bench --embedded): fitted (the "
                + "default), fitted:MINIMUM:MARGIN in 20 ms positions, or full; a fitted one is never followed "
                + "by the full window.",
            valueName: "fitted[:min:margin]"))
    var partialEncoderWindow: String?

    @Option(
        help: ArgumentHelp(
            "Whisper, with word times: audio after a recording's last word up to this long is not decoded "
                + "again (a prompted Whisper repeats its prompt there). Default: off, as faster-whisper; "
                + "\(WhisperOptions.defaultSkippedTail) with --language-model.",
            valueName: "seconds"))
    var skipTail: Double?

    @Option(
        help:
            "PocketSphinx: a model folder laid out as Debian's (en-us/, en-us.lm.bin, cmudict-en-us.dict). Default: $EARSHOT_MODEL_DIR, else /usr/share/pocketsphinx/model/en-us."
    )
    var modelDir: String?

    @OptionGroup var decoderOptions: DecoderOptions

    @Option(
        help: ArgumentHelp(
            "A custom language model (earshot lm build) as [NAME=]DIR, NAME being the folder's name unless given: "
                + "PocketSphinx interpolates its trigram model with the general one and adds its pronunciations; "
                + "Whisper is prompted with and biased toward its vocabulary. serve takes several (repeat it): "
                + "requests choose one by NAME.",
            valueName: "[name=]dir"))
    var languageModel: [String] = []

    @Option(
        help: ArgumentHelp(
            "PocketSphinx: the custom language model's interpolation weight, between 0 and 1. Default: "
                + "\(PocketSphinxConfiguration.defaultCustomLanguageModelWeight).",
            valueName: "w"))
    var languageModelWeight: Double?

    @Option(
        help: ArgumentHelp(
            "Whisper: how strongly the custom language model's words are favoured, in log-probability per "
                + "token, 0 to 5 (0: prompting only). Default: \(WhisperOptions.defaultVocabularyBonus).",
            valueName: "nats"))
    var vocabularyBonus: Double?

    /// The engine asked for, explicitly or through its own settings.
    var requested: RecognizerKind? {
        recognizer ?? (decoderOptions.decoder != nil || modelDir != nil ? .pocketsphinx : nil)
    }

    func validate() throws {
        let whisperOnly = [
            ("--whisper-model", whisperModel != nil), ("--whisper-weights", whisperWeights != nil),
            ("--beam-size", beamSize != nil), ("--prompt", prompt != nil),
            ("--vocabulary-bonus", vocabularyBonus != nil), ("--encoder-window", encoderWindow != nil),
            ("--live-encoder-window", liveEncoderWindow != nil),
            ("--partial-encoder-window", partialEncoderWindow != nil), ("--skip-tail", skipTail != nil),
        ].filter(\.1).map(\.0)
        let pocketSphinxOnly = [("--decoder", decoderOptions.decoder != nil), ("--model-dir", modelDir != nil)]
            .filter(\.1).map(\.0)
        if let option = whisperOnly.first, requested == .pocketsphinx {
            let why =
                recognizer == .pocketsphinx ? "--recognizer pocketsphinx" : pocketSphinxOnly.joined(separator: ", ")
            throw ValidationError("\(option) is a Whisper setting, but \(why) chooses PocketSphinx")
        }
        if let option = pocketSphinxOnly.first, recognizer == .whisper {
            throw ValidationError(
                "\(option) is a PocketSphinx setting; Whisper's search is --beam-size (drop \(option), or use "
                    + "--recognizer pocketsphinx)")
        }
        if languageModelWeight != nil, languageModel.isEmpty {
            throw ValidationError("--language-model-weight needs --language-model")
        }
        if vocabularyBonus != nil, languageModel.isEmpty {
            throw ValidationError("--vocabulary-bonus needs --language-model")
        }
        if let vocabularyBonus, !(0...5).contains(vocabularyBonus) {
            throw ValidationError("--vocabulary-bonus \(vocabularyBonus): expected 0 to 5 (nats per token)")
        }
        if let languageModelWeight, !(languageModelWeight > 0 && languageModelWeight < 1) {
            throw ValidationError("--language-model-weight \(languageModelWeight): expected a weight between 0 and 1")
        }
        // Named by its flag, so a value from a config file is reported with the file and key.
        if let beamSize, !WhisperOptions.beamSizes.contains(beamSize) {
            throw ValidationError(
                "--beam-size \(beamSize): expected \(WhisperOptions.beamSizes.lowerBound) to "
                    + "\(WhisperOptions.beamSizes.upperBound) (1 decodes greedily)")
        }
        if let skipTail, !(skipTail >= 0 && skipTail.isFinite) {
            throw ValidationError("--skip-tail \(skipTail): expected seconds ≥ 0")
        }
        for (flag, text) in [
            ("--encoder-window", encoderWindow), ("--live-encoder-window", liveEncoderWindow),
            ("--partial-encoder-window", partialEncoderWindow),
        ] {
            guard let text else { continue }
            guard let window = WhisperEncoderWindow(text) else {
                throw ValidationError("\(flag) \(text): expected full, fitted or fitted:MINIMUM:MARGIN")
            }
            if let problem = window.problem { throw ValidationError("\(flag) \(text): expected \(problem)") }
        }
        try whisperOptions(language: nil).validate()
    }

    /// Refuses every recognizer option where no embedded recognizer runs (`why` says what runs instead).
    func refuse(_ why: String) throws {
        let given = [
            ("--recognizer", recognizer != nil), ("--whisper-model", whisperModel != nil),
            ("--whisper-weights", whisperWeights != nil),
            ("--beam-size", beamSize != nil), ("--prompt", prompt != nil),
            ("--model-dir", modelDir != nil), ("--decoder", decoderOptions.decoder != nil),
            ("--language-model", !languageModel.isEmpty), ("--language-model-weight", languageModelWeight != nil),
            ("--vocabulary-bonus", vocabularyBonus != nil),
            ("--skip-tail", skipTail != nil),
        ].first(where: \.1)
        if let (option, _) = given { throw ValidationError("\(option) sets the embedded recognizer; \(why)") }
    }

    /// Whisper's decoding options from the flags and the command's `--language` and `--task`.
    func whisperOptions(language: String?, task: WhisperTask = .transcribe) -> WhisperOptions {
        var options = WhisperOptions()
        if let beamSize { options.beamSize = beamSize }
        options.language = language
        options.task = task
        options.initialPrompt = prompt
        options.skippedTail = skipTail
        if let window = encoderWindow.flatMap(WhisperEncoderWindow.init) { options.encoderWindow = window }
        if let window = liveEncoderWindow.flatMap(WhisperEncoderWindow.init) { options.liveEncoderWindow = window }
        if let window = partialEncoderWindow.flatMap(WhisperEncoderWindow.init) {
            options.partialEncoderWindow = window
        }
        return options
    }

    /// PocketSphinx's configuration from the flags.
    var pocketSphinx: PocketSphinxConfiguration {
        let preset = decoderOptions.preset
        return modelDir.map { PocketSphinxConfiguration(modelDirectory: $0, preset: preset) }
            ?? .default(preset: preset)
    }

    /// Loads the model these options choose (Whisper decoding `language` when it is multilingual, and
    /// translating with `task` translate), noting on stderr which one runs when it is not the one the
    /// default rule would pick.
    func resolve(language: String? = nil, task: WhisperTask = .transcribe) throws -> EmbeddedRecognizerModel {
        let model = try RecognizerSelection.resolve(
            requested, whisperModel: whisperModel, weights: whisperWeights,
            environment: ProcessInfo.processInfo.environment,
            whisperOptions: whisperOptions(language: language, task: task), pocketSphinx: pocketSphinx
        ) { line in
            Messages.write(line, level: "note")
        }
        if recognizer == nil, requested == .pocketsphinx {
            // A PocketSphinx setting chose the recognizer: say so, as the default rule's choices are said.
            let chosenBy = decoderOptions.decoder != nil ? "--decoder" : "--model-dir"
            Messages.write("\(chosenBy) is a PocketSphinx setting: recognizing with PocketSphinx", level: "note")
        }
        if case .pocketSphinx(let configuration) = model.engine { try configuration.validate() }
        guard let given = try namedLanguageModels().first else { return model }
        guard languageModel.count == 1 else {
            throw ValidationError("--language-model: give one custom language model (serve takes several)")
        }
        return try model.withCustomLanguageModel(
            given.model, named: given.name, weight: languageModelWeight, vocabularyBonus: vocabularyBonus)
    }

    /// Each --language-model as `[NAME=]DIR`: the name requests and model ids use (the folder's name
    /// unless given), and the model.
    func namedLanguageModels() throws -> [(name: String, model: CustomLanguageModel)] {
        var seen: Set<String> = []
        return try languageModel.map { given in
            let (name, directory) = Self.nameAndDirectory(given)
            guard !directory.isEmpty, !name.isEmpty, seen.insert(name).inserted else {
                throw ValidationError(
                    "--language-model \(given): expected [NAME=]DIR, each NAME (the folder's name unless given) "
                        + "once, of letters, digits, - _ .")
            }
            return (name, try CustomLanguageModel(directory: directory))
        }
    }

    /// `NAME=DIR` when what stands before the first `=` is a name (letters, digits, - _ .); else the
    /// whole text is the folder, named after its last component.
    static func nameAndDirectory(_ given: String) -> (name: String, directory: String) {
        let isNameCharacter = { (c: Character) in c.isLetter || c.isNumber || c == "-" || c == "_" || c == "." }
        if let equals = given.firstIndex(of: "="), equals != given.startIndex,
            given[..<equals].allSatisfy(isNameCharacter)
        {
            return (String(given[..<equals]), String(given[given.index(after: equals)...]))
        }
        let trimmed = given.hasSuffix("/") && given.count > 1 ? String(given.dropLast()) : given
        return (String((trimmed as NSString).lastPathComponent.filter(isNameCharacter)), given)
    }

    /// The models a service serves: the one these options choose, first, and PocketSphinx beside a
    /// Whisper default, for grammars (Speech to Text Custom) and clients that name it.
    /// With custom language models, each of those models again with each one, `ID+NAME`, after them.
    func serviceModels() throws -> [EmbeddedRecognizerModel] {
        let custom = try namedLanguageModels()
        var options = self
        options.languageModel = []
        let primary = try options.resolve()
        var bases = [primary]
        if primary.kind == .whisper {
            try pocketSphinx.validate()
            bases.append(EmbeddedRecognizerModel(.pocketSphinx(pocketSphinx)))
        }
        return try bases
            + custom.flatMap { name, model in
                try bases.map {
                    try $0.withCustomLanguageModel(
                        model, named: name, weight: languageModelWeight, vocabularyBonus: vocabularyBonus)
                }
            }
    }
}
