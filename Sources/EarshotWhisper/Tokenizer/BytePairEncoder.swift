/// Text to tokens the way GPT-2's byte-level BPE does it, which Whisper's tokenizer is: the text is cut
/// into words by GPT-2's pre-tokenizing pattern, each word's UTF-8 bytes are spelt in the
/// ``ByteLevelAlphabet``, and adjacent symbols are merged, lowest-ranked pair first, by the merge list
/// of `tokenizer.json`, until no listed pair remains (Sennrich et al. 2016; Radford et al. 2019).
struct BytePairEncoder {
    /// The rank of each merge, by its two symbols joined with a space (`"Ġ t"`), as `tokenizer.json`
    /// lists them.
    private let ranks: [String: Int]

    init(merges: [String]) {
        var ranks: [String: Int] = [:]
        ranks.reserveCapacity(merges.count)
        for (rank, merge) in merges.enumerated() where ranks[merge] == nil { ranks[merge] = rank }
        self.ranks = ranks
    }

    /// The token strings of `text`, in order.
    func encode(_ text: String) -> [String] {
        Self.words(of: text).flatMap { merge(ByteLevelAlphabet.encode(String($0).utf8)) }
    }

    /// Merges the symbols of one word, spelt in the byte alphabet.
    private func merge(_ word: String) -> [String] {
        var symbols = word.unicodeScalars.map { String($0) }
        while symbols.count > 1 {
            var best: (rank: Int, index: Int)?
            for index in 0..<(symbols.count - 1) {
                if let rank = ranks[symbols[index] + " " + symbols[index + 1]], rank < (best?.rank ?? .max) {
                    best = (rank, index)
                }
            }
            guard let first = best?.index else { break }
            let (left, right) = (symbols[first], symbols[first + 1])
            // Every occurrence of the pair is merged, left to right, as the reference does.
            var merged: [String] = []
            merged.reserveCapacity(symbols.count)
            var index = 0
            while index < symbols.count {
                if index + 1 < symbols.count, symbols[index] == left, symbols[index + 1] == right {
                    merged.append(left + right)
                    index += 2
                } else {
                    merged.append(symbols[index])
                    index += 1
                }
            }
            symbols = merged
        }
        return symbols
    }

    /// GPT-2's pre-tokenizing pattern, `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`,
    /// as a scanner: the pieces of `text`, which together are the whole text.
    static func words(of text: String) -> [Substring.UnicodeScalarView] {
        let scalars = text.unicodeScalars
        var pieces: [Substring.UnicodeScalarView] = []
        var start = scalars.startIndex
        while start < scalars.endIndex {
            let end = pieceEnd(scalars, from: start)
            pieces.append(scalars[start..<end])
            start = end
        }
        return pieces
    }

    private enum Class { case letter, number, other, space }

    private static func classify(_ scalar: Unicode.Scalar) -> Class {
        if scalar.properties.isWhitespace { return .space }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return .letter
        case .decimalNumber, .letterNumber, .otherNumber: return .number
        default: return .other
        }
    }

    private static let contractions = ["s", "t", "re", "ve", "m", "ll", "d"]

    private static func pieceEnd(_ s: String.UnicodeScalarView, from start: String.Index) -> String.Index {
        // 's 't 're 've 'm 'll 'd
        if s[start] == "'" {
            let after = s.index(after: start)
            for contraction in contractions {
                var index = after
                var matched = true
                for expected in contraction.unicodeScalars {
                    guard index < s.endIndex, s[index] == expected else {
                        matched = false
                        break
                    }
                    index = s.index(after: index)
                }
                if matched { return index }
            }
        }
        // An optional space, then a run of letters, of numbers, or of anything else but spaces.
        var first = start
        if s[start] == " " { first = s.index(after: start) }
        if first < s.endIndex {
            let kind = classify(s[first])
            if kind != .space {
                var index = s.index(after: first)
                while index < s.endIndex, classify(s[index]) == kind { index = s.index(after: index) }
                return index
            }
        }
        // Whitespace: the run, less its last character when a non-space follows (that one leads the
        // next piece), unless the run is that one character.
        var index = start
        while index < s.endIndex, classify(s[index]) == .space { index = s.index(after: index) }
        if index < s.endIndex {
            let shorter = s.index(before: index)
            if shorter > start { return shorter }
        }
        return index
    }
}
