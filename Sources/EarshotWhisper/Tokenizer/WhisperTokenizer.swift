import EarshotCore

/// Whisper's tokens: the vocabulary of `vocabulary.txt` (one token per line, its id the line number),
/// the merges of `tokenizer.json` for turning a prompt into tokens, and the special tokens found by
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
    /// Language tokens (`<|en|>` …) by code, in vocabulary order.
    public let languages: [(code: String, token: Int)]
    /// Whether the model transcribes many languages (its vocabulary has 51 865 tokens or more, as
    /// openai/whisper decides) rather than English only.
    public let isMultilingual: Bool

    /// Reads `vocabulary.txt` and `tokenizer.json`'s merges. Errors name the file.
    init(vocabulary: String, vocabularyPath: String, merges: [String]) throws {
        var tokens = vocabulary.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if tokens.last == "" { tokens.removeLast() }
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
        languages = (startOfTranscript + 1..<translate).compactMap { id in
            let token = tokens[id]
            guard token.hasPrefix("<|"), token.hasSuffix("|>") else { return nil }
            return (String(token.dropFirst(2).dropLast(2)), id)
        }
        isMultilingual = tokens.count >= 51865
    }

    /// The number of tokens.
    public var count: Int { tokens.count }

    /// The tokens that begin a transcription: `<|startoftranscript|>`, then for a multilingual model
    /// the language and `<|transcribe|>` (English-only models take neither).
    public func startSequence(language: String?) throws -> [Int] {
        guard isMultilingual else { return [startOfTranscript] }
        let code = language ?? "en"
        guard let token = languages.first(where: { $0.code == code })?.token else {
            throw EarshotError(
                .invalidParameter,
                "language '\(code)': expected one of the model's \(languages.count) language codes "
                    + "(\(languages.prefix(8).map(\.code).joined(separator: ", ")), …)")
        }
        return [startOfTranscript, token, transcribe]
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
