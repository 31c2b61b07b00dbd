import Foundation

/// An n-gram language model estimated with interpolated modified Kneser–Ney smoothing (Chen and
/// Goodman, "An empirical study of smoothing techniques for language modeling", 1998, section 3.5),
/// written as an ARPA file PocketSphinx reads.
///
/// Each sentence is `<s> words… </s>`, weighted by its count. The highest order uses those counts; each
/// lower order uses continuation counts — how many distinct words precede the n-gram — except for
/// n-grams that begin with `<s>`, which nothing can precede and which keep their counts. Each order
/// has three discounts (for counts 1, 2 and 3 or more) from its counts of counts, D_j = j − (j + 1)·Y·
/// n_{j+1}/n_j with Y = n₁/(n₁ + 2n₂); weighted data often has no count of 1 or 2 at all, and then the
/// discounts are 0.5, 1 and 1.5. The unigram level is interpolated with the uniform distribution over
/// the vocabulary. Probabilities written are the interpolated ones, and each context's back-off weight is
/// its interpolation weight, so the ARPA model's back-off gives the same probabilities.
struct KneserNeyModel {
    static let sentenceStart = "<s>"
    static let sentenceEnd = "</s>"

    let order: Int
    /// For each order (index 0: unigrams), each n-gram's interpolated probability.
    private(set) var probabilities: [[[String]: Double]]
    /// For each order below the highest, the interpolation (back-off) weight of each n-gram as a context.
    private(set) var backoffs: [[[String]: Double]]
    /// The discounts of each order, for counts 1, 2 and 3+.
    private(set) var discounts: [[Double]]

    init(sentences: [(words: [String], count: Int)], order: Int = 3) {
        precondition(order >= 1)
        self.order = order
        // Raw counts of every n-gram up to the order.
        var raw = [[[String]: Int]](repeating: [:], count: order)
        for sentence in sentences where sentence.count > 0 {
            let tokens = [Self.sentenceStart] + sentence.words + [Self.sentenceEnd]
            for length in 1...order where tokens.count >= length {
                for start in 0...(tokens.count - length) {
                    let gram = Array(tokens[start..<start + length])
                    if gram == [Self.sentenceStart] { continue }
                    raw[length - 1][gram, default: 0] += sentence.count
                }
            }
        }
        // Counts each order is estimated from: raw at the top and for <s>-initial n-grams, else continuation.
        var counts = raw
        for length in stride(from: order - 1, through: 1, by: -1) {
            var continuation: [[String]: Int] = [:]
            for gram in raw[length].keys { continuation[Array(gram.dropFirst()), default: 0] += 1 }
            for gram in raw[length - 1].keys where gram.first != Self.sentenceStart {
                counts[length - 1][gram] = continuation[gram] ?? 0
            }
        }
        discounts = counts.map(Self.discounts)
        let vocabulary = counts[0].keys.filter { $0 != [Self.sentenceStart] }
        probabilities = [[[String]: Double]](repeating: [:], count: order)
        backoffs = [[[String]: Double]](repeating: [:], count: order)
        for length in 1...order {
            let level = counts[length - 1]
            let discount = discounts[length - 1]
            // Per context: the total count and how many words follow it with counts 1, 2 and 3+.
            var totals: [[String]: (sum: Int, n: [Int])] = [:]
            for (gram, count) in level where count > 0 {
                let context = Array(gram.dropLast())
                var entry = totals[context] ?? (0, [0, 0, 0])
                entry.sum += count
                entry.n[min(count, 3) - 1] += 1
                totals[context] = entry
            }
            var gammas: [[String]: Double] = [:]
            for (context, entry) in totals {
                gammas[context] = zip(discount, entry.n).map { $0 * Double($1) }.reduce(0, +) / Double(entry.sum)
            }
            for (gram, count) in level where count > 0 {
                let context = Array(gram.dropLast())
                let total = Double(totals[context]!.sum)
                let own = (Double(count) - discount[min(count, 3) - 1]) / total
                let lower: Double =
                    length == 1
                    ? 1 / Double(vocabulary.count)
                    : probabilities[length - 2][Array(gram.dropFirst())] ?? 0
                probabilities[length - 1][gram] = own + gammas[context]! * lower
            }
            if length > 1 {
                for (context, gamma) in gammas { backoffs[length - 2][context] = gamma }
            }
        }
    }

    /// D₁, D₂, D₃₊ from counts of counts, or 0.5, 1, 1.5 where those are zero or give a discount
    /// outside (0, j].
    private static func discounts(_ level: [[String]: Int]) -> [Double] {
        var n = [0, 0, 0, 0]
        for count in level.values where (1...4).contains(count) { n[count - 1] += 1 }
        let fallback = [0.5, 1, 1.5]
        guard n[0] > 0, n[1] > 0 else { return fallback }
        let y = Double(n[0]) / Double(n[0] + 2 * n[1])
        return (1...3).map { j in
            guard n[j - 1] > 0 else { return fallback[j - 1] }
            let d = Double(j) - Double(j + 1) * y * Double(n[j]) / Double(n[j - 1])
            return d > 0 && d <= Double(j) ? d : fallback[j - 1]
        }
    }

    /// P(word | history) as a back-off reader of the ARPA file computes it.
    func probability(of word: String, after history: [String]) -> Double {
        let context = Array(history.suffix(order - 1))
        if let p = probabilities[context.count][context + [word]] { return p }
        if context.isEmpty { return 0 }
        let weight = backoffs[context.count - 1][context] ?? 1
        return weight * probability(of: word, after: Array(context.dropFirst()))
    }

    /// The words the model predicts (every word seen, and `</s>`).
    var vocabulary: [String] { probabilities[0].keys.map { $0[0] }.sorted() }

    /// The model in ARPA format: log10 probabilities, with `<s>` at −99 as it is never predicted.
    func arpa() -> String {
        var levels = probabilities
        levels[0][[Self.sentenceStart]] = 0
        var text = "\\data\\\n"
        for (index, level) in levels.enumerated() { text += "ngram \(index + 1)=\(level.count)\n" }
        for (index, level) in levels.enumerated() {
            text += "\n\\\(index + 1)-grams:\n"
            for gram in level.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                let p = gram == [Self.sentenceStart] ? "-99" : Self.format(log10(level[gram]!))
                var line = p + "\t" + gram.joined(separator: " ")
                if index < order - 1, let backoff = backoffs[index][gram] { line += "\t" + Self.format(log10(backoff)) }
                text += line + "\n"
            }
        }
        return text + "\n\\end\\\n"
    }

    private static func format(_ value: Double) -> String { String(format: "%.6f", value) }
}
