public import EarshotCore
public import Foundation

/// Training data for a custom language model, as Apple's `SFCustomLanguageModelData` (the SpokenWord
/// sample's chess moves) holds it: exact phrases with counts, templates that expand over word classes,
/// and custom pronunciations in X-SAMPA. Built in Swift with the same result-builder shape as Apple's,
/// or read from (and exported to) a JSON file:
///
/// ```json
/// {"locale": "en_US", "identifier": "com.example.chess", "version": "1.0",
///  "phrases": [{"phrase": "Play the Albin counter gambit", "count": 10}],
///  "templates": [{"classes": {"piece": ["pawn", "rook"], "rank": ["1", "2"]},
///                 "templates": [{"template": "<piece> to <rank>", "count": 10000}]}],
///  "pronunciations": [{"grapheme": "Winawer", "phonemes": ["w I n aU @r"]}]}
/// ```
///
/// `phrases`, `templates` and `pronunciations` may be left out. A template's count is the total for the
/// template, spread evenly over its expansions (each gets the count divided by their number, the
/// remainder one each to the first, and at least 1), so a template with many expansions does not
/// outweigh the exact phrases by its size alone. ``validate()`` refuses what cannot be built, naming
/// the field as the JSON path.
public struct CustomLanguageModelData: Sendable, Equatable, Codable {
    public var locale: String
    public var identifier: String
    public var version: String
    public var phrases: [PhraseCount]
    public var templates: [PhraseCountsFromTemplates]
    public var pronunciations: [CustomPronunciation]

    /// Expansions one template may have, phrases in all, and their characters once expanded (counted
    /// before expanding): beyond these the data is refused rather than built for minutes (the chess
    /// template has 576 expansions, 15 000 characters).
    public static let maxExpansionsPerTemplate = 100_000
    public static let maxPhrases = 1_000_000
    public static let maxPhraseCharacters = 5_000_000
    /// Classes and class members in all templates, and custom pronunciations.
    public static let maxClasses = 1_000
    public static let maxClassMembers = 100_000
    public static let maxPronunciations = 10_000
    /// Characters of one word (the longest English words have some 45).
    public static let maxWordLength = 64

    /// A phrase the app expects, and how often relative to the others.
    public struct PhraseCount: Sendable, Equatable, Codable {
        public var phrase: String
        public var count: Int
        public init(phrase: String, count: Int) {
            self.phrase = phrase
            self.count = count
        }
    }

    /// Templates that expand over named classes of words: `<piece> to <rank>`.
    public struct PhraseCountsFromTemplates: Sendable, Equatable, Codable {
        public var classes: [String: [String]]
        public var templates: [Template]
        public init(classes: [String: [String]], @TemplateBuilder templates: () -> [Template]) {
            self.classes = classes
            self.templates = templates()
        }
    }

    /// One template and its total count.
    public struct Template: Sendable, Equatable, Codable {
        public var template: String
        public var count: Int
        public init(_ template: String, count: Int) {
            self.template = template
            self.count = count
        }
    }

    /// A word and how it is said, each pronunciation X-SAMPA symbols separated by spaces.
    public struct CustomPronunciation: Sendable, Equatable, Codable {
        public var grapheme: String
        public var phonemes: [String]
        public init(grapheme: String, phonemes: [String]) {
            self.grapheme = grapheme
            self.phonemes = phonemes
        }
    }

    /// One item of the result builder.
    public enum Item: Sendable {
        case phrase(PhraseCount)
        case templates(PhraseCountsFromTemplates)
        case pronunciation(CustomPronunciation)
    }

    public init(
        locale: String, identifier: String, version: String, phrases: [PhraseCount] = [],
        templates: [PhraseCountsFromTemplates] = [], pronunciations: [CustomPronunciation] = []
    ) {
        self.locale = locale
        self.identifier = identifier
        self.version = version
        self.phrases = phrases
        self.templates = templates
        self.pronunciations = pronunciations
    }

