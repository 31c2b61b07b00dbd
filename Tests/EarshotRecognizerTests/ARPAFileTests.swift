import EarshotCore
import Foundation
import EarshotTestTraits
import Testing

@testable import EarshotRecognizer

/// The ARPA reader that stands between a model folder and sphinxbase: what KneserNeyModel writes is
/// read back, and each kind of damage that crashed or hung sphinxbase is refused naming the line.
@Suite(.computing) struct ARPAFileTests {
    static let path = "/models/chess/language-model.arpa"
    static let model = KneserNeyModel(sentences: [
        (words: ["pawn", "to", "king", "four"], count: 3), (words: ["knight", "to", "king", "three"], count: 2),
        (words: ["play", "the", "gambit"], count: 1),
    ])
    static let text = model.arpa()

    /// The message of the error reading `text` throws, or "" when it reads.
    static func refusal(_ text: String) -> String {
        do {
            _ = try ARPAFile(bytes: Data(text.utf8), path: path)
            return ""
        } catch let error as EarshotError {
            return error.code == .invalidInput ? error.message : "wrong code: \(error)"
        } catch {
            return "\(error)"
        }
    }

    @Test func whatKneserNeyWritesIsRead() throws {
        let arpa = try ARPAFile(bytes: Data(Self.text.utf8), path: Self.path)
        #expect(arpa.order == 3)
        // <s> is a 1-gram of the file, not a word the model predicts.
        #expect(
            arpa.counts == [Self.model.probabilities[0].count + 1] + Self.model.probabilities.dropFirst().map(\.count))
        #expect(arpa.bytes == Data(Self.text.utf8))
        // A preamble before \data\, blank lines between sections and a file without its last newline read too.
        #expect(Self.refusal("made by hand\n" + Self.text.replacingOccurrences(of: "\n\n", with: "\n\n\n")) == "")
        #expect(Self.refusal(String(Self.text.dropLast())) == "")
    }

    /// Eight thousand bytes from a fixed generator, as a corrupted file holds: refused at its first line.
    @Test func randomBytesAreRefusedAtTheFirstLine() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let bytes = (0..<8_000).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        #expect(throws: EarshotError.self) { try ARPAFile(bytes: Data(bytes), path: Self.path) }
        do {
            _ = try ARPAFile(bytes: Data(bytes), path: Self.path)
        } catch {
            #expect("\(error)".contains(Self.path + ":1:"), "\(error)")
        }
    }

    @Test func aTruncatedFileIsRefusedSayingWhereItEnds() {
        let cut = String(Self.text.prefix(through: Self.text.prefix(Self.text.count * 2 / 3).lastIndex(of: "\n")!))
        let message = Self.refusal(cut)
        #expect(message.contains(Self.path) && message.contains("the file ends"), "\(message)")
        let withoutEnd = Self.text.replacingOccurrences(of: "\\end\\\n", with: "")
        #expect(Self.refusal(withoutEnd).contains("expected \\end\\"), "\(Self.refusal(withoutEnd))")
    }

    @Test func hugeOrNonsensicalCountsAreRefused() {
        let unigrams = Self.model.probabilities[0].count + 1
        let huge = Self.text.replacingOccurrences(of: "ngram 1=\(unigrams)\n", with: "ngram 1=4000000000\n")
        #expect(Self.refusal(huge).contains("\(Self.path):2: 1-grams counted \"4000000000\""), "\(Self.refusal(huge))")
        #expect(Self.refusal(huge).contains("from 1 to \(ARPAFile.maxNGrams)"))
        // More lines than declared, and fewer.
        let fewer = Self.text.replacingOccurrences(of: "ngram 1=\(unigrams)\n", with: "ngram 1=\(unigrams - 1)\n")
        #expect(Self.refusal(fewer).contains("expected \\2-grams:"), "\(Self.refusal(fewer))")
        let more = Self.text.replacingOccurrences(of: "ngram 1=\(unigrams)\n", with: "ngram 1=\(unigrams + 1)\n")
        #expect(Self.refusal(more).contains("expected a 1-gram"), "\(Self.refusal(more))")
        // sphinxbase keeps one count per order in an array of five.
        let deep = Self.text.replacingOccurrences(of: "ngram 3=", with: "ngram 4=1\nngram 5=1\nngram 6=1\nngram 3=")
        #expect(Self.refusal(deep).contains("expected ngram 3=COUNT"), "\(Self.refusal(deep))")
        let orders = "\\data\\\n" + (1...4).map { "ngram \($0)=1\n" }.joined()
        #expect(Self.refusal(orders).contains("more than 3 orders"), "\(Self.refusal(orders))")
        #expect(Self.refusal("\\data\\\nngram 1=0\n").contains("from 1 to"))
        #expect(Self.refusal("no model here\n").contains("no \\data\\ line"))
    }

    /// One line of the file changed; the line number and what was expected are named.
    @Test(arguments: [
        ("pawn", "-0.3\tpawn\textra\tfield", "expected a 1-gram"),
        ("pawn", "nan\tpawn", "expected a log10 probability"),
        ("pawn", "0.5\tpawn", "expected a log10 probability"),
        ("pawn", "-1e999\tpawn", "expected a log10 probability"),
        ("pawn", "0x1p-2\tpawn", "expected a log10 probability"),
        ("pawn", "-0.3\tpawn\tinf", "expected a back-off weight"),
        ("pawn", "-0.3\tknight", "the 1-gram \"knight\" again"),
        ("to king", "-0.3\tto bishop", "the word \"bishop\" is not a 1-gram"),
        ("pawn to king", "-0.3\tpawn to king\textra", "expected a 3-gram"),
        ("pawn to king", "-0.3\tpawn pawn king", "the context of"),
        ("pawn to king", "-0.3\tpawn\u{1}to king", "control character 0x1"),
        ("pawn to king", "", "expected a 3-gram"),
    ])
    func aDamagedLineIsRefusedNamingIt(gram: String, replacement: String, expected: String) throws {
        let edited = try Self.replaceLine(of: gram, with: replacement)
        let message = Self.refusal(edited.text)
        #expect(message.contains("\(Self.path):\(edited.line): ") && message.contains(expected), "\(message)")
    }

    /// A duplicated n-gram, and the sentence markers.
    @Test func duplicatesAndMissingMarkersAreRefused() throws {
        let lines = Self.text.split(separator: "\n", omittingEmptySubsequences: false)
        let header = try #require(lines.firstIndex(of: "\\2-grams:"))
        var duplicated = lines
        duplicated[header + 2] = duplicated[header + 1]
        #expect(Self.refusal(duplicated.joined(separator: "\n")).contains("again; expected each n-gram once"))
        let noEnd = Self.text.replacingOccurrences(of: "</s>", with: "<end>")
        #expect(Self.refusal(noEnd).contains("</s> is not a 1-gram"), "\(Self.refusal(noEnd))")
        #expect(Self.refusal(Self.text + "-1\tmore\n").contains("expected nothing after \\end\\"))
    }

    /// A word the size of a file is refused, and the message quotes at most 80 characters of it.
    @Test func aLongWordIsRefusedWithAShortMessage() throws {
        let long = String(repeating: "a", count: 100_000)
        let edited = try Self.replaceLine(of: "pawn", with: "-0.3\t\(long)")
        let message = Self.refusal(edited.text)
        #expect(
            message.contains("expected at most \(ARPAFile.maxWordBytes)") && message.count < 300, "\(message.count)")
    }

    /// `text` with the line of the n-gram `gram` (its words separated by spaces) replaced, and that
    /// line's number.
    static func replaceLine(of gram: String, with replacement: String) throws -> (text: String, line: Int) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let index = try #require(
            lines.firstIndex { line in
                let fields = line.split(separator: "\t")
                return fields.count >= 2 && fields[1] == gram
            })
        lines[index] = replacement
        return (lines.joined(separator: "\n"), index + 1)
    }
}
