import EarshotCore
import Foundation

/// One window's decoding: from a prompt to the likeliest continuation, by greedy search, beam search
/// or sampling, as CTranslate2's `Whisper.generate` does it for faster-whisper (the reference Earshot
/// is checked against):
///
/// - The prompt's tokens before the last of `<|startoftranscript|>` … `<|notimestamps|>` are run in one
///   pass that only fills the caches; decoding starts from that last token, at most
///   `min(textContext / 2, textContext − start)` steps, the end-of-text step included.
/// - The no-speech probability is `<|nospeech|>`'s softmax over the first step's raw logits.
/// - Each step's logits go through the ``LogitFilter``, then a log-softmax (summed as
///   ``LogProbabilities`` does); greedy search takes the first largest.
/// - Beam search keeps K beams, ranks the 2K best continuations of all of them by cumulative
///   log-probability, lets an end-of-text candidate finish a hypothesis and fills its place with the
///   next candidate that does not end, and stops once `round(K · patience)` hypotheses have finished;
///   the winner has the best `sum / length^lengthPenalty` (length without end-of-text).
/// - Sampling draws `count` sequences side by side from `softmax(log p / T)`, scored by their
///   untempered log-probabilities.
/// - With a ``VocabularyBias``, every strategy ranks and draws by log-probability plus the bias; the
///   log-probabilities reported stay the model's.
struct WhisperSearch {
    /// What a search found.
    struct Hypothesis: Equatable {
        /// Tokens after the prompt, without end-of-text.
        var tokens: [Int]
        /// Σ log p of every chosen token, end-of-text included.
        var logProbability: Float
        /// What a ``VocabularyBias`` added to the hypothesis' tokens (0 without one).
        var bias: Float
        /// `(logProbability + bias) / tokens.count^lengthPenalty`: what hypotheses are ranked by.
        var score: Float
        /// The log-probability of each token of `tokens`.
        var tokenLogProbabilities: [Float]
    }

    struct Result {
        /// Best first.
        var hypotheses: [Hypothesis]
        var noSpeechProbability: Float
        /// Whether the search stopped because its best hypothesis was looping (``endsInLoop(_:tokenizer:)``), when
        /// asked to.
        var looped = false
    }

    enum Strategy: Equatable {
        case greedy
        case beam(size: Int, patience: Double)
        case sample(temperature: Double, count: Int, seed: UInt64)
    }

    let decoder: WhisperDecoder
    /// A variable so that a fitted window can limit its timestamps (``LogitFilter/latestTimestampIndex``).
    var filter: LogitFilter
    let bias: VocabularyBias?
    let lengthPenalty: Double
    /// Asked before each step; a search that is cancelled throws `.canceled`.
    let isCancelled: () -> Bool
    /// Scratch rows of the vocabulary: log-probabilities, per hypothesis.
    private let scratch: UnsafeMutablePointer<Float>
    private let logProbabilities: UnsafeMutablePointer<Float>
    /// Log-probabilities plus the bias, per hypothesis (the log-probabilities themselves without a bias).
    private let scores: UnsafeMutablePointer<Float>

    init(
        decoder: WhisperDecoder, filter: LogitFilter, bias: VocabularyBias? = nil, lengthPenalty: Double,
        isCancelled: @escaping () -> Bool = { false }
    ) {
        self.isCancelled = isCancelled
        self.decoder = decoder
        self.filter = filter
        self.bias = bias
        self.lengthPenalty = lengthPenalty
        let vocabulary = decoder.model.dimensions.vocabularySize
        scratch = .allocate(capacity: vocabulary)
        logProbabilities = .allocate(capacity: decoder.capacity * vocabulary)
        scores = bias == nil ? logProbabilities : .allocate(capacity: decoder.capacity * vocabulary)
    }

    func deallocate() {
        scratch.deallocate()
        if bias != nil { scores.deallocate() }
        logProbabilities.deallocate()
    }

