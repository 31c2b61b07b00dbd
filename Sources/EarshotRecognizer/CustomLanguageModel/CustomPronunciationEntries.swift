import EarshotCore
import Foundation

/// A custom language model's `pronunciations.dict`, read and checked before PocketSphinx sees a word of
/// it: one entry a line, a word (a second pronunciation as `word(2)`) and its phones separated by
/// spaces, each phone one of the 39 of the CMU Pronouncing Dictionary that PocketSphinx's en-us
/// acoustic model has (what ``XSAMPAToCMU`` and ``ESpeakToCMU`` give).
enum CustomPronunciationEntries {
    static let maxBytes = 8 << 20
    static let maxPhones = 64

    /// The CMU phones, as the en-us model's `mdef` lists them (its fillers `SIL`, `+NSN+`, `+SPN+` are
    /// not for words).
    static let phones: Set<String> = [
        "AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH", "IH", "IY",
        "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH", "UH", "UW", "V", "W", "Y",
        "Z", "ZH",
    ]

    /// The entries of `bytes`, the file at `path`; an error names the file, the line and what was expected.
    static func parse(_ bytes: Data, path: String) throws -> [(word: String, phones: String)] {
        guard let text = String(data: bytes, encoding: .utf8) else {
            throw EarshotError(
                .invalidInput, "\(path): not UTF-8 text; expected pronunciations, a word and its phones a line")
        }
        var entries: [(word: String, phones: String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty { continue }
            let fields = line.split(separator: " ")
            func refuse(_ message: String) -> EarshotError {
                EarshotError(.invalidInput, "\(path):\(index + 1): \(message)")
            }
            guard fields.count >= 2, fields.count <= maxPhones + 1 else {
                throw refuse(
                    "expected a word and 1 to \(maxPhones) phones separated by spaces, found \(CustomLanguageModelData.quoted(line))"
                )
            }
            let word = fields[0]
            guard isWord(word) else {
                throw refuse(
                    "expected a word of at most \(ARPAFile.maxWordBytes) bytes without control characters (a second pronunciation as word(2)), found \(CustomLanguageModelData.quoted(word))"
                )
            }
            if let phone = fields.dropFirst().first(where: { !phones.contains(String($0)) }) {
                throw refuse(
                    "\(CustomLanguageModelData.quoted(phone)) is not a phone of the en-us model; expected CMU phones (AA, AE, … ZH)"
                )
            }
            entries.append((String(word), fields.dropFirst().joined(separator: " ")))
        }
        return entries
    }

    /// A word as PocketSphinx's dictionary keys it: printable, at most the ARPA bound, an alternate's
    /// number after a word.
    private static func isWord(_ word: Substring) -> Bool {
        guard word.utf8.count <= ARPAFile.maxWordBytes,
            !word.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\t" })
        else { return false }
        guard let open = word.firstIndex(of: "(") else { return !word.contains(")") }
        let number = word[word.index(after: open)...].dropLast()
        return open != word.startIndex && word.hasSuffix(")") && !number.isEmpty
            && number.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
