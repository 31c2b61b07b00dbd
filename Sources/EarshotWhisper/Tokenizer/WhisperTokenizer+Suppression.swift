extension WhisperTokenizer {
    /// Tokens that would write what is not speech — speaker tags, `( SPEAKING FOREIGN LANGUAGE )`,
    /// music signs — while keeping ordinary punctuation (openai/whisper's `non_speech_tokens`): the
    /// first token of each symbol below, alone or after a space, when it is one token (always for the
    /// music signs), and of " -" and " '".
    public var nonSpeechTokens: [Int] {
        var symbols = "\"#()*+/:;<=>@[\\]^_`{|}~「」『』".map(String.init)
        symbols += "<< >> <<< >>> -- --- -( -[ (' (\" (( )) ((( ))) [[ ]] {{ }} ♪♪ ♪♪♪".split(separator: " ").map(String.init)
        let music = "♩♪♫♬♭♮♯".map(String.init)
        var result = Set<Int>()
        for text in [" -", " '"] { if let first = encode(text).first { result.insert(first) } }
        for symbol in symbols + music {
            for tokens in [encode(symbol), encode(" " + symbol)] where tokens.count == 1 || music.contains(symbol) {
                if let first = tokens.first { result.insert(first) }
            }
        }
        return result.sorted()
    }

    /// What faster-whisper suppresses by default (`suppress_tokens=[-1]`): the non-speech tokens and
    /// the special tokens that only a prompt may hold.
    public var defaultSuppressedTokens: [Int] {
        Array(
            Set(nonSpeechTokens + [transcribe, translate, startOfTranscript, startOfPrevious, startOfLanguageModel, noSpeech])
        ).sorted()
    }
}
