import EarshotRecognizer
import Foundation

/// Contextual biasing toward a custom vocabulary: a bounded bonus to the log-probability of each token
/// that spells one of its words, added to the scores the search ranks by (shallow fusion with a
/// prefix tree of the words' tokens, as in Le et al., "Contextualized streaming end-to-end speech
/// recognition with trie-based deep biasing and shallow fusion", Interspeech 2021).
///
/// - Each word is tokenized as Whisper writes a word (after a space) as given, in lower case and
///   capitalized; the tokens form a prefix tree.
/// - At every step, a token that starts a word (a child of the root) or continues the word the
///   hypothesis is partway through gains `bonus`.
/// - A hypothesis partway through a word that it does not finish gives back what the word's tokens
///   gained: every other token costs `depth · bonus`. So a word half-spelled and abandoned gains
///   nothing, and no hypothesis gains more than `bonus` per token of the words it finishes.
/// - Ending — end-of-text and the timestamps that close a segment — gains what starting a word
///   gains: the bias chooses between words, not whether to go on speaking. Without it, every step
///   favoured saying one more vocabulary word over stopping, and Whisper added words after the
///   speech.
/// - A word gains nothing once the window has said it (in any of its forms): the bias helps a word be
///   heard, not said again — Whisper's own context already favours a word it has written. Without
///   this, noisy audio that Whisper tends to loop on looped to the end of the window ("queen, queen,
///   queen"), and a clean one was repeated after the speech ("Play the Winawer variation. The Winawer
///   variation.", the repeat's words of zero length; issue 51). A repeated word's continuing tokens
///   gain nothing either, and abandoning it gives nothing back.
///
/// - With the model's word order (``WordOrder``: its phrases and templates), the word last completed —
///   looking past punctuation — decides what a new word gains: only the words the order lets follow it
///   gain (said up to twice before in the window: a move says "queen" three times), others nothing, and
///   ending gains only where a phrase may end. A command's structure then steers the search ("rook to
///   king pawn 1", not "rook, king, pawn, knight"), and a finished phrase is not begun again. After a
///   word the model does not know, the rules above hold.
///
/// The bonus is added to the scores the search ranks by only; the log-probabilities it reports
/// (confidences, the fallback's average) stay the model's own.
struct VocabularyBias {
    let bonus: Float
    /// For each prefix of a word's tokens (the empty prefix too), the tokens that continue it.
    private let children: [[Int]: [Int]]
    /// The prefixes that are whole words.
    private let words: Set<[Int]>
    /// The tokens that begin a word.
    private let starts: Set<Int>
    /// The longest word, in tokens.
    private let depth: Int
    /// Tokens at or above this (end of text, the special tokens, timestamps) end any word.
    private let firstSpecial: Int
    /// For each token that begins a word, the first tokens of every form of the words it begins: a
    /// word said as "Knight" is said, for the bias, as "knight" too.
    private let family: [Int: Set<Int>]
    /// The word order, if the model gave one, and what applies it: each spelling's word (its order
    /// key), each group's first tokens, and the tokens that are punctuation only.
    private let order: WordOrder?
    private let wordOf: [[Int]: String]
    private let groupStarts: [[Int]]
    private let punctuation: Set<Int>

