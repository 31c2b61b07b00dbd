import EarshotCore
import Foundation

extension RecognitionGrammar {
    /// Reads an SRGS 1.0 grammar in its XML form (`application/srgs+xml`).
    ///
    /// Supported: `grammar` with `root` (or a single rule), `rule` (`id`, `scope`), `item`
    /// (`repeat` as `n`, `n-m`, `n-`; `weight` inside `one-of`), `one-of`, `ruleref` to local rules
    /// (`uri="#id"`) and the specials `NULL`, `VOID` and `GARBAGE` (matched like `NULL`: the
    /// finite-state decoder has no garbage model), `token`, and plain text tokens. `tag`, `example`,
    /// `meta` and `metadata` are ignored: they carry semantics and documentation, not phrases.
    /// Words are lower-cased to match the dictionary.
    ///
    /// Throws `.invalidInput` naming `origin`, the line and the construct for anything else: DTMF
    /// grammars, references to other documents, unknown elements, missing or duplicate rule ids,
    /// references to rules that do not exist — and for a grammar beyond `limits` (nesting, rules,
    /// repeats, reference chains, or the size of the network it unrolls to), naming the limit.
    public init(srgs data: [UInt8], origin: String = "grammar", limits: GrammarLimits = .default) throws {
        let document = try MarkupReader(
            origin: origin, maximumDepth: limits.maxGrammarDepth, depthSetting: "max-grammar-depth", doctype: .skipped
        ).read(data)
        let reader = SRGSReader(origin: origin, limits: limits)
        let grammar = try reader.grammar(from: document)
        try grammar.checkSize(within: limits, origin: origin)
        self = grammar
    }
}

/// Turns the XML tree of an SRGS document into a ``RecognitionGrammar``.
private struct SRGSReader {
    let origin: String
    let limits: GrammarLimits

    func grammar(from document: MarkupElement) throws -> RecognitionGrammar {
        guard document.name == "grammar" else {
            throw failure(document, "the document element is <\(document.name)>; expected an SRGS <grammar>")
        }
        if let mode = document.attributes["mode"], mode != "voice" {
            throw failure(document, "mode=\"\(mode)\" is not supported; expected a voice grammar")
        }
        var rules: [RecognitionGrammar.Rule] = []
        for element in document.elements {
            switch element.name {
            case "rule":
                guard let id = element.attributes["id"], !id.isEmpty else {
                    throw failure(element, "a <rule> has no id")
                }
                if rules.contains(where: { $0.id == id }) { throw failure(element, "rule \"\(id)\" is defined twice") }
                guard rules.count < limits.maxGrammarRules else {
                    throw failure(
                        element,
                        "the grammar defines more than \(limits.maxGrammarRules) rules, this service's limit "
                            + "(max-grammar-rules)")
                }
                let scope = element.attributes["scope"] ?? "private"
                guard scope == "public" || scope == "private" else {
                    throw failure(element, "rule \"\(id)\" has scope=\"\(scope)\"; expected public or private")
                }
                rules.append(.init(id: id, isPublic: scope == "public", expansion: try sequence(element.children)))
            case "meta", "metadata", "tag":
                continue
            case "lexicon":
                throw failure(
                    element,
                    "<lexicon> references another document, which this service does not fetch; send the "
                        + "pronunciations as an x-dictionary part")
            default:
                throw failure(element, "unexpected <\(element.name)> in <grammar>; expected <rule> elements")
            }
        }
        guard !rules.isEmpty else { throw failure(document, "the grammar has no rules") }
        let root: String
        if let named = document.attributes["root"] {
            root = named
        } else if rules.count == 1 {
            root = rules[0].id
        } else {
            throw failure(document, "<grammar> has no root attribute; name the rule a phrase must match")
        }
        guard rules.contains(where: { $0.id == root }) else {
            throw failure(document, "root=\"\(root)\" names no rule of this grammar")
        }
        let grammar = RecognitionGrammar(root: root, rules: rules)
        try checkReferences(grammar, in: document)
        return grammar
    }

    /// The children of a rule or item, in order, as one expansion.
    private func sequence(_ nodes: [MarkupNode]) throws -> RecognitionGrammar.Expansion {
        var items: [RecognitionGrammar.Expansion] = []
        for node in nodes {
            switch node {
            case .text(let text):
                items.append(contentsOf: Self.words(text).map { .token($0) })
            case .element(let element):
                if let expansion = try expansion(element) { items.append(expansion) }
            }
        }
        return items.count == 1 ? items[0] : (items.isEmpty ? .empty : .sequence(items))
    }

