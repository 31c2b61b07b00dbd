import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

private func earshot(_ arguments: String...) throws -> ExternalTool.Result {
    try ExternalTool.run([ExternalTool.earshotPath] + arguments)
}

private let longSample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("corpora/long/sample").path

/// `--decoder` on the commands that run the embedded recognizer, and `earshot decoder-sweep`.
@Suite(.computing) struct DecoderCommandTests {
    @Test(arguments: [["transcribe", "x.wav"], ["serve"], ["bench", "--embedded", "--corpus", "x"]])
    func anUnknownPresetIsAUsageErrorNamingTheAcceptedOnes(command: [String]) throws {
        let result = try ExternalTool.run(
            [ExternalTool.earshotPath, command[0], "--decoder", "quick"] + command.dropFirst())
        #expect(result.status == 1)
        #expect(result.standardError.contains("'quick' is invalid for '--decoder <preset>'"))
        #expect(result.standardError.contains("'fast', 'balanced' or 'accurate'"))
    }

    /// Issue 51, item 2: a Whisper model the user named that does not load exits 3 naming it, where it
    /// used to become PocketSphinx with exit status 0; `--decoder` choosing PocketSphinx says so.
    @Test func aNamedWhisperModelThatDoesNotLoadIsAnErrorNotPocketSphinx() throws {
        let cards = "/usr/share/pocketsphinx/test/data/cards/004.wav"
        let typo = try ExternalTool.run(
            [ExternalTool.earshotPath, "transcribe", cards], environment: ["EARSHOT_WHISPER_MODEL": "./typo"])
        #expect(typo.status == 3, "\(typo.standardError)")
        #expect(typo.standardError.contains("EARSHOT_WHISPER_MODEL=./typo: not a Whisper model"), "\(typo.standardError)")
        #expect(typo.standardOutput.isEmpty)
        let folder = try earshot("transcribe", "--whisper-model", ".", cards)
        #expect(folder.status == 3, "\(folder.standardError)")
        #expect(folder.standardError.contains("--whisper-model .: not a Whisper model"), "\(folder.standardError)")
        #expect(!folder.standardError.contains("recognizing with PocketSphinx"))

        let accurate = try earshot("transcribe", "--decoder", "accurate", cards)
        #expect(accurate.status == 0, "\(accurate.standardError)")
        #expect(
            accurate.standardError.contains("--decoder is a PocketSphinx setting: recognizing with PocketSphinx"),
            "\(accurate.standardError)")
    }

    @Test func decoderIsRefusedWhereNoEmbeddedRecognizerRuns() throws {
        let result = try earshot(
            "transcribe", "--decoder", "fast", "--service", "http://127.0.0.1:9/speech/v3/speechToText", "x.wav")
        #expect(result.status == 1)
        #expect(result.standardError.contains("--decoder sets the embedded recognizer; the service has its own"))
    }

    @Test func transcriptJSONRecordsThePresetAndItsFlags() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let silence = directory.file("quiet.wav")
        let made = try ExternalTool.run(["sox", "-n", "-r", "16000", "-b", "16", "-c", "1", silence, "trim", "0", "1"])
        #expect(made.status == 0)
        for (preset, maxhmmpf) in [("fast", "1000"), ("balanced", "5000"), ("accurate", "30000")] {
            let result = try earshot("transcribe", "--decoder", preset, "--format", "json", silence)
            #expect(result.status == 0, "\(result.standardError)")
            let document = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
            let parameters = try #require(document["parameters"] as? [String: Any])
            #expect(parameters["decoder"] as? String == preset)
            #expect((parameters["decoder_arguments"] as? [String: String])?["-maxhmmpf"] == maxhmmpf)
        }
    }

    @Test func sweepWritesOneRowPerSettingAndResumes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let output = directory.file("front.csv")
        let first = try earshot("decoder-sweep", longSample, "--grid", "beam=1e-48", "-o", output)
        #expect(first.status == 0, "\(first.standardError)")
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let fields = lines[1].split(separator: ",")
        #expect(fields.count == 13 && fields[0] == "1e-48" && fields[1] == "2" && fields[2] == "22")
        let wer = try #require(Double(fields[6]))
        #expect(wer > 0 && wer < 0.7, "PocketSphinx finds most of the 22 words")
        #expect(fields[12] == "1", "alone, a setting is on the front")
        // Resuming with a wider grid keeps the finished row as written and adds the new one.
        let second = try earshot(
            "decoder-sweep", longSample, "--grid", "beam=1e-48,1e-30", "-o", output, "--resume", "--progress", "none")
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardError.contains("resuming \(output): 1 rows done"))
        let resumed = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        // The first row is kept up to its CPU seconds (its rtf is recomputed from them, its pareto anew).
        let kept = { (line: Substring) in line.split(separator: ",").prefix(9) }
        #expect(resumed.count == 3 && kept(resumed[1]) == kept(lines[1]) && resumed[2].hasPrefix("1e-30,2,22,"))
    }

    @Test func aBadGridFailsBeforeAnyDecodingAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try earshot("decoder-sweep", longSample, "--grid", "topGaussians=0", "-o", directory.file("x.csv"))
        #expect(result.status == 1)
        #expect(result.standardError.contains("topGaussians is 0; expected an integer from 1 to 256"))
        #expect(directory.contents().isEmpty)
    }
}
