/// Word error rate of a recognition hypothesis against a reference transcript.
///
/// Both texts are normalised first (see ``words(in:)`` and ``standardized(_:)``), then aligned by Levenshtein distance over
/// words with unit costs. The counts come from one minimum-cost alignment; where several exist, the
/// one preferring substitutions, then deletions, then insertions at each step is taken (so "a b"
/// against "b a" is two substitutions, not a deletion and an insertion). The rate is
/// `(substitutions + deletions + insertions) / referenceWordCount` and can exceed 1.
///
/// Results add up with `+`, so a corpus WER is the sum over its utterances, not a mean of rates.
public struct WordErrorRate: Sendable, Hashable, CustomStringConvertible {
    /// Reference words replaced by a different word.
    public var substitutions: Int
    /// Reference words missing from the hypothesis.
    public var deletions: Int
    /// Hypothesis words with no counterpart in the reference.
    public var insertions: Int
    /// Words in the normalised reference.
    public var referenceWordCount: Int

    public init(substitutions: Int, deletions: Int, insertions: Int, referenceWordCount: Int) {
        self.substitutions = substitutions
        self.deletions = deletions
        self.insertions = insertions
        self.referenceWordCount = referenceWordCount
    }

    /// Aligns `hypothesis` against `reference` after normalising both.
    public init(reference: String, hypothesis: String) {
        self = Self.align(
            reference: Self.standardized(Self.words(in: reference)),
            hypothesis: Self.standardized(Self.words(in: hypothesis)))
    }

    /// The empty tally, the identity of `+`.
    public static let zero = WordErrorRate(substitutions: 0, deletions: 0, insertions: 0, referenceWordCount: 0)

    /// Substitutions, deletions and insertions together.
    public var errors: Int { substitutions + deletions + insertions }

    /// Errors per reference word: 0 when both texts are empty, +∞ when only the reference is.
    public var rate: Double {
        if referenceWordCount == 0 { return errors == 0 ? 0 : .infinity }
        return Double(errors) / Double(referenceWordCount)
    }

    public var description: String {
        let percent = (rate * 1000).rounded() / 10
        return "WER \(percent)% (S \(substitutions), D \(deletions), I \(insertions), N \(referenceWordCount))"
    }

    /// Sums two tallies, as for utterances of one corpus.
    public static func + (lhs: WordErrorRate, rhs: WordErrorRate) -> WordErrorRate {
        WordErrorRate(
            substitutions: lhs.substitutions + rhs.substitutions, deletions: lhs.deletions + rhs.deletions,
            insertions: lhs.insertions + rhs.insertions,
            referenceWordCount: lhs.referenceWordCount + rhs.referenceWordCount)
    }

    /// The words of `text` as scored: lowercased; letters and digits kept; an apostrophe kept only
    /// between two of them ("don't", "john's"); any other character separates words, so
    /// "Cold-hearted," scores as "cold hearted".
    public static func words(in text: String) -> [String] {
        let characters = Array(text.lowercased())
        var words: [String] = []
        var current = ""
        for (index, character) in characters.enumerated() {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if character == "'" || character == "’", !current.isEmpty, index + 1 < characters.count,
                characters[index + 1].isLetter || characters[index + 1].isNumber
            {
                current.append("'")
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// Words written two ways spelled one way, as Whisper's English normalizer does (Radford et al.
    /// 2022, appendix C) for what recognizers and transcripts disagree on most: numbers from zero to
    /// ninety-nine as digits ("twenty one" → "21", "ten" → "10"), and the titles Mr, Mrs and Dr spelled
    /// out ("mister"). Whisper writes "10 of clubs" and "Mr. Dashwood"; PocketSphinx and the corpora's
    /// transcripts write "ten of clubs" and "mister dashwood": neither is an error.
    public static func standardized(_ words: [String]) -> [String] {
        var result: [String] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            if let tens = tensWords[word] {
                if index + 1 < words.count, let unit = unitWords[words[index + 1]], (1...9).contains(unit) {
                    result.append(String(tens + unit))
                    index += 2
                    continue
                }
                result.append(String(tens))
            } else if let unit = unitWords[word] {
                result.append(String(unit))
            } else {
                result.append(titles[word] ?? word)
            }
            index += 1
        }
        return result
    }

    private static let unitWords: [String: Int] = Dictionary(
        uniqueKeysWithValues: [
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
            "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
        ].enumerated().map { ($1, $0) })
    private static let tensWords: [String: Int] = [
        "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    ]
    private static let titles = ["mr": "mister", "mrs": "missus", "dr": "doctor"]

    /// Levenshtein alignment keeping, for each cell, the edit counts along its chosen best path.
    /// Two rows suffice because a cell depends only on its left, upper and upper-left neighbours.
    private static func align(reference: [String], hypothesis: [String]) -> WordErrorRate {
        // previous[j]: best alignment of the reference so far with the first j hypothesis words.
        var previous = (0...hypothesis.count).map {
            WordErrorRate(substitutions: 0, deletions: 0, insertions: $0, referenceWordCount: 0)
        }
        var current = previous
        for (i, referenceWord) in reference.enumerated() {
            current[0] = WordErrorRate(substitutions: 0, deletions: i + 1, insertions: 0, referenceWordCount: i + 1)
            for (j, hypothesisWord) in hypothesis.enumerated() {
                var diagonal = previous[j]
                diagonal.referenceWordCount += 1
                if referenceWord != hypothesisWord { diagonal.substitutions += 1 }
                var deletion = previous[j + 1]
                deletion.referenceWordCount += 1
                deletion.deletions += 1
                var insertion = current[j]
                insertion.insertions += 1
                // Replacing only on strictly fewer errors keeps the documented preference on ties.
                var best = diagonal
                if deletion.errors < best.errors { best = deletion }
                if insertion.errors < best.errors { best = insertion }
                current[j + 1] = best
            }
            swap(&previous, &current)
        }
        return previous[hypothesis.count]
    }
}
