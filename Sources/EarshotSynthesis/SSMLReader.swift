import EarshotCore
import Foundation

/// Reads the SSML subset real clients send into a ``SpeechScript``: `speak`, `p`, `s`, `break`
/// (`time`, `strength`), `prosody` (`rate`, `pitch`, `volume`), `say-as` (`interpret-as` characters,
/// spell-out, digits, cardinal, date with `format`, telephone), `sub` (`alias`) and `phoneme` (`ph`,
/// `alphabet`). Any other element is refused with an error naming it — markup is never read aloud.
struct SSMLReader {
    let field: String
    var limits: SpeechScript.Limits = .default

    /// The longest `break` accepted, as most SSML services cap it.
    static let maximumBreakSeconds = 10.0
    static let supportedElements = ["speak", "p", "s", "break", "prosody", "say-as", "sub", "phoneme"]
    /// Elements nested deeper than this are refused (the tree is read recursively).
    static let maximumDepth = 32

    func read(_ data: [UInt8]) throws -> SpeechScript {
        guard data.count <= limits.ssmlBytes else {
            throw EarshotError(
                .invalidParameter,
                "\(field): \(data.count) bytes of SSML; the limit is \(limits.ssmlBytes)")
        }
        let root = try MarkupReader(origin: field, maximumDepth: Self.maximumDepth, doctype: .refused).read(data)
        guard root.name == "speak" else {
            throw error(root, "the root element is <\(root.name)>; expected <speak>")
        }
        var parts: [SpeechPart] = []
        try walk(root, prosody: .normal, into: &parts)
        let script = SpeechScript(parts: parts)
        let count = script.spokenCharacterCount
        guard count <= limits.textCharacters else {
            throw EarshotError(
                .invalidParameter,
                "\(field): \(count) characters of text; the limit is \(limits.textCharacters)")
        }
        guard parts.contains(where: { if case .pause = $0 { false } else { true } }) else {
            throw EarshotError(.invalidParameter, "\(field): the document has no text to speak")
        }
        return script
    }

    private func error(_ element: MarkupElement, _ message: String) -> EarshotError {
        EarshotError(.invalidInput, "\(field): line \(element.line): \(message)")
    }

    private func walk(_ element: MarkupElement, prosody: Prosody, into parts: inout [SpeechPart]) throws {
        for child in element.children {
            switch child {
            case .text(let text):
                if !text.allSatisfy(\.isWhitespace) { parts.append(.text(text, prosody)) }
            case .element(let child):
                try speak(child, prosody: prosody, into: &parts)
            }
        }
    }

    private func speak(_ element: MarkupElement, prosody: Prosody, into parts: inout [SpeechPart]) throws {
        switch element.name {
        case "speak":
            throw error(element, "<speak> inside <speak>")
        case "p", "s":
            try walk(element, prosody: prosody, into: &parts)
            parts.append(.pause(seconds: element.name == "p" ? 0.5 : 0.25))
        case "break":
            parts.append(.pause(seconds: try breakSeconds(element)))
        case "prosody":
            let inner = Prosody(
                rate: try attribute(element, "rate", parse: Self.rate) ?? 1,
                pitch: try attribute(element, "pitch", parse: Self.pitch) ?? 1,
                volume: try attribute(element, "volume", parse: Self.volume) ?? 1)
            try walk(element, prosody: inner.nested(in: prosody), into: &parts)
        case "say-as":
            try onlyText(element)
            parts.append(.text(try sayAs(element), prosody))
        case "sub":
            try onlyText(element)
            guard let alias = element.attributes["alias"] else {
                throw error(element, "<sub> needs an alias attribute")
            }
            parts.append(.text(alias, prosody))
        case "phoneme":
            try onlyText(element)
            guard let ph = element.attributes["ph"], !ph.isEmpty else {
                throw error(element, "<phoneme> needs a ph attribute")
            }
            parts.append(
                .phonemes(ph, alphabet: element.attributes["alphabet"] ?? "ipa", fallback: element.text, prosody))
        default:
            throw error(
                element,
                "element <\(element.name)> is not supported; supported: "
                    + Self.supportedElements.map { "<\($0)>" }.joined(separator: ", "))
        }
    }

    private func onlyText(_ element: MarkupElement) throws {
        if let inner = element.children.first(where: { if case .element = $0 { true } else { false } }),
            case .element(let child) = inner
        {
            throw error(child, "<\(child.name)> inside <\(element.name)>, which holds text only")
        }
    }

    private func attribute(
        _ element: MarkupElement, _ name: String, parse: (String) -> Double?
    ) throws -> Double? {
        guard let value = element.attributes[name] else { return nil }
        guard let parsed = parse(value.trimmingCharacters(in: .whitespaces)) else {
            throw error(element, "<\(element.name)> \(name)=\"\(value)\" is not understood")
        }
        return parsed
    }