    /// Decodes after `prompt` on the encoding the decoder has ``WhisperDecoder/begin(encoderOutput:)``-ed.
    ///
    /// With `forced` tokens (greedy search only), the decode continues them: they are run in one pass
    /// after the start token, as if generated, and the hypothesis holds only what follows them (the
    /// `prefix` of faster-whisper's `transcribe`, used for partial results that extend the text two
    /// decodes agreed on).
    ///
    /// With `stopsOnLoop`, the search ends as soon as its best hypothesis loops
    /// (``endsInLoop(_:tokenizer:)``; sampling ends each sample at its loop) and says so: for a decode
    /// that will be done again another way when it loops (a fitted window's, or any window's at the next
    /// temperature), every step after the loop is seen is wasted.
    func run(
        prompt: [Int], strategy: Strategy, maxSteps requested: Int? = nil, forced: [Int] = [],
        stopsOnLoop: Bool = false
    ) throws -> Result {
        if !forced.isEmpty, strategy != .greedy {
            throw EarshotError(.invalidParameter, "whisper: a forced prefix is decoded by greedy search only")
        }
        let tokenizer = filter.tokenizer
        let vocabulary = tokenizer.count
        let context = decoder.model.dimensions.textContext
        // The start token: the last of the prompt's run of sot … notimestamps.
        let startIndex = prompt.firstIndex(of: tokenizer.startOfTranscript) ?? 0
        var last = startIndex
        while last + 1 < prompt.count, (tokenizer.startOfTranscript...tokenizer.noTimestamps).contains(prompt[last + 1])
        {
            last += 1
        }
        let start = last
        var noSpeech: Float = 0
        if start > 0 {
            // Multilingual prompts: <|startoftranscript|> is not the start token; its logits give the
            // no-speech probability.
            let row = start > startIndex ? [startIndex] : []
            decoder.run(tokens: Array(prompt[..<start]), perHypothesis: start, logitRows: row)
            if !row.isEmpty {
                noSpeech = LogProbabilities.probability(of: tokenizer.noSpeech, decoder.logits, count: vocabulary)
            }
        }
        let limit = min(context / 2, context - start - forced.count)
        guard limit > 0 else {
            throw EarshotError(.invalidParameter, "whisper: a forced prefix of \(forced.count) tokens leaves no room")
        }
        let maxSteps = min(requested ?? limit, limit)
        decoder.run(tokens: [prompt[start]], perHypothesis: 1, logitRows: [0])
        if start == startIndex {
            noSpeech = LogProbabilities.probability(of: tokenizer.noSpeech, decoder.logits, count: vocabulary)
        }
        if !forced.isEmpty {
            try checkCancellation()
            decoder.run(tokens: forced, perHypothesis: forced.count, logitRows: [forced.count - 1])
        }
        switch strategy {
        case .greedy:
            let (hypothesis, looped) = try greedy(maxSteps: maxSteps, after: forced, stopsOnLoop: stopsOnLoop)
            return Result(hypotheses: [hypothesis], noSpeechProbability: noSpeech, looped: looped)
        case .beam(let size, let patience):
            let (hypotheses, looped) = try beam(
                size: size, patience: patience, maxSteps: maxSteps, stopsOnLoop: stopsOnLoop)
            return Result(hypotheses: hypotheses, noSpeechProbability: noSpeech, looped: looped)
        case .sample(let temperature, let count, let seed):
            let (hypotheses, looped) = try sample(
                temperature: temperature, count: count, seed: seed, maxSteps: maxSteps, stopsOnLoop: stopsOnLoop)
            return Result(hypotheses: hypotheses, noSpeechProbability: noSpeech, looped: looped)
        }
    }

    /// Whether `tokens` end in a loop: the same run of one to ``loopUnitLimit`` tokens said
    /// ``loopRepeats`` times in a row, at least ``loopTokens`` tokens in all ("5, 5, 5, 5, 5,", " M is. M
    /// is. M is. M is."). Whisper's failure on a window it cannot place an end in; speech seldom says a
    /// phrase four times over, and a decode that stops here is done again, not dropped.
    ///
    /// With a `tokenizer`, two text tokens that differ only by a leading space count as the same: a loop
    /// that begins the text says its first word without the space and every repeat with it ("5, 5, 5,
    /// 5," is `5` `,` ` 5` `,` …), which would otherwise go on a fifth time before it is seen.
    static func endsInLoop(_ tokens: [Int], tokenizer: WhisperTokenizer? = nil) -> Bool {
        func same(_ a: Int, _ b: Int) -> Bool {
            guard a != b else { return true }
            guard let tokenizer, a < tokenizer.endOfText, b < tokenizer.endOfText else { return false }
            func spaceless(_ token: Int) -> Substring {
                let text = tokenizer.decode([token])
                return text.hasPrefix(" ") ? text.dropFirst() : text[...]
            }
            return spaceless(a) == spaceless(b)
        }
        for unit in 1...loopUnitLimit {
            let span = unit * loopRepeats
            guard span <= tokens.count else { break }
            guard span >= loopTokens else { continue }
            let tail = tokens[(tokens.count - span)...]
            let first = tail.startIndex
            if tail.indices.allSatisfy({ $0 < first + unit || same(tokens[$0], tokens[$0 - unit]) }) { return true }
        }
        return false
    }

