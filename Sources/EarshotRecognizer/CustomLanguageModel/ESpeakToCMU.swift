/// eSpeak NG's ASCII phoneme names for American English (as `espeak-ng -v en-us -x --sep=" "` prints
/// them, `knight` → "n 'aI t") to the 39 phones of the CMU Pronouncing Dictionary: how a word missing
/// from the recognizer's dictionary gets a pronunciation. The mapping follows eSpeak's `ph_english`
/// phoneme descriptions (r-coloured vowels become a vowel and R; its flap `t#` is T, its glottal stop
/// `?` the T it replaces, syllabic `n-` and `@L` a schwa before N and L); how often it agrees with the
/// dictionary is measured by `Benchmarks/language-models/g2p_accuracy.py` (BENCHMARKS.md).
/// Stress (`'`, `,`, `%`, `=`) and boundary marks (`;`, `_`, `|`) are dropped.
public enum ESpeakToCMU {
    private static let table: [String: [String]] = [
        // Vowels and diphthongs.
        "a": ["AE"], "aa": ["AE"], "a#": ["AH"], "A:": ["AA"], "A": ["AA"], "0": ["AA"], "V": ["AH"],
        "@": ["AH"], "@-": ["AH"], "@2": ["AH"], "@5": ["AH"], "E": ["EH"], "e": ["EH"], "eI": ["EY"],
        "I": ["IH"], "I#": ["IH"], "I2": ["IH"], "i": ["IY"], "i:": ["IY"], "O:": ["AO"], "O": ["AO"],
        "O2": ["AO"], "oU": ["OW"], "o": ["OW"], "OI": ["OY"], "U": ["UH"], "u:": ["UW"], "u": ["UW"],
        "aI": ["AY"], "aU": ["AW"], "3": ["ER"], "3:": ["ER"],
        // R-coloured vowels and triphthongs.
        "A@": ["AA", "R"], "o@": ["AO", "R"], "O@": ["AO", "R"], "e@": ["EH", "R"], "i@3": ["IH", "R"],
        "U@": ["UH", "R"], "i@": ["IY", "AH"], "aI@": ["AY", "ER"], "aI3": ["AY", "ER"], "aU@": ["AW", "ER"],
        // Syllabic consonants.
        "@L": ["AH", "L"], "n-": ["AH", "N"], "m-": ["AH", "M"],
        // Consonants.
        "p": ["P"], "b": ["B"], "t": ["T"], "t#": ["T"], "t2": ["T"], "?": ["T"], "d": ["D"], "d#": ["D"],
        "k": ["K"], "x": ["K"], "g": ["G"], "f": ["F"], "v": ["V"], "T": ["TH"], "D": ["DH"], "s": ["S"],
        "z": ["Z"], "S": ["SH"], "Z": ["ZH"], "h": ["HH"], "tS": ["CH"], "dZ": ["JH"], "m": ["M"], "n": ["N"],
        "N": ["NG"], "l": ["L"], "r": ["R"], "w": ["W"], "j": ["Y"],
    ]
    private static let marks: Set<Character> = ["'", ",", "%", "="]
    private static let boundaries: Set<String> = [";", "_", "_:", "|", "||"]

    /// A phoneme name outside the table.
    public struct Unknown: Error, Sendable {
        public let symbol: String
    }

    /// The CMU phones of eSpeak phonemes separated by spaces. An r (`r`, or the syllabic `r-`) after
    /// an r-coloured vowel (`3 r-`, `i@3 r`) is that vowel's R, already written, as the dictionary
    /// writes it (`reverberating` B ER EY…, not B ER R EY…); elsewhere it is R.
    public static func phones(_ espeak: String) throws(Unknown) -> [String] {
        var phones: [String] = []
        for token in espeak.split(whereSeparator: \.isWhitespace) {
            let name = String(token.filter { !marks.contains($0) })
            if name.isEmpty || boundaries.contains(name) { continue }
            if name == "r-" || name == "r" {
                if phones.last != "ER" && phones.last != "R" { phones.append("R") }
                continue
            }
            guard let mapped = table[name] else { throw Unknown(symbol: name) }
            phones += mapped
        }
        if phones.isEmpty { throw Unknown(symbol: espeak) }
        return phones
    }
}
