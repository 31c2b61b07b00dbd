import Foundation

extension RecognitionGrammar {
    /// The grammar in JSGF 1.0, the text form PocketSphinx compiles to a finite-state grammar.
    ///
    /// Only the root rule is public (PocketSphinx starts from the first public rule); rule names are
    /// rewritten to `<rN_id>` so any SRGS id (which may hold `.` or `-`) becomes a valid JSGF name.
    /// Bounded repeats unroll (`repeat="2-4"` → `x x [x [x]]`), open ones use `+` and `*`.
    public func jsgf(name: String = "request") -> String {
        let names = Dictionary(
            uniqueKeysWithValues: rules.enumerated().map { index, rule in (rule.id, Self.jsgfRuleName(index, rule.id)) })
        var text = "#JSGF V1.0;\n\ngrammar \(name);\n\n"
        let ordered = rules.filter { $0.id == root } + rules.filter { $0.id != root }
        for rule in ordered {
            let prefix = rule.id == root ? "public " : ""
            text += "\(prefix)<\(names[rule.id]!)> = \(Self.render(rule.expansion, names: names));\n"
        }
        return text
    }

    private static func jsgfRuleName(_ index: Int, _ id: String) -> String {
        let safe = id.unicodeScalars.map { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) ? Character(scalar) : "_"
        }
        return "r\(index)_\(String(safe))"
    }

    private static func render(_ expansion: Expansion, names: [String: String]) -> String {
        switch expansion {
        case .token(let word): return token(word)
        case .sequence(let items): return items.map { grouped($0, names: names) }.joined(separator: " ")
        case .alternatives(let choices):
            let weighted = choices.contains { $0.weight != nil }
            let rendered = choices.map { choice in
                let body = grouped(choice.expansion, names: names)
                return weighted ? "/\(weightText(choice.weight ?? 1))/ \(body)" : body
            }
            return rendered.joined(separator: " | ")
        case .repetition(let item, let minimum, let maximum):
            let body = "(\(render(item, names: names)))"
            var parts = Array(repeating: body, count: max(minimum - 1, 0))
            switch (minimum, maximum) {
            case (_, nil):
                parts.append(minimum == 0 ? "\(body)*" : "\(body)+")
            case (_, let maximum?):
                if minimum > 0 { parts.append(body) }
                let optional = maximum - minimum
                if optional > 0 {
                    parts.append(String(repeating: "[\(body) ", count: optional - 1) + "[\(body)]"
                        + String(repeating: "]", count: optional - 1))
                }
                if parts.isEmpty { parts.append("<NULL>") }
            }
            return parts.joined(separator: " ")
        case .reference(let id): return "<\(names[id]!)>"
        case .empty: return "<NULL>"
        case .void: return "<VOID>"
        }
    }

    /// An expansion as one unit of a sequence: alternatives need parentheses there.
    private static func grouped(_ expansion: Expansion, names: [String: String]) -> String {
        switch expansion {
        case .alternatives, .sequence: return "(\(render(expansion, names: names)))"
        default: return render(expansion, names: names)
        }
    }

    /// A word as a JSGF token, quoted when it holds one of JSGF's operators.
    private static func token(_ word: String) -> String {
        let special = Set(";=|*+<>()[]{}/\\\"")
        guard word.contains(where: { special.contains($0) }) else { return word }
        return "\"" + word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private static func weightText(_ weight: Double) -> String {
        weight == weight.rounded() && abs(weight) < 1e9 ? String(Int(weight)) : String(weight)
    }
}
