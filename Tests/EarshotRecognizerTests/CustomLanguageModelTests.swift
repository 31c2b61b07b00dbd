import EarshotCore
import EarshotRecognizer
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotRecognizer

private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
private let chessFile = repository + "/Examples/language-models/chess.json"

/// The seed's chess data, as Apple's SpokenWord sample writes it, in our result builder.
private let chess = CustomLanguageModelData(locale: "en_US", identifier: "com.example.chess", version: "1.0") {
    CustomLanguageModelData.PhraseCount(phrase: "Play the Albin counter gambit", count: 10)
    CustomLanguageModelData.PhraseCountsFromTemplates(classes: [
        "piece": ["pawn", "rook", "knight", "bishop", "queen", "king"],
        "royal": ["queen", "king"],
        "rank": (1...8).map(String.init),
    ]) {
        CustomLanguageModelData.Template("<piece> to <royal> <piece> <rank>", count: 10_000)
    }
    CustomLanguageModelData.CustomPronunciation(grapheme: "Winawer", phonemes: ["w I n aU @r"])
    CustomLanguageModelData.CustomPronunciation(grapheme: "Tartakower", phonemes: ["t A r t @ k aU @r"])
    CustomLanguageModelData.PhraseCount(phrase: "Play the Winawer variation", count: 10)
    CustomLanguageModelData.PhraseCount(phrase: "Play the Tartakower", count: 10)
}

@Suite(.computing) struct CustomLanguageModelTests {
    @Test func theBuilderAndTheJSONFileHoldTheSameData() throws {
        let file = try CustomLanguageModelData.read(path: chessFile)
        #expect(file == chess)
        let again = try JSONDecoder().decode(CustomLanguageModelData.self, from: try chess.json())
        #expect(again == chess)
    }