    private func breakSeconds(_ element: MarkupElement) throws -> Double {
        if let time = element.attributes["time"] {
            let value = time.trimmingCharacters(in: .whitespaces)
            let seconds: Double?
            if value.hasSuffix("ms") {
                seconds = Double(value.dropLast(2)).map { $0 / 1000 }
            } else if value.hasSuffix("s") {
                seconds = Double(value.dropLast())
            } else {
                seconds = nil
            }
            guard let seconds, seconds >= 0, seconds <= Self.maximumBreakSeconds else {
                throw error(
                    element,
                    "<break> time=\"\(time)\": expected 0–\(Int(Self.maximumBreakSeconds))s, as \"500ms\" or \"1.5s\"")
            }
            return seconds
        }
        let strengths = ["none": 0, "x-weak": 0.1, "weak": 0.2, "medium": 0.4, "strong": 0.7, "x-strong": 1.0]
        let strength = element.attributes["strength"] ?? "medium"
        guard let seconds = strengths[strength] else {
            throw error(
                element, "<break> strength=\"\(strength)\": expected none, x-weak, weak, medium, strong or x-strong")
        }
        return seconds
    }

    /// `x-slow`…`x-fast`, a percentage of the normal rate ("150%"), a relative change ("+20%") or a
    /// multiplier ("1.5").
    static func rate(_ value: String) -> Double? {
        let keywords = ["x-slow": 0.5, "slow": 0.75, "medium": 1, "default": 1, "fast": 1.25, "x-fast": 1.75]
        if let keyword = keywords[value] { return keyword }
        let result: Double?
        if value.hasSuffix("%") {
            guard let number = Double(value.dropLast()) else { return nil }
            result = value.hasPrefix("+") || value.hasPrefix("-") ? 1 + number / 100 : number / 100
        } else {
            result = Double(value)
        }
        return result.flatMap { Prosody.rateRange.contains($0) ? $0 : nil }
    }

    /// `x-low`…`x-high`, a relative change in percent ("+10%") or semitones ("-2st").
    static func pitch(_ value: String) -> Double? {
        let keywords = ["x-low": 0.7, "low": 0.85, "medium": 1, "default": 1, "high": 1.15, "x-high": 1.3]
        if let keyword = keywords[value] { return keyword }
        let result: Double?
        if value.hasSuffix("%") {
            result = Double(value.dropLast()).map { 1 + $0 / 100 }
        } else if value.hasSuffix("st") {
            result = Double(value.dropLast(2)).map { pow(2, $0 / 12) }
        } else {
            result = nil
        }
        return result.flatMap { Prosody.pitchRange.contains($0) ? $0 : nil }
    }

    /// `silent`…`x-loud`, or a change in decibels ("-6dB").
    static func volume(_ value: String) -> Double? {
        let keywords = ["silent": 0, "x-soft": 0.25, "soft": 0.5, "medium": 1, "default": 1, "loud": 1.5, "x-loud": 2]
        if let keyword = keywords[value] { return keyword }
        guard value.hasSuffix("dB"), let decibels = Double(value.dropLast(2)) else { return nil }
        let gain = pow(10, decibels / 20)
        return Prosody.volumeRange.contains(gain) ? gain : nil
    }

    private static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
        "November", "December",
    ]

    /// The words an engine reads for a `say-as` element.
    private func sayAs(_ element: MarkupElement) throws -> String {
        let text = element.text.trimmingCharacters(in: .whitespacesAndNewlines)
        let kind = element.attributes["interpret-as"] ?? ""
        switch kind {
        case "characters", "spell-out", "verbatim":
            return text.filter { !$0.isWhitespace }.map(String.init).joined(separator: " ")
        case "digits":
            return text.filter(\.isNumber).map(String.init).joined(separator: " ")
        case "cardinal", "number":
            return text
        case "telephone":
            // Digits one by one, a short pause at each separator ("555-0134" → "5 5 5, 0 1 3 4").
            return text.split(whereSeparator: { !$0.isNumber && $0 != "+" })
                .map { $0.map(String.init).joined(separator: " ").replacingOccurrences(of: "+", with: "plus") }
                .joined(separator: ", ")
        case "date":
            let fields = text.split(whereSeparator: { "-/. ".contains($0) }).map { Int($0) }
            let format = element.attributes["format"] ?? "mdy"
            guard fields.allSatisfy({ $0 != nil }), fields.count == format.count,
                Set(format).isSubset(of: "dmy")
            else {
                throw error(
                    element, "<say-as interpret-as=\"date\" format=\"\(format)\">: cannot read \"\(text)\" as \(format)"
                )
            }
            var day: Int?, month: Int?, year: Int?
            for (letter, value) in zip(format, fields) {
                switch letter {
                case "d": day = value
                case "m": month = value
                default: year = value
                }
            }
            if let month, !(1...12).contains(month) {
                throw error(element, "<say-as> date \"\(text)\": no month \(month)")
            }
            if let day, !(1...31).contains(day) { throw error(element, "<say-as> date \"\(text)\": no day \(day)") }
            var words: [String] = []
            if let month { words.append(Self.months[month - 1]) }
            if let day { words.append(Self.ordinal(day)) }
            if let year { words.append(String(year)) }
            return words.joined(separator: " ")
        default:
            throw error(
                element,
                "<say-as> interpret-as=\"\(kind)\" is not supported; supported: characters, spell-out, digits, "
                    + "cardinal, date, telephone")
        }
    }

    private static func ordinal(_ day: Int) -> String {
        let suffix =
            (11...13).contains(day % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][day % 10] ?? "th"
        return "\(day)\(suffix)"
    }
}
