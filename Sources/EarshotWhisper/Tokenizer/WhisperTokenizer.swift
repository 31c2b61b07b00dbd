import EarshotCore

/// Whisper's tokens: the vocabulary of `vocabulary.txt` (one token per line, its id the line number)
/// or `vocabulary.json` (a JSON list, its id the index), the merges of `tokenizer.json` for turning a prompt into tokens, and the special tokens found by
/// name, so English-only and multilingual vocabularies (whose special ids differ by one) both work.
public struct WhisperTokenizer: Sendable {
    /// Token strings in the byte-level alphabet, by id.
    let tokens: [String]
    private let ids: [String: Int]
    private let encoder: BytePairEncoder

    /// `<|endoftext|>`: ends a transcription.
    public let endOfText: Int
    /// `<|startoftranscript|>`.
    public let startOfTranscript: Int
    /// `<|startofprev|>`: precedes a prompt (previous text).
    public let startOfPrevious: Int
    /// `<|startoflm|>`.
    public let startOfLanguageModel: Int
    /// `<|transcribe|>` and `<|translate|>`.
    public let transcribe: Int
    public let translate: Int
    /// `<|nospeech|>` (`<|nocaptions|>` in the first models): its probability is the no-speech probability.
    public let noSpeech: Int
    /// `<|notimestamps|>`.
    public let noTimestamps: Int
    /// `<|0.00|>`: timestamp tokens follow, one per 20 ms.
    public let timestampBegin: Int
    /// The languages the model transcribes, by code with their tokens (`<|en|>` …), in vocabulary order:
    /// those of `config.json`'s `lang_ids` for a multilingual model (every language token of its
    /// vocabulary), English alone for an English-only one.
    public let languages: [(code: String, token: Int)]
    /// Whether the model transcribes many languages (its vocabulary has 51 865 tokens or more, as
    /// openai/whisper decides) rather than English only.
    public let isMultilingual: Bool

    /// Reads the vocabulary's tokens (by id) and `tokenizer.json`'s merges; `languageIDs` are
    /// `config.json`'s `lang_ids` (nil when absent). Errors name the file at fault.
    init(
        tokens: [String], vocabularyPath: String, merges: [String], languageIDs: [Int]?, configurationPath: String
    ) throws {
        self.tokens = tokens
        var ids: [String: Int] = [:]
        ids.reserveCapacity(tokens.count)
        for (id, token) in tokens.enumerated() where ids[token] == nil { ids[token] = id }
        self.ids = ids
        encoder = BytePairEncoder(merges: merges)
        func special(_ names: String...) throws -> Int {
            for name in names { if let id = ids[name] { return id } }
            throw EarshotError(
                .modelUnavailable, "\(vocabularyPath): expected the special token \(names[0]); not found")
        }
        endOfText = try special("<|endoftext|>")
        startOfTranscript = try special("<|startoftranscript|>")
        startOfPrevious = try special("<|startofprev|>")
        startOfLanguageModel = try special("<|startoflm|>")
        transcribe = try special("<|transcribe|>")
        translate = try special("<|translate|>")
        noSpeech = try special("<|nospeech|>", "<|nocaptions|>")
        noTimestamps = try special("<|notimestamps|>")
        timestampBegin = try special("<|0.00|>")
        guard timestampBegin == tokens.count - 1501 else {
            throw EarshotError(
                .modelUnavailable,
                "\(vocabularyPath): expected 1 501 timestamp tokens <|0.00|> … <|30.00|> at the end; found "
                    + "\(tokens.count - timestampBegin)")
        }
        isMultilingual = tokens.count >= 51865
        languages = try Self.languages(
            tokens: tokens, in: startOfTranscript + 1..<min(transcribe, translate), multilingual: isMultilingual,
            languageIDs: languageIDs, vocabularyPath: vocabularyPath, configurationPath: configurationPath)
    }