    /// The longest run ``endsInLoop(_:tokenizer:)`` looks for, in tokens.
    static let loopUnitLimit = 8
    /// How many times in a row a run is said before ``endsInLoop(_:tokenizer:)`` calls it a loop.
    static let loopRepeats = 4
    /// The fewest tokens a loop spans: a word said four times is not yet one ("no no no no").
    static let loopTokens = 8

    private func finish(_ tokens: [Int], _ logProbability: Float, bias: Float, _ perToken: [Float]) -> Hypothesis {
        let length = Float(tokens.count)
        let divisor = tokens.isEmpty ? 1 : (lengthPenalty == 1 ? length : Float(pow(Double(length), lengthPenalty)))
        return Hypothesis(
            tokens: tokens, logProbability: logProbability, bias: bias,
            score: (bias == 0 ? logProbability : logProbability + bias) / divisor, tokenLogProbabilities: perToken)
    }

    /// Filters row `row` of the decoder's logits for a hypothesis that generated `generated`, and
    /// writes its log-probabilities to `logProbabilities` row `row` and, with a bias, what the
    /// search ranks by to `scores` row `row`.
    private func rows(_ row: Int, generated: [Int]) -> (
        logProbabilities: UnsafeMutablePointer<Float>, scores: UnsafeMutablePointer<Float>
    ) {
        let vocabulary = filter.tokenizer.count
        let logits = decoder.logits + row * vocabulary
        filter.apply(to: logits, generated: generated[...], scratch: scratch)
        let output = logProbabilities + row * vocabulary
        LogProbabilities.logSoftmax(logits, count: vocabulary, into: output)
        guard let bias else { return (output, output) }
        let biased = scores + row * vocabulary
        biased.update(from: output, count: vocabulary)
        bias.apply(to: biased, count: vocabulary, generated: generated[...])
        return (output, biased)
    }

    private func checkCancellation() throws {
        if isCancelled() { throw EarshotError(.canceled, "whisper: decoding cancelled") }
    }

    /// `forced`: tokens already run, which the filter counts as generated.
    private func greedy(maxSteps: Int, after forced: [Int], stopsOnLoop: Bool) throws -> (Hypothesis, looped: Bool) {
        let vocabulary = filter.tokenizer.count
        var tokens: [Int] = []
        var generated = forced
        var perToken: [Float] = []
        var sum: Float = 0
        var biasSum: Float = 0
        for step in 0..<maxSteps {
            try checkCancellation()
            let (row, scores) = rows(0, generated: generated)
            var best = 0
            for token in 1..<vocabulary where scores[token] > scores[best] { best = token }
            sum += row[best]
            if bias != nil { biasSum += scores[best] - row[best] }
            if best == filter.tokenizer.endOfText { break }
            tokens.append(best)
            generated.append(best)
            perToken.append(row[best])
            if stopsOnLoop, Self.endsInLoop(tokens, tokenizer: filter.tokenizer) {
                return (finish(tokens, sum, bias: biasSum, perToken), true)
            }
            if step + 1 == maxSteps { break }
            decoder.run(tokens: [best], perHypothesis: 1, logitRows: [0])
        }
        return (finish(tokens, sum, bias: biasSum, perToken), false)
    }