    /// The data as Apple's DSL writes it: phrases, template groups and pronunciations in any order.
    public init(locale: String, identifier: String, version: String, @Builder _ items: () -> [Item]) {
        self.init(locale: locale, identifier: identifier, version: version)
        for item in items() {
            switch item {
            case .phrase(let phrase): phrases.append(phrase)
            case .templates(let group): templates.append(group)
            case .pronunciation(let pronunciation): pronunciations.append(pronunciation)
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        case locale, identifier, version, phrases, templates, pronunciations
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        locale = try container.decode(String.self, forKey: .locale)
        identifier = try container.decode(String.self, forKey: .identifier)
        version = try container.decode(String.self, forKey: .version)
        phrases = try container.decodeIfPresent([PhraseCount].self, forKey: .phrases) ?? []
        templates = try container.decodeIfPresent([PhraseCountsFromTemplates].self, forKey: .templates) ?? []
        pronunciations = try container.decodeIfPresent([CustomPronunciation].self, forKey: .pronunciations) ?? []
    }

    @resultBuilder public enum Builder {
        public static func buildExpression(_ phrase: PhraseCount) -> [Item] { [.phrase(phrase)] }
        public static func buildExpression(_ group: PhraseCountsFromTemplates) -> [Item] { [.templates(group)] }
        public static func buildExpression(_ pronunciation: CustomPronunciation) -> [Item] {
            [.pronunciation(pronunciation)]
        }
        public static func buildBlock(_ parts: [Item]...) -> [Item] { parts.flatMap { $0 } }
        public static func buildArray(_ parts: [[Item]]) -> [Item] { parts.flatMap { $0 } }
        public static func buildOptional(_ part: [Item]?) -> [Item] { part ?? [] }
        public static func buildEither(first: [Item]) -> [Item] { first }
        public static func buildEither(second: [Item]) -> [Item] { second }
    }

    @resultBuilder public enum TemplateBuilder {
        public static func buildExpression(_ template: Template) -> [Template] { [template] }
        public static func buildBlock(_ parts: [Template]...) -> [Template] { parts.flatMap { $0 } }
        public static func buildArray(_ parts: [[Template]]) -> [Template] { parts.flatMap { $0 } }
        public static func buildOptional(_ part: [Template]?) -> [Template] { part ?? [] }
        public static func buildEither(first: [Template]) -> [Template] { first }
        public static func buildEither(second: [Template]) -> [Template] { second }
    }
}

extension CustomLanguageModelData {
    /// Reads a data file; a malformed one is refused naming the file and the field.
    public static func read(path: String) throws -> CustomLanguageModelData {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw EarshotError(.invalidInput, "\(path): cannot read the language model data file")
        }
        return try decode(bytes, path: path)
    }

    /// The data of `bytes`, the JSON of the file at `path`, checked as ``read(path:)`` checks it.
    static func decode(_ bytes: Data, path: String) throws -> CustomLanguageModelData {
        let data: CustomLanguageModelData
        do {
            data = try JSONDecoder().decode(CustomLanguageModelData.self, from: bytes)
        } catch let DecodingError.keyNotFound(key, context) {
            throw EarshotError(.invalidInput, "\(path): \(Self.path(context.codingPath + [key])) is missing")
        } catch let DecodingError.typeMismatch(type, context) {
            throw EarshotError(.invalidInput, "\(path): \(Self.path(context.codingPath)): expected \(Self.name(type))")
        } catch let DecodingError.valueNotFound(type, context) {
            throw EarshotError(.invalidInput, "\(path): \(Self.path(context.codingPath)): expected \(Self.name(type))")
        } catch {
            throw EarshotError(
                .invalidInput, "\(path): not a JSON language model data file (\(quoted("\(error)", limit: 200)))")
        }
        do {
            try data.validate()
        } catch let error as EarshotError {
            throw EarshotError(.invalidInput, "\(path): \(error.message)")
        }
        return data
    }

    /// The data as the JSON file ``read(path:)`` reads (sorted keys, indented).
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// `text` in quotes for a message, cut after `limit` characters ("…"): a message quotes what it
    /// refuses, never a megabyte of it.
    static func quoted(_ text: some StringProtocol, limit: Int = 80) -> String {
        "\"" + (text.count > limit ? String(text.prefix(limit)) + "…" : String(text)) + "\""
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.reduce("") { path, key in
            if let index = key.intValue { return path + "[\(index)]" }
            return path.isEmpty ? key.stringValue : path + "." + key.stringValue
        }
    }

    private static func name(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type: "an integer"
        case is [String].Type: "an array of strings"
        default: "\(type)"
        }
    }

