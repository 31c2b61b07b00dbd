/// IPA to the 39 phones of the CMU Pronouncing Dictionary (ARPAbet without stress), for General
/// American English as PLS lexicons write it. Stress and length marks, syllable dots and the tie
/// bar are dropped; diphthongs and affricates are matched before their parts.
enum IPAToCMU {
    static let phoneSet: Set<String> = [
        "AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH", "IH", "IY", "JH",
        "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH", "UH", "UW", "V", "W", "Y", "Z", "ZH",
    ]

    /// Symbols with no sound of their own.
    private static let ignored: Set<Unicode.Scalar> = [
        "ˈ", "ˌ", "ː", "ˑ", ".", "\u{0361}", "\u{035C}", "\u{0329}", "\u{032F}", "\u{0325}", "ʰ", "ʔ", "-",
    ]

    /// Longest symbols first: two-scalar diphthongs and affricates before their single scalars.
    private static let table: [(String, String)] = [
        ("aɪ", "AY"), ("aʊ", "AW"), ("ɔɪ", "OY"), ("eɪ", "EY"), ("oʊ", "OW"), ("əʊ", "OW"), ("tʃ", "CH"),
        ("dʒ", "JH"), ("ɑɹ", "AA R"), ("ɝ", "ER"), ("ɚ", "ER"), ("ɜ", "ER"), ("ɑ", "AA"), ("ɒ", "AA"),
        ("a", "AA"), ("æ", "AE"), ("ʌ", "AH"), ("ə", "AH"), ("ɐ", "AH"), ("ɔ", "AO"), ("ɛ", "EH"),
        ("e", "EY"), ("ɪ", "IH"), ("ɨ", "IH"), ("ᵻ", "IH"), ("i", "IY"), ("o", "OW"), ("ʊ", "UH"),
        ("u", "UW"), ("b", "B"), ("d", "D"), ("ð", "DH"), ("f", "F"), ("g", "G"), ("ɡ", "G"), ("h", "HH"),
        ("k", "K"), ("l", "L"), ("ɫ", "L"), ("m", "M"), ("n", "N"), ("ŋ", "NG"), ("p", "P"), ("ɹ", "R"),
        ("r", "R"), ("ɾ", "D"), ("s", "S"), ("ʃ", "SH"), ("t", "T"), ("θ", "TH"), ("v", "V"), ("w", "W"),
        ("j", "Y"), ("z", "Z"), ("ʒ", "ZH"),
    ].map { ($0.0, $0.1) }

    static func phones(_ ipa: String) throws -> [String] {
        var rest = ArraySlice(ipa.unicodeScalars.filter { !ignored.contains($0) && !$0.properties.isWhitespace })
        var phones: [String] = []
        while let first = rest.first {
            guard let (symbol, cmu) = table.first(where: { rest.starts(with: $0.0.unicodeScalars) }) else {
                throw PronunciationLexicon.PhoneError(
                    message: "IPA symbol \"\(first)\" (U+\(String(first.value, radix: 16, uppercase: true))) "
                        + "has no counterpart in the CMU phone set; write this pronunciation with "
                        + "alphabet=\"x-arpabet\"")
            }
            phones.append(contentsOf: cmu.split(separator: " ").map(String.init))
            rest = rest.dropFirst(symbol.unicodeScalars.count)
        }
        return phones
    }
}
