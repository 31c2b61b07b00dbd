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

    /// Nil when there is nothing to bias toward (no words, or no bonus).
    init?(words given: [String], bonus: Double, tokenizer: WhisperTokenizer) {
        guard bonus > 0 else { return nil }
        var spellings: Set<[Int]> = []
        var family: [Int: Set<Int>] = [:]
        for word in given {
            let trimmed = word.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            var firsts: Set<Int> = []
            for form in [trimmed, trimmed.lowercased(), trimmed.prefix(1).uppercased() + trimmed.dropFirst()] {
                let tokens = tokenizer.encode(" " + form)
                if !tokens.isEmpty {
                    spellings.insert(tokens)
                    firsts.insert(tokens[0])
                }
            }
            for first in firsts { family[first, default: []].formUnion(firsts) }
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
        for token in starts where !continuing.contains(token) { scores[token] += startBonus(token) }
        // Ending stands level with starting a word (suppressed tokens stay suppressed).
        for token in firstSpecial..<count { scores[token] += bonus }
    }
}