    /// Nil when there is nothing to bias toward (no words, or no bonus).
    init?(words given: [String], bonus: Double, tokenizer: WhisperTokenizer, order: WordOrder? = nil) {
        guard bonus > 0 else { return nil }
        var spellings: Set<[Int]> = []
        var family: [Int: Set<Int>] = [:]
        var wordOf: [[Int]: String] = [:]
        var firstsOf: [String: Set<Int>] = [:]
        for word in given {
            let trimmed = word.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            var firsts: Set<Int> = []
            for form in [trimmed, trimmed.lowercased(), trimmed.prefix(1).uppercased() + trimmed.dropFirst()] {
                let tokens = tokenizer.encode(" " + form)
                if !tokens.isEmpty {
                    spellings.insert(tokens)
                    firsts.insert(tokens[0])
                    if let key = WordOrder.key(trimmed) { wordOf[tokens] = key }
                }
            }
            for first in firsts { family[first, default: []].formUnion(firsts) }
            if let key = WordOrder.key(trimmed) { firstsOf[key, default: []].formUnion(firsts) }
        }
        guard !spellings.isEmpty else { return nil }
        var children: [[Int]: Set<Int>] = [[]: []]
        for spelling in spellings {
            for length in 0..<spelling.count {
                children[Array(spelling[..<length]), default: []].insert(spelling[length])
            }
            children[spelling, default: []].formUnion([])
        }
        self.bonus = Float(bonus)
        self.children = children.mapValues { $0.sorted() }
        words = spellings
        starts = children[[]]!
        depth = spellings.map(\.count).max()!
        firstSpecial = tokenizer.endOfText
        self.family = family
        if let order, !order.groups.isEmpty {
            self.order = order
            self.wordOf = wordOf
            groupStarts = order.groups.map { group in group.flatMap { firstsOf[$0] ?? [] }.sorted() }
            punctuation = Set(
                (0..<tokenizer.endOfText).filter { token in
                    let text = tokenizer.decode([token]).trimmingCharacters(in: .whitespaces)
                    return !text.isEmpty && text.allSatisfy { $0.isPunctuation }
                })
        } else {
            self.order = nil
            self.wordOf = [:]
            groupStarts = []
            punctuation = []
        }
    }

    /// The word the hypothesis last completed, by its order key, looking past punctuation; nil when
    /// the text ends in a word the vocabulary does not have (or partway through one).
    private func lastWord(_ generated: ArraySlice<Int>) -> String? {
        var end = generated.endIndex
        while end > generated.startIndex, punctuation.contains(generated[end - 1]) { end -= 1 }
        let text = generated[..<end]
        var length = min(depth, text.count)
        while length > 0 {
            // A spelling begins with a token that begins with a space: at a word's start.
            if let word = wordOf[Array(text.suffix(length))] { return word }
            length -= 1
        }
        return nil
    }

    /// Adds the bias to `scores` (a row of the vocabulary, log-probabilities of the next token) of a
    /// hypothesis that has generated `generated`.
    func apply(to scores: UnsafeMutablePointer<Float>, count: Int, generated: ArraySlice<Int>) {
        // The longest end of `generated` that is a word's beginning: the word being spelled.
        var prefix: [Int] = []
        var length = min(depth, generated.count)
        while length > 0 {
            let candidate = Array(generated.suffix(length))
            if candidate.allSatisfy({ $0 < firstSpecial }), children[candidate] != nil {
                prefix = candidate
                break
            }
            length -= 1
        }
        // Words the window has begun already, by first token.
        var begun: [Int: Int] = [:]
        for token in generated where starts.contains(token) { begun[token, default: 0] += 1 }
        func saidBefore(_ token: Int, moreThan count: Int) -> Bool {
            (family[token] ?? [token]).reduce(0) { $0 + begun[$1, default: 0] } > count
        }
        func startBonus(_ token: Int) -> Float { saidBefore(token, moreThan: 0) ? 0 : bonus }
        // A word being said again gains nothing, its first token having gained nothing either.
        if let first = prefix.first, saidBefore(first, moreThan: 1) { prefix = [] }
        let continuing = prefix.isEmpty ? [] : children[prefix]!
        let partway = !prefix.isEmpty && !words.contains(prefix)
        if partway {
            // Partway through a word: leaving it gives back what its tokens gained.
            let refund = Float(prefix.count) * bonus
            for token in 0..<count { scores[token] -= refund }
            for token in continuing { scores[token] += refund }
        }
        for token in continuing { scores[token] += bonus }
        var ending = bonus
        if let order, !partway, let previous = lastWord(generated) {
            // The order decides which words may start next, and whether the phrase may end here.
            var allowed: Set<Int> = []
            for group in order.next[previous] ?? [] { allowed.formUnion(groupStarts[group]) }
            for token in allowed where !continuing.contains(token) && !saidBefore(token, moreThan: 2) {
                scores[token] += bonus
            }
            if !order.finals.contains(previous) { ending = 0 }
        } else {
            for token in starts where !continuing.contains(token) { scores[token] += startBonus(token) }
        }
        // Ending stands level with starting a word (suppressed tokens stay suppressed).
        for token in firstSpecial..<count { scores[token] += ending }
    }
}
