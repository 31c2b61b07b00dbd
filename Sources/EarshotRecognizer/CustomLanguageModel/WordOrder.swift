/// Which words may follow which in a custom language model's phrases, as its data gives them — the
/// exact phrases word by word, and each template's literal words and class members in order — found
/// without expanding the templates. Each word names the groups of words that may come next, and whether
/// a phrase may end after it. Whisper's vocabulary bias favours the words the order allows next
/// (`VocabularyBias`): a template gives a command its structure ("<piece> to <royal> <piece> <rank>"),
/// which a list of words alone does not.
///
/// Words are compared in lower case, without the punctuation around them, as the vocabulary's are.
public struct WordOrder: Sendable, Equatable {
    /// Sets of words that may come next after some word (each in lower case, sorted).
    public private(set) var groups: [[String]] = []
    /// For each word, the indices in ``groups`` of the words that may follow it.
    public private(set) var next: [String: Set<Int>] = [:]
    /// The words a phrase may end with.
    public private(set) var finals: Set<String> = []
    private var groupIndex: [[String]: Int] = [:]

    public init() {}

    /// The word as the order keys it: lower case, trimmed of what is not a letter or digit; nil when
    /// nothing is left.
    public static func key(_ word: some StringProtocol) -> String? {
        let trimmed = word.drop(while: { !($0.isLetter || $0.isNumber) })
        let end = trimmed.lastIndex(where: { $0.isLetter || $0.isNumber })
        guard let end else { return nil }
        return String(trimmed[...end]).lowercased()
    }

    /// Adds a phrase given as units in order, each a set of alternatives and each alternative its words
    /// (an alternative without words may be skipped over).
    mutating func add(units: [[[String]]]) {
        var previous: Set<String> = []
        for unit in units {
            let spoken = unit.filter { !$0.isEmpty }
            guard !spoken.isEmpty else { continue }
            if !previous.isEmpty {
                let group = group(of: Set(spoken.map { $0[0] }))
                for word in previous { next[word, default: []].insert(group) }
            }
            for alternative in spoken {
                for (word, following) in zip(alternative, alternative.dropFirst()) {
                    next[word, default: []].insert(group(of: [following]))
                }
            }
            var lasts = Set(spoken.map { $0.last! })
            if spoken.count < unit.count { lasts.formUnion(previous) }
            previous = lasts
        }
        finals.formUnion(previous)
    }

    private mutating func group(of words: Set<String>) -> Int {
        let sorted = words.sorted()
        if let index = groupIndex[sorted] { return index }
        groups.append(sorted)
        groupIndex[sorted] = groups.count - 1
        return groups.count - 1
    }

    public static func == (lhs: WordOrder, rhs: WordOrder) -> Bool {
        lhs.groups == rhs.groups && lhs.next == rhs.next && lhs.finals == rhs.finals
    }
}

extension CustomLanguageModelData {
    /// The order of the words of the phrases and templates (``WordOrder``).
    public func wordOrder() -> WordOrder {
        func words(_ text: String) -> [String] { text.split(whereSeparator: \.isWhitespace).compactMap(WordOrder.key) }
        var order = WordOrder()
        for phrase in phrases { order.add(units: words(phrase.phrase).map { [[$0]] }) }
        for group in templates {
            for template in group.templates {
                var units: [[[String]]] = []
                for part in Self.parts(of: template.template) {
                    switch part {
                    case .text(let text): units += words(text).map { [[$0]] }
                    case .slot(let name): units.append((group.classes[name] ?? []).map(words))
                    }
                }
                order.add(units: units)
            }
        }
        return order
    }
}
