/// SRGS grammars and PLS lexicons built to hurt a service that trusts them — the cases of the
/// hardening issue, for tests of the parser, the recognizer and the running service alike.
public enum HostileGrammars {
    /// `depth` nested `<one-of><item>` around one word: 20 000 levels is about 600 KB, under the
    /// service's 1 MiB grammar cap, and overflowed a recursive reader's stack.
    public static func nestedOneOf(depth: Int) -> [UInt8] {
        var text = header(root: "r") + "<rule id=\"r\">"
        text += String(repeating: "<one-of><item>", count: depth) + "yes"
        text += String(repeating: "</item></one-of>", count: depth)
        return Array((text + "</rule></grammar>").utf8)
    }

    /// `levels` nested `<item repeat="0-50">` around `one|two`: 255 bytes for three levels, which
    /// unroll to 50³ copies of their words.
    public static func nestedRepeats(levels: Int, repeat bounds: String = "0-50") -> [UInt8] {
        var text = header(root: "r") + "<rule id=\"r\">"
        text += String(repeating: "<item repeat=\"\(bounds)\">", count: levels)
        text += "<one-of><item>one</item><item>two</item></one-of>"
        text += String(repeating: "</item>", count: levels)
        return Array((text + "</rule></grammar>").utf8)
    }

    /// A chain of `length` rules, each referring to the next, each holding one word.
    public static func referenceChain(length: Int) -> [UInt8] {
        var text = header(root: "r0")
        for index in 0..<length {
            let next = index + 1 < length ? "<ruleref uri=\"#r\(index + 1)\"/>" : ""
            text += "<rule id=\"r\(index)\">yes \(next)</rule>\n"
        }
        return Array((text + "</grammar>").utf8)
    }

    /// `count` rules, the root choosing among all of them.
    public static func manyRules(count: Int) -> [UInt8] {
        var text = header(root: "r") + "<rule id=\"r\"><one-of>"
        text += (0..<count).map { "<item><ruleref uri=\"#w\($0)\"/></item>" }.joined()
        text += "</one-of></rule>\n"
        text += (0..<count).map { "<rule id=\"w\($0)\">yes</rule>\n" }.joined()
        return Array((text + "</grammar>").utf8)
    }

    /// A PLS lexicon of `count` lexemes (`wordN` said as "yes"), nested `depth` extra levels deep
    /// inside its first lexeme when `depth` > 0.
    public static func lexicon(lexemes count: Int, depth: Int = 0) -> [UInt8] {
        var text =
            "<?xml version=\"1.0\"?>\n<lexicon version=\"1.0\" xmlns=\"http://www.w3.org/2005/01/pronunciation-lexicon\" "
        text += "alphabet=\"x-arpabet\" xml:lang=\"en-US\">\n"
        for index in 0..<count {
            text += "<lexeme><grapheme>word\(index)</grapheme><phoneme>Y EH S</phoneme>"
            if index == 0 && depth > 0 {
                text += String(repeating: "<example>", count: depth) + String(repeating: "</example>", count: depth)
            }
            text += "</lexeme>\n"
        }
        return Array((text + "</lexicon>").utf8)
    }

    private static func header(root: String) -> String {
        "<?xml version=\"1.0\"?>\n<grammar xmlns=\"http://www.w3.org/2001/06/grammar\" version=\"1.0\" "
            + "xml:lang=\"en-US\" root=\"\(root)\">\n"
    }
}
