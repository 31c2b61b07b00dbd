import EarshotCore
import Foundation

/// What a CTranslate2 Whisper folder's `config.json` holds: the alignment heads, the tokens to
/// suppress, and the language tokens. Every field is optional, as CTranslate2 treats them.
struct WhisperModelConfiguration: Decodable {
    var alignmentHeads: [[Int]]
    var suppressIDs: [Int]
    var suppressIDsBegin: [Int]
    /// The language tokens' ids (`lang_ids`), nil when the file has none.
    var languageIDs: [Int]?

    enum CodingKeys: String, CodingKey {
        case alignmentHeads = "alignment_heads"
        case suppressIDs = "suppress_ids"
        case suppressIDsBegin = "suppress_ids_begin"
        case languageIDs = "lang_ids"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        alignmentHeads = try container.decodeIfPresent([[Int]].self, forKey: .alignmentHeads) ?? []
        suppressIDs = try container.decodeIfPresent([Int].self, forKey: .suppressIDs) ?? []
        suppressIDsBegin = try container.decodeIfPresent([Int].self, forKey: .suppressIDsBegin) ?? []
        languageIDs = try container.decodeIfPresent([Int].self, forKey: .languageIDs)
    }

    init(data: Data, path: String) throws {
        do {
            self = try JSONDecoder().decode(Self.self, from: data)
        } catch {
            throw EarshotError(
                .modelUnavailable,
                "\(path): expected CTranslate2's Whisper config (alignment_heads, suppress_ids, lang_ids "
                    + "as lists of integers); \(Self.describe(error))")
        }
        guard alignmentHeads.allSatisfy({ $0.count == 2 }) else {
            throw EarshotError(.modelUnavailable, "\(path): alignment_heads: expected [layer, head] pairs")
        }
    }

    /// The tokens of a vocabulary file by id: `vocabulary.json` a JSON list of strings, `vocabulary.txt`
    /// one token per line (faster-whisper reads either).
    static func vocabulary(data: Data, path: String) throws -> [String] {
        if path.hasSuffix(".json") {
            do { return try JSONDecoder().decode([String].self, from: data) } catch {
                throw EarshotError(
                    .modelUnavailable, "\(path): expected a JSON list of token strings; \(describe(error))")
            }
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw EarshotError(.modelUnavailable, "\(path): expected UTF-8 text, one token per line")
        }
        var tokens = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if tokens.last == "" { tokens.removeLast() }
        return tokens
    }

    /// The BPE merges of a Hugging Face `tokenizer.json` (`model.merges`, as `"a b"` strings or as
    /// `["a", "b"]` pairs), which turn a prompt's text into tokens.
    static func merges(data: Data, path: String) throws -> [String] {
        struct Tokenizer: Decodable {
            struct Model: Decodable {
                var type: String?
                var merges: [Merge]
            }
            enum Merge: Decodable {
                case joined(String)
                case pair([String])
                init(from decoder: any Decoder) throws {
                    let container = try decoder.singleValueContainer()
                    if let text = try? container.decode(String.self) {
                        self = .joined(text)
                    } else {
                        self = .pair(try container.decode([String].self))
                    }
                }
            }
            var model: Model
        }
        let tokenizer: Tokenizer
        do { tokenizer = try JSONDecoder().decode(Tokenizer.self, from: data) } catch {
            throw EarshotError(
                .modelUnavailable,
                "\(path): expected a Hugging Face tokenizer with model.merges; \(describe(error))")
        }
        guard tokenizer.model.type == nil || tokenizer.model.type == "BPE" else {
            throw EarshotError(.modelUnavailable, "\(path): expected a BPE tokenizer; found \(tokenizer.model.type!)")
        }
        return try tokenizer.model.merges.map { merge in
            switch merge {
            case .joined(let text): return text
            case .pair(let pair) where pair.count == 2: return pair[0] + " " + pair[1]
            case .pair: throw EarshotError(.modelUnavailable, "\(path): model.merges: expected pairs of symbols")
            }
        }
    }

    /// A decoding error as one phrase that names the field.
    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.keyNotFound(_, let context), DecodingError.dataCorrupted(let context):
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return (field.isEmpty ? "" : "field \(field): ") + context.debugDescription
        default:
            return "\(error)"
        }
    }
}