    /// Refuses what cannot be built: empty names, counts below 1, templates naming unknown classes or
    /// with empty classes, words longer than ``maxWordLength``, more classes, members, pronunciations,
    /// expansions or expanded characters than the caps allow (counted, not expanded), pronunciations
    /// that are not X-SAMPA, and data with no phrase at all. Errors name the field as a JSON path
    /// (`templates[0].templates[1].template`) and quote at most 80 characters of what they refuse.
    public func validate() throws {
        for (name, value) in [("locale", locale), ("identifier", identifier), ("version", version)]
        where value.trimmingCharacters(in: .whitespaces).isEmpty {
            throw EarshotError(.invalidInput, "\(name) is empty; expected a non-empty string")
        }
        for (name, value) in [("locale", locale), ("identifier", identifier), ("version", version)]
        where value.count > 200 {
            throw EarshotError(.invalidInput, "\(name) has \(value.count) characters; expected at most 200")
        }
        func checkWords(_ text: String, _ field: String) throws {
            let words: [Substring] = text.split(whereSeparator: \.isWhitespace)
            if let word = words.first(where: { $0.count > Self.maxWordLength }) {
                throw EarshotError(
                    .invalidInput,
                    "\(field) has a word of \(word.count) characters, \(Self.quoted(word)); expected at most \(Self.maxWordLength)"
                )
            }
        }
        var characters = 0
        for (index, phrase) in phrases.enumerated() {
            try checkWords(phrase.phrase, "phrases[\(index)].phrase")
            if Self.words(in: phrase.phrase).isEmpty {
                throw EarshotError(.invalidInput, "phrases[\(index)].phrase has no words")
            }
            if phrase.count < 1 {
                throw EarshotError(.invalidInput, "phrases[\(index)].count is \(phrase.count); expected 1 or more")
            }
            characters += phrase.phrase.count
        }
        let classes = templates.map(\.classes.count).reduce(0, +)
        if classes > Self.maxClasses {
            throw EarshotError(
                .invalidInput, "the templates have \(classes) classes; at most \(Self.maxClasses) are built")
        }
        let members = templates.flatMap(\.classes.values).map(\.count).reduce(0, +)
        if members > Self.maxClassMembers {
            throw EarshotError(
                .invalidInput,
                "the templates' classes have \(members) members; at most \(Self.maxClassMembers) are built")
        }
        if pronunciations.count > Self.maxPronunciations {
            throw EarshotError(
                .invalidInput,
                "\(pronunciations.count) pronunciations; at most \(Self.maxPronunciations) are built")
        }
        var total = phrases.count
        for (group, templates) in templates.enumerated() {
            var classCharacters: [String: Int] = [:]
            for (name, members) in templates.classes.sorted(by: { $0.key < $1.key }) {
                let field = "templates[\(group)].classes.\(Self.quoted(name, limit: 40).dropFirst().dropLast())"
                if members.isEmpty || members.contains(where: { Self.words(in: $0).isEmpty }) {
                    throw EarshotError(.invalidInput, "\(field) is empty or has an empty member")
                }
                for (index, member) in members.enumerated() { try checkWords(member, "\(field)[\(index)]") }
                classCharacters[name] = members.map(\.count).reduce(0, +)
            }
            for (index, template) in templates.templates.enumerated() {
                let field = "templates[\(group)].templates[\(index)]"
                if template.count < 1 {
                    throw EarshotError(.invalidInput, "\(field).count is \(template.count); expected 1 or more")
                }
                let parts = Self.parts(of: template.template)
                var expansions = 1
                for part in parts {
                    guard case .slot(let name) = part else { continue }
                    guard let members = templates.classes[name] else {
                        let known = templates.classes.keys.sorted().joined(separator: ", ")
                        throw EarshotError(
                            .invalidInput,
                            "\(field).template names <\(Self.quoted(name, limit: 40).dropFirst().dropLast())>, which is not a class of templates[\(group)] (classes: \(known.isEmpty ? "none" : Self.quoted(known).dropFirst().dropLast()))"
                        )
                    }
                    expansions = expansions.multipliedReportingOverflow(by: members.count).partialValue
                    if expansions > Self.maxExpansionsPerTemplate {
                        throw EarshotError(
                            .invalidInput,
                            "\(field).template expands to more than \(Self.maxExpansionsPerTemplate) phrases; split it or narrow its classes"
                        )
                    }
                }
                if parts.allSatisfy({
                    if case .text(let text) = $0 { Self.words(in: text).isEmpty } else { false }
                }) {
                    throw EarshotError(.invalidInput, "\(field).template has no words")
                }
                // The expansions' characters: each literal once per expansion, and each member of a slot's
                // class in expansions ÷ (class size) of them.
                var expanded = 0
                for part in parts {
                    switch part {
                    case .text(let text):
                        try checkWords(text, "\(field).template")
                        expanded += expansions * text.count
                    case .slot(let name):
                        let share = expansions / templates.classes[name]!.count
                        let (product, overflow) = share.multipliedReportingOverflow(by: classCharacters[name]!)
                        expanded = overflow ? Int.max : expanded.addingReportingOverflow(product).partialValue
                    }
                    if expanded > Self.maxPhraseCharacters { break }
                }
                characters = characters.addingReportingOverflow(expanded).overflow ? Int.max : characters + expanded
                if characters > Self.maxPhraseCharacters {
                    throw EarshotError(
                        .invalidInput,
                        "\(field).template takes the phrases past \(Self.maxPhraseCharacters) characters once expanded; at most \(Self.maxPhraseCharacters) are built (shorten the phrases or narrow the classes)"
                    )
                }
                total += expansions
            }
        }
        if total > Self.maxPhrases {
            throw EarshotError(
                .invalidInput, "the data expands to \(total) phrases; at most \(Self.maxPhrases) are built")
        }
        if characters > Self.maxPhraseCharacters {
            throw EarshotError(
                .invalidInput,
                "the phrases have \(characters) characters; at most \(Self.maxPhraseCharacters) are built")
        }
        if total == 0 { throw EarshotError(.invalidInput, "no phrases and no templates; expected at least one phrase") }
        for (index, pronunciation) in pronunciations.enumerated() {
            let field = "pronunciations[\(index)]"
            guard Self.words(in: pronunciation.grapheme).count == 1 else {
                throw EarshotError(
                    .invalidInput, "\(field).grapheme \(Self.quoted(pronunciation.grapheme)): expected one word")
            }
            try checkWords(pronunciation.grapheme, "\(field).grapheme")
            if pronunciation.phonemes.isEmpty {
                throw EarshotError(
                    .invalidInput, "\(field).phonemes is empty; expected at least one X-SAMPA pronunciation")
            }
            if pronunciation.phonemes.count > 10 {
                throw EarshotError(
                    .invalidInput,
                    "\(field).phonemes has \(pronunciation.phonemes.count) pronunciations; expected at most 10")
            }
            for (alternative, phonemes) in pronunciation.phonemes.enumerated() {
                let phones: [String]
                do {
                    phones = try XSAMPAToCMU.phones(phonemes)
                } catch {
                    throw EarshotError(
                        .invalidInput,
                        "\(field).phonemes[\(alternative)] \(Self.quoted(phonemes)): \(Self.quoted(error.symbol)) is not an English X-SAMPA symbol"
                    )
                }
                if phones.count > CustomPronunciationEntries.maxPhones {
                    throw EarshotError(
                        .invalidInput,
                        "\(field).phonemes[\(alternative)] has \(phones.count) phones; expected at most \(CustomPronunciationEntries.maxPhones)"
                    )
                }
            }
        }
    }