    private func expansion(_ element: MarkupElement) throws -> RecognitionGrammar.Expansion? {
        switch element.name {
        case "item":
            return try repeated(try sequence(element.children), element)
        case "one-of":
            var choices: [RecognitionGrammar.Alternative] = []
            for child in element.children {
                switch child {
                case .text(let text) where text.allSatisfy(\.isWhitespace):
                    continue
                case .element(let item) where item.name == "item":
                    choices.append(.init(weight: try weight(item), expansion: try expansion(item) ?? .empty))
                case .element(let other) where other.name == "tag":
                    continue
                default:
                    throw failure(element, "<one-of> may hold only <item> elements")
                }
            }
            guard !choices.isEmpty else { throw failure(element, "<one-of> has no <item>") }
            return choices.count == 1 ? choices[0].expansion : .alternatives(choices)
        case "ruleref":
            if let special = element.attributes["special"] {
                switch special {
                case "NULL", "GARBAGE": return .empty
                case "VOID": return .void
                default: throw failure(element, "special=\"\(special)\"; expected NULL, VOID or GARBAGE")
                }
            }
            guard let uri = element.attributes["uri"] else {
                throw failure(element, "<ruleref> has neither uri nor special")
            }
            guard uri.hasPrefix("#"), uri.count > 1 else {
                throw failure(
                    element,
                    "<ruleref uri=\"\(uri)\"> refers to another document; only rules of this grammar (uri=\"#id\") "
                        + "are supported")
            }
            return .reference(String(uri.dropFirst()))
        case "token":
            let words = Self.words(element.text)
            guard !words.isEmpty else { throw failure(element, "<token> is empty") }
            return words.count == 1 ? .token(words[0]) : .sequence(words.map { .token($0) })
        case "tag", "example":
            return nil
        default:
            throw failure(
                element, "unexpected <\(element.name)>; expected text, <item>, <one-of>, <ruleref> or <token>")
        }
    }

    /// Applies an item's `repeat` attribute.
    private func repeated(_ expansion: RecognitionGrammar.Expansion, _ item: MarkupElement) throws
        -> RecognitionGrammar.Expansion
    {
        guard let text = item.attributes["repeat"] else { return expansion }
        let bounds = text.split(separator: "-", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let maxGrammarRepeat = limits.maxGrammarRepeat
        guard (1...2).contains(bounds.count), let minimum = Int(bounds[0]), minimum >= 0 else {
            throw failure(item, "repeat=\"\(text)\"; expected n, n-m or n-")
        }
        let maximum: Int?
        if bounds.count == 1 {
            maximum = minimum
        } else if bounds[1].isEmpty {
            maximum = nil
        } else if let bound = Int(bounds[1]), bound >= minimum {
            maximum = bound
        } else {
            throw failure(item, "repeat=\"\(text)\"; expected n-m with m ≥ n")
        }
        guard minimum <= maxGrammarRepeat, (maximum ?? 0) <= maxGrammarRepeat else {
            throw failure(
                item,
                "repeat=\"\(text)\" asks for more than \(maxGrammarRepeat) repetitions, this service's limit "
                    + "(max-grammar-repeat)")
        }
        if minimum == 1 && maximum == 1 { return expansion }
        return .repetition(expansion, minimum: minimum, maximum: maximum)
    }

    private func weight(_ item: MarkupElement) throws -> Double? {
        guard let text = item.attributes["weight"] else { return nil }
        guard let weight = Double(text.trimmingCharacters(in: .whitespaces)), weight.isFinite, weight > 0 else {
            throw failure(item, "weight=\"\(text)\"; expected a positive number")
        }
        return weight
    }

    private func checkReferences(_ grammar: RecognitionGrammar, in document: MarkupElement) throws {
        let ids = Set(grammar.rules.map(\.id))
        func check(_ expansion: RecognitionGrammar.Expansion, rule: String) throws {
            switch expansion {
            case .reference(let id) where !ids.contains(id):
                throw failure(document, "rule \"\(rule)\" refers to \"#\(id)\", which is not a rule of this grammar")
            case .sequence(let items): for item in items { try check(item, rule: rule) }
            case .alternatives(let choices): for choice in choices { try check(choice.expansion, rule: rule) }
            case .repetition(let item, _, _): try check(item, rule: rule)
            default: break
            }
        }
        for rule in grammar.rules { try check(rule.expansion, rule: rule.id) }
    }

    private static func words(_ text: String) -> [String] {
        text.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
    }

    private func failure(_ element: MarkupElement, _ message: String) -> EarshotError {
        EarshotError(.invalidInput, "\(origin): line \(element.line): \(message)")
    }
}
