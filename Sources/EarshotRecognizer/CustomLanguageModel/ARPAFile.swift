import EarshotCore
import Foundation

/// An ARPA back-off language model (what ``KneserNeyModel`` writes), read and checked in Swift before
/// any of it reaches PocketSphinx: sphinxbase's reader trusts its input — it sizes its tables from the
/// `\data\` counts, writes one count per order into a fixed array, looks words up without checking,
/// and dereferences past the end of a file without `\end\` — so a damaged file crashes the process.
///
/// Accepted: any lines before `\data\`; then `ngram N=COUNT` for N = 1, 2, … up to ``maxOrder``, each
/// count 1 to ``maxNGrams``; then for each order its `\N-grams:` header followed at once by exactly
/// COUNT lines of a log10 probability (a finite decimal number ≤ 0), N words, and, below the highest
/// order, an optional finite back-off weight; then `\end\`. Blank lines may stand between sections.
/// Every word of a higher-order n-gram is a 1-gram, every n-gram's context (its first N − 1 words) is
/// an (N − 1)-gram, no n-gram is listed twice, and `<s>` and `</s>` are 1-grams. The text is UTF-8
/// without control characters but tabs; fields are separated by spaces and tabs, as sphinxbase splits
/// them.
///
/// ``bytes`` are the file's bytes exactly as checked: hand those to C, never the path, so what was
/// checked is what is read.
struct ARPAFile: Sendable {
    /// Bounds on what is read: the file's size, its order, n-grams of each order, and a word's bytes.
    static let maxBytes = 128 << 20
    static let maxOrder = 3
    static let maxNGrams = 2_000_000
    static let maxWordBytes = 256

    /// The checked text.
    let bytes: Data
    /// How many n-grams of each order (index 0: 1-grams) the file has.
    let counts: [Int]
    var order: Int { counts.count }

    /// Reads and checks the regular file at `path`.
    static func read(path: String) throws -> ARPAFile {
        try ARPAFile(bytes: RegularFile.read(path, limit: maxBytes), path: path)
    }

    /// Checks `bytes`, naming `path` and the line in an error.
    init(bytes: Data, path: String) throws {
        guard bytes.count <= Self.maxBytes else {
            throw EarshotError(.invalidInput, "\(path): larger than \(Self.maxBytes) bytes")
        }
        counts = try bytes.withUnsafeBytes { buffer in
            var parser = Parser(lines: Lines(buffer: buffer), path: path)
            return try parser.parse()
        }
        self.bytes = bytes
    }
}

/// The lines of a buffer, numbered from 1, each checked for control characters and UTF-8 and trimmed of
/// the spaces and tabs sphinxbase trims.
private struct Lines {
    let buffer: UnsafeRawBufferPointer
    var offset = 0
    var number = 0

    init(buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    mutating func next(path: String) throws -> Substring? {
        guard offset < buffer.count else { return nil }
        number += 1
        let end = buffer[offset...].firstIndex(of: 0x0A) ?? buffer.count
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[offset..<end])
        offset = end + 1
        if let control = bytes.first(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            throw EarshotError(
                .invalidInput,
                "\(path):\(number): control character 0x\(String(control, radix: 16, uppercase: true)); expected the text of an ARPA language model"
            )
        }
        guard let line = String(validating: bytes, as: UTF8.self) else {
            throw EarshotError(.invalidInput, "\(path):\(number): not UTF-8 text; expected an ARPA language model")
        }
        let isBlank = { (c: Character) in c == " " || c == "\t" }
        guard let first = line.firstIndex(where: { !isBlank($0) }), let last = line.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return line[first...last]
    }
}

private struct Parser {
    var lines: Lines
    let path: String

    private func error(_ message: String) -> EarshotError {
        EarshotError(.invalidInput, "\(path):\(lines.number): \(message)")
    }

    private func found(_ line: Substring?) -> String {
        line.map { "found " + CustomLanguageModelData.quoted($0) } ?? "the file ends"
    }

    /// The next line that is not blank, or nil at the end.
    private mutating func nextContent() throws -> Substring? {
        while let line = try lines.next(path: path) {
            if !line.isEmpty { return line }
        }
        return nil
    }