    private func beam(size: Int, patience: Double, maxSteps: Int, stopsOnLoop: Bool) throws -> (
        [Hypothesis], looped: Bool
    ) {
        let tokenizer = filter.tokenizer
        let vocabulary = tokenizer.count
        let candidates = 2 * size
        let wanted = max(1, Int((Double(size) * patience).rounded()))
        struct Beam {
            var tokens: [Int]
            var perToken: [Float]
            /// Σ log p, and Σ (log p + bias): what beams are ranked by.
            var logProbability: Float
            var score: Float
        }
        var beams = [Beam(tokens: [], perToken: [], logProbability: 0, score: 0)]
        var finished: [Hypothesis] = []
        for step in 0..<maxSteps {
            try checkCancellation()
            let isLast = step + 1 == maxSteps
            // The 2K best (cumulative score, beam, token) over every beam's continuations.
            var best: [(score: Float, beam: Int, token: Int, logProbability: Float)] = []
            best.reserveCapacity(candidates + 1)
            for (index, beam) in beams.enumerated() {
                let (row, scores) = rows(index, generated: beam.tokens)
                for token in 0..<vocabulary {
                    let score = scores[token] + beam.score
                    if best.count == candidates, score <= best[candidates - 1].score { continue }
                    var at = best.count
                    while at > 0, best[at - 1].score < score { at -= 1 }
                    best.insert((score, index, token, row[token]), at: at)
                    if best.count > candidates { best.removeLast() }
                }
            }
            var next: [Beam] = []
            var parents: [Int] = []
            var secondary = size
            for k in 0..<min(size, best.count) {
                var chosen = best[k]
                if chosen.token == tokenizer.endOfText || isLast {
                    let parent = beams[chosen.beam]
                    var tokens = parent.tokens
                    var perToken = parent.perToken
                    if chosen.token != tokenizer.endOfText {
                        tokens.append(chosen.token)
                        perToken.append(chosen.logProbability)
                    }
                    let logProbability = parent.logProbability + chosen.logProbability
                    finished.append(finish(tokens, logProbability, bias: chosen.score - logProbability, perToken))
                    while secondary < best.count, best[secondary].token == tokenizer.endOfText { secondary += 1 }
                    if secondary < best.count {
                        chosen = best[secondary]
                        secondary += 1
                    }
                }
                let parent = beams[chosen.beam]
                next.append(
                    Beam(
                        tokens: parent.tokens + [chosen.token], perToken: parent.perToken + [chosen.logProbability],
                        logProbability: parent.logProbability + chosen.logProbability, score: chosen.score))
                parents.append(chosen.beam)
            }
            if isLast || finished.count >= wanted { break }
            // The likeliest beam looping: the hypotheses so far, best first, and the loop said.
            if stopsOnLoop, let first = next.first, Self.endsInLoop(first.tokens, tokenizer: tokenizer) {
                return (finished.sorted { $0.score > $1.score }, true)
            }
            beams = next
            decoder.reorder(parents)
            decoder.run(tokens: beams.map { $0.tokens.last! }, perHypothesis: 1, logitRows: Array(0..<beams.count))
        }
        return (finished.sorted { $0.score > $1.score }, false)
    }

    /// With `stopsOnLoop`, a sample that loops ends there; `looped` says whether the likeliest did.
    private func sample(temperature: Double, count: Int, seed: UInt64, maxSteps: Int, stopsOnLoop: Bool) throws
        -> (hypotheses: [Hypothesis], looped: Bool)
    {
        let tokenizer = filter.tokenizer
        let vocabulary = tokenizer.count
        var random = SplitMix64(seed: seed)
        let inverse = Float(1 / temperature)
        var tokens = [[Int]](repeating: [], count: count)
        var perToken = [[Float]](repeating: [], count: count)
        var sums = [Float](repeating: 0, count: count)
        var biasSums = [Float](repeating: 0, count: count)
        var done = [Bool](repeating: false, count: count)
        var looped = [Bool](repeating: false, count: count)
        decoder.reorder([Int](repeating: 0, count: count))
        // The first step's logits are the prompt's, one row: copied to every sample.
        for row in 1..<count { (decoder.logits + row * vocabulary).update(from: decoder.logits, count: vocabulary) }
        for step in 0..<maxSteps {
            try checkCancellation()
            var chosen = [Int](repeating: tokenizer.endOfText, count: count)
            for row in 0..<count where !done[row] {
                let (logProbabilities, scores) = rows(row, generated: tokens[row])
                // softmax(log p / T), drawn by inverse CDF.
                for token in 0..<vocabulary { scratch[token] = scores[token] * inverse }
                let maximum = WhisperKernels.maximum(scratch, count: vocabulary)
                let total = LogProbabilities.sumOfExponentials(scratch, count: vocabulary, maximum: maximum)
                var target = Float(Double(random.next() >> 11) * 0x1p-53) * total
                var token = 0
                while token < vocabulary - 1 {
                    target -= WhisperKernels.exp(scratch[token] - maximum)
                    if target < 0 { break }
                    token += 1
                }
                chosen[row] = token
                sums[row] += logProbabilities[token]
                if bias != nil { biasSums[row] += scores[token] - logProbabilities[token] }
                if token == tokenizer.endOfText {
                    done[row] = true
                } else {
                    tokens[row].append(token)
                    perToken[row].append(logProbabilities[token])
                    if stopsOnLoop, Self.endsInLoop(tokens[row], tokenizer: tokenizer) {
                        (done[row], looped[row]) = (true, true)
                    }
                }
            }
            if step + 1 == maxSteps || done.allSatisfy({ $0 }) { break }
            decoder.run(tokens: chosen, perHypothesis: 1, logitRows: Array(0..<count))
        }
        let ranked = (0..<count).map { (finish(tokens[$0], sums[$0], bias: biasSums[$0], perToken[$0]), looped[$0]) }
            .sorted { $0.0.score > $1.0.score }
        return (ranked.map(\.0), ranked.first?.1 ?? false)
    }
}