    @Test func aTemplateCountIsSpreadOverItsExpansions() throws {
        let expanded = chess.expandedPhrases()
        #expect(expanded.count == 3 + 6 * 2 * 6 * 8)
        let moves = expanded.dropFirst(3)
        #expect(moves.map(\.count).reduce(0, +) == 10_000)
        #expect(Set(moves.map(\.count)) == [17, 18])
        #expect(moves.first?.phrase == "pawn to queen pawn 1")
        #expect(
            CustomLanguageModelData.words(in: "Pawn to King Bishop 4.") == ["pawn", "to", "king", "bishop", "four"])
        #expect(CustomLanguageModelData.words(in: "1,024 moves") == ["1,024", "moves"])
        #expect(NumberWords.spell(1_964) == ["one", "thousand", "nine", "hundred", "sixty", "four"])
    }

    @Test func xSAMPABecomesCMUPhones() throws {
        #expect(try XSAMPAToCMU.phones("w I n aU @r") == ["W", "IH", "N", "AW", "ER"])
        #expect(try XSAMPAToCMU.phones("t A r t @ k aU @r") == ["T", "AA", "R", "T", "AH", "K", "AW", "ER"])
        // A space tells a schwa and an r from the r-coloured vowel; stress and length marks drop.
        #expect(try XSAMPAToCMU.phones("p @ \"r eI d") == ["P", "AH", "R", "EY", "D"])
        #expect(try XSAMPAToCMU.phones("\"tS i: z") == ["CH", "IY", "Z"])
        #expect(throws: XSAMPAToCMU.Unknown.self) { try XSAMPAToCMU.phones("w I n # @r") }
    }

    @Test func eSpeakPhonemesBecomeCMUPhones() throws {
        #expect(try ESpeakToCMU.phones("n 'aI t") == ["N", "AY", "T"])
        // A flap is T; the r after an r-coloured vowel is already written; r-coloured vowels split.
        #expect(try ESpeakToCMU.phones("m 'i: t# 3 r-") == ["M", "IY", "T", "ER"])
        #expect(try ESpeakToCMU.phones("s t 'A@ tS I# z") == ["S", "T", "AA", "R", "CH", "IH", "Z"])
        // Syllabic consonants and the glottal stop; compound boundaries drop.
        #expect(try ESpeakToCMU.phones("k '0 ? n-") == ["K", "AA", "T", "AH", "N"])
        #expect(try ESpeakToCMU.phones("'i: d i ; ,oU") == ["IY", "D", "IY", "OW"])
        #expect(throws: ESpeakToCMU.Unknown.self) { try ESpeakToCMU.phones("n 'aI Q") }
        #expect(throws: ESpeakToCMU.Unknown.self) { try ESpeakToCMU.phones("' ,") }
    }

    /// Mapped pronunciations of words the CMU dictionary knows, compared with its own: the table
    /// agrees on every phone for these (X-SAMPA transcriptions written for General American).
    @Test func theMappingAgreesWithTheDictionary() throws {
        let dictionary = try String(contentsOfFile: PocketSphinxConfiguration.default.dictionary, encoding: .utf8)
        var entries: [String: Set<String>] = [:]
        for line in dictionary.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 1)
            guard fields.count == 2 else { continue }
            entries[String(fields[0].split(separator: "(")[0]), default: []].insert(String(fields[1]))
        }
        let words = [
            ("gambit", "g { m b I t"), ("bishop", "b I S @ p"), ("knight", "n aI t"), ("queen", "k w i n"),
            ("variation", "v E r i eI S @ n"), ("counter", "k aU n t @r"), ("judge", "dZ V dZ"),
            ("thought", "T O t"), ("this", "D I s"), ("measure", "m E Z @r"), ("boy", "b OI"), ("sing", "s I N"),
            ("home", "h oU m"), ("yes", "j E s"), ("book", "b U k"), ("blue", "b l u"), ("father", "f A D @r"),
        ]
        for (word, xsampa) in words {
            let phones = try XSAMPAToCMU.phones(xsampa).joined(separator: " ")
            #expect(entries[word]?.contains(phones) == true, "\(word): \(phones) vs \(entries[word] ?? [])")
        }
    }

    @Test func badDataIsRefusedNamingTheField() throws {
        func message(_ edit: (inout CustomLanguageModelData) -> Void) -> String {
            var data = chess
            edit(&data)
            do {
                try data.validate()
                return ""
            } catch {
                return "\(error)"
            }
        }
        #expect(
            message { $0.templates[0].templates[0].template = "<piece> to <file>" }.contains(
                "templates[0].templates[0].template names <file>"))
        #expect(message { $0.templates[0].classes["royal"] = [] }.contains("templates[0].classes.royal is empty"))
        #expect(message { $0.pronunciations[1].phonemes = ["t A r # k"] }.contains("pronunciations[1].phonemes[0]"))
        #expect(message { $0.phrases[0].count = 0 }.contains("phrases[0].count is 0"))
        #expect(message { $0.pronunciations[0].grapheme = "two words" }.contains("pronunciations[0].grapheme"))
        #expect(
            message {
                $0.templates[0].classes["rank"] = (1...1_000).map(String.init)
                $0.templates[0].templates[0].template = "<rank> <rank> <rank>"
            }.contains("more than 100000"))
        #expect(message { _ in }.isEmpty)
        // In a file: the path, and the JSON path of what is missing or mistyped.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lm-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (json, expected) in [
            (#"{"locale": "en_US", "identifier": "x"}"#, "version is missing"),
            (
                #"{"locale": "en_US", "identifier": "x", "version": "1", "phrases": [{"phrase": "a", "count": "ten"}]}"#,
                "phrases[0].count: expected an integer"
            ),
            (#"{"locale": "en_US", "identifier": "x", "version": "1"}"#, "no phrases and no templates"),
        ] {
            let path = directory + "/data.json"
            try Data(json.utf8).write(to: URL(fileURLWithPath: path))
            #expect { try CustomLanguageModelData.read(path: path) } throws: { error in
                "\(error)".contains(path) && "\(error)".contains(expected)
            }
        }
    }

    /// The model is a distribution: for any history, seen or not, the probabilities of every word
    /// and `</s>` add up to 1 through the ARPA file's back-off.
    @Test func kneserNeyProbabilitiesSumToOne() {
        let sentences =
            chess.expandedPhrases().map { (words: CustomLanguageModelData.words(in: $0.phrase), count: $0.count) }
            + [(words: ["the", "king", "moves"], count: 1), (words: ["the", "rook", "moves"], count: 2)]
        let model = KneserNeyModel(sentences: sentences)
        let vocabulary = model.vocabulary.filter { $0 != KneserNeyModel.sentenceStart }
        for history in [
            ["<s>"], ["<s>", "play"], ["king", "bishop"], ["to", "queen"], ["the"], ["gambit", "pawn"], [],
        ] {
            let total = vocabulary.map { model.probability(of: $0, after: history) }.reduce(0, +)
            #expect(abs(total - 1) < 1e-9, "\(history): \(total)")
        }
        #expect(model.probability(of: "to", after: ["<s>", "pawn"]) > 0.9)
        #expect(model.arpa().hasPrefix("\\data\\\nngram 1="))
    }

    @Test func aBuildWritesTheDirectoryAndRefusesWhatIsNotOurs() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("lm-\(UUID())").path
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let directory = parent + "/chess"
        let model = try CustomLanguageModel.build(chess, into: directory)
        #expect(model.manifest.identifier == "com.example.chess" && model.manifest.order == 3)
        #expect(model.manifest.phrases == 579 && model.manifest.customPronunciations == 2)
        #expect(try model.pronunciations().map(\.word) == ["winawer", "tartakower"])
        #expect(try model.data() == chess)
        #expect(
            try model.biasingPrompt()
                == "Winawer, Tartakower, Play, Albin, counter, gambit, variation, pawn, rook, knight, bishop, queen, king."
        )
        // Built again over itself: replaced.
        _ = try CustomLanguageModel.build(chess, into: directory)
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent) == ["chess"])
        // Built through a symlink: the model it points to is replaced, the link stays a link.
        let link = parent + "/current"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory)
        _ = try CustomLanguageModel.build(chess, into: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == directory)
        #expect(try CustomLanguageModel(directory: link).manifest.phrases == 579)
        try FileManager.default.removeItem(atPath: link)
        // A folder that is not a model is neither opened nor replaced.
        let other = parent + "/photos"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: other + "/cat.jpg"))
        #expect { try CustomLanguageModel.build(chess, into: other) } throws: {
            "\($0)".contains("refusing to replace")
        }
        #expect(FileManager.default.fileExists(atPath: other + "/cat.jpg"))
        #expect { try CustomLanguageModel(directory: other) } throws: {
            "\($0)".contains("not a custom language model")
        }
        // A manifest from another format version is refused with the remedy.
        let manifest = directory + "/manifest.json"
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        try Data(text.replacingOccurrences(of: "\"format_version\" : 1", with: "\"format_version\" : 0").utf8)
            .write(to: URL(fileURLWithPath: manifest))
        #expect { try CustomLanguageModel(directory: directory) } throws: { "\($0)".contains("build it again") }
        // A word no dictionary knows and no pronunciation gives.
        var unknown = chess
        unknown.phrases.append(.init(phrase: "Play the Zukertort", count: 5))
        #expect { try CustomLanguageModel.build(unknown, into: parent + "/z") } throws: {
            "\($0)".contains("zukertort")
        }
        #expect(!FileManager.default.fileExists(atPath: parent + "/z"))
    }
}