    mutating func parse() throws -> [Int] {
        while true {
            guard let line = try lines.next(path: path) else {
                throw EarshotError(.invalidInput, "\(path): no \\data\\ line; expected an ARPA language model")
            }
            if line == "\\data\\" { break }
        }
        var counts: [Int] = []
        var line = try nextContent()
        while let text = line, text.hasPrefix("ngram ") {
            counts.append(try count(text, order: counts.count + 1))
            line = try nextContent()
        }
        guard !counts.isEmpty else {
            throw error("expected ngram 1=COUNT after \\data\\, \(found(line))")
        }
        var words: [String: UInt64] = [:]
        var grams: [Set<UInt64>] = []
        for (index, count) in counts.enumerated() {
            let order = index + 1
            guard line == "\\\(order)-grams:" else {
                let more = order > 1 ? "; \\data\\ declares \(counts[index - 1]) \(order - 1)-grams" : ""
                throw error("expected \\\(order)-grams:, \(found(line))\(more)")
            }
            let header = lines.number
            if order == 1 { words.reserveCapacity(count) } else { grams.append(Set(minimumCapacity: count)) }
            for read in 0..<count {
                guard let text = try lines.next(path: path) else {
                    throw error(
                        "the file ends after \(read) of the \(count) \(order)-grams \\data\\ declares (\\\(order)-grams: on line \(header)); expected \(count) lines"
                    )
                }
                let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
                let backoff = order < counts.count
                guard fields.count == order + 1 || (backoff && fields.count == order + 2) else {
                    let optional = backoff ? " and an optional back-off weight" : ""
                    throw error(
                        "expected a \(order)-gram: a log10 probability, \(order) word\(order == 1 ? "" : "s")\(optional); \(found(text))"
                    )
                }
                guard let probability = Self.number(fields[0]), probability <= 0 else {
                    throw error(
                        "expected a log10 probability, a number no greater than 0; found \(CustomLanguageModelData.quoted(fields[0]))"
                    )
                }
                if fields.count == order + 2, Self.number(fields[order + 1]) == nil {
                    throw error(
                        "expected a back-off weight, a finite number; found \(CustomLanguageModelData.quoted(fields[order + 1]))"
                    )
                }
                var key: UInt64 = 0
                for field in fields[1...order] {
                    guard field.utf8.count <= ARPAFile.maxWordBytes else {
                        throw error(
                            "a word of \(field.utf8.count) bytes, \(CustomLanguageModelData.quoted(field)); expected at most \(ARPAFile.maxWordBytes)"
                        )
                    }
                    let word = String(field)
                    if order == 1 {
                        guard words.updateValue(UInt64(words.count), forKey: word) == nil else {
                            throw error(
                                "the 1-gram \(CustomLanguageModelData.quoted(word)) again; expected each word once")
                        }
                        continue
                    }
                    guard let id = words[word] else {
                        throw error(
                            "the word \(CustomLanguageModelData.quoted(word)) is not a 1-gram; expected every word among the 1-grams"
                        )
                    }
                    // A 1-gram's index fits 21 bits (maxNGrams < 2²¹), so three make one key.
                    key = key << 21 | id
                }
                guard order > 1 else { continue }
                if order > 2, !grams[order - 3].contains(key >> 21) {
                    throw error(
                        "the context of \(CustomLanguageModelData.quoted(text)) is not a \(order - 1)-gram; expected it among them"
                    )
                }
                guard grams[order - 2].insert(key).inserted else {
                    throw error(
                        "the \(order)-gram \(CustomLanguageModelData.quoted(fields[1...order].joined(separator: " "))) again; expected each n-gram once"
                    )
                }
            }
            line = try nextContent()
        }
        for marker in [KneserNeyModel.sentenceStart, KneserNeyModel.sentenceEnd] where words[marker] == nil {
            throw EarshotError(
                .invalidInput, "\(path): \(marker) is not a 1-gram; expected the sentence markers <s> and </s>")
        }
        guard line == "\\end\\" else {
            throw error("expected \\end\\ after the \(counts.count)-grams, \(found(line))")
        }
        if let extra = try nextContent() {
            throw error("expected nothing after \\end\\, found \(CustomLanguageModelData.quoted(extra))")
        }
        return counts
    }

    /// `ngram N=COUNT`, N being `order`, COUNT 1 to the bound.
    private func count(_ text: Substring, order: Int) throws -> Int {
        let expected = "expected ngram \(order)=COUNT, COUNT from 1 to \(ARPAFile.maxNGrams)"
        guard order <= ARPAFile.maxOrder else {
            throw error("more than \(ARPAFile.maxOrder) orders; expected at most \(ARPAFile.maxOrder)")
        }
        let prefix = "ngram \(order)="
        let digits = text.dropFirst(prefix.count)
        guard text.hasPrefix(prefix), !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw error("\(expected); \(found(text))")
        }
        guard digits.count <= 9, let count = Int(digits), (1...ARPAFile.maxNGrams).contains(count) else {
            throw error("\(order)-grams counted \(CustomLanguageModelData.quoted(digits)); \(expected)")
        }
        return count
    }

    /// A decimal number as sphinxbase's `atof_c` and Swift read it alike — optional minus, digits,
    /// optional fraction and exponent — finite as a 32-bit float, the width sphinxbase keeps.
    private static func number(_ text: Substring) -> Double? {
        var rest = text.utf8[...]
        func digits() -> Bool {
            let count = rest.prefix(while: { (0x30...0x39).contains($0) }).count
            rest = rest.dropFirst(count)
            return count > 0
        }
        if rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
        guard digits() else { return nil }
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            guard digits() else { return nil }
        }
        if rest.first == UInt8(ascii: "e") || rest.first == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if rest.first == UInt8(ascii: "-") || rest.first == UInt8(ascii: "+") { rest = rest.dropFirst() }
            guard digits() else { return nil }
        }
        guard rest.isEmpty, let value = Double(text), Float(value).isFinite else { return nil }
        return value
    }
}
