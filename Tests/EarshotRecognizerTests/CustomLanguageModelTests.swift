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

    /// Whisper's prompt: the model's words as a list in the room the templates' examples leave, then an
    /// example of each template, most counted first; nothing past the budget.
    @Test func thePromptIsTheWordsThenAnExampleOfEachTemplate() throws {
        let pharmacy = CustomLanguageModelData(locale: "en_US", identifier: "x", version: "1") {
            CustomLanguageModelData.PhraseCount(phrase: "call the  chemist", count: 2)
            CustomLanguageModelData.PhraseCountsFromTemplates(classes: [
                "drug": ["aspirin", "ibuprofen", "xarelto"]
            ]) {
                CustomLanguageModelData.Template("swap <drug> for <drug>?", count: 5)
                CustomLanguageModelData.Template("refill <drug>", count: 10)
            }
            CustomLanguageModelData.CustomPronunciation(grapheme: "Eliquis", phonemes: ["E l @ k w I s"])
        }
        #expect(
            pharmacy.biasingPrompt()
                == "Eliquis, call, chemist, aspirin, ibuprofen, xarelto. Refill ibuprofen. Swap ibuprofen for aspirin?")
        // The examples come first; the list takes the room left, word by word.
        #expect(
            pharmacy.biasingPrompt(maxCharacters: 62) == "Eliquis, call. Refill ibuprofen. Swap ibuprofen for aspirin?")
        #expect(pharmacy.biasingPrompt(maxCharacters: 18) == "Refill ibuprofen.")
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
                == "Winawer, Tartakower, Play, Albin, counter, gambit, variation, pawn, rook, knight, bishop, queen, king. "
                + "Rook to king pawn 2."
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
        // A manifest from another format version (1: before the files' hashes) is refused with the remedy.
        let manifest = directory + "/manifest.json"
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        #expect(text.contains("\"format_version\" : 2"))
        try Data(text.replacingOccurrences(of: "\"format_version\" : 2", with: "\"format_version\" : 1").utf8)
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

    /// A chess model built in a fresh folder, and the folder (removed by the caller).
    private func builtChess() throws -> (model: CustomLanguageModel, parent: String) {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("lm-\(UUID())").path
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        return (try CustomLanguageModel.build(chess, into: parent + "/chess"), parent)
    }

    /// The message of the error opening `directory`, "" if it opens; a wrong error code is reported in it.
    private func refusal(_ directory: String) -> String {
        do {
            _ = try CustomLanguageModel(directory: directory)
            return ""
        } catch let error as EarshotError {
            return error.code == .invalidInput ? error.message : "wrong code: \(error)"
        } catch {
            return "\(error)"
        }
    }

    /// Issue 51, item 11: a damaged ARPA file crashed PocketSphinx at the first request. Each kind of
    /// damage is refused when the folder is opened, naming the file (and the line where there is one).
    @Test func aDamagedLanguageModelIsRefusedWhenOpened() throws {
        let (model, parent) = try builtChess()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        #expect(model.manifest.fileSHA256.keys.sorted() == ["data.json", "language-model.arpa", "pronunciations.dict"])
        let original = try Data(contentsOf: URL(fileURLWithPath: model.arpaPath))
        var state: UInt64 = 51
        let random = Data(
            (0..<8_000).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            })
        let text = String(decoding: original, as: UTF8.self)
        let huge = text.replacingOccurrences(
            of: "ngram 1=\(model.manifest.ngrams[0])", with: "ngram 1=\(model.manifest.ngrams[0])000000000")
        for (damage, bytes, expected) in [
            ("random bytes", random, model.arpaPath + ":"),
            (
                "truncated", original.prefix(through: original.prefix(original.count / 2).lastIndex(of: 0x0A)!),
                "the file ends after"
            ),
            ("huge counts", Data(huge.utf8), model.arpaPath + ":2: 1-grams counted"),
            ("empty", Data(), "no \\data\\ line"),
        ] {
            try bytes.write(to: URL(fileURLWithPath: model.arpaPath))
            let message = refusal(model.directory)
            #expect(message.contains(model.arpaPath) && message.contains(expected), "\(damage): \(message)")
        }
        // A FIFO would block the reader, /dev/zero never ends: neither is opened.
        try FileManager.default.removeItem(atPath: model.arpaPath)
        #expect(mkfifo(model.arpaPath, 0o600) == 0)
        #expect(refusal(model.directory).contains("\(model.arpaPath): is a FIFO"), "\(refusal(model.directory))")
        try FileManager.default.removeItem(atPath: model.arpaPath)
        try FileManager.default.createSymbolicLink(atPath: model.arpaPath, withDestinationPath: "/dev/zero")
        #expect(refusal(model.directory).contains("\(model.arpaPath): is a device"), "\(refusal(model.directory))")
        try FileManager.default.removeItem(atPath: model.arpaPath)
        try original.write(to: URL(fileURLWithPath: model.arpaPath))
        #expect(refusal(model.directory) == "")
    }

    /// A garbage pronunciations file is refused naming its line; a well-formed file, or any file, that
    /// differs from what was built is refused by its SHA-256.
    @Test func damagedPronunciationsAndChangedFilesAreRefused() throws {
        let (model, parent) = try builtChess()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let dictionary = try String(contentsOfFile: model.dictionaryPath, encoding: .utf8)
        #expect(dictionary == "winawer W IH N AW ER\ntartakower T AA R T AH K AW ER\n")
        for (garbage, expected) in [
            ("winawer W IH N AW ER\ntartakower T AA R T @ K AW ER\n", ":2: \"@\" is not a phone of the en-us model"),
            ("winawer\n", ":1: expected a word and 1 to 64 phones"),
            ("win\u{7}awer W\n", ":1: expected a word"),
            ("\u{FF}\u{FE}", ":1: expected a word and"),
        ] {
            try Data(garbage.utf8).write(to: URL(fileURLWithPath: model.dictionaryPath))
            let message = refusal(model.directory)
            #expect(message.contains(model.dictionaryPath) && message.contains(expected), "\(message)")
        }
        try Data([0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: model.dictionaryPath))
        #expect(refusal(model.directory).contains("not UTF-8"))
        // Well-formed but not what was built.
        try Data("winawer W IH N AW ER\n".utf8).write(to: URL(fileURLWithPath: model.dictionaryPath))
        let changed = refusal(model.directory)
        #expect(
            changed.contains(model.dictionaryPath) && changed.contains("SHA-256") && changed.contains("build it again"))
        try Data(dictionary.utf8).write(to: URL(fileURLWithPath: model.dictionaryPath))
        #expect(refusal(model.directory) == "")
        // A probability changed, still a valid model; the data file with a space added.
        let arpa = try String(contentsOfFile: model.arpaPath, encoding: .utf8)
        let edited = try #require(arpa.range(of: "\t", range: arpa.range(of: "\\2-grams:")!.upperBound..<arpa.endIndex))
        try Data(arpa.replacingCharacters(in: edited, with: "1\t").utf8).write(to: URL(fileURLWithPath: model.arpaPath))
        #expect(refusal(model.directory).contains("\(model.arpaPath): its SHA-256"), "\(refusal(model.directory))")
        try Data(arpa.utf8).write(to: URL(fileURLWithPath: model.arpaPath))
        let data = try Data(contentsOf: URL(fileURLWithPath: model.dataPath))
        try (data + Data(" ".utf8)).write(to: URL(fileURLWithPath: model.dataPath))
        #expect(refusal(model.directory).contains("\(model.dataPath): its SHA-256"), "\(refusal(model.directory))")
    }

    /// Issue 51, item 18: what makes a build long or large is refused before anything is expanded, and
    /// a message quotes at most 80 characters of what it refuses.
    @Test func oversizedDataIsRefusedBeforeItIsExpanded() throws {
        func refusal(_ edit: (inout CustomLanguageModelData) -> Void) -> String {
            var data = chess
            edit(&data)
            do {
                try data.validate()
                return ""
            } catch {
                return "\(error)"
            }
        }
        // 100 000 expansions of a 5 000-character phrase: 500 million characters, counted, not expanded.
        let long = refusal {
            $0.templates = [
                .init(classes: ["n": (1...100_000).map { "w\($0)" }]) {
                    CustomLanguageModelData.Template(
                        "<n> " + String(repeating: "pawn ", count: 1_000), count: 10)
                }
            ]
        }
        #expect(long.contains("\(CustomLanguageModelData.maxPhraseCharacters) characters"), "\(long)")
        let classes = refusal {
            $0.templates[0].classes = Dictionary(uniqueKeysWithValues: (0..<2_000).map { ("c\($0)", ["pawn"]) })
            $0.templates[0].classes["piece"] = ["pawn"]
            $0.templates[0].classes["royal"] = ["king"]
            $0.templates[0].classes["rank"] = ["1"]
        }
        #expect(classes.contains("2003 classes; at most \(CustomLanguageModelData.maxClasses)"), "\(classes)")
        let members = refusal { $0.templates[0].classes["rank"] = (0..<200_000).map(String.init) }
        #expect(members.contains("at most \(CustomLanguageModelData.maxClassMembers)"), "\(members)")
        // A word of a million characters: refused naming the limit, in a short message.
        let word = String(repeating: "x", count: 1_000_000)
        for edit: (inout CustomLanguageModelData) -> Void in [
            { $0.phrases[0].phrase = "Play " + word },
            { $0.pronunciations[0].grapheme = word },
            { $0.templates[0].classes["rank"] = [word] },
            { $0.pronunciations[0].phonemes = [word] },
        ] {
            let message = refusal(edit)
            #expect(!message.isEmpty && message.count < 400, "\(message.prefix(400))")
        }
        #expect(
            refusal { $0.phrases[0].phrase = "Play " + word }.contains(
                "at most \(CustomLanguageModelData.maxWordLength)"))
        // Words glued across a slot are checked once expanded, before the model is estimated.
        var glued = chess
        glued.templates[0].classes["rank"] = [String(repeating: "y", count: 62)]
        glued.templates[0].templates[0].template = "<piece> to <royal> <piece><rank>"
        #expect { try CustomLanguageModel.build(glued, into: "/nonexistent/glued") } throws: {
            "\($0)".contains("expected at most \(CustomLanguageModelData.maxWordLength)")
        }
    }
}
