import EarshotCore
import Foundation

/// Pronunciations a request adds to the recognizer's dictionary: the content of a W3C PLS 1.0
/// document (Pronunciation Lexicon Specification, `application/pls+xml`).
///
/// Each lexeme names one or more spellings (`grapheme`) and how they are said: `phoneme` in IPA
/// (PLS's usual alphabet, converted to the CMU phone set the en-us model uses) or in ARPAbet
/// (`alphabet="x-arpabet"` or `"x-cmu"`, the CMU dictionary's own notation, stress digits allowed),
/// or `alias`, other words whose dictionary pronunciations are joined.
public struct PronunciationLexicon: Sendable, Equatable {
    public var entries: [Entry]

    public struct Entry: Sendable, Equatable {
        /// The spellings, lower-cased as the dictionary is.
        public var words: [String]
        public var pronunciations: [Pronunciation]
    }

    public enum Pronunciation: Sendable, Equatable {
        /// CMU phones without stress, e.g. `["IH", "R", "SH", "AA", "T"]`.
        case phones([String])
        /// Said as these words are (their first dictionary pronunciation each).
        case alias([String])
    }

    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Reads a PLS document. Throws `.invalidInput` naming `origin`, the line and the lexeme for an
    /// unknown alphabet, an IPA symbol with no CMU counterpart, or a lexeme without spelling or
    /// pronunciation, and for a document nested deeper or holding more lexemes than `limits` allow.
    public init(pls data: [UInt8], origin: String = "lexicon", limits: GrammarLimits = .default) throws {
        let document = try MarkupReader(
            origin: origin, maximumDepth: limits.maxGrammarDepth, depthSetting: "max-grammar-depth", doctype: .skipped
        ).read(data)
        guard document.name == "lexicon" else {
            throw EarshotError(
                .invalidInput, "\(origin): the document element is <\(document.name)>; expected a PLS <lexicon>")
        }
        let defaultAlphabet = document.attributes["alphabet"] ?? "ipa"
        var entries: [Entry] = []
        let lexemes = document.elements.filter { $0.name == "lexeme" }
        guard lexemes.count <= limits.maxLexemes else {
            throw EarshotError(
                .invalidInput,
                "\(origin): the lexicon holds \(lexemes.count) lexemes; this service's limit is \(limits.maxLexemes) "
                    + "(max-lexemes)")
        }
        for lexeme in lexemes {
            let failure = { (message: String) in
                EarshotError(.invalidInput, "\(origin): line \(lexeme.line): \(message)")
            }
            let words = lexeme.elements.filter { $0.name == "grapheme" }.map {
                $0.text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            }.filter { !$0.isEmpty }
            guard !words.isEmpty else { throw failure("a <lexeme> has no <grapheme>") }
            if let spaced = words.first(where: { $0.contains(where: \.isWhitespace) }) {
                throw failure(
                    "grapheme \"\(spaced)\" holds a space; the dictionary has single words only (use one lexeme "
                        + "per word)")
            }
            var pronunciations: [Pronunciation] = []
            for element in lexeme.elements {
                switch element.name {
                case "phoneme":
                    let alphabet = element.attributes["alphabet"] ?? lexeme.attributes["alphabet"] ?? defaultAlphabet
                    let text = element.text
                    do {
                        pronunciations.append(.phones(try Self.phones(text, alphabet: alphabet)))
                    } catch let reason as PhoneError {
                        throw failure("\"\(words[0])\": \(reason.message)")
                    }
                case "alias":
                    let aliasWords = element.text.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
                    guard !aliasWords.isEmpty else { throw failure("\"\(words[0])\": <alias> is empty") }
                    pronunciations.append(.alias(aliasWords))
                default:
                    continue
                }
            }
            guard !pronunciations.isEmpty else {
                throw failure("\"\(words[0])\" has neither <phoneme> nor <alias>")
            }
            entries.append(Entry(words: words, pronunciations: pronunciations))
        }
        self.entries = entries
    }

    struct PhoneError: Error {
        var message: String
    }

    /// The CMU phones of a `phoneme` written in `alphabet`.
    static func phones(_ text: String, alphabet: String) throws -> [String] {
        let phones: [String]
        switch alphabet.lowercased() {
        case "ipa":
            phones = try IPAToCMU.phones(text)
        case "x-arpabet", "x-cmu", "arpabet", "cmu":
            phones = try text.split(whereSeparator: { $0.isWhitespace }).map { symbol in
                let phone = symbol.uppercased().filter { !$0.isNumber }
                guard IPAToCMU.phoneSet.contains(phone) else {
                    throw PhoneError(
                        message: "\"\(symbol)\" is not a CMU phone; expected one of "
                            + IPAToCMU.phoneSet.sorted().joined(separator: " "))
                }
                return phone
            }
        default:
            throw PhoneError(message: "alphabet \"\(alphabet)\" is not supported; expected ipa or x-arpabet")
        }
        guard !phones.isEmpty else { throw PhoneError(message: "<phoneme> is empty") }
        return phones
    }
}
