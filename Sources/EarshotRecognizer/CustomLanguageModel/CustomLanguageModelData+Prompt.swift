import Foundation

extension CustomLanguageModelData {
    /// A prompt that primes Whisper with the model's vocabulary and the shape of its sentences: a list
    /// of its words — those given pronunciations, then the words of the exact phrases, then the
    /// templates' class members, as the data spells them, once each, skipping numbers and words of
    /// fewer than four letters — then one example of each template, most counted first, as a
    /// sentence, all within `maxCharacters` (the examples first: the list takes the room left).
    ///
    /// The list gives Whisper the spellings; the examples give it the style, which it follows as well
    /// as the words: it writes "c 7" where the data writes `<file> <rank>`, where the list alone left it
    /// writing "c7". The phrases stay in the list, not as sentences: Whisper copies a whole sentence
    /// into speech that does not fit it ("Play the Albin counter gambit." for a LibriVox clip). The
    /// n-th template's k-th slot of a class takes member (3n + 5k + 1) mod the class's size, so the
    /// examples show different members. Chosen on the chess set (the openings and pharmacy sets were
    /// looked at along the way), confirmed on a rail set run once (BENCHMARKS.md, "The tail left
    /// undecoded, and a prompt with the templates' shape").
    public func biasingPrompt(maxCharacters: Int = 400) -> String {
        var examples: [String] = []
        var length = 0
        for (rank, template) in templatesByCount().enumerated() {
            var sentence = Self.example(template.template, rank: rank, classes: template.classes)
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            guard let first = sentence.first else { continue }
            sentence = first.uppercased() + sentence.dropFirst()
            if !".!?".contains(sentence.last!) { sentence += "." }
            guard length + 1 + sentence.count <= maxCharacters else { break }
            length += 1 + sentence.count
            examples.append(sentence)
        }
        var candidates = pronunciations.map(\.grapheme)
        candidates += phrases.flatMap { $0.phrase.split(whereSeparator: \.isWhitespace).map(String.init) }
        candidates += templates.flatMap { group in group.classes.keys.sorted().flatMap { group.classes[$0]! } }
        var seen: Set<String> = []
        var words: [String] = []
        var listLength = 0
        for candidate in candidates {
            let word = candidate.trimmingCharacters(in: CharacterSet.alphanumerics.inverted)
            guard word.count >= 4, !word.allSatisfy(\.isNumber), seen.insert(word.lowercased()).inserted else {
                continue
            }
            let grown = listLength + (words.isEmpty ? 0 : 2) + word.count
            if grown + 1 + length > maxCharacters { break }
            listLength = grown
            words.append(word)
        }
        let list = words.isEmpty ? [] : [words.joined(separator: ", ") + "."]
        return (list + examples).joined(separator: " ")
    }

    /// Every template with its group's classes, most counted first (in the data's order at equal counts).
    private func templatesByCount() -> [(template: String, classes: [String: [String]])] {
        let all = templates.flatMap { group in group.templates.map { ($0, group.classes) } }
        return all.enumerated().sorted { ($0.element.0.count, $1.offset) > ($1.element.0.count, $0.offset) }
            .map { ($0.element.0.template, $0.element.1) }
    }

    /// `template` with its k-th slot of each class filled by member (3 × `rank` + 5k + 1) mod the
    /// class's size.
    private static func example(_ template: String, rank: Int, classes: [String: [String]]) -> String {
        var uses: [String: Int] = [:]
        var text = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            text += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            let members = classes[name] ?? []
            let use = uses[name, default: 0]
            uses[name] = use + 1
            if !members.isEmpty { text += members[(3 * rank + 5 * use + 1) % members.count] }
            rest = rest[rest.index(after: close)...]
        }
        return text + rest
    }
}
