/// X-SAMPA (as Apple's `SFCustomLanguageModelData.CustomPronunciation` writes English phonemes, e.g.
/// "w I n aU @r") to the 39 phones of the CMU Pronouncing Dictionary. Symbols are separated by spaces;
/// within one, the longest symbol matches first, so "aU" is one diphthong and "@r" one r-coloured
/// vowel, while "@ r" is a schwa and an r. Stress ("), secondary stress (%), syllable (.), length (:)
/// and syllabic (=) marks are dropped.
enum XSAMPAToCMU {
    private static let ignored: Set<Character> = ["\"", "%", ".", ":", "=", "'"]

    /// Longest symbols first.
    private static let table: [(String, String)] = [
        ("r\\", "R"), ("aI", "AY"), ("aU", "AW"), ("OI", "OY"), ("eI", "EY"), ("oU", "OW"), ("@U", "OW"),
        ("tS", "CH"), ("dZ", "JH"), ("@`", "ER"), ("3`", "ER"), ("@r", "ER"), ("3r", "ER"), ("{", "AE"),
        ("A", "AA"), ("Q", "AA"), ("a", "AA"), ("V", "AH"), ("@", "AH"), ("6", "AH"), ("O", "AO"), ("E", "EH"),
        ("3", "ER"), ("e", "EY"), ("I", "IH"), ("1", "IH"), ("i", "IY"), ("o", "OW"), ("U", "UH"), ("u", "UW"),
        ("b", "B"), ("d", "D"), ("D", "DH"), ("f", "F"), ("g", "G"), ("h", "HH"), ("k", "K"), ("l", "L"),
        ("5", "L"), ("m", "M"), ("n", "N"), ("N", "NG"), ("p", "P"), ("r", "R"), ("4", "D"), ("s", "S"),
        ("S", "SH"), ("t", "T"), ("T", "TH"), ("v", "V"), ("w", "W"), ("j", "Y"), ("z", "Z"), ("Z", "ZH"),
    ]

    /// A malformed pronunciation: the symbol that has no CMU counterpart.
    struct Unknown: Error {
        let symbol: String
    }

    /// The CMU phones of one pronunciation; throws ``Unknown`` for a symbol outside the table and for
    /// an empty pronunciation.
    static func phones(_ xsampa: String) throws(Unknown) -> [String] {
        var phones: [String] = []
        for token in xsampa.split(whereSeparator: \.isWhitespace) {
            var rest = Substring(token.filter { !ignored.contains($0) })
            while !rest.isEmpty {
                guard let (symbol, cmu) = table.first(where: { rest.hasPrefix($0.0) }) else {
                    throw Unknown(symbol: String(rest.prefix(1)))
                }
                phones.append(cmu)
                rest = rest.dropFirst(symbol.count)
            }
        }
        if phones.isEmpty { throw Unknown(symbol: xsampa) }
        return phones
    }
}