    /// Every phrase the data stands for, with its count: the exact phrases, then each template's
    /// expansions in order (classes varied last slot fastest), with the template's count spread over them.
    /// Call ``validate()`` first.
    public func expandedPhrases() -> [PhraseCount] {
        var expanded = phrases
        for group in templates {
            for template in group.templates {
                var texts = [""]
                for part in Self.parts(of: template.template) {
                    switch part {
                    case .text(let text): texts = texts.map { $0 + text }
                    case .slot(let name):
                        let members = group.classes[name] ?? []
                        texts = texts.flatMap { prefix in members.map { prefix + $0 } }
                    }
                }
                let share = template.count / texts.count
                let remainder = template.count % texts.count
                for (index, text) in texts.enumerated() {
                    expanded.append(PhraseCount(phrase: text, count: max(1, share + (index < remainder ? 1 : 0))))
                }
            }
        }
        return expanded
    }

    enum Part: Equatable {
        case text(String)
        case slot(String)
    }

    /// A template's literal text and `<class>` slots.
    static func parts(of template: String) -> [Part] {
        var parts: [Part] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
            parts.append(.slot(String(rest[rest.index(after: open)..<close])))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        return parts
    }

    /// A phrase as the recognizers' words: lower case, split at white space, punctuation at either
    /// end of a word dropped (an apostrophe inside stays), and whole numbers up to 9 999 spelled out
    /// ("8" → "eight", "64" → "sixty four"), since the pronouncing dictionary has words, not digits.
    public static func words(in phrase: String) -> [String] {
        phrase.lowercased().split(whereSeparator: \.isWhitespace).flatMap { token -> [String] in
            let word = token.trimmingCharacters(in: CharacterSet.alphanumerics.inverted)
            if let number = Int(word), (0...9_999).contains(number), word.allSatisfy(\.isASCII) {
                return NumberWords.spell(number)
            }
            return word.isEmpty ? [] : [word]
        }
    }
}

/// Whole numbers as English words, for language-model text.
enum NumberWords {
    private static let ones = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    private static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    /// 0 to 9 999: "one thousand two hundred thirty four".
    static func spell(_ number: Int) -> [String] {
        if number < 20 { return [ones[number]] }
        if number < 100 { return [tens[number / 10]] + (number % 10 == 0 ? [] : [ones[number % 10]]) }
        if number < 1_000 {
            return [ones[number / 100], "hundred"] + (number % 100 == 0 ? [] : spell(number % 100))
        }
        return spell(number / 1_000) + ["thousand"] + (number % 1_000 == 0 ? [] : spell(number % 1_000))
    }
}