    /// The vocabulary's language tokens (`<|xx|>` between `<|startoftranscript|>` and the task tokens),
    /// checked against `lang_ids`: every id must be one of them, and a multilingual model's list must
    /// name them all (its language detection weighs exactly those). An English-only model speaks `en`.
    private static func languages(
        tokens: [String], in range: Range<Int>, multilingual: Bool, languageIDs: [Int]?, vocabularyPath: String,
        configurationPath: String
    ) throws -> [(code: String, token: Int)] {
        let inVocabulary = range.compactMap { id -> (code: String, token: Int)? in
            let token = tokens[id]
            guard token.hasPrefix("<|"), token.hasSuffix("|>"), token.count > 4 else { return nil }
            return (String(token.dropFirst(2).dropLast(2)), id)
        }
        let known = Set(inVocabulary.map(\.token))
        if let languageIDs {
            if let stray = languageIDs.first(where: { !known.contains($0) }) {
                let found = (0..<tokens.count).contains(stray) ? "'\(tokens[stray])'" : "no token"
                throw EarshotError(
                    .modelUnavailable,
                    "\(configurationPath): lang_ids: \(stray) is \(found) in \(vocabularyPath); expected ids of "
                        + "its \(inVocabulary.count) language tokens (\(range.lowerBound)…\(range.upperBound - 1))")
            }
            if multilingual, Set(languageIDs) != known || languageIDs.count != known.count {
                throw EarshotError(
                    .modelUnavailable,
                    "\(configurationPath): lang_ids lists \(languageIDs.count) languages but \(vocabularyPath) has "
                        + "\(inVocabulary.count) language tokens; expected each once")
            }
        }
        guard multilingual else {
            guard let english = inVocabulary.first(where: { $0.code == "en" }) else {
                throw EarshotError(
                    .modelUnavailable, "\(vocabularyPath): expected the language token <|en|>; not found")
            }
            return [english]
        }
        return inVocabulary
    }

    /// The language codes, comma-separated, for messages: every one for a short list, else the first ten.
    public var languageList: String {
        let codes = languages.map(\.code)
        return codes.count <= 12 ? codes.joined(separator: ", ") : codes.prefix(10).joined(separator: ", ") + ", …"
    }

    /// The number of tokens.
    public var count: Int { tokens.count }

    /// The tokens that begin a transcription: `<|startoftranscript|>`, then for a multilingual model
    /// the language and `<|transcribe|>` or `<|translate|>` (English-only models take neither, speak
    /// only `en` and do not translate). A language the model does not speak is refused, naming those it
    /// does.
    public func startSequence(language: String?, task: WhisperTask = .transcribe) throws -> [Int] {
        if task == .translate, !isMultilingual {
            throw EarshotError(
                .invalidParameter,
                "task translate: this Whisper model transcribes English only; translation needs a multilingual model")
        }
        let code = language ?? "en"
        guard let token = languages.first(where: { $0.code == code })?.token else {
            throw EarshotError(
                .invalidParameter,
                "language '\(code)': "
                    + (isMultilingual
                        ? "this Whisper model transcribes \(languages.count) languages (\(languageList))"
                        : "this Whisper model transcribes English only (en)"))
        }
        return isMultilingual
            ? [startOfTranscript, token, task == .translate ? translate : transcribe] : [startOfTranscript]
    }

    /// The token ids of `text` (a prompt's words), by byte-level BPE.
    public func encode(_ text: String) -> [Int] {
        encoder.encode(text).compactMap { ids[$0] }
    }

    /// The text of `tokens`, special and timestamp tokens left out.
    public func decode(_ tokens: some Sequence<Int>) -> String {
        String(decoding: bytes(of: tokens), as: UTF8.self)
    }

    /// The UTF-8 bytes `tokens` spell, special and timestamp tokens left out.
    func bytes(of tokens: some Sequence<Int>) -> [UInt8] {
        var bytes: [UInt8] = []
        for token in tokens where token < endOfText {
            bytes += ByteLevelAlphabet.decode(self.tokens[token]) ?? []
        }
        return bytes
    }

    /// Whether a token is text (not a special or timestamp token).
    @inline(__always) func isText(_ token: Int) -> Bool { token < endOfText }

    /// The id of a token string, if the vocabulary has it.
    func id(of token: String) -> Int? { ids[token] }
}
