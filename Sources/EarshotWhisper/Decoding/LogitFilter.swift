/// The rules that shape Whisper's next-token distribution before a token is chosen (openai/whisper's
/// `decoding.py`; CTranslate2's `SuppressTokens`, `SuppressTokensBegin` and `ApplyTimestampRules`,
/// in that order): tokens never said (speaker tags, music signs, special tokens), a blank start, and
/// the timestamp grammar — the first token is a timestamp no later than `maxInitialTimestampIndex`,
/// timestamps come in pairs that never go back, and a timestamp is forced when all timestamps
/// together are likelier than any one other token.
struct LogitFilter {
    let tokenizer: WhisperTokenizer
    /// Tokens suppressed at every step.
    let suppressed: [Int]
    /// Tokens suppressed at the first step (a space and end-of-text: no blank transcript).
    let suppressedAtBegin: [Int]
    /// Whether timestamp tokens are decoded (false after `<|notimestamps|>`).
    let timestamps: Bool
    /// The latest timestamp index the first token may be (50: 1.0 s); nil for no limit.
    let maxInitialTimestampIndex: Int?
    /// The latest timestamp index any token may be: a fitted encoder window's last position
    /// (``WhisperEncoderWindow``), so no segment ends in audio the encoder never saw; nil for the whole
    /// window (faster-whisper's rules).
    var latestTimestampIndex: Int? = nil

    /// Applies the rules to `logits` (one row of the vocabulary) of a hypothesis that has generated
    /// `generated` since the prompt. (`scratch`, a row of the vocabulary, is the caller's to lend.)
    func apply(to logits: UnsafeMutablePointer<Float>, generated: ArraySlice<Int>, scratch: UnsafeMutablePointer<Float>) {
        let disabled = LogProbabilities.suppressed
        let vocabulary = tokenizer.count
        let (endOfText, timestampBegin) = (tokenizer.endOfText, tokenizer.timestampBegin)
        for token in suppressed { logits[token] = disabled }
        if generated.isEmpty {
            for token in suppressedAtBegin { logits[token] = disabled }
        }
        guard timestamps else { return }

        logits[tokenizer.noTimestamps] = disabled
        func disable(_ range: Range<Int>) {
            for token in range.clamped(to: 0..<vocabulary) { logits[token] = disabled }
        }
        if let latestTimestampIndex { disable((timestampBegin + latestTimestampIndex + 1)..<vocabulary) }
        guard let last = generated.last else {
            // The first token is a timestamp, and not a late one.
            disable(0..<timestampBegin)
            if let maxInitialTimestampIndex { disable((timestampBegin + maxInitialTimestampIndex + 1)..<vocabulary) }
            return
        }
        if last >= timestampBegin {
            let penultimate = generated.count >= 2 ? generated[generated.endIndex - 2] : last
            if penultimate >= timestampBegin {
                // A closed pair: text or the end must follow.
                disable(timestampBegin..<vocabulary)
                return
            }
            // A segment's end: no text until the next segment's start (or the end), and no going back.
            disable(0..<endOfText)
            disable(timestampBegin..<last)
        } else if let lastTimestamp = generated.last(where: { $0 >= timestampBegin }) {
            // Inside a segment: its end comes strictly after its start.
            disable(timestampBegin..<(lastTimestamp + 1))
        }
        // If all timestamps together are likelier than any other token, a timestamp it is. (Compared on
        // the logits: the log-softmax's normalizer is on both sides, so it need not be computed.)
        let timestamps = vocabulary - timestampBegin
        let timestampMaximum = WhisperKernels.maximum(logits + timestampBegin, count: timestamps)
        let timestampLogTotal = LogProbabilities.logSumExp(
            logits + timestampBegin, count: timestamps, maximum: timestampMaximum)
        let otherMaximum = WhisperKernels.maximum(logits, count: timestampBegin)
        if timestampLogTotal > otherMaximum { disable(0..<timestampBegin) }
    }
}
