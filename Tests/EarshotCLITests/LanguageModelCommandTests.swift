import EarshotLab
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

private func earshot(_ arguments: [String]) throws -> ExternalTool.Result {
    try ExternalTool.run([ExternalTool.earshotPath] + arguments)
}

private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
private let chessData = repository + "/Examples/language-models/chess.json"

/// `earshot lm build` on the seed's chess example, and what the model buys a user of `transcribe`.
@Suite(.serialized, .computing) struct LanguageModelCommandTests {
    /// Moves of the seed's template and its phrases, with the custom-pronunciation words.
    static let moves = [
        "pawn to king bishop four", "knight to queen rook three", "play the winawer variation", "play the tartakower",
        "bishop to king knight five", "play the albin counter gambit", "rook to queen king eight",
    ]

    @Test func theChessModelHalvesEachRecognizersErrorsOnChessMoves() throws {
        let directory = try TemporaryDirectory("earshot-lm")
        let model = directory.file("chess-lm")
        let build = try earshot(["lm", "build", chessData, "--output", model])
        #expect(build.status == 0, "\(build.standardError)")
        #expect(build.standardError.contains("579 phrases"))
        var references: [String: String] = [:]
        for (index, move) in Self.moves.enumerated() {
            // Two voices of Debian's synthesizers, neither of which took part in writing the data.
            for voice in ["slt", "kal16"] {
                let audio = directory.file("move-\(index)-\(voice).wav")
                let spoken = try earshot(["speak", "--voice", voice, move, "-o", audio])
                #expect(spoken.status == 0, "\(spoken.standardError)")
                references[audio] = move
            }
        }
        func errors(_ options: [String], into folder: String, recognizer: String = "pocketsphinx") throws
            -> WordErrorRate
        {
            let output = directory.file(folder)
            let run = try earshot(
                ["transcribe", "--recognizer", recognizer, "--output-dir", output] + options
                    + references.keys.sorted())
            #expect(run.status == 0, "\(run.standardError)")
            return try references.map { audio, move in
                let name = ((audio as NSString).lastPathComponent as NSString).deletingPathExtension
                let text = try String(contentsOfFile: output + "/" + name + ".txt", encoding: .utf8)
                return WordErrorRate(reference: move, hypothesis: text)
            }.reduce(.zero, +)
        }
        let base = try errors([], into: "base")
        let custom = try errors(["--language-model", model], into: "custom")
        #expect(custom.errors * 2 <= base.errors, "WER \(base) without, \(custom) with the chess model")
        // Whisper: prompted with the vocabulary and biased toward it.
        let whisperBase = try errors([], into: "whisper-base", recognizer: "whisper")
        let whisperCustom = try errors(["--language-model", model], into: "whisper-custom", recognizer: "whisper")
        #expect(
            whisperCustom.errors * 2 <= whisperBase.errors,
            "Whisper WER \(whisperBase) without, \(whisperCustom) with the chess model")
        // Prompted with the model's words, Whisper used to say them again in the silence after the move
        // ("Play the Tartakower. Play the Tartakower." from slt): the tail after the last word, which the
        // window had already heard, was decoded alone. A move never comes out longer than it was said.
        for (audio, move) in references {
            let name = ((audio as NSString).lastPathComponent as NSString).deletingPathExtension
            let text = try String(
                contentsOfFile: directory.file("whisper-custom") + "/" + name + ".txt", encoding: .utf8)
            let count = { (text: String) in text.split(whereSeparator: { $0.isWhitespace }).count }
            #expect(count(text) <= count(move), "\(name): \"\(move)\" heard as \"\(text)\"")
        }
    }

    /// A model `lm build` makes from valid data must never crash PocketSphinx. Before, its custom
    /// pronunciations were added while the decoder's general model was still its search's model, so
    /// `ps_add_word` added each new word to the general model's trie, where it had no n-gram ranges:
    /// scoring a word after "Caro-Kann" read past the trie (SIGSEGV) on this clip of the second chess
    /// data set.
    @Test func pocketSphinxTakesTheOpeningsModelWithoutCrashing() throws {
        let directory = try TemporaryDirectory("earshot-lm")
        defer { directory.remove() }
        let model = directory.file("openings-lm")
        let build = try earshot([
            "lm", "build", repository + "/Examples/language-models/chess-openings.json", "--output", model,
        ])
        try #require(build.status == 0, "\(build.standardError)")
        func transcribe(voice: String, rate: String) throws -> ExternalTool.Result {
            let audio = directory.file("caro-kann-\(voice).wav")
            let spoken = try earshot(
                ["speak", "--voice", voice, "--rate", rate, "Answer with the Caro-Kann", "-o", audio])
            try #require(spoken.status == 0, "\(spoken.standardError)")
            return try earshot(["transcribe", "--recognizer", "pocketsphinx", "--language-model", model, audio])
        }
        let crashed = try transcribe(voice: "en-gb-x-rp", rate: "1.3")
        #expect(crashed.status == 0, "\(crashed.standardError.prefix(2000))")
        // The pronunciations still reach the decoder: Flite's awb is heard saying the name.
        let heard = try transcribe(voice: "awb", rate: "1.0")
        #expect(heard.status == 0 && heard.output.contains("caro-kann"), "\(heard.output)\(heard.standardError)")
    }

    /// `earshot serve --language-model chess=DIR`: chosen per request on the Speech API (X-Arg) and
    /// the OpenAI route (`model=…+chess`), with the same gain; unknown names are refused naming them.
    @Test func theServiceUsesTheModelOnBothAPIs() throws {
        let directory = try TemporaryDirectory("earshot-lm-serve")
        let model = directory.file("chess-lm")
        #expect(try earshot(["lm", "build", chessData, "--output", model]).status == 0)
        let server = try ServeCommandTests.Server(
            arguments: [
                "--recognizer", "pocketsphinx", "--language-model", "chess=" + model, "--language-model", model,
            ])
        defer { _ = server.stop() }
        let token = try ServeHardeningTests.token(server)
        let base = "http://127.0.0.1:\(server.port)"
        func curl(_ arguments: [String]) throws -> (status: Int, body: String) {
            let result = try ExternalTool.run(
                ["curl", "--silent", "--write-out", "\n%{http_code}", "--header", "Authorization: Bearer \(token)"]
                    + arguments)
            let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
        }
        // A bare DIR is served under its folder's name, as transcribe names it.
        let listed = try curl([base + "/v1/models"])
        #expect(
            listed.body.contains("pocketsphinx-en-us+chess-lm") && listed.body.contains("pocketsphinx-en-us+chess\""))
        func speechAPI(_ audio: String, languageModel: String?) throws -> (status: Int, body: String) {
            try curl(
                [
                    "--header", "Content-Type: audio/wav", "--header", "X-SpeechContext: Generic", "--data-binary",
                    "@" + audio,
                ]
                    + (languageModel.map { ["--header", "X-Arg: LanguageModel=\($0)"] } ?? [])
                    + [base + "/speech/v3/speechToText"])
        }
        func hypothesis(_ body: String) -> String {
            let document = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            let recognition = document?["Recognition"] as? [String: Any]
            return ((recognition?["NBest"] as? [[String: Any]])?.first?["Hypothesis"] as? String) ?? ""
        }
        func openAI(_ audio: String, model: String) throws -> (status: Int, body: String) {
            try curl(
                [
                    "--form", "model=\(model)", "--form", "file=@" + audio, "--form", "response_format=text",
                    base + "/v1/audio/transcriptions",
                ])
        }
        var errors: [String: Int] = [:]
        for (index, move) in Self.moves.prefix(5).enumerated() {
            let audio = directory.file("move-\(index).wav")
            #expect(try earshot(["speak", "--voice", "slt", move, "-o", audio]).status == 0)
            let answers = [
                ("speech base", try speechAPI(audio, languageModel: nil), true),
                ("speech chess", try speechAPI(audio, languageModel: "chess"), true),
                ("openai base", try openAI(audio, model: "pocketsphinx-en-us"), false),
                ("openai chess", try openAI(audio, model: "pocketsphinx-en-us+chess"), false),
                ("openai default chess", try openAI(audio, model: "whisper-1+chess"), false),
            ]
            for (name, answer, isDocument) in answers {
                #expect(answer.status == 200, "\(name): \(answer.body)")
                let text = isDocument ? hypothesis(answer.body) : answer.body
                errors[name, default: 0] += WordErrorRate(reference: move, hypothesis: text).errors
            }
        }
        #expect(errors["speech chess"]! * 2 <= errors["speech base"]!, "\(errors)")
        #expect(errors["openai chess"]! * 2 <= errors["openai base"]!, "\(errors)")
        // whisper-1 is the default model (PocketSphinx here), so whisper-1+chess is the same model.
        #expect(errors["openai default chess"] == errors["openai chess"], "\(errors)")
        // listen --language-model NAME: the same choice from the client, on both protocols.
        var listened: [String: Int] = [:]
        for (index, move) in Self.moves.prefix(3).enumerated() {
            let padded = directory.file("padded-\(index).wav")
            _ = try ExternalTool.run(["sox", directory.file("move-\(index).wav"), padded, "pad", "0.3", "1.5"])
            for (name, service) in [
                ("speech", ["--service", base + "/speech/v3/speechToText"]),
                ("openai", ["--service", base + "/v1/audio/transcriptions", "--model", "pocketsphinx-en-us"]),
            ] {
                for model in [nil, "chess"] {
                    // On a busy machine one answer took over 30 s (listen's default wait): the test
                    // is about the model, so it waits as long as the other listen tests do.
                    let run = try earshot(
                        ["listen", "--file", padded, "--token", token, "--server-response-timeout", "120"] + service
                            + (model.map { ["--language-model", $0] } ?? []))
                    #expect(run.status == 0, "\(run.standardError)")
                    listened["\(name) \(model ?? "base")", default: 0] +=
                        WordErrorRate(reference: move, hypothesis: run.output).errors
                }
            }
        }
        #expect(listened["speech chess"]! * 2 <= listened["speech base"]!, "\(listened)")
        #expect(listened["openai chess"]! * 2 <= listened["openai base"]!, "\(listened)")
        let clip = directory.file("move-0.wav")
        let unknownListen = try earshot(
            [
                "listen", "--file", directory.file("padded-0.wav"), "--token", token, "--language-model", "go",
                "--service", base + "/speech/v3/speechToText",
            ])
        #expect(
            unknownListen.status == 3 && unknownListen.standardError.contains("LanguageModel=go"),
            "\(unknownListen.standardError)")
        let unknown = try speechAPI(clip, languageModel: "go")
        #expect(unknown.status == 400 && unknown.body.contains("LanguageModel=go") && unknown.body.contains("chess"))
        let unknownModel = try openAI(clip, model: "whisper-1+go")
        #expect(unknownModel.status == 400 && unknownModel.body.contains("whisper-1+go"), "\(unknownModel.body)")
        let models = try curl([base + "/v1/models"])
        #expect(models.body.contains("pocketsphinx-en-us+chess"), "\(models.body)")
    }

    /// A word neither in the dictionary nor given a pronunciation is pronounced by espeak-ng and
    /// listed; PocketSphinx then recognizes it. `--no-guess-pronunciations` refuses it by name.
    @Test func aWordTheDictionaryLacksIsPronouncedByESpeak() throws {
        let directory = try TemporaryDirectory("earshot-lm-g2p")
        let data = directory.file("openings.json")
        try Data(
            #"{"locale": "en_US", "identifier": "openings", "version": "1", "phrases": [{"phrase": "Play the Zukertort opening", "count": 10}, {"phrase": "Play the Najdorf", "count": 10}]}"#
                .utf8
        ).write(to: URL(fileURLWithPath: data))
        let model = directory.file("openings-lm")
        let refused = try earshot(["lm", "build", data, "--output", model, "--no-guess-pronunciations"])
        #expect(refused.status == 2 && refused.standardError.contains("zukertort"), "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: model))

        let build = try earshot(["lm", "build", data, "--output", model])
        #expect(build.status == 0, "\(build.standardError)")
        #expect(build.standardError.contains("zukertort [Z Y UW K ER T AO R T]"), "\(build.standardError)")
        let dictionary = try String(contentsOfFile: model + "/pronunciations.dict", encoding: .utf8)
        #expect(dictionary.contains("zukertort Z Y UW K ER T AO R T\n") && dictionary.contains("najdorf "))

        let pronounced = try earshot(["lm", "pronounce", "Zukertort", "knight"])
        #expect(
            pronounced.output == "zukertort\tZ Y UW K ER T AO R T\tespeak-ng\nknight\tN AY T\tdictionary\n",
            "\(pronounced.output)")

        let audio = directory.file("zukertort.wav")
        #expect(try earshot(["speak", "--voice", "slt", "Play the Zukertort opening", "-o", audio]).status == 0)
        let heard = try earshot(["transcribe", "--recognizer", "pocketsphinx", "--language-model", model, audio])
        #expect(heard.output.lowercased().contains("zukertort"), "\(heard.output) \(heard.standardError)")
    }

    @Test func badDataAndBadDirectoriesGetClearErrors() throws {
        let directory = try TemporaryDirectory("earshot-lm-bad")
        let data = directory.file("bad.json")
        try Data(
            #"{"locale": "en_US", "identifier": "x", "version": "1", "templates": [{"classes": {"piece": ["pawn"]}, "templates": [{"template": "<piece> to <rank>", "count": 5}]}]}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: data))
        let refused = try earshot(["lm", "build", data, "--output", directory.file("out")])
        #expect(refused.status == 2)
        #expect(
            refused.standardError.contains(data)
                && refused.standardError.contains("templates[0].templates[0].template names <rank>"),
            "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
        let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav"
        let notModel = try earshot(
            ["transcribe", "--recognizer", "pocketsphinx", "--language-model", directory.path, clip])
        #expect(
            notModel.status != 0 && notModel.standardError.contains("not a custom language model"),
            "\(notModel.standardError)")
        let weightAlone = try earshot(["transcribe", "--language-model-weight", "0.5", clip])
        #expect(weightAlone.status == 1 && weightAlone.standardError.contains("--language-model"))
        for (value, recognizer) in [("-1", "whisper"), ("nan", "whisper"), ("1", "pocketsphinx")] {
            let tail = try earshot(["transcribe", "--recognizer", recognizer, "--skip-tail=" + value, clip])
            #expect(
                tail.status == 1 && tail.standardError.contains("--skip-tail") && tail.output.isEmpty,
                "\(value), \(recognizer): \(tail.standardError)")
        }
    }

    /// Issue 51, item 11: a corrupted model's ARPA file crashed `transcribe` (status 139) and the
    /// service at its first request for the model. Both now refuse it at start, naming the file.
    @Test func aCorruptedModelIsRefusedAtStart() throws {
        let directory = try TemporaryDirectory("earshot-lm-corrupt")
        let model = directory.file("chess-lm")
        #expect(try earshot(["lm", "build", chessData, "--output", model]).status == 0)
        var state: UInt64 = 11
        let random = Data(
            (0..<8_000).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            })
        let arpa = model + "/language-model.arpa"
        try random.write(to: URL(fileURLWithPath: arpa))
        let clip = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav"
        let transcribed = try earshot(["transcribe", "--recognizer", "pocketsphinx", "--language-model", model, clip])
        #expect(
            transcribed.status == 2 && transcribed.standardError.contains(arpa + ":"), "\(transcribed.standardError)")

        // The service: run until it either listens (the defect) or exits.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ExternalTool.earshotPath)
        process.arguments = ["serve", "--port", "0", "--recognizer", "pocketsphinx", "--language-model", "m=" + model]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var printed = Data()
        while !String(decoding: printed, as: UTF8.self).contains("listening on") {
            let data = errors.fileHandleForReading.availableData
            if data.isEmpty { break }
            printed += data
        }
        let listening = String(decoding: printed, as: UTF8.self).contains("listening on")
        if listening { process.interrupt() }
        printed += errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: printed, as: UTF8.self)
        #expect(!listening && process.terminationStatus == 2 && text.contains(arpa + ":"), "\(text)")
    }

    /// Issue 51, item 18: a word of a megabyte is refused naming the limit, in a message of a few lines.
    @Test func aBuildRefusesOversizedDataWithAShortMessage() throws {
        let directory = try TemporaryDirectory("earshot-lm-big")
        let data = directory.file("big.json")
        let word = String(repeating: "x", count: 1_000_000)
        try Data(
            #"{"locale": "en_US", "identifier": "x", "version": "1", "phrases": [{"phrase": "play \#(word)", "count": 1}]}"#
                .utf8
        ).write(to: URL(fileURLWithPath: data))
        let refused = try earshot(["lm", "build", data, "--output", directory.file("out")])
        #expect(
            refused.status == 2 && refused.standardError.contains("at most 64"), "\(refused.standardError.prefix(500))")
        #expect(refused.standardError.count < 1_000, "\(refused.standardError.count) characters")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
    }
}
